import type { ApplicationFact } from '@loan/contracts';
import { type EnrichmentJob, emptyIncome, emptyInsights, remember } from '../job';

type ApplicationClosed = Extract<ApplicationFact, { type: 'ApplicationClosed' }>;

/** Abandoned without analysis (`no_analyze`): the applicant's bank data must go. */
export const mustScrub = (fact: ApplicationClosed): boolean => fact.abandonReason === 'no_analyze';

/**
 * The application was closed. Pending work on its accounts stops (nobody needs it any more);
 * with `scrub` (abandoned without analysis, or the retention period of a decided application
 * ended) the provider's results and the account details we hold are dropped as well. The
 * status is kept: it answers what happened.
 */
export function closeJob(
  job: EnrichmentJob,
  fact: Pick<ApplicationClosed, 'factId'>,
  now: Date,
  scrub: boolean,
  unlink = false,
): EnrichmentJob | null {
  if (job.handledFacts.includes(fact.factId)) return null;
  if (job.closedAt && (!scrub || job.scrubbedAt)) return null;
  const closed: EnrichmentJob = {
    ...job,
    closedAt: job.closedAt ?? now,
    nextTryAt: null,
    handledFacts: remember(job.handledFacts, fact.factId),
    updatedAt: now,
  };
  if (!scrub) return closed;
  return {
    ...closed,
    accountNumber: null,
    income: { ...emptyIncome(), status: job.income.status },
    insights: { ...emptyInsights(), status: job.insights.status },
    scrubbedAt: now,
    // Abandoned: nothing will read the account again, so its link at the provider ends too.
    ...(unlink ? { unlinkPending: true } : {}),
  };
}
