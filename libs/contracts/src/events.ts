import { z } from 'zod';
import { ConsentEndReason } from './consent';
import { ApprovalDetails, Decision } from './decision';
import { KeyFacts } from './keyFacts';
import { AbandonReason, IsoTimestamp, Uuid } from './primitives';
import { ReviewOutcome } from './review';

/** Data of each public event, field for field as spec section 6 lists them. */
export const EventData = {
  'account.linked': z.object({
    applicationId: Uuid,
    applicantId: Uuid,
    accountId: Uuid,
    institution: z.string(),
    accountNumber: z.string(),
  }),
  'account.enrichment_ready': z.object({
    accountId: Uuid,
    providerAccountId: z.string(),
    applicantId: Uuid,
    applicationId: Uuid,
    message: z.string(),
  }),
  'application.ready_for_analysis': z.object({
    applicationId: Uuid,
    applicantId: Uuid,
    accountCount: z.number().int(),
    message: z.string(),
  }),
  'account.enrichment_failed': z.object({
    accountId: Uuid,
    providerAccountId: z.string(),
    applicantId: Uuid,
    reason: z.literal('enrichment_timeout'),
    message: z.string(),
  }),
  'application.failed': z.object({
    applicationId: Uuid,
    applicantId: Uuid,
    status: z.literal('FAILED'),
    reason: z.string(),
  }),
  'application.abandoned': z.object({
    applicationId: Uuid,
    applicantId: Uuid,
    reason: AbandonReason,
    message: z.string(),
  }),
  'application.decision': z.object({
    applicationId: Uuid,
    applicantId: Uuid,
    status: z.literal('COMPLETED'),
    score: z.number(),
    decision: Decision,
  }),
  /**
   * Not in the spec: a lender's reviewer finished a MANUAL_REVIEW decision (confirmed by a
   * second reviewer when its amount is above the lender's threshold). Always after the
   * application's `application.decision`; the application stays COMPLETED.
   */
  'application.review_completed': z.object({
    applicationId: Uuid,
    applicantId: Uuid,
    outcome: ReviewOutcome,
    /** The terms granted, priced by the scorecard's formula; null for DECLINED. */
    approval_details: ApprovalDetails.nullable(),
    /** Who made the review: the lender's staff id given with the API key, or the e-mail address of the staff user signed in to the console (above the threshold, who confirmed it is in the detail). */
    reviewer: z.string(),
    reasonCode: z.string(),
    note: z.string().nullable(),
    reviewedAt: IsoTimestamp,
    /** The contest the review answers, when the applicant contested the decision (absent otherwise). */
    contestId: Uuid.optional(),
    /** The Key Facts Statement of the terms granted (absent for DECLINED). */
    key_facts: KeyFacts.optional(),
  }),
  /** Not in the spec: the applicant accepted the offer (through your API); the cooling-off period runs until `coolingOffEndsAt`. */
  'application.offer_accepted': z.object({
    applicationId: Uuid,
    applicantId: Uuid,
    /** The terms accepted: the decision's, or the final review's. */
    approval_details: ApprovalDetails,
    key_facts: KeyFacts.nullable(),
    acceptedAt: IsoTimestamp,
    coolingOffEndsAt: IsoTimestamp,
  }),
  /** Not in the spec: the applicant declined the offer. */
  'application.offer_declined': z.object({
    applicationId: Uuid,
    applicantId: Uuid,
    declinedAt: IsoTimestamp,
  }),
  /** Not in the spec: the applicant withdrew an accepted offer within its cooling-off period, without cost. */
  'application.offer_withdrawn': z.object({
    applicationId: Uuid,
    applicantId: Uuid,
    acceptedAt: IsoTimestamp,
    withdrawnAt: IsoTimestamp,
  }),
  /**
   * Not in the spec: the applicant's consent to read a linked account ended (withdrawn, 12 months
   * passed, or 180 days unused). Nothing more is read from it; it is unlinked at the provider and
   * its bank data erased, then `account.data_erased` follows.
   */
  'account.consent_ended': z.object({
    applicationId: Uuid,
    applicantId: Uuid,
    accountId: Uuid,
    consentId: Uuid,
    reason: ConsentEndReason,
    endedAt: IsoTimestamp,
  }),
  /** Not in the spec: an ended consent's account was unlinked at the provider and its bank data erased; the signed deletion receipt is at `receipt`. */
  'account.data_erased': z.object({
    applicationId: Uuid,
    applicantId: Uuid,
    accountId: Uuid,
    consentId: Uuid,
    unlinkedAt: IsoTimestamp,
    bankDataErasedAt: IsoTimestamp,
    /** The path of the deletion receipt on the lender API. */
    receipt: z.string(),
  }),
  /** Not in the spec: the offer stood unanswered until `expiresAt` and can no longer be accepted. */
  'application.offer_expired': z.object({
    applicationId: Uuid,
    applicantId: Uuid,
    madeAt: IsoTimestamp,
    expiresAt: IsoTimestamp,
    expiredAt: IsoTimestamp,
  }),
} as const;

export type EventName = keyof typeof EventData;
export const EventNames = Object.keys(EventData) as EventName[];
export type EventDataOf<E extends EventName> = z.infer<(typeof EventData)[E]>;

const envelopeOf = <E extends EventName>(event: E) =>
  z.object({
    /** Stable id of the event: the same on every redelivery, for receivers to deduplicate. */
    id: Uuid,
    event: z.literal(event),
    data: EventData[event],
    timestamp: IsoTimestamp,
  });

/** The webhook body: the spec's envelope plus the event id. */
export const WebhookEnvelope = z.discriminatedUnion(
  'event',
  EventNames.map((e) => envelopeOf(e)) as unknown as [
    ReturnType<typeof envelopeOf<'account.linked'>>,
    ...ReturnType<typeof envelopeOf<EventName>>[],
  ],
);
export type WebhookEnvelope = {
  [E in EventName]: { id: string; event: E; data: EventDataOf<E>; timestamp: string };
}[EventName];

/**
 * A record of `loan.events.v1`: the webhook envelope plus the owning client's id (whom the
 * notifier delivers to; analysts split by lender) and the application it concerns (the
 * partition key, and the unit of delivery order).
 */
export const PublicEventRecord = z.discriminatedUnion(
  'event',
  EventNames.map((e) => envelopeOf(e).extend({ clientId: z.string(), applicationId: Uuid })) as unknown as [
    z.ZodObject,
    ...z.ZodObject[],
  ],
);
export type PublicEventRecord = WebhookEnvelope & { clientId: string; applicationId: string };

/** Builds a public event record; the id and timestamp are given so that replays are stable. */
export function buildEvent<E extends EventName>(args: {
  id: string;
  event: E;
  clientId: string;
  applicationId: string;
  data: EventDataOf<E>;
  at: Date;
}): PublicEventRecord {
  const data = EventData[args.event].parse(args.data);
  return {
    id: args.id,
    event: args.event,
    clientId: args.clientId,
    applicationId: args.applicationId,
    data,
    timestamp: args.at.toISOString(),
  } as PublicEventRecord;
}

/** Strips what is internal to the topic and gives the exact webhook body. */
export function toWebhookBody(record: PublicEventRecord): WebhookEnvelope {
  return {
    id: record.id,
    event: record.event,
    data: record.data,
    timestamp: record.timestamp,
  } as WebhookEnvelope;
}
