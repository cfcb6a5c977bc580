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

/**
 * One document per loan (keyed by applicationId): the decision it is measured against, the
 * outcomes the lender reported in order (each with its idempotency key), the state derived from
 * them, and the outbox of what it publishes on `loan.outcomes.v1`. Every change is one write,
 * compare-and-set on `rev`.
 */
const loanSchema = new Schema(
  {
    _id: { type: String, required: true },
    clientId: { type: String, required: true },
    analysisId: String,
    /** Which of the lender's summaries counts it (`performance_partitions`). */
    partition: Number,
    basis: { type: Schema.Types.Mixed, required: true },
    outcomes: { type: Schema.Types.Mixed, default: [] },
    state: { type: Schema.Types.Mixed, required: true },
    rev: { type: Number, default: 0 },
    changedAt: Date,
    /** The cells the lender's counts hold for this loan, and as of which rev. */
    countedCells: { type: [String], default: [] },
    countedRev: { type: Number, default: 0 },
    /** Its counts lag its state (a crash between the writes): the sweep brings them up. */
    countPending: { type: Boolean, default: false, index: true },
    ...outboxFields,
  },
  { versionKey: false, collection: 'loans', minimize: false },
);
// A recount of a lender's counts reads its loans.
loanSchema.index({ clientId: 1 });

/** What applications said of a decision after it: the final review and the offer's answer. */
const grantSchema = new Schema(
  {
    _id: { type: String, required: true },
    review: { type: Schema.Types.Mixed, default: null },
    offer: { type: Schema.Types.Mixed, default: null },
  },
  { versionKey: false, collection: 'grants', minimize: false },
);

/**
 * Counts of a lender's loans by cell (`domain/performance/cells.ts`), spread over a few documents
 * so that writes of different loans rarely meet on one. `applied` holds, for a change being
 * counted, the rev of the loan it counts: a change is counted once, whoever retries it.
 */
const partitionSchema = new Schema(
  {
    _id: { type: String, required: true },
    clientId: { type: String, required: true },
    partition: Number,
    cells: { type: Schema.Types.Mixed, default: {} },
    applied: { type: Schema.Types.Mixed, default: {} },
  },
  { versionKey: false, collection: 'performance_partitions', minimize: false },
);

/** A lender's performance settings: what makes a loan bad. */
const performanceSettingsSchema = new Schema(
  {
    _id: { type: String, required: true },
    bad: { type: Schema.Types.Mixed, required: true },
    updatedAt: Date,
    updatedBy: String,
  },
  { versionKey: false, collection: 'performance_settings', minimize: false },
);

/** A lender's decisions of one day, counted by score bin: the populations the drift compares. */
const scoreDaySchema = new Schema(
  {
    _id: { type: String, required: true },
    clientId: String,
    day: String,
    bins: { type: Schema.Types.Mixed, default: {} },
  },
  { versionKey: false, collection: 'score_days', minimize: false },
);

export const outcomeModels = (db: Connection) => ({
  scoreDays: db.model('ScoreDay', scoreDaySchema),
  loans: db.model('Loan', loanSchema),
  grants: db.model('Grant', grantSchema),
  partitions: db.model('PerformancePartition', partitionSchema),
  settings: db.model('PerformanceSettings', performanceSettingsSchema),
});
export type OutcomeModels = ReturnType<typeof outcomeModels>;

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
