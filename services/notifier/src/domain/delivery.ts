import type { EventName } from '@loan/contracts';

/**
 * Where a delivery stands. PENDING: an attempt is due at `nextAttemptAt` (or one is under way).
 * DELIVERED: the receiver answered 2xx. FAILED: retries exhausted or the target was refused; not
 * resent unless the lender asks. SKIPPED: the client has no webhook URL, so nothing was sent.
 */
export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED' | 'SKIPPED';
export const DeliveryStatuses = ['PENDING', 'DELIVERED', 'FAILED', 'SKIPPED'] as const;

/** Why a delivery ended without a 2xx, or why it was not sent. */
export const Reasons = {
  noWebhookUrl: 'no_webhook_url',
  noWebhookSecret: 'no_webhook_secret',
  retriesExhausted: 'retries_exhausted',
  unknownClient: 'unknown_client',
  urlRefused: 'url_refused',
} as const;

/** One POST of the event to the client's webhook URL, as the delivery log shows it. */
export interface Attempt {
  at: Date;
  /** The receiver's status code; null when no answer came (timeout, connection error). */
  statusCode: number | null;
  /** What went wrong, when something did; null on a 2xx or a plain non-2xx answer. */
  error: string | null;
  durationMs: number;
  /** True when a lender's redelivery asked for this attempt; false for the automatic ones. */
  manual?: boolean;
}

/**
 * A retry round: the attempts made since the delivery was (re)queued, and how many it may make.
 * The first round allows 1 + WEBHOOK_MAX_RETRIES; a manual redelivery allows one.
 */
export interface Round {
  attempts: number;
  size: number;
  /** True for the round of a manual redelivery. */
  manual?: boolean;
}

/** The delivery of one public event to the client (lender) that owns it. */
export interface Delivery {
  deliveryId: string;
  eventId: string;
  event: EventName;
  clientId: string;
  applicationId: string;
  /** The webhook body, byte for byte: every attempt sends and signs exactly this. */
  body: string;
  /** When the event was emitted (its `timestamp`). */
  eventAt: Date;
  /**
   * Position of the event in `loan.events.v1`: an application's events share a partition, so
   * within it the offset is the emission order that deliveries must keep.
   */
  partition: number;
  seq: number;
  status: DeliveryStatus;
  reason: string | null;
  attempts: Attempt[];
  round: Round;
  nextAttemptAt: Date | null;
  /** Incremented on every change: the claim of an attempt names the version it acts on. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
  deliveredAt: Date | null;
  /**
   * The claim of the first attempt, taken by the replica that recorded the delivery in the same
   * insert (so that attempt needs no claim of its own). It covers version 0 only, and holds it
   * for that replica until `expiresAt`. Absent on deliveries recorded before it existed.
   */
  firstClaim?: FirstClaim | null;
  /**
   * The trace context of the event's record (W3C `traceparent`, `tracestate`): each attempt's
   * span, retries included, joins the trace of the work that emitted the event. Absent when
   * tracing is off and on deliveries recorded before it existed.
   */
  trace?: Record<string, string> | null;
}

/** Who may make the first attempt of a delivery, and until when (see `Delivery.firstClaim`). */
export interface FirstClaim {
  owner: string;
  expiresAt: Date;
}

/** The first claim of a delivery when it still covers the delivery's current version. */
export const firstClaimOf = (d: Pick<Delivery, 'version' | 'firstClaim'>): FirstClaim | null =>
  d.version === 0 && d.firstClaim ? d.firstClaim : null;

/** A delivery without its body: what bulk work (replay) reads, so a page stays small. */
export type DeliveryHead = Omit<Delivery, 'body'>;

/**
 * The part of a pending delivery the dispatcher needs to choose what to send next. Kept apart
 * from the delivery log so that finding due work stays cheap however long the log grows.
 */
export interface ScheduleEntry {
  deliveryId: string;
  clientId: string;
  applicationId: string;
  partition: number;
  seq: number;
  nextAttemptAt: Date;
  version: number;
  /**
   * The replica holding the first claim of this version (see `Delivery.firstClaim`), and until
   * when: no other replica tries to claim it before then.
   */
  heldBy?: string | null;
  heldUntil?: Date | null;
}

export const scheduleEntryOf = (d: DeliveryHead): ScheduleEntry => {
  const held = firstClaimOf(d);
  return {
    deliveryId: d.deliveryId,
    clientId: d.clientId,
    applicationId: d.applicationId,
    partition: d.partition,
    seq: d.seq,
    nextAttemptAt: d.nextAttemptAt ?? d.updatedAt,
    version: d.version,
    ...(held ? { heldBy: held.owner, heldUntil: held.expiresAt } : {}),
  };
};

/** A webhook secret as the notifier holds it: sealed at rest, newest first. */
export interface EndpointSecret {
  secret: string;
  validUntil: Date | null;
}

/** The notifier's view of a client account: where its webhooks go and what signs them. */
export interface Endpoint {
  clientId: string;
  webhookUrl: string | null;
  webhookSecrets: EndpointSecret[];
  version: number;
}

/** How the retry schedule and the URL rules are set for this deployment. */
export interface DeliveryPolicy {
  retryBaseMs: number;
  maxRetries: number;
  allowPrivate: boolean;
}
