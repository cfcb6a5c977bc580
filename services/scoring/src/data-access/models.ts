import { Schema, type Connection } from 'mongoose';
import type { EnrichedAccount } from '@loan/contracts';
import { outboxFields, type OutboxEntry } from '@loan/runtime';

/** Scoring's own projection of enriched accounts (the applicant's bank data). */
const profileSchema = new Schema(
  {
    _id: { type: String, required: true },
    applicationId: { type: String, required: true, index: true },
    attempt: { type: Number, required: true },
    profile: { type: Schema.Types.Mixed, required: true },
    updatedAt: Date,
  },
  { versionKey: false, collection: 'profiles', minimize: false },
);

/**
 * One document per analysis: the decision (or failure), the audit record it was made from
 * (scorecard version, derived features, bureau summary) and the outbox of its result.
 */
const analysisSchema = new Schema(
  {
    _id: { type: String, required: true },
    applicationId: { type: String, required: true, index: true },
    clientId: String,
    applicantId: String,
    status: { type: String, required: true },
    decision: { type: Schema.Types.Mixed, default: null },
    failureReason: { type: String, default: null },
    audit: { type: Schema.Types.Mixed, default: null },
    bureau: { type: Schema.Types.Mixed, default: null },
    requestedAt: Date,
    decidedAt: Date,
    /** The ask, kept for the replay of policies on past analyses. */
    loan: { type: Schema.Types.Mixed, default: null },
    /** The version of the lender's credit policy that decided (0: the built-in policy). */
    policyVersion: { type: Number, default: null },
    /** The challenger's decision in the shadow of this one; never published. */
    challenger: { type: Schema.Types.Mixed, default: null },
    ...outboxFields,
  },
  { versionKey: false, collection: 'analyses', minimize: false },
);
// The replay of a policy reads a lender's latest decided analyses; the challenger report those
// decided since the challenger was set.
analysisSchema.index({ clientId: 1, status: 1, decidedAt: -1 });

/** A lender's credit policy versions: immutable once written. */
const policySchema = new Schema(
  {
    _id: { type: String, required: true },
    clientId: { type: String, required: true },
    version: { type: Number, required: true },
    policy: { type: Schema.Types.Mixed, required: true },
    createdAt: Date,
    createdBy: String,
  },
  { versionKey: false, collection: 'policies', minimize: false },
);
policySchema.index({ clientId: 1, version: 1 }, { unique: true });

/** A lender's policy book (domain/policy/versions.ts): activations and the challenger. */
const policyBookSchema = new Schema(
  {
    _id: { type: String, required: true },
    lastVersion: { type: Number, required: true },
    activations: { type: Schema.Types.Mixed, default: [] },
    challenger: { type: Schema.Types.Mixed, default: null },
    /** Bumped by every change of activations or challenger: changes are compare-and-set. */
    rev: { type: Number, default: 0 },
  },
  { versionKey: false, collection: 'policy_books', minimize: false },
);

/** The audit trail of policy changes: who did what to which version. */
const policyChangeSchema = new Schema(
  {
    _id: { type: String, required: true },
    clientId: { type: String, required: true, index: true },
    version: Number,
    action: String,
    actor: String,
    at: Date,
  },
  { versionKey: false, collection: 'policy_changes' },
);

export const profileModel = (db: Connection) => db.model('Profile', profileSchema);
export const analysisModel = (db: Connection) => db.model('Analysis', analysisSchema);
export const policyModels = (db: Connection) => ({
  policies: db.model('Policy', policySchema),
  books: db.model('PolicyBook', policyBookSchema),
  changes: db.model('PolicyChange', policyChangeSchema),
});
export type PolicyModels = ReturnType<typeof policyModels>;
export type ProfileModel = ReturnType<typeof profileModel>;
export type AnalysisModel = ReturnType<typeof analysisModel>;

/** A stored enriched profile, as the per-message paths read and write it through the driver. */
export interface ProfileDoc {
  _id: string;
  applicationId: string;
  attempt: number;
  profile: EnrichedAccount;
  updatedAt: Date;
}

/** A stored analysis, as the per-message paths read and write it through the driver. */
export interface AnalysisDoc {
  _id: string;
  applicationId: string;
  clientId: string;
  applicantId: string;
  status: 'PENDING' | 'DECIDED' | 'FAILED';
  decision: unknown;
  failureReason: string | null;
  audit: unknown;
  bureau: unknown;
  requestedAt: Date;
  decidedAt?: Date;
  loan?: { amount: number; tenor: number; interestRate: number } | null;
  policyVersion?: number | null;
  challenger?: ChallengerOutcome | null;
  outbox: OutboxEntry[];
  outboxPending: boolean;
}

/** What the challenger would have decided, stored with the analysis for the challenger report. */
export interface ChallengerOutcome {
  version: number;
  decision: string;
  approvedAmount: number;
  reasons: string[];
}
