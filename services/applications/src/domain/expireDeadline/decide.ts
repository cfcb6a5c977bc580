import type { DeadlinePassed } from '@loan/contracts';
import { type Application, type Effect, closedFact, event } from '../application';
import { expireConsent } from '../consent/decide';
import { expireOffer } from '../respondToOffer/decide';
import { transition } from '../stateMachine';

const MESSAGES = {
  no_link:
    'No bank account was linked within the allowed time; the widget address has expired. Initiate a fresh application.',
  no_analyze:
    'Analyze was not called within the allowed time after account linking; bank data has been scrubbed. Initiate a fresh application.',
} as const;

/**
 * A deadline the janitor saw pass. It counts only if it is the deadline of the current period
 * (a resume or a link since then makes it stale) and the application still has not acted.
 */
export function expireDeadline(
  state: Application,
  deadline: DeadlinePassed,
  now: Date,
): { state: Application; effects: Effect[] } | null {
  if (deadline.kind === 'enrichment_timeout') return null;
  // The end of the records' retention deletes the application (retainRecords), no state change.
  if (deadline.kind === 'record_retention') return null;
  if (deadline.kind === 'bank_data_retention') return forgetBankData(state, now);
  if (deadline.kind === 'analysis_timeout') return failAnalysis(state, deadline, now);
  if (deadline.kind === 'consent_expiry' || deadline.kind === 'consent_lapse')
    return expireConsent(state, deadline, now);
  if (deadline.kind === 'offer_expiry') return expireOffer(state, deadline, now);
  const since = deadline.kind === 'no_link' ? state.linkWindowStart : state.firstLinkedAt;
  if (!since || since.toISOString() !== deadline.since) return null;
  if (deadline.kind === 'no_link' && state.accounts.length > 0) return null;
  const next = transition(state.status, deadline.kind === 'no_link' ? 'cleanup_no_link' : 'cleanup_no_analyze');
  if (!next) return null;
  const reason = deadline.kind;
  const abandoned: Application = {
    ...state,
    status: next,
    abandonReason: reason,
    updatedAt: now,
    // Abandonment scrubs the applicant's bank data; what remains answers the status.
    accounts: [],
    linkingLocked: false,
    linkingLockedAt: null,
    readyAnnounced: false,
    firstLinkedAt: null,
    applicant: { ...state.applicant, bvnSealed: null },
  };
  return {
    state: abandoned,
    effects: [
      event('application.abandoned', {
        applicationId: state.applicationId,
        applicantId: state.applicantId,
        reason,
        message: MESSAGES[reason],
      }),
      closedFact(state, next, reason),
    ],
  };
}

/** An analysis with no outcome in time: the application fails, so PROCESSING always ends. */
function failAnalysis(
  state: Application,
  deadline: DeadlinePassed,
  now: Date,
): { state: Application; effects: Effect[] } | null {
  if (state.analysis?.requestedAt.toISOString() !== deadline.since) return null;
  const next = transition(state.status, 'analysis_failed');
  if (!next) return null;
  const reason = 'analysis_timeout';
  return {
    state: { ...state, status: next, failureReason: reason, updatedAt: now },
    effects: [
      event('application.failed', {
        applicationId: state.applicationId,
        applicantId: state.applicantId,
        status: 'FAILED',
        reason,
      }),
      closedFact(state, next, null),
    ],
  };
}

/**
 * The retention period of a decided application's bank data ended: the linked accounts keep
 * their institution and status (the lender's view still answers), but the account number is cut
 * to its last four digits and the bank's holder name goes. Nothing is published.
 */
function forgetBankData(state: Application, now: Date): { state: Application; effects: Effect[] } | null {
  if (state.status !== 'COMPLETED' && state.status !== 'FAILED') return null;
  const masked = (n: string) => /^\*+\d{0,4}$/.test(n);
  if (state.accounts.every((a) => masked(a.accountNumber) && a.holderName === '' && a.monthlyFlows.length === 0))
    return null;
  return {
    state: {
      ...state,
      accounts: state.accounts.map((a) => ({
        ...a,
        accountNumber: masked(a.accountNumber) ? a.accountNumber : `******${a.accountNumber.slice(-4)}`,
        holderName: '',
        // The statement's months are bank data too.
        monthlyFlows: [],
      })),
      updatedAt: now,
    },
    effects: [],
  };
}
