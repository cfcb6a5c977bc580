import { Schema, type Connection } from 'mongoose';
import { outboxFields } from '@loan/runtime';

const accountSchema = new Schema(
  {
    accountId: { type: String, required: true },
    providerAccountId: { type: String, required: true },
    institution: String,
    accountNumber: String,
    holderName: String,
    enrichmentStatus: { type: String, required: true },
    linkedAt: Date,
    enrichedAt: Date,
    monthlyFlows: {
      type: [new Schema({ month: String, inflow: Number, outflow: Number, partial: Boolean }, { _id: false })],
      default: [],
    },
    consent: {
      type: new Schema(
        {
          consentId: String,
          wordingVersion: String,
          givenAt: Date,
          expiresAt: Date,
          lastUsedAt: Date,
          lapsesAt: Date,
          endedAt: Date,
          endReason: String,
          unlinkedAt: Date,
          bankDataErasedAt: Date,
        },
        { _id: false },
      ),
      default: null,
    },
  },
  { _id: false },
);

/** One document per application, applicant and linked accounts embedded: every change is a single atomic write. */
export const applicationSchema = new Schema(
  {
    _id: { type: String, required: true },
    rev: { type: Number, required: true },
    clientId: { type: String, required: true, index: true },
    applicantId: { type: String, required: true, index: true },
    idempotencyKey: { type: String, required: true, unique: true },
    status: { type: String, required: true, index: true },
    applicant: { firstName: String, lastName: String, email: String, phone: String, bvnSealed: String },
    loan: { amount: Number, tenor: Number, interestRate: Number, purpose: String },
    providerKeySealed: String,
    widgetUrl: String,
    linkWindowStart: Date,
    linkingLocked: Boolean,
    linkingLockedAt: Date,
    readyAnnounced: Boolean,
    firstLinkedAt: Date,
    accounts: { type: [accountSchema], default: [] },
    analysis: { type: new Schema({ analysisId: String, requestedAt: Date }, { _id: false }), default: null },
    decision: { type: Schema.Types.Mixed, default: null },
    repaymentCapacity: { type: Number, default: null },
    review: { type: Schema.Types.Mixed, default: null },
    contest: { type: Schema.Types.Mixed, default: null },
    offerResponse: { type: Schema.Types.Mixed, default: null },
    offerExpired: { type: Schema.Types.Mixed, default: null },
    failureReason: String,
    abandonReason: String,
    retainedUntil: { type: Date, default: null },
    handled: { type: [String], default: [] },
    /** Blind indexes of the applicant's names, e-mail, phone and BVN (see the repository): no identity in them. */
    searchTokens: { type: [String], default: [] },
    createdAt: Date,
    updatedAt: Date,
    ...outboxFields,
  },
  { versionKey: false, collection: 'applications', minimize: false },
);
applicationSchema.index({ 'accounts.providerAccountId': 1 });
// A lender's list, newest first, paged by position (createdAt, then id): one index range per page.
applicationSchema.index({ clientId: 1, createdAt: -1, _id: -1 });
// A search by who applied: each blind index is bound to its lender, so one key finds few documents.
applicationSchema.index({ searchTokens: 1 });
// A lender's review queue, oldest decision first.
applicationSchema.index({ clientId: 1, 'decision.decision': 1, 'decision.timestamp': 1, _id: 1 });

export const applicationModel = (db: Connection) => db.model('Application', applicationSchema);
export type ApplicationModel = ReturnType<typeof applicationModel>;
