import { Schema, type Connection } from 'mongoose';

const attemptSchema = new Schema(
  { at: Date, statusCode: Number, error: String, durationMs: Number, manual: Boolean },
  { _id: false },
);

/**
 * The delivery log: one document per (event, client), attempts embedded. It is also the truth
 * of each delivery's state; the schedule below only mirrors what is pending.
 */
export const deliverySchema = new Schema(
  {
    _id: { type: String, required: true },
    eventId: { type: String, required: true },
    event: { type: String, required: true },
    clientId: { type: String, required: true },
    applicationId: { type: String, required: true },
    body: { type: String, required: true },
    eventAt: Date,
    partition: Number,
    seq: Number,
    status: { type: String, required: true },
    reason: { type: String, default: null },
    attempts: { type: [attemptSchema], default: [] },
    round: { attempts: Number, size: Number, manual: Boolean },
    nextAttemptAt: { type: Date, default: null },
    version: { type: Number, required: true },
    createdAt: Date,
    updatedAt: Date,
    deliveredAt: { type: Date, default: null },
    /** The first attempt's claim, taken by the insert (see `Delivery.firstClaim`). */
    firstClaim: { type: new Schema({ owner: String, expiresAt: Date }, { _id: false }), default: null },
    /** The trace context of the event (see `Delivery.trace`). */
    trace: { type: Schema.Types.Mixed, default: null },
  },
  { versionKey: false, collection: 'deliveries', minimize: false },
);
deliverySchema.index({ eventId: 1, clientId: 1 }, { unique: true });
deliverySchema.index({ clientId: 1, createdAt: -1, _id: -1 });
deliverySchema.index({ status: 1, nextAttemptAt: 1 });

/**
 * Pending deliveries only, with what ordering and due time need. The dispatcher reads this
 * small set instead of the whole log (a database without secondary-index queries, such as
 * FerretDB 1.x, would otherwise scan every delivery ever made on each poll).
 */
export const scheduleSchema = new Schema(
  {
    _id: { type: String, required: true },
    clientId: String,
    applicationId: String,
    partition: Number,
    seq: Number,
    nextAttemptAt: Date,
    version: Number,
    heldBy: { type: String, default: null },
    heldUntil: { type: Date, default: null },
  },
  { versionKey: false, collection: 'delivery_schedule' },
);

/**
 * Claims of attempts: `<deliveryId>:<version>:<takeover>`. Inserting one is the claim, and the
 * unique `_id` lets exactly one replica win it (an insert is atomic where a conditional update
 * may not be: FerretDB 1.x reads, then writes). A claim whose holder vanished expires, and the
 * next takeover number may then be claimed.
 */
export const claimSchema = new Schema(
  {
    _id: { type: String, required: true },
    deliveryId: String,
    owner: String,
    expiresAt: Date,
  },
  { versionKey: false, collection: 'delivery_claims' },
);

/** The notifier's projection of client accounts: webhook URL and sealed secrets. */
export const endpointSchema = new Schema(
  {
    _id: { type: String, required: true },
    webhookUrl: { type: String, default: null },
    webhookSecrets: { type: [new Schema({ secret: String, validUntil: Date }, { _id: false })], default: [] },
    version: { type: Number, required: true },
    changedAt: Date,
  },
  { versionKey: false, collection: 'client_endpoints', minimize: false },
);

export const notifierModels = (db: Connection) => ({
  deliveries: db.model('Delivery', deliverySchema),
  schedule: db.model('DeliverySchedule', scheduleSchema),
  claims: db.model('DeliveryClaim', claimSchema),
  endpoints: db.model('ClientEndpoint', endpointSchema),
});
export type NotifierModels = ReturnType<typeof notifierModels>;
