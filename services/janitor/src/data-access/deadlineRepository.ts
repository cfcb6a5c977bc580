import { isDuplicateKey, type OutboxEntry } from '@loan/runtime';
import type { Deadline, DeadlineKind, DeadlineStatus } from '../domain/deadline';
import type { CancelDeadlines } from '../domain/trackDeadlines/decide';
import type { JanitorModels } from './models';

type Outcome = Exclude<DeadlineStatus, 'ARMED'>;

/** A deadline as stored: the domain's fields plus where it stands. */
export interface StoredDeadline extends Deadline {
  status: DeadlineStatus;
  firedAt: Date | null;
  cancelledAt: Date | null;
}

interface DeadlineDoc {
  _id: string;
  kind: DeadlineKind;
  clientId: string;
  applicationId: string;
  accountId?: string | null;
  attempt?: number | null;
  since: string;
  dueAt: Date;
  status: DeadlineStatus;
  firedAt?: Date | null;
  cancelledAt?: Date | null;
}

interface OutcomeDoc {
  _id: string;
  outcome: Outcome;
  decidedAt: Date;
  outboxPending?: boolean;
}

function toDeadline(doc: DeadlineDoc): StoredDeadline {
  return {
    deadlineId: doc._id,
    kind: doc.kind,
    clientId: doc.clientId,
    applicationId: doc.applicationId,
    accountId: doc.accountId ?? null,
    attempt: doc.attempt ?? null,
    since: doc.since,
    dueAt: new Date(doc.dueAt),
    status: doc.status,
    firedAt: doc.firedAt ? new Date(doc.firedAt) : null,
    cancelledAt: doc.cancelledAt ? new Date(doc.cancelledAt) : null,
  };
}

function cancelFilter(spec: CancelDeadlines): Record<string, unknown> {
  const filter: Record<string, unknown> = { applicationId: spec.applicationId, kind: spec.kind, status: 'ARMED' };
  if (spec.accountId !== undefined) filter.accountId = spec.accountId;
  const since: Record<string, string> = {};
  if (spec.sinceBefore !== undefined) since.$lt = spec.sinceBefore;
  if (spec.sinceAtMost !== undefined) since.$lte = spec.sinceAtMost;
  if (Object.keys(since).length > 0) filter.since = since;
  if (spec.attemptAtMost !== undefined) filter.attempt = { $lte: spec.attemptAtMost };
  return filter;
}

async function insertOnce(insert: () => Promise<unknown>): Promise<boolean> {
  try {
    await insert();
    return true;
  } catch (error) {
    if (isDuplicateKey(error)) return false;
    throw error;
  }
}

/**
 * Stores deadlines and decides their outcomes. Arming, firing, cancelling and taking over a
 * publication are each one insert under a deterministic id: redelivered facts, replicas and
 * restarts can try them any number of times and only the first counts.
 */
