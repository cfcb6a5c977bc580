import {
  CONSENT_WORDING_VERSION,
  type ConsentEndReason,
  type ConsentView,
  CONSENT_DATA,
  CONSENT_PURPOSE,
  type DeadlinePassed,
  type EnrichmentResult,
  CONSENT_IDLE_DAYS,
  CONSENT_VALID_DAYS,
} from '@loan/contracts';
import { v5 as uuidv5 } from 'uuid';
import { type Application, type Effect, type LinkedAccount, type Outcome, event, fact, reject } from '../application';

/** The applicant's consent to read one linked account, as the application keeps it. */
export interface Consent {
  consentId: string;
  wordingVersion: string;
  givenAt: Date;
  expiresAt: Date;
  lastUsedAt: Date;
  lapsesAt: Date;
  endedAt: Date | null;
  endReason: ConsentEndReason | null;
  unlinkedAt: Date | null;
  bankDataErasedAt: Date | null;
}

/** How long a consent lasts from when it was given, and without use (milliseconds). */
export interface ConsentTerms {
  validityMs: number;
  idleMs: number;
}
export const DEFAULT_CONSENT_TERMS: ConsentTerms = {
  validityMs: CONSENT_VALID_DAYS * 86_400_000,
  idleMs: CONSENT_IDLE_DAYS * 86_400_000,
};
const after = (at: Date, ms: number) => new Date(at.getTime() + ms);

/** Namespace of consent ids: one consent per account link, the same on every redelivery. */
const CONSENT_ID_NAMESPACE = '9d7c5a1e-3b2f-4e6d-8a90-1c2b3d4e5f60';

/** The consent given as the provider reported the account linked (the widget's consent box). */
export const consentGiven = (accountId: string, at: Date, terms: ConsentTerms): Consent => ({
  consentId: uuidv5(accountId, CONSENT_ID_NAMESPACE),
  wordingVersion: CONSENT_WORDING_VERSION,
  givenAt: at,
  expiresAt: after(at, terms.validityMs),
  lastUsedAt: at,
  lapsesAt: after(at, terms.idleMs),
  endedAt: null,
  endReason: null,
  unlinkedAt: null,
  bankDataErasedAt: null,
});

/**
 * The consent as the `AccountLinked` fact carries it: what the janitor times the expiry and the
 * lapse from, and how long without use lapses it (moved by the account's first enrichment).
 */
export const consentOnLink = (consent: Consent, terms: ConsentTerms) => ({
  consentId: consent.consentId,
  givenAt: consent.givenAt.toISOString(),
  expiresAt: consent.expiresAt.toISOString(),
  lapsesAt: consent.lapsesAt.toISOString(),
  idleLapseMs: terms.idleMs,
});

/** When a consent last used at `at` lapses: `idleMs` later, never past its own expiry. */
export const lapseAfterUse = (consent: Pick<Consent, 'expiresAt'>, at: Date, idleMs: number): Date =>
  new Date(Math.min(at.getTime() + idleMs, consent.expiresAt.getTime()));

/** Where the signed deletion receipt of an account's ended consent is read on the lender API. */
export const receiptPath = (applicationId: string, accountId: string) =>
  `/api/applications/${applicationId}/accounts/${accountId}/consent/receipt`;

export function toConsentView(applicationId: string, account: LinkedAccount): ConsentView | undefined {
  const consent = account.consent;
  if (!consent) return undefined;
  const iso = (at: Date | null) => (at ? at.toISOString() : null);
  const erased = consent.unlinkedAt !== null && consent.bankDataErasedAt !== null;
  return {
    consentId: consent.consentId,
    status: consent.endReason ?? 'ACTIVE',
    data: [...CONSENT_DATA],
    purpose: CONSENT_PURPOSE,
    wordingVersion: consent.wordingVersion,
    givenAt: consent.givenAt.toISOString(),
    expiresAt: consent.expiresAt.toISOString(),
    lastUsedAt: consent.lastUsedAt.toISOString(),
    lapsesAt: consent.lapsesAt.toISOString(),
    endedAt: iso(consent.endedAt),
    endReason: consent.endReason,
    unlinkedAt: iso(consent.unlinkedAt),
    bankDataErasedAt: iso(consent.bankDataErasedAt),
    receipt: erased ? receiptPath(applicationId, account.accountId) : null,
  };
}

/**
 * The account's data was read (its first enrichment, at the enrichment's own `at`): the 180
 * days without use start again. The janitor moves the lapse deadline from the same
 * `AccountEnriched` fact, by the same rule (`lapseAfterUse`), so no fact of its own is sent.
 */
export function consentUsed(account: LinkedAccount, at: Date, terms: ConsentTerms): LinkedAccount {
  const consent = account.consent;
  if (!consent || consent.endedAt || at.getTime() <= consent.lastUsedAt.getTime()) return account;
  return { ...account, consent: { ...consent, lastUsedAt: at, lapsesAt: lapseAfterUse(consent, at, terms.idleMs) } };
}

