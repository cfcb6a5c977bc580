import { Schema, type Connection } from 'mongoose';
import { outboxFields } from '@loan/runtime';

/*
 * An application's timeline and its deadlines are one document, written by an update
 * conditional on its revision, which MongoDB applies atomically; FerretDB on SQLite does so
 * only with the patch the local infrastructure builds it with (infra/ferretdb). The right to
 * publish a fired deadline late is an insert under a deterministic `_id`, so the unique index
 * picks exactly one winner.
 *
 * Earlier versions kept each deadline in a document of its own (`deadlines`) and decided its
 * outcome by an insert into `deadline_outcomes`; those deadlines end as they were armed (the
 * timeline lists them in `armed`), new ones live in the timeline.
 */

/** A deadline of an earlier version, keyed by its deterministic id; `status` mirrors its outcome. */
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
 * How a deadline of an earlier version ended, FIRED or CANCELLED: the first insert wins and the
 * other is refused.
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
 * fired it ran out of time, one winner per period: `<applicationId>:<outboxAt>:<period>` for a
 * timeline's outbox, `<deadlineId>:<period>` for an earlier version's outcome.
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
    consent: {
      type: new Schema(
        {
          consentId: String,
          givenAt: String,
          expiresAt: String,
          lastUsedAt: String,
          lapsesAt: String,
          endedAt: String,
        },
        { _id: false },
      ),
      default: undefined,
    },
  },
  { _id: false },
);

/** What names a deadline: what cancellations select on. */
const deadlineRefFields = {
  deadlineId: { type: String, required: true },
  kind: { type: String, required: true },
  accountId: { type: String, default: null },
  attempt: { type: Number, default: null },
  since: { type: String, required: true },
};

/** A deadline of an earlier version the timeline lists as possibly armed. */
const armedRefSchema = new Schema(deadlineRefFields, { _id: false });

/** A deadline of the application, with where it stands. */
const trackedDeadlineSchema = new Schema(
  {
    ...deadlineRefFields,
    dueAt: { type: Date, required: true },
    status: { type: String, required: true },
    armedAt: { type: Date, required: true },
    firedAt: { type: Date, default: null },
    cancelledAt: { type: Date, default: null },
    /** The trace context of the fact that armed it (see `Deadline.armedBy`). */
    armedBy: { type: Schema.Types.Mixed, default: undefined },
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
  offer: { type: Schema.Types.Mixed, default: null },
  offerAnsweredAt: { type: String, default: null },
  retainedUntil: { type: String, default: null },
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
 * conditional on the revision read), its deadlines (`deadlines`), the earliest due time of the
 * armed ones (`nextDueAt`) and its UTC hour (`nextDueHour`, `YYYY-MM-DDTHH`, what the
 * scheduler's periodic reload finds due work by, asking for the hours it covers by equality),
 * and the messages of fired deadlines not published yet (the outbox; `outboxAt`: when the last
 * one was added). A fact, a firing and a cancellation are each one write of this document, which
 * sets `nextDueAt` and `nextDueHour` together. Every access on a fact's path is by `_id`.
 */
export const timelineHeadSchema = new Schema(
  {
    ...timelineFields,
    deadlines: { type: [trackedDeadlineSchema], default: [] },
    nextDueAt: { type: Date, default: null },
    nextDueHour: { type: String, default: null },
    outboxAt: { type: Date, default: null },
    ...outboxFields,
  },
  { versionKey: false, collection: 'timeline_heads', minimize: false },
);
// `nextDueAt` for the full reload (and MongoDB's range scans); `nextDueHour` for the periodic
// reload, whose equalities the local FerretDB narrows through the index where it cannot narrow a
// range of dates (infra/ferretdb, patch 006).
timelineHeadSchema.index({ nextDueAt: 1 });
timelineHeadSchema.index({ nextDueHour: 1 });

export const janitorModels = (db: Connection) => ({
  deadlines: db.model('Deadline', deadlineSchema),
  outcomes: db.model('DeadlineOutcome', outcomeSchema),
  leases: db.model('DeadlinePublishLease', publishLeaseSchema),
  timelines: db.model('Timeline', timelineSchema),
  timelineHeads: db.model('TimelineHead', timelineHeadSchema),
});
export type JanitorModels = ReturnType<typeof janitorModels>;
