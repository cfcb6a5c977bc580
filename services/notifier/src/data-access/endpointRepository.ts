import type { ClientChanged } from '@loan/contracts';
import { applyVersioned, type Clock } from '@loan/runtime';
import type { Endpoint } from '../domain/delivery';
import type { NotifierModels } from './models';

type EndpointDoc = {
  _id: string;
  webhookUrl: string | null;
  webhookSecrets: { secret: string; validUntil: Date | null }[];
  version: number;
};

const toEndpoint = (doc: EndpointDoc): Endpoint => ({
  clientId: doc._id,
  webhookUrl: doc.webhookUrl ?? null,
  webhookSecrets: (doc.webhookSecrets ?? []).map((s) => ({
    secret: s.secret,
    validUntil: s.validUntil ? new Date(s.validUntil) : null,
  })),
  version: doc.version,
});

/**
 * The projection of client accounts from `loan.gateway.clients`: the highest version wins, so a
 * replayed or reordered change never undoes a newer one. Reads are cached briefly: a change
 * reaches every replica's attempts within `cacheMs`.
 */
export function createEndpointRepository(deps: { model: NotifierModels['endpoints']; clock: Clock; cacheMs: number }) {
  const { model, clock } = deps;
  const cache = new Map<string, { endpoint: Endpoint | null; until: number }>();

  return {
    /** Applies a client change; false when the projection already holds that version or a newer one. */
    async apply(change: ClientChanged): Promise<boolean> {
      const fields = {
        webhookUrl: change.webhookUrl,
        webhookSecrets: change.webhookSecrets.map((s) => ({
          secret: s.secret,
          validUntil: s.validUntil ? new Date(s.validUntil) : null,
        })),
        version: change.version,
        changedAt: new Date(change.changedAt),
      };
      return applyVersioned(model, change.clientId, fields, () => cache.delete(change.clientId));
    },

    async get(clientId: string): Promise<Endpoint | null> {
      const now = clock.now().getTime();
      const hit = cache.get(clientId);
      if (hit && hit.until > now) return hit.endpoint;
      const doc = await model.findById(clientId).lean<EndpointDoc>();
      const endpoint = doc ? toEndpoint(doc) : null;
      if (cache.size > 10_000) cache.clear();
      cache.set(clientId, { endpoint, until: now + deps.cacheMs });
      return endpoint;
    },
  };
}
export type EndpointRepository = ReturnType<typeof createEndpointRepository>;