/** The states in which an application no longer reads or assesses its accounts. */
const CLOSED = new Set(['COMPLETED', 'FAILED', 'ABANDONED']);

function endConsent(
  state: Application,
  account: LinkedAccount,
  reason: ConsentEndReason,
  now: Date,
): { state: Application; effects: Effect[] } {
  const consent = account.consent!;
  const ended: Consent = { ...consent, endedAt: now, endReason: reason };
  return {
    state: {
      ...state,
      accounts: state.accounts.map((a) => (a.accountId === account.accountId ? { ...a, consent: ended } : a)),
      updatedAt: now,
    },
    effects: [
      event('account.consent_ended', {
        applicationId: state.applicationId,
        applicantId: state.applicantId,
        accountId: account.accountId,
        consentId: consent.consentId,
        reason,
        endedAt: now.toISOString(),
      }),
      fact({
        type: 'ConsentEnded',
        accountId: account.accountId,
        consentId: consent.consentId,
        reason,
        endedAt: now.toISOString(),
      }),
    ],
  };
}

/**
 * withdrawConsent: the applicant withdraws consent to read one account, through the lender.
 * Once the application is decided or closed (while it is being assessed, its accounts are in
 * use: the lender waits for the decision). A consent that already ended is a 400 that says when
 * and why.
 */
export function withdrawConsent(
  state: Application,
  accountId: string,
  now: Date,
): Outcome<{ applicationId: string; accountId: string; consent: ConsentView | null }> {
  const account = state.accounts.find((a) => a.accountId === accountId);
  if (!account) return reject('NOT_FOUND', `Account ${accountId} is not linked to application ${state.applicationId}`);
  const consent = account.consent;
  if (!consent)
    return reject(
      'INVALID_STATE',
      `Account ${accountId} was linked before consent was recorded; it has no consent to withdraw`,
    );
  if (consent.endedAt)
    return reject(
      'INVALID_STATE',
      `The consent to read account ${accountId} already ended (${consent.endReason}) at ${consent.endedAt.toISOString()}`,
    );
  if (!CLOSED.has(state.status))
    return reject(
      'INVALID_STATE',
      `Application is ${state.status}: consent can be withdrawn once it is decided or closed, its accounts are being assessed now`,
    );
  const ended = endConsent(state, account, 'WITHDRAWN', now);
  const endedAccount = ended.state.accounts.find((a) => a.accountId === accountId)!;
  return {
    ok: true,
    state: ended.state,
    effects: ended.effects,
    result: {
      applicationId: state.applicationId,
      accountId,
      consent: toConsentView(state.applicationId, endedAccount) ?? null,
    },
  };
}

/**
 * A consent deadline the janitor saw pass: 12 months since it was given (EXPIRED), or 180 days
 * since its last use (LAPSED). It counts only for the period it was set for: a later use makes
 * a lapse stale, and an ended consent ends once.
 */
export function expireConsent(
  state: Application,
  deadline: DeadlinePassed,
  now: Date,
): { state: Application; effects: Effect[] } | null {
  const account = state.accounts.find((a) => a.accountId === deadline.accountId);
  const consent = account?.consent;
  if (!account || !consent || consent.endedAt) return null;
  if (deadline.kind === 'consent_expiry' && consent.givenAt.toISOString() === deadline.since)
    return endConsent(state, account, 'EXPIRED', now);
  if (deadline.kind === 'consent_lapse' && consent.lastUsedAt.toISOString() === deadline.since)
    return endConsent(state, account, 'LAPSED', now);
  return null;
}

/**
 * Enrichment erased an ended consent's account (bank data deleted, unlinked at the provider):
 * the application keeps the account's institution and last four digits, and the lender is told
 * that the deletion receipt is ready.
 */
export function recordErasure(
  state: Application,
  result: Extract<EnrichmentResult, { type: 'BankDataScrubbed' }>,
  now: Date,
): { state: Application; effects: Effect[] } | null {
  const erased = result.consent;
  if (!erased) return null;
  const account = state.accounts.find((a) => a.accountId === erased.accountId);
  const consent = account?.consent;
  if (!account || !consent || consent.consentId !== erased.consentId || consent.bankDataErasedAt) return null;
  const done: Consent = { ...consent, unlinkedAt: new Date(erased.unlinkedAt), bankDataErasedAt: new Date(result.at) };
  const masked = /^\*+\d{0,4}$/.test(account.accountNumber)
    ? account.accountNumber
    : `******${account.accountNumber.slice(-4)}`;
  return {
    state: {
      ...state,
      accounts: state.accounts.map((a) =>
        a.accountId === account.accountId
          ? { ...a, accountNumber: masked, holderName: '', monthlyFlows: [], consent: done }
          : a,
      ),
      updatedAt: now,
    },
    effects: [
      event('account.data_erased', {
        applicationId: state.applicationId,
        applicantId: state.applicantId,
        accountId: account.accountId,
        consentId: consent.consentId,
        unlinkedAt: erased.unlinkedAt,
        bankDataErasedAt: result.at,
        receipt: receiptPath(state.applicationId, account.accountId),
      }),
    ],
  };
}
