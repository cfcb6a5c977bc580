import type { ApplicationFact } from '@loan/contracts';
import { type Change, type EnrichmentJob, emptyIncome, emptyInsights, remember, result } from '../job';

type ConsentEnded = Extract<ApplicationFact, { type: 'ConsentEnded' }>;

/**
 * The applicant's consent to read the account ended (withdrawn, expired or lapsed): nothing more
 * is fetched, its bank data goes as in a scrub, and the account is to be unlinked at the
 * provider (`unlinkPending` until it is). Once per consent: a redelivery changes nothing.
 */
export function endConsent(job: EnrichmentJob, fact: ConsentEnded, now: Date): EnrichmentJob | null {
  if (job.consentEnd || job.handledFacts.includes(fact.factId)) return null;
  return {
    ...job,
    closedAt: job.closedAt ?? now,
    nextTryAt: null,
    accountNumber: null,
    income: { ...emptyIncome(), status: job.income.status },
    insights: { ...emptyInsights(), status: job.insights.status },
    scrubbedAt: job.scrubbedAt ?? now,
    handledFacts: remember(job.handledFacts, fact.factId),
    consentEnd: {
      consentId: fact.consentId,
      reason: fact.reason,
      endedAt: fact.endedAt,
      unlinkedAt: null,
      unlinkFailures: 0,
      lastUnlinkError: null,
    },
    unlinkPending: true,
    updatedAt: now,
  };
}

/**
 * The provider unlinked the account: the erasure is complete, and the applications service is
 * told (it keeps the deletion receipt's facts; scoring drops the application's profiles).
 */
export function unlinked(job: EnrichmentJob, now: Date): Change | null {
  if (!job.unlinkPending) return null;
  const end = job.consentEnd;
  // An abandoned application's account: its scrub was announced already.
  if (!end) return { job: { ...job, unlinkPending: false, updatedAt: now }, effects: [] };
  if (end.unlinkedAt) return null;
  return {
    job: { ...job, consentEnd: { ...end, unlinkedAt: now.toISOString() }, unlinkPending: false, updatedAt: now },
    effects: [
      result({
        type: 'BankDataScrubbed',
        accountIds: [job.accountId],
        consent: { accountId: job.accountId, consentId: end.consentId, unlinkedAt: now.toISOString() },
      }),
    ],
  };
}

/** The provider could not be reached to unlink: tried again after a backoff. */
export function unlinkFailed(job: EnrichmentJob, error: string, now: Date): EnrichmentJob | null {
  if (!job.unlinkPending) return null;
  const end = job.consentEnd;
  if (!end) return { ...job, lastError: error.slice(0, 500), failures: job.failures + 1, updatedAt: now };
  return {
    ...job,
    consentEnd: { ...end, unlinkFailures: end.unlinkFailures + 1, lastUnlinkError: error.slice(0, 500) },
    updatedAt: now,
  };
}

/** How long after its `failures`-th failed attempt an unlink is tried again: 5 s doubling to 10 minutes. */
export const unlinkBackoffMs = (failures: number): number => Math.min(5_000 * 2 ** Math.max(0, failures - 1), 600_000);
