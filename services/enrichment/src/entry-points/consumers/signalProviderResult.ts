import type { ProviderCallback } from '@loan/contracts';
import type { InboundMessage } from '@loan/runtime';
import { type EnrichmentJob, type EnrichmentPart, isActive } from '../../domain/job';
import type { UseCaseDeps } from '../deps';

/** The provider webhooks that announce a part of the enrichment; the others concern it not. */
const PART_OF: Partial<Record<ProviderCallback['kind'], EnrichmentPart>> = {
  income_ready: 'income',
  statement_insights_ready: 'insights',
};
export const PROVIDER_CALLBACKS_ACTED_ON = Object.keys(PART_OF) as ProviderCallback['kind'][];

/**
 * A provider webhook: the part it announces is fetched now rather than at the next poll. The
 * announcement is not written: it is kept in memory and the worker acts on it at once, and
 * the webhook's offset is held until the job's write that carries the result lands, so that
 * a crash before it has the webhook handled again. A webhook verified with one client's own
 * provider secret (`clientId`) concerns only that client's jobs.
 */
export function createProviderCallbackHandler(
  deps: Pick<UseCaseDeps, 'writer' | 'jobs' | 'index' | 'progress' | 'clock' | 'kick'>,
) {
  const { writer, jobs, index, progress } = deps;
  return async function onProviderCallback(callback: ProviderCallback, message?: Pick<InboundMessage, 'commitAfter'>) {
    const part = PART_OF[callback.kind];
    if (!part) return;
    const concerned = (job: EnrichmentJob | undefined): job is EnrichmentJob =>
      job !== undefined &&
      isActive(job) &&
      job.providerAccountId === callback.providerAccountId &&
      (!callback.clientId || job.clientId === callback.clientId);
    for (const accountId of await index.byProviderAccount(callback.providerAccountId)) {
      // As this process last wrote it; anything that would pass the webhook over is checked afresh.
      let job = writer.remembered(accountId)?.job;
      if (!concerned(job) || job[part].status === 'DONE') job = (await jobs.get(accountId))?.job;
      if (!concerned(job) || job[part].status === 'DONE') continue;
      const held = progress.announce(job, part, deps.clock.now());
      message?.commitAfter?.(held);
      // Also when the result was fetched already (a redelivery): work resumes now.
      deps.kick(accountId);
    }
  };
}
