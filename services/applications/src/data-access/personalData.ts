import { isSealed, type Sealer } from '@loan/runtime';
import type { Application } from '../domain/application';

/**
 * The applicant's identity (names, e-mail, phone), the accounts' holder names and a contest's
 * statement (the applicant's own words) are sealed when they enter the state (the application
 * opened or resumed, the contest made) and stay sealed in the state, the database and the outbox; they are opened only for what a person or the lender's API must read (a status read,
 * the list, the review queue) and for the provider's widget.
 */

/** Seals a value unless it already is (an empty string has nothing to hide). */
const sealOnce = (sealer: Sealer, value: string) => (value === '' || isSealed(value) ? value : sealer.seal(value));

/**
 * The state with every piece of identity sealed. Documents written before identity was sealed
 * hold it in plain text; whatever change comes next writes it back sealed.
 */
export function sealIdentity(sealer: Sealer, state: Application): Application {
  const { applicant } = state;
  return {
    ...state,
    applicant: {
      ...applicant,
      firstName: sealOnce(sealer, applicant.firstName),
      lastName: sealOnce(sealer, applicant.lastName),
      email: sealOnce(sealer, applicant.email),
      phone: applicant.phone === null ? null : sealOnce(sealer, applicant.phone),
    },
    accounts: state.accounts.map((a) => ({ ...a, holderName: sealOnce(sealer, a.holderName) })),
    ...(state.contest ? { contest: { ...state.contest, statement: sealOnce(sealer, state.contest.statement) } } : {}),
  };
}

/** The state with its identity readable, for a view; plain text written before sealing passes through. */
export function openIdentity(sealer: Sealer, state: Application): Application {
  const { applicant } = state;
  return {
    ...state,
    applicant: {
      ...applicant,
      firstName: sealer.reveal(applicant.firstName),
      lastName: sealer.reveal(applicant.lastName),
      email: sealer.reveal(applicant.email),
      phone: applicant.phone === null ? null : sealer.reveal(applicant.phone),
    },
    accounts: state.accounts.map((a) => ({ ...a, holderName: sealer.reveal(a.holderName) })),
    ...(state.contest ? { contest: { ...state.contest, statement: sealer.reveal(state.contest.statement) } } : {}),
  };
}

/** The identity as given at initiate, sealed, with the sealed BVN: what the state keeps of the applicant. */
export function sealedApplicant(
  sealer: Sealer,
  identity: { firstName: string; lastName: string; email: string; phone?: string | null },
  bvnSealed: string | null,
): Application['applicant'] {
  return {
    firstName: sealer.seal(identity.firstName),
    lastName: sealer.seal(identity.lastName),
    email: sealer.seal(identity.email),
    phone: identity.phone ? sealer.seal(identity.phone) : null,
    bvnSealed,
  };
}
