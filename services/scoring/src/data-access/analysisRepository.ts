import { isDuplicateKey, rawCollection, type OutboxEntry } from '@loan/runtime';
import type { AnalysisDoc, AnalysisModel } from './models';

/** The analysis a request names, as it is first written. */
export interface RequestedAnalysis {
  analysisId: string;
  applicationId: string;
  clientId: string;
  applicantId: string;
  requestedAt: Date;
}

/** The outcome of an analysis, as stored beside the request. */
export type AnalysisOutcome = Partial<
  Pick<
    AnalysisDoc,
    'status' | 'decision' | 'failureReason' | 'audit' | 'bureau' | 'decidedAt' | 'loan' | 'policyVersion' | 'challenger'
  >
>;

/**
 * Scoring's analyses: one document per analysis with its decision (or failure), the audit record
 * it was made from and the outbox of its result. Read and written through the driver: decisions
 * and their audit records are large, and are stored as they are.
 */
export function createAnalysisRepository(model: AnalysisModel) {
  const analyses = rawCollection<AnalysisDoc>(model);

  return {
    /** The status of a stored analysis, or null when none is stored. */
    async statusOf(analysisId: string): Promise<AnalysisDoc['status'] | null> {
      const doc = await analyses.findOne({ _id: analysisId }, { projection: { status: 1 } });
      return doc?.status ?? null;
    },

    /**
     * Stores the decided analysis with its result in the outbox. The analysis is written once,
     * decided: of two replicas (or a redelivery after a crash) only the first insert lands, and
     * whoever loses publishes what the winner stored. A PENDING analysis written by an earlier
     * version (it inserted one before asking the bureau) is decided by a conditional update.
     * Returns the entries left to publish, or undefined when another writer decided it first
     * (the relay reads them from the document).
     */
    async storeOutcome(
      request: RequestedAnalysis,
      outcome: AnalysisOutcome,
      entry: OutboxEntry,
    ): Promise<OutboxEntry[] | undefined> {
      try {
        await analyses.insertOne({
          _id: request.analysisId,
          applicationId: request.applicationId,
          clientId: request.clientId,
          applicantId: request.applicantId,
          status: 'PENDING',
          decision: null,
          failureReason: null,
          audit: null,
          bureau: null,
          requestedAt: request.requestedAt,
          ...outcome,
          outbox: [entry],
          outboxPending: true,
        });
        return [entry];
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      const written = await analyses.updateOne(
        { _id: request.analysisId, status: 'PENDING' },
        { $set: { ...outcome, outboxPending: true }, $push: { outbox: entry } },
      );
      return written.modifiedCount === 1 ? [entry] : undefined;
    },

    /** A lender's analyses the challenger also decided since it was set, the latest first. */
    async challenged(clientId: string, challenger: { version: number; since: Date }, limit: number) {
      return analyses
        .find(
          {
            clientId,
            status: 'DECIDED',
            'challenger.version': challenger.version,
            decidedAt: { $gte: challenger.since },
          },
          { projection: { applicationId: 1, decision: 1, policyVersion: 1, challenger: 1, decidedAt: 1 } },
        )
        .sort({ decidedAt: -1 })
        .limit(limit)
        .toArray();
    },

    /** A lender's latest decided analyses, with what a replay of a policy decides them from. */
    async latestDecided(clientId: string, limit: number) {
      return analyses
        .find(
          { clientId, status: 'DECIDED' },
          { projection: { applicationId: 1, applicantId: 1, loan: 1, audit: 1, decidedAt: 1 } },
        )
        .sort({ decidedAt: -1 })
        .limit(limit)
        .toArray();
    },
  };
}
export type AnalysisRepository = ReturnType<typeof createAnalysisRepository>;
