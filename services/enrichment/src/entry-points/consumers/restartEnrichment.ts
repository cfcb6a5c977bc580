import type { ApplicationFact } from '@loan/contracts';
import { restartJob } from '../../domain/startEnrichment/decide';
import { leaseFrom, type UseCaseDeps } from '../deps';

type EnrichmentRestartRequested = Extract<ApplicationFact, { type: 'EnrichmentRestartRequested' }>;

/**
 * An account was re-linked: its enrichment starts again (attempt + 1, results dropped), on a
 * job created now if there was none.
 */
export function createRestartHandler(
  deps: Pick<UseCaseDeps, 'writer' | 'jobs' | 'index' | 'clock' | 'logger' | 'metrics' | 'leaseMs' | 'kick'>,
) {
  const { writer, jobs, index, clock, logger, metrics } = deps;
  const lease = leaseFrom(deps.leaseMs);
  return async function onRestartRequested(fact: EnrichmentRestartRequested): Promise<void> {
    // The restart may bring another provider account: it must lead to the job before the
    // provider jobs of the new attempt are started.
    await index.add(fact);
    const existing = writer.remembered(fact.accountId) ?? (await jobs.get(fact.accountId));
    if (!existing) {
      const now = clock.now();
      const job = restartJob(null, fact, { now, leaseUntil: lease(now) });
      if (!job) return;
      if (!(await writer.insertJob(job))) return onRestartRequested(fact);
      metrics.jobs.inc({ outcome: 'started' });
      deps.kick(job.accountId);
      return;
    }
    const restarted = await writer.mutate(fact.accountId, (job, now) =>
      restartJob(job, fact, { now, leaseUntil: lease(now) }),
    );
    if (!restarted) return;
    metrics.jobs.inc({ outcome: 'restarted' });
    logger.info({ accountId: restarted.accountId, attempt: restarted.attempt }, 'enrichment restarted');
    deps.kick(restarted.accountId);
  };
}
