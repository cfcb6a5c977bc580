import type { ApplicationFact } from '@loan/contracts';
import { openJob } from '../../domain/startEnrichment/decide';
import { leaseFrom, type UseCaseDeps } from '../deps';

type AccountLinked = Extract<ApplicationFact, { type: 'AccountLinked' }>;

/** An account was linked: its job is created, once per account, and work on it starts. */
export function createAccountLinkedHandler(
  deps: Pick<UseCaseDeps, 'writer' | 'clock' | 'logger' | 'metrics' | 'leaseMs' | 'kick'>,
) {
  const { writer, clock, logger, metrics } = deps;
  const lease = leaseFrom(deps.leaseMs);
  return async function onAccountLinked(fact: AccountLinked) {
    const now = clock.now();
    // One job per account: a redelivered fact finds it exists (the insert is refused).
    const job = openJob(null, fact, { now, leaseUntil: lease(now) });
    if (!job || !(await writer.insertJob(job))) return;
    metrics.jobs.inc({ outcome: 'started' });
    logger.info({ accountId: job.accountId, applicationId: job.applicationId }, 'enrichment started');
    deps.kick(job.accountId);
  };
}