export function createDeadlineRepository(models: Pick<JanitorModels, 'deadlines' | 'outcomes' | 'leases'>) {
  const { deadlines, outcomes, leases } = models;

  /**
   * Records the outcome of a deadline unless it already has one, then mirrors the outcome
   * that holds (this one or the earlier) on the deadline. True when this call decided it.
   */
  async function decide(
    deadline: Pick<Deadline, 'deadlineId' | 'kind' | 'applicationId'>,
    outcome: Outcome,
    now: Date,
    outbox: OutboxEntry[] = [],
  ): Promise<boolean> {
    const won = await insertOnce(() =>
      outcomes.create({
        _id: deadline.deadlineId,
        outcome,
        kind: deadline.kind,
        applicationId: deadline.applicationId,
        decidedAt: now,
        outbox,
        outboxPending: outbox.length > 0,
      }),
    );
    const held = won
      ? { outcome, decidedAt: now }
      : await outcomes.findById(deadline.deadlineId, { outcome: 1, decidedAt: 1 }).lean<OutcomeDoc>();
    if (held) {
      const at = held.outcome === 'FIRED' ? { firedAt: held.decidedAt } : { cancelledAt: held.decidedAt };
      await deadlines.updateOne({ _id: deadline.deadlineId }, { $set: { status: held.outcome, ...at } });
    }
    return won;
  }

  return {
    /**
     * Arms a deadline unless one with its id exists: a deadline already armed, fired or
     * cancelled stays as it is. True when this call armed it.
     */
    async arm(deadline: Deadline, now: Date): Promise<boolean> {
      const { deadlineId, ...fields } = deadline;
      return insertOnce(() => deadlines.create({ _id: deadlineId, ...fields, status: 'ARMED', armedAt: now }));
    },

    /** Cancels the armed deadlines the spec names; returns how many this call cancelled. */
    async cancel(spec: CancelDeadlines, now: Date): Promise<number> {
      const armed = await deadlines
        .find(cancelFilter(spec), { _id: 1, kind: 1, applicationId: 1 })
        .lean<DeadlineDoc[]>();
      let cancelled = 0;
      for (const doc of armed) {
        if (await decide({ deadlineId: doc._id, kind: doc.kind, applicationId: doc.applicationId }, 'CANCELLED', now))
          cancelled++;
      }
      return cancelled;
    },

    /** Armed deadlines due at `now`, oldest first. */
    async findDue(now: Date, limit: number): Promise<StoredDeadline[]> {
      const docs = await deadlines
        .find({ status: 'ARMED', dueAt: { $lte: now } })
        .sort({ dueAt: 1 })
        .limit(limit)
        .lean<DeadlineDoc[]>();
      return docs.map(toDeadline);
    },

    /**
     * Fires a deadline, its message in the same write, unless it already has an outcome. Of
     * several replicas trying at once exactly one succeeds; it publishes while its lease runs.
     */
    claim: (deadline: Deadline, entry: OutboxEntry, now: Date) => decide(deadline, 'FIRED', now, [entry]),

    /**
     * Fired deadlines whose message is still unpublished a lease after they fired (the replica
     * that fired them died or lost the broker). Each lease period after that, one replica
     * takes the publication over.
     */
    async takeOverUnpublished(now: Date, leaseMs: number, limit: number): Promise<string[]> {
      const stale = await outcomes
        .find({ outboxPending: true, decidedAt: { $lte: new Date(now.getTime() - leaseMs) } }, { _id: 1, decidedAt: 1 })
        .limit(limit)
        .lean<OutcomeDoc[]>();
      const taken: string[] = [];
      for (const doc of stale) {
        const period = Math.floor((now.getTime() - new Date(doc.decidedAt).getTime()) / leaseMs);
        if (await insertOnce(() => leases.create({ _id: `${doc._id}:${period}`, takenAt: now }))) taken.push(doc._id);
      }
      return taken;
    },

    async countArmed(kind: DeadlineKind): Promise<number> {
      return deadlines.countDocuments({ status: 'ARMED', kind });
    },

    /** Fired deadlines whose message is not on the broker yet. */
    async countUnpublished(): Promise<number> {
      return outcomes.countDocuments({ outboxPending: true });
    },

    async get(deadlineId: string): Promise<(StoredDeadline & { published: boolean | null }) | null> {
      const [doc, outcome] = await Promise.all([
        deadlines.findById(deadlineId).lean<DeadlineDoc>(),
        outcomes.findById(deadlineId, { outcome: 1, outboxPending: 1 }).lean<OutcomeDoc>(),
      ]);
      if (!doc) return null;
      const published = outcome?.outcome === 'FIRED' ? !outcome.outboxPending : null;
      return { ...toDeadline(doc), published };
    },

    async listByApplication(applicationId: string): Promise<StoredDeadline[]> {
      const docs = await deadlines.find({ applicationId }).sort({ since: 1 }).lean<DeadlineDoc[]>();
      return docs.map(toDeadline);
    },
  };
}
export type DeadlineRepository = ReturnType<typeof createDeadlineRepository>;
