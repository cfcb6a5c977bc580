import type { ProviderAccount } from '@loan/contracts';
import { type Application, event, fact, remember } from '../application';
import type { Effect } from '../application';
import { type ConsentTerms, DEFAULT_CONSENT_TERMS, consentGiven, consentOnLink } from '../consent/decide';
import { transition } from '../stateMachine';

export type LinkOutcome =
  | { kind: 'linked'; state: Application; effects: Effect[]; accountId: string }
  | { kind: 'duplicate' }
  | { kind: 'refused'; reason: string; state: Application };

/**
 * An account the provider reports linked for this application. A provider account already on
 * the application is the same account (one account, one event); links after finalize-linking
 * or outside the linking states are refused.
 */
export function recordAccountLink(
  state: Application,
  input: { callbackId: string; accountId: string; account: ProviderAccount; now: Date; consentTerms?: ConsentTerms },
): LinkOutcome {
  if (state.handled.includes(input.callbackId)) return { kind: 'duplicate' };
  if (state.accounts.some((a) => a.providerAccountId === input.account.id)) return { kind: 'duplicate' };
  const remembered = { ...state, handled: remember(state.handled, input.callbackId) };
  const next = transition(state.status, 'link_account');
  if (!next) return { kind: 'refused', reason: `application is ${state.status}`, state: remembered };
  if (state.linkingLocked) return { kind: 'refused', reason: 'linking was finalized', state: remembered };
  const terms = input.consentTerms ?? DEFAULT_CONSENT_TERMS;
  const account = {
    accountId: input.accountId,
    providerAccountId: input.account.id,
    institution: input.account.institution.name,
    accountNumber: input.account.accountNumber,
    holderName: input.account.holderName,
    enrichmentStatus: 'PENDING' as const,
    linkedAt: input.now,
    enrichedAt: null,
    monthlyFlows: [],
    consent: consentGiven(input.accountId, input.now, terms),
  };
  return {
    kind: 'linked',
    accountId: input.accountId,
    state: {
      ...remembered,
      status: next,
      accounts: [...state.accounts, account],
      firstLinkedAt: state.firstLinkedAt ?? input.now,
      updatedAt: input.now,
    },
    effects: [
      event('account.linked', {
        applicationId: state.applicationId,
        applicantId: state.applicantId,
        accountId: account.accountId,
        institution: account.institution,
        accountNumber: account.accountNumber,
      }),
      fact({
        type: 'AccountLinked',
        applicantId: state.applicantId,
        accountId: account.accountId,
        providerAccountId: account.providerAccountId,
        institution: account.institution,
        accountNumber: account.accountNumber,
        providerKey: state.providerKeySealed,
        consent: consentOnLink(account.consent, terms),
      }),
    ],
  };
}
