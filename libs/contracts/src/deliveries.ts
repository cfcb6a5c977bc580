import { z } from 'zod';
import { EventNames, type EventName } from './events';
import { PageParams } from './primitives';

/**
 * The lender's webhook delivery log (`/api/webhooks/deliveries`): served by the gateway,
 * answered by the notifier, documented in the OpenAPI document and used by the SDK.
 */

/**
 * Where a delivery stands. PENDING: an attempt is due (or under way). DELIVERED: the receiver
 * answered 2xx. FAILED: retries exhausted or the target was refused; resent only on request.
 * SKIPPED: the client had no webhook URL, so nothing was sent.
 */
const DeliveryStatuses = ['PENDING', 'DELIVERED', 'FAILED', 'SKIPPED'] as const;
export const DeliveryStatus = z.enum(DeliveryStatuses, {
  error: `status must be one of: ${DeliveryStatuses.join(', ')}`,
});
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

export const EventNameSchema = z.enum(EventNames as [EventName, ...EventName[]], {
  error: `event must be one of: ${EventNames.join(', ')}`,
});

const LENGTH = (field: string) => `${field} must be 1 to 100 characters`;

/** Query of `GET /api/webhooks/deliveries`: filters and a page, newest first. */
export const DeliveryListQuery = z.object({
  applicationId: z
    .string({ error: 'applicationId must be a string' })
    .min(1, LENGTH('applicationId'))
    .max(100, LENGTH('applicationId'))
    .optional(),
  eventId: z
    .string({ error: 'eventId must be a string' })
    .min(1, LENGTH('eventId'))
    .max(100, LENGTH('eventId'))
    .optional(),
  event: EventNameSchema.optional(),
  status: DeliveryStatus.optional(),
  ...PageParams,
});
export type DeliveryListQuery = z.input<typeof DeliveryListQuery>;

/** Body of `POST /api/webhooks/deliveries/replay`: re-queue FAILED deliveries since a time. */
export const ReplayRequest = z.object({
  since: z.iso.datetime({ offset: true, error: 'since is required and must be an ISO 8601 date-time' }),
  event: EventNameSchema.optional(),
  /** Deliveries re-queued per call at most: the work of one request stays bounded. */
  limit: z
    .number({ error: 'limit must be a number' })
    .int('limit must be an integer between 1 and 500')
    .min(1, 'limit must be an integer between 1 and 500')
    .max(500, 'limit must be an integer between 1 and 500')
    .default(100),
});
export type ReplayRequest = z.input<typeof ReplayRequest>;

export const ReplayResult = z.object({
  /** Deliveries put back on the schedule by this call. */
  count: z.number().int(),
  /** Whether FAILED deliveries remain: call again to re-queue the next ones. */
  more: z.boolean(),
});
export type ReplayResult = z.infer<typeof ReplayResult>;

/** One POST of an event to the lender's webhook URL. */
export const DeliveryAttempt = z.object({
  at: z.string(),
  /** The receiver's status code; null when no answer came (timeout, connection error). */
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number(),
  /** True when the lender's redelivery asked for this attempt; false for the automatic ones. */
  manual: z.boolean(),
});

/** A delivery as the lender sees it in the delivery log. */
export const DeliveryView = z.object({
  id: z.string(),
  eventId: z.string(),
  event: EventNameSchema,
  applicationId: z.string(),
  status: DeliveryStatus,
  reason: z.string().nullable(),
  attempts: z.array(DeliveryAttempt),
  nextAttemptAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  deliveredAt: z.string().nullable(),
});
export type DeliveryView = z.infer<typeof DeliveryView>;

export const DeliveryPage = z.object({
  data: z.array(DeliveryView),
  /** The cursor of the next page; null on the last one. */
  nextCursor: z.string().nullable(),
});
export type DeliveryPage = z.infer<typeof DeliveryPage>;
