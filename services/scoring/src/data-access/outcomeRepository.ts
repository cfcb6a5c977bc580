import { createHash } from 'node:crypto';
import type { OutcomeReport } from '@loan/contracts';
import { isDuplicateKey, rawCollection, type OutboxEntry } from '@loan/runtime';
import type { Basis, DecidedAnalysis, Grant } from '../domain/outcomes/decide';
import type { LoanState } from '../domain/outcomes/loanState';
import { merge, type Cells } from '../domain/performance/cells';
import type { AnalysisDoc, AnalysisModel, OutcomeModels } from './models';

/** How many documents a lender's counts are spread over. */
export const PARTITIONS = 16;

/** The partition of a loan, from its application id (a UUID: its first 8 hex digits are random). */
export const partitionOf = (applicationId: string): number =>
  Number.parseInt(applicationId.replace(/-/g, '').slice(0, 8), 16) % PARTITIONS;

/** An outcome as stored with its loan. */
export interface StoredOutcome {
  key: string;
  /** Digest of the report: the same key with another report is a conflict. */
  digest: string;
  outcomeId: string;
  sequence: number;
  report: OutcomeReport;
  recordedAt: Date;
}

export interface LoanDoc {
  _id: string;
  clientId: string;
  analysisId: string;
  partition: number;
  basis: Basis;
  outcomes: StoredOutcome[];
  state: LoanState;
  rev: number;
  changedAt: Date;
  countedCells: string[];
  countedRev: number;
  countPending: boolean;
  outbox: OutboxEntry[];
  outboxPending: boolean;
}

interface GrantDoc {
  _id: string;
  /** The application's latest decided analysis: found by the application's id without a scan. */
  analysisId?: string;
  review: Grant['review'];
  offer: Grant['offer'];
}

interface PartitionDoc {
  _id: string;
  clientId: string;
  partition: number;
  cells: Cells;
  applied: Record<string, number>;
}

const partitionId = (clientId: string, partition: number) => `${clientId}|${partition}`;

/** The digest of an outcome report, key order aside. */
export function digestOf(report: OutcomeReport): string {
  const sorted = Object.fromEntries(Object.entries(report).sort(([a], [b]) => a.localeCompare(b)));
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
}

/**
 * Scoring's loans: their outcomes and derived state, what applications said of their decisions
 * after them (reviews, answers to offers), the counts of a lender's loans by cell and the
 * lender's performance settings. Read and written through the driver.
 */
