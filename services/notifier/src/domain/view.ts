import type { Delivery } from './delivery';

/** A delivery as the lender sees it in the delivery log. */
export interface DeliveryView {
  id: string;
  eventId: string;
  event: string;
  applicationId: string;
  status: string;
  reason: string | null;
  attempts: { at: string; statusCode: number | null; error: string | null; durationMs: number }[];
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
  deliveredAt: string | null;
}

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
    })),
    nextAttemptAt: d.status === 'PENDING' && d.nextAttemptAt ? d.nextAttemptAt.toISOString() : null,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
    deliveredAt: d.deliveredAt ? d.deliveredAt.toISOString() : null,
  };
}
