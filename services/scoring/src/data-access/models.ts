import { Schema, type Connection } from 'mongoose';
import type { EnrichedAccount } from '@loan/contracts';
import { outboxFields, rawCollection, type OutboxEntry } from '@loan/runtime';

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
    ...outboxFields,
  },
  { versionKey: false, collection: 'analyses', minimize: false },
);

export const profileModel = (db: Connection) => db.model('Profile', profileSchema);
export const analysisModel = (db: Connection) => db.model('Analysis', analysisSchema);
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
  outbox: OutboxEntry[];
  outboxPending: boolean;
}

/**
 * The per-message reads and writes go through the driver's collections: profiles and
 * decisions are large, and are stored as they are.
 */
export const rawCollections = (models: { profiles: ProfileModel; analyses: AnalysisModel }) => ({
  profiles: rawCollection<ProfileDoc>(models.profiles),
  analyses: rawCollection<AnalysisDoc>(models.analyses),
});
export type RawCollections = ReturnType<typeof rawCollections>;
