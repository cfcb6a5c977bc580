import { Schema, type Connection } from 'mongoose';
import { outboxFields } from '@loan/runtime';

/*
 * A deadline's outcome, and the right to publish a fired one late, are inserts under a
 * deterministic `_id`, so the unique index picks exactly one winner. A timeline is written by
 * an update conditional on its revision, which MongoDB applies atomically; FerretDB on SQLite
 * does so only with the patch the local infrastructure builds it with (infra/ferretdb).
 */

/** One document per deadline, keyed by its deterministic id; `status` mirrors its outcome. */
export const deadlineSchema = new Schema(
  {
    _id: { type: String, required: true },
    kind: { type: String, required: true },
    clientId: { type: String, required: true },
    applicationId: { type: String, required: true },
    accountId: { type: String, default: null },
    attempt: { type: Number, default: null },
    since: { type: String, required: true },
    dueAt: { type: Date, required: true },
    status: { type: String, required: true },
    armedAt: { type: Date, required: true },
    firedAt: { type: Date, default: null },
    cancelledAt: { type: Date, default: null },
  },
  { versionKey: false, collection: 'deadlines', minimize: false },
);
// For the periodic reload of the armed deadlines and the metrics; and for listing one
// application's deadlines (tests, operators). Facts and firing use `_id` only.
deadlineSchema.index({ status: 1, dueAt: 1 });
deadlineSchema.index({ applicationId: 1, kind: 1, status: 1 });

/**
 * How a deadline ended, FIRED or CANCELLED: the first insert wins and the other is refused.
 * A fired deadline's message travels in the same document (the outbox), so firing and the
 * intent to publish are one write.
 */
export const outcomeSchema = new Schema(
  {
    _id: { type: String, required: true },
    outcome: { type: String, required: true },
    kind: { type: String, required: true },
    applicationId: { type: String, required: true },
    decidedAt: { type: Date, required: true },
    ...outboxFields,
  },
  { versionKey: false, collection: 'deadline_outcomes', minimize: false },
);
outcomeSchema.index({ outboxPending: 1, decidedAt: 1 });

/**
 * The right to publish a fired deadline's message in one lease period after the replica that
 * fired it ran out of time: `<deadlineId>:<period>`, one winner per period.
 */
export const publishLeaseSchema = new Schema(
  {
    _id: { type: String, required: true },
    takenAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'deadline_publish_leases' },
);

const accountSchema = new Schema(
  {
    accountId: { type: String, required: true },
    starts: { type: [String], default: [] },
    enriched: { type: new Schema({ at: String, attempt: Number }, { _id: false }), default: null },
  },
  { _id: false },
);

/** A deadline the application's timeline lists as possibly armed: what cancellations select on. */
const armedRefSchema = new Schema(
  {
    deadlineId: { type: String, required: true },
    kind: { type: String, required: true },
    accountId: { type: String, default: null },
    attempt: { type: Number, default: null },
    since: { type: String, required: true },
  },
  { _id: false },
);

const timelineFields = {
  _id: { type: String, required: true },
  applicationId: { type: String, required: true },
  rev: { type: Number, required: true },
  clientId: { type: String, required: true },
  linkWindowStart: { type: String, default: null },
  firstLinkedAt: { type: String, default: null },
  analysisRequestedAt: { type: String, default: null },
  closedAt: { type: String, default: null },
  decidedAt: { type: String, default: null },
  accounts: { type: [accountSchema], default: [] },
  armed: { type: [armedRefSchema], default: [] },
};

/**
 * Revisions of applications' timelines as earlier versions wrote them, `<applicationId>:<rev>`:
 * read only to catch up a head those versions left behind.
 */
export const timelineSchema = new Schema(timelineFields, {
  versionKey: false,
  collection: 'timelines',
  minimize: false,
});

/**
 * Each application's timeline, `_id: applicationId`, with its revision (written by an update
 * conditional on the revision read) and the deadlines of the application that may still be
 * armed, so cancelling needs no query. Every access on a fact's path is by `_id`.
 */
export const timelineHeadSchema = new Schema(timelineFields, {
  versionKey: false,
  collection: 'timeline_heads',
  minimize: false,
});

export const janitorModels = (db: Connection) => ({
  deadlines: db.model('Deadline', deadlineSchema),
  outcomes: db.model('DeadlineOutcome', outcomeSchema),
  leases: db.model('DeadlinePublishLease', publishLeaseSchema),
  timelines: db.model('Timeline', timelineSchema),
  timelineHeads: db.model('TimelineHead', timelineHeadSchema),
});
export type JanitorModels = ReturnType<typeof janitorModels>;
