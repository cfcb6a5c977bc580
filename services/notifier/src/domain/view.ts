import type { DeliveryView } from '@loan/contracts';

export type { DeliveryView };
import type { Delivery } from './delivery';

/** A delivery as the lender sees it in the delivery log (its shape is in the contracts). */
export function toView(d: Delivery): DeliveryView {
  return {
    id: d.deliveryId,
    eventId: d.eventId,
    event: d.event,
    applicationId: d.applicationId,
    status: d.status,
    reason: d.reason,
    attempts: d.attempts.map((a) => ({
      at: a.at.toISOString(),
      statusCode: a.statusCode,
      error: a.error,
      durationMs: a.durationMs,
      manual: a.manual === true,
    })),
    nextAttemptAt: d.status === 'PENDING' && d.nextAttemptAt ? d.nextAttemptAt.toISOString() : null,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
    deliveredAt: d.deliveredAt ? d.deliveredAt.toISOString() : null,
  };
}
