import type { DeadlinePassed } from '@loan/contracts';
import { type Change, type EnrichmentJob, event, isActive, result } from '../job';

/**
 * The enrichment timeout passed. It counts only for the attempt it was set for (its `since`
 * is the attempt's start; a restart since then makes it stale) and only while the account is
 * still pending: it then fails, and the lender is told to re-link.
 */
export function expireJob(job: EnrichmentJob, deadline: DeadlinePassed, now: Date): Change | null {
  if (deadline.kind !== 'enrichment_timeout') return null;
  if (!isActive(job)) return null;
  if (Date.parse(deadline.since) !== Date.parse(job.since)) return null;
  return {
    job: { ...job, status: 'FAILED', failedAt: now, nextTryAt: null, updatedAt: now },
    effects: [
      event('account.enrichment_failed', {
        accountId: job.accountId,
        providerAccountId: job.providerAccountId,
        applicantId: job.applicantId,
        reason: 'enrichment_timeout',
        message:
          'Income analysis and statement insights did not complete in time for this account. Re-link it through link-account to restart enrichment.',
      }),
      result({
        type: 'EnrichmentTimedOut',
        applicantId: job.applicantId,
        accountId: job.accountId,
        providerAccountId: job.providerAccountId,
        attempt: job.attempt,
      }),
    ],
  };
}
