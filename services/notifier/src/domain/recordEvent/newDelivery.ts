import { toWebhookBody, type PublicEventRecord } from '@loan/contracts';
import type { Delivery, DeliveryPolicy, FirstClaim } from '../delivery';
import { fullRound } from '../deliverWebhook/backoff';

/**
 * The delivery of an event just read from `loan.events.v1`: pending, due now, with the body
 * fixed once as the exact bytes every attempt sends and signs, and the claim of its first
 * attempt held by the replica recording it.
 */
export function newDelivery(
  record: PublicEventRecord,
  args: {
    deliveryId: string;
    partition: number;
    offset: string;
    now: Date;
    policy: Pick<DeliveryPolicy, 'maxRetries'>;
    firstClaim: FirstClaim;
  },
): Delivery {
  return {
    deliveryId: args.deliveryId,
    eventId: record.id,
    event: record.event,
    clientId: record.clientId,
    applicationId: record.applicationId,
    body: JSON.stringify(toWebhookBody(record)),
    eventAt: new Date(record.timestamp),
    partition: args.partition,
    seq: Number(args.offset),
    status: 'PENDING',
    reason: null,
    attempts: [],
    round: fullRound(args.policy),
    nextAttemptAt: args.now,
    version: 0,
    createdAt: args.now,
    updatedAt: args.now,
    deliveredAt: null,
    firstClaim: args.firstClaim,
  };
}
