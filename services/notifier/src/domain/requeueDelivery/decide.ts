import type { EventName } from '@loan/contracts';
import type { Delivery, DeliveryHead, DeliveryPolicy } from '../delivery';
import { fullRound, singleAttemptRound } from '../deliverWebhook/backoff';

export type RequeueError = { ok: false; code: 'NOT_FOUND' | 'ALREADY_PENDING'; message: string };
export type Requeued = { ok: true; delivery: Delivery };

const requeue = <D extends DeliveryHead>(delivery: D, now: Date, round: Delivery['round']): D => ({
  ...delivery,
  status: 'PENDING',
  reason: null,
  round,
  nextAttemptAt: now,
  version: delivery.version + 1,
  updatedAt: now,
});

/**
 * A manual redelivery: one new attempt now, with the same event id and body. Allowed once the
 * delivery has settled (DELIVERED, FAILED or SKIPPED); a pending one is already on its way.
 */
export function redeliver(delivery: Delivery | null, clientId: string, now: Date): Requeued | RequeueError {
  if (!delivery || delivery.clientId !== clientId)
    return { ok: false, code: 'NOT_FOUND', message: 'Delivery not found' };
  if (delivery.status === 'PENDING') {
    const when = delivery.nextAttemptAt ? ` (next attempt at ${delivery.nextAttemptAt.toISOString()})` : '';
    return { ok: false, code: 'ALREADY_PENDING', message: `Delivery is already pending${when}` };
  }
  return { ok: true, delivery: requeue(delivery, now, singleAttemptRound()) };
}

/** Whether a replay since `since` (of one event name, when given) takes this delivery. */
export function isReplayable(delivery: DeliveryHead, filter: { since: Date; event?: EventName }): boolean {
  return (
    delivery.status === 'FAILED' &&
    delivery.createdAt.getTime() >= filter.since.getTime() &&
    (filter.event === undefined || delivery.event === filter.event)
  );
}

/** A replayed delivery starts a full retry round again, as if it had just arrived. */
export function replay<D extends DeliveryHead>(delivery: D, now: Date, policy: Pick<DeliveryPolicy, 'maxRetries'>): D {
  return requeue(delivery, now, fullRound(policy));
}
