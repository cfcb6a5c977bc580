import type { EnrichedAccount } from '@loan/contracts';
import { bothDone } from '../advanceEnrichment/decide';
import { type Change, event, isActive, result } from '../job';

/**
 * Both analyses are in and the statement is read: the account is enriched. The public event
 * goes out before the profile for scoring, once per attempt; a second completion of the same
 * attempt (a duplicate webhook, a second worker) changes nothing.
 */
export function completeJob(
  job: Change['job'],
  input: { attempt: number; profile: EnrichedAccount; now: Date },
): Change | null {
  if (!isActive(job) || job.attempt !== input.attempt || !bothDone(job)) return null;
  return {
    job: {
      ...job,
      status: 'READY',
      enrichedAt: input.now,
      nextTryAt: null,
      failures: 0,
      lastError: null,
      updatedAt: input.now,
    },
    effects: [
      event('account.enrichment_ready', {
        accountId: job.accountId,
        providerAccountId: job.providerAccountId,
        applicantId: job.applicantId,
        applicationId: job.applicationId,
        message: 'Income analysis and statement insights have both completed for this account',
      }),
      result({
        type: 'AccountEnriched',
        applicantId: job.applicantId,
        accountId: job.accountId,
        providerAccountId: job.providerAccountId,
        attempt: job.attempt,
        profile: input.profile,
      }),
    ],
  };
}