export function createOutcomeRepository(models: OutcomeModels, analysisModel: AnalysisModel) {
  const loans = rawCollection<LoanDoc>(models.loans);
  const grants = rawCollection<GrantDoc>(models.grants);
  const partitions = rawCollection<PartitionDoc>(models.partitions);
  const settings = rawCollection<{ _id: string; bad: unknown; updatedAt: Date; updatedBy: string }>(models.settings);
  const analyses = rawCollection<AnalysisDoc>(analysisModel);
  const scoreDays = rawCollection<{ _id: string; clientId: string; day: string; bins: Cells }>(models.scoreDays);

  /** Sets one field of a grant unless a later one is stored (a redelivery, or facts out of order). */
  async function setGrant(applicationId: string, field: 'review' | 'offer', value: { at: string }, at: string) {
    const path = field === 'review' ? 'review.reviewedAt' : 'offer.answeredAt';
    try {
      await grants.updateOne(
        // FerretDB's `null` matches no missing field: both are named.
        { _id: applicationId, $or: [{ [field]: { $exists: false } }, { [field]: null }, { [path]: { $lte: at } }] },
        { $set: { [field]: value } },
        { upsert: true },
      );
    } catch (error) {
      // The grant exists with a later value: the filter missed and the upsert collided.
      if (!isDuplicateKey(error)) throw error;
    }
  }

  return {
    loans,

    /** Remembers the application's decided analysis, where its outcomes find it. */
    async recordDecided(applicationId: string, analysisId: string) {
      await grants.updateOne({ _id: applicationId }, { $set: { analysisId } }, { upsert: true });
    },

    /**
     * The application's decided analysis, by the id its decision left in the grants
     * (`analysisId`, from `grant`); null without one. (Decisions made before those ids were kept
     * have none: outcomes are taken for decisions made since.)
     */
    async decidedAnalysis(analysisId: string | undefined): Promise<DecidedAnalysis | null> {
      if (!analysisId) return null;
      const projection = { clientId: 1, decision: 1, decidedAt: 1, policyVersion: 1, challenger: 1, status: 1 };
      const doc = await analyses.findOne({ _id: analysisId, status: 'DECIDED' }, { projection });
      if (!doc || !doc.decision || !doc.decidedAt) return null;
      return {
        analysisId: doc._id,
        clientId: doc.clientId,
        decision: doc.decision as DecidedAnalysis['decision'],
        decidedAt: doc.decidedAt,
        policyVersion: doc.policyVersion ?? null,
        challenger: doc.challenger ? { version: doc.challenger.version, decision: doc.challenger.decision } : null,
      };
    },

    /** What was said of the application's decision since, and where its decided analysis is. */
    async grant(applicationId: string): Promise<(Grant & { analysisId?: string }) | null> {
      const doc = await grants.findOne({ _id: applicationId });
      return doc ? { review: doc.review ?? null, offer: doc.offer ?? null, analysisId: doc.analysisId } : null;
    },

    recordReview: (applicationId: string, review: NonNullable<Grant['review']>) =>
      setGrant(applicationId, 'review', review as never, review.reviewedAt),
    recordOffer: (applicationId: string, offer: NonNullable<Grant['offer']>) =>
      setGrant(applicationId, 'offer', offer as never, offer.answeredAt),

    loan: (applicationId: string) => loans.findOne({ _id: applicationId }),

    /** Of these applications, those with a loan or a decision to measure one against: two reads. */
    async known(applicationIds: string[]): Promise<Set<string>> {
      const ids = [...new Set(applicationIds)];
      const [withLoans, withGrants] = await Promise.all([
        loans.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray(),
        grants.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray(),
      ]);
      return new Set([...withLoans, ...withGrants].map((doc) => doc._id));
    },

    /** The states of the loans of these applications (those with outcomes), by application id. */
    async loanStates(applicationIds: string[]): Promise<Map<string, LoanState>> {
      const found = new Map<string, LoanState>();
      for (let i = 0; i < applicationIds.length; i += 500) {
        const docs = await loans
          .find({ _id: { $in: applicationIds.slice(i, i + 500) } }, { projection: { state: 1 } })
          .toArray();
        for (const doc of docs) found.set(doc._id, doc.state);
      }
      return found;
    },

    /** Stores a loan's first outcome; false when another writer stored one first. */
    async insertLoan(doc: LoanDoc): Promise<boolean> {
      try {
        await loans.insertOne(doc);
        return true;
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
    },

    /**
     * Adds an outcome to a loan as read at `rev`, with its outbox entries; `counts` says what its
     * counts hold after the write. False when the loan changed meanwhile.
     */
    async appendOutcome(
      doc: LoanDoc,
      change: {
        outcome: StoredOutcome;
        state: LoanState;
        entries: OutboxEntry[];
        counts: Pick<LoanDoc, 'countedRev' | 'countedCells' | 'countPending'>;
        now: Date;
      },
    ): Promise<boolean> {
      const written = await loans.updateOne(
        { _id: doc._id, rev: doc.rev },
        {
          $set: { state: change.state, rev: doc.rev + 1, changedAt: change.now, outboxPending: true, ...change.counts },
          $push: { outcomes: change.outcome, outbox: { $each: change.entries } },
        },
      );
      return written.modifiedCount === 1;
    },

    /**
     * Counts a loan's change (`delta`: +1 for each cell it now counts in, -1 for each it left)
     * in its partition's counts, once: `applied` remembers the rev counted until the loan says so.
     */
    async count(loan: Pick<LoanDoc, '_id' | 'clientId' | 'partition' | 'rev'>, delta: Record<string, number>) {
      const _id = partitionId(loan.clientId, loan.partition);
      const inc = Object.fromEntries(Object.entries(delta).map(([cell, n]) => [`cells.${cell}`, n]));
      try {
        await partitions.updateOne(
          { _id, [`applied.${loan._id}`]: { $ne: loan.rev } },
          {
            $inc: inc,
            $set: { [`applied.${loan._id}`]: loan.rev, clientId: loan.clientId, partition: loan.partition },
          },
          { upsert: true },
        );
      } catch (error) {
        // Counted already: the guard missed on the stored document and the upsert collided.
        if (!isDuplicateKey(error)) throw error;
      }
    },

    /** Records on the loan that its counts hold `cells` as of its `rev`, then forgets the guard. */
    async counted(loan: Pick<LoanDoc, '_id' | 'clientId' | 'partition' | 'rev'>, cells: string[]) {
      await loans.updateOne(
        { _id: loan._id, countedRev: { $lt: loan.rev } },
        { $set: { countedRev: loan.rev, countedCells: cells, countPending: false } },
      );
      await partitions.updateOne(
        { _id: partitionId(loan.clientId, loan.partition), [`applied.${loan._id}`]: loan.rev },
        { $unset: { [`applied.${loan._id}`]: '' } },
      );
    },

    /** Loans whose counts lag their state: a crash between the writes. */
    pendingCounts: (limit: number) => loans.find({ countPending: true }).limit(limit).toArray(),

    /** A lender's counts, all partitions together. */
    async cells(clientId: string): Promise<Cells> {
      const ids = Array.from({ length: PARTITIONS }, (_, p) => partitionId(clientId, p));
      const docs = await partitions.find({ _id: { $in: ids } }, { projection: { cells: 1 } }).toArray();
      return merge(docs.map((doc) => doc.cells ?? {}));
    },

    /** Counts a decision in its day's drift bins (`domain/performance/drift.ts`). */
    async countDecision(clientId: string, day: string, cells: string[]) {
      const inc = Object.fromEntries(cells.map((cell) => [`bins.${cell}`, 1]));
      await scoreDays.updateOne(
        { _id: `${clientId}|${day}` },
        { $inc: inc, $set: { clientId, day } },
        { upsert: true },
      );
    },

    /** The drift bins of the days from `from` to `to`, summed. */
    async decisionsOn(clientId: string, days: string[]): Promise<Record<string, number>> {
      const docs = await scoreDays
        .find({ _id: { $in: days.map((day) => `${clientId}|${day}`) } }, { projection: { bins: 1 } })
        .toArray();
      return merge(docs.map((doc) => doc.bins ?? {}));
    },

    async settings(clientId: string): Promise<unknown | null> {
      const doc = await settings.findOne({ _id: clientId });
      return doc?.bad ?? null;
    },

    async saveSettings(clientId: string, bad: unknown, actor: string, now: Date): Promise<void> {
      await settings.replaceOne({ _id: clientId }, { bad, updatedAt: now, updatedBy: actor }, { upsert: true });
    },
  };
}
export type OutcomeRepository = ReturnType<typeof createOutcomeRepository>;
