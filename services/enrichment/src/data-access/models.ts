import { Schema, type Connection } from 'mongoose';
import { outboxFields } from '@loan/runtime';

const partFields = {
  status: { type: String, required: true },
  startedAt: { type: Date, default: null },
  signalledAt: { type: Date, default: null },
  doneAt: { type: Date, default: null },
  result: { type: Schema.Types.Mixed, default: null },
};

/**
 * One document per linked account (`_id` is our account id): the enrichment's progress, the
 * provider's raw results and the messages its changes publish, all written at once.
 */
export const jobSchema = new Schema(
  {
    _id: { type: String, required: true },
    rev: { type: Number, required: true },
    applicationId: { type: String, required: true, index: true },
    applicantId: { type: String, required: true },
    clientId: { type: String, required: true },
    providerAccountId: { type: String, required: true, index: true },
    institution: { type: String, default: null },
    accountNumber: { type: String, default: null },
    providerKeySealed: { type: String, required: true },
    attempt: { type: Number, required: true },
    since: { type: String, required: true },
    status: { type: String, required: true },
    income: { type: new Schema(partFields, { _id: false }), required: true },
    insights: {
      type: new Schema({ ...partFields, jobId: { type: String, default: null } }, { _id: false }),
      required: true,
    },
    nextTryAt: { type: Date, default: null },
    failures: { type: Number, default: 0 },
    lastError: { type: String, default: null },
    handledFacts: { type: [String], default: [] },
    enrichedAt: { type: Date, default: null },
    failedAt: { type: Date, default: null },
    closedAt: { type: Date, default: null },
    scrubbedAt: { type: Date, default: null },
    createdAt: Date,
    updatedAt: Date,
    ...outboxFields,
  },
  { versionKey: false, collection: 'enrichment_jobs', minimize: false },
);
// Used by the periodic reload of pending jobs and the scrub (MongoDB; FerretDB on SQLite only
// indexes `_id`, which is why the per-message paths go through the two lookups below).
jobSchema.index({ status: 1, nextTryAt: 1 });

/**
 * Which of our accounts (jobs) a provider account is linked to (`_id` is the provider's account
 * id): a provider webhook names only the provider account. Written before the job that needs
 * it; only ever grows (a stale entry is recognised on the job itself).
 */
export const providerAccountSchema = new Schema(
  {
    _id: { type: String, required: true },
    accountIds: { type: [String], default: [] },
  },
  { versionKey: false, collection: 'enrichment_provider_accounts' },
);

/**
 * Which of our accounts (jobs) belong to an application (`_id` is the application id), for
 * the application's closing. Written before the job; only ever grows.
 */
export const applicationAccountsSchema = new Schema(
  {
    _id: { type: String, required: true },
    accountIds: { type: [String], default: [] },
  },
  { versionKey: false, collection: 'enrichment_application_accounts' },
);

/**
 * The applicant's bank data: the enriched profile of one account (`_id` is our account id).
 * Deleted when the application is abandoned without analysis.
 */
export const bankDataSchema = new Schema(
  {
    _id: { type: String, required: true },
    applicationId: { type: String, required: true, index: true },
    applicantId: { type: String, required: true },
    clientId: { type: String, required: true },
    attempt: { type: Number, required: true },
    profile: { type: Schema.Types.Mixed, required: true },
    storedAt: Date,
  },
  { versionKey: false, collection: 'bank_data', minimize: false },
);

/** One document per scrub of an application's bank data (`_id` is the closing fact's id), with its outbox. */
export const scrubSchema = new Schema(
  {
    _id: { type: String, required: true },
    applicationId: { type: String, required: true, index: true },
    accountIds: { type: [String], default: [] },
    scrubbedAt: Date,
    ...outboxFields,
  },
  { versionKey: false, collection: 'bank_data_scrubs' },
);

export function enrichmentModels(db: Connection) {
  return {
    jobs: db.model('EnrichmentJob', jobSchema),
    bankData: db.model('BankData', bankDataSchema),
    scrubs: db.model('BankDataScrub', scrubSchema),
    providerAccounts: db.model('EnrichmentProviderAccount', providerAccountSchema),
    applicationAccounts: db.model('EnrichmentApplicationAccounts', applicationAccountsSchema),
  };
}
export type EnrichmentModels = ReturnType<typeof enrichmentModels>;
