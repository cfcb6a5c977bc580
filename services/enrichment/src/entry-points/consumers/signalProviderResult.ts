import type { ProviderCallback } from '@loan/contracts';
import { signalPart } from '../../domain/advanceEnrichment/decide';
import { type EnrichmentJob, type EnrichmentPart, isActive } from '../../domain/job';
import { leaseFrom, type UseCaseDeps } from '../deps';

/** The provider webhooks that announce a part of the enrichment; the others concern it not. */
const PART_OF: Partial<Record<ProviderCallback['kind'], EnrichmentPart>> = {
  income_ready: 'income',
  statement_insights_ready: 'insights',
};
export const PROVIDER_CALLBACKS_ACTED_ON = Object.keys(PART_OF) as ProviderCallback['kind'][];

/** A provider webhook: the part it announces is fetched now rather than at the next poll. */
export function createProviderCallbackHandler(deps: Pick<UseCaseDeps, 'writer' | 'index' | 'leaseMs' | 'kick'>) {
  const { writer, index } = deps;
  const lease = leaseFrom(deps.leaseMs);
  return async function onProviderCallback(callback: ProviderCallback) {
    const part = PART_OF[callback.kind];
    if (!part) return;
    const ours = (job: EnrichmentJob) => job.providerAccountId === callback.providerAccountId;
    for (const accountId of await index.byProviderAccount(callback.providerAccountId)) {
      const { current } = await writer.change(accountId, (job, now) =>
        ours(job) ? signalPart(job, { part, at: now, leaseUntil: lease(now), clientId: callback.clientId }) : null,
      );
      // Also when the signal was recorded already (a redelivery after a crash): work resumes now.
      if (current && isActive(current) && ours(current) && (!callback.clientId || current.clientId === callback.clientId)) deps.kick(accountId);
    }
  };
}
