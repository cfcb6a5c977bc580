import { createHmac, createSecretKey } from 'node:crypto';
import { Topics, type PublicEventRecord } from '@loan/contracts';
import type { InboundMessage, KafkaBus } from '@loan/runtime';
import { toAnalyticsRecord, type Pseudonym } from '../../domain/analytics/toAnalyticsRecord';

/**
 * `loan.events.v1` → `loan.analytics.v1`. The handler returns once the record is published, and
 * only then is the event's offset committed: a crash in between publishes it again (same id),
 * never loses it. Keyed by the application's pseudonym, so one application's records keep
 * their order.
 */
export function createProjectAnalyticsHandler(deps: { bus: Pick<KafkaBus, 'publish'>; key: string }) {
  // The key imported once: an HMAC given the raw string imports it anew on every record.
  const key = createSecretKey(Buffer.from(deps.key, 'utf8'));
  const pseudonym: Pseudonym = (kind, id) => createHmac('sha256', key).update(`${kind}:${id}`).digest('base64url');
  return async function onEvent(message: InboundMessage): Promise<void> {
    const record = toAnalyticsRecord(message.value as PublicEventRecord, pseudonym);
    await deps.bus.publish(Topics.analytics, [{ key: record.application ?? record.lender, value: record }]);
  };
}
