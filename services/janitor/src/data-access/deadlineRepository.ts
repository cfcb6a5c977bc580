import { isDuplicateKey, rawCollection, type OutboxEntry } from '@loan/runtime';
import type { Deadline, DeadlineKind, DeadlineStatus } from '../domain/deadline';
import type { JanitorModels } from './models';

type Outcome = Exclude<DeadlineStatus, 'ARMED'>;

/** The outcome that holds for a deadline, to be mirrored on its document (`settle`). */
export interface OutcomeHeld {
  deadlineId: string;
  outcome: Outcome;
  decidedAt: Date;
}

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
 *
 * The armed deadlines are also kept in memory, so that finding the due ones reads no database:
 * those this process armed, and every armed deadline of the database as of the last
 * `reloadArmed` (at start, then periodically: what other replicas armed). A deadline leaves
 * memory once its outcome is recorded; firing one another replica cancelled or fired only
 * loses the outcome's insert, so memory may lag behind the database without harm.
 */
export function createDeadlineRepository(models: Pick<JanitorModels, 'deadlines' | 'outcomes' | 'leases'>) {
  const { deadlines, outcomes, leases } = models;
  // Per-message writes and reads go through the driver's collections, documents as they are.
  const raw = {
    deadlines: rawCollection<DeadlineDoc & { armedAt?: Date }>(deadlines),
    outcomes: rawCollection<OutcomeDoc & { kind: DeadlineKind; applicationId: string; outbox: OutboxEntry[] }>(outcomes),
  };
  /** Armed deadlines by id, each with the reload generation it was last confirmed in. */
  const armedInMemory = new Map<string, { deadline: Deadline; generation: number }>();
  let generation = 0;

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
    const { won, held } = await record(deadline, outcome, now, outbox);
    if (held) await settle([held], [], now);
    return won;
  }

  /**
   * Records the outcome of a deadline unless it already has one. Returns whether this call
   * decided it and the outcome that holds (this one or the earlier), for `settle` to mirror.
   */
  async function record(
    deadline: Pick<Deadline, 'deadlineId' | 'kind' | 'applicationId'>,
    outcome: Outcome,
    now: Date,
    outbox: OutboxEntry[] = [],
  ): Promise<{ won: boolean; held: OutcomeHeld | null }> {
    const won = await insertOnce(() =>
      raw.outcomes.insertOne({
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
      : await raw.outcomes.findOne({ _id: deadline.deadlineId }, { projection: { outcome: 1, decidedAt: 1 } });
    armedInMemory.delete(deadline.deadlineId);
    return { won, held: held ? { deadlineId: deadline.deadlineId, outcome: held.outcome, decidedAt: held.decidedAt } : null };
  }

  /**
   * One write command for the deadlines of a fact: mirrors the outcomes that hold on their
   * deadlines and arms the new deadlines, each unless one with its id exists (an upsert that
   * only sets fields on insert). Returns the ids this call armed.
   */
  async function settle(held: readonly OutcomeHeld[], arms: readonly Deadline[], now: Date): Promise<Set<string>> {
    type Op = Parameters<typeof raw.deadlines.bulkWrite>[0][number];
    const ops: Op[] = [
      ...held.map(
        (h): Op => ({
          updateOne: {
            filter: { _id: h.deadlineId },
            update: {
              $set: { status: h.outcome, ...(h.outcome === 'FIRED' ? { firedAt: h.decidedAt } : { cancelledAt: h.decidedAt }) },
            },
          },
        }),
      ),
      ...arms.map(({ deadlineId, ...fields }): Op => ({
        updateOne: {
          filter: { _id: deadlineId },
          update: { $setOnInsert: { ...fields, status: 'ARMED', armedAt: now } },
          upsert: true,
        },
      })),
    ];
    if (ops.length === 0) return new Set();
    let upserted: Record<number, unknown>;
    try {
      upserted = (await raw.deadlines.bulkWrite(ops, { ordered: false })).upsertedIds;
    } catch (error) {
      // Two upserts of one id at once: the loser's insert is refused, the deadline is armed.
      const failures = (error as { writeErrors?: unknown }).writeErrors;
      const writeErrors = (Array.isArray(failures) ? failures : [failures]) as { code?: number }[];
      const result = (error as { result?: { upsertedIds?: Record<number, unknown> } }).result;
      if (!result?.upsertedIds || !writeErrors.every((e) => e?.code === 11000)) throw error;
      upserted = result.upsertedIds;
    }
    const armed = new Set<string>();
    arms.forEach((deadline, i) => {
      if (upserted[held.length + i] === undefined) return;
      armed.add(deadline.deadlineId);
      armedInMemory.set(deadline.deadlineId, { deadline, generation });
    });
    return armed;
  }

  return {
    /**
     * Arms a deadline unless one with its id exists: a deadline already armed, fired or
     * cancelled stays as it is. True when this call armed it.
     */
    async arm(deadline: Deadline, now: Date): Promise<boolean> {
      return (await settle([], [deadline], now)).has(deadline.deadlineId);
    },

    /**
     * Cancels a deadline unless it already has an outcome (then its status is brought in line
     * with it). True when this call cancelled it.
     */
    cancel: (deadline: Pick<Deadline, 'deadlineId' | 'kind' | 'applicationId'>, now: Date) =>
      decide(deadline, 'CANCELLED', now),

    /**
     * Records the cancellation of a deadline unless it already has an outcome; the outcome
     * that holds is returned for `settle` to mirror on the deadline, in one write with others.
     * Until then only the outcome says the deadline is over (firing it later is refused by the
     * outcome already recorded, and mirrors it).
     */
    recordCancel: (deadline: Pick<Deadline, 'deadlineId' | 'kind' | 'applicationId'>, now: Date) =>
      record(deadline, 'CANCELLED', now),

    settle,

    /** Armed deadlines due at `now`, oldest first, from memory. */
    findDue(now: Date, limit: number): StoredDeadline[] {
      const due: Deadline[] = [];
      for (const { deadline } of armedInMemory.values())
        if (deadline.dueAt.getTime() <= now.getTime()) due.push(deadline);
      due.sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime());
      return due
        .slice(0, limit)
        .map((deadline) => ({ ...deadline, status: 'ARMED' as const, firedAt: null, cancelledAt: null }));
    },

    /**
     * Reads every armed deadline of the database into memory (one pass over the collection) and
     * forgets those remembered before the pass that are no longer armed. Returns how many are armed.
     */
    async reloadArmed(): Promise<number> {
      const current = ++generation;
      const docs = await deadlines.find({ status: 'ARMED' }).lean<DeadlineDoc[]>();
      const ids = new Set(docs.map((doc) => doc._id));
      for (const [id, entry] of armedInMemory) {
        if (entry.generation < current && !ids.has(id)) armedInMemory.delete(id);
      }
      for (const doc of docs) {
        const { status: _status, firedAt: _firedAt, cancelledAt: _cancelledAt, ...deadline } = toDeadline(doc);
        armedInMemory.set(doc._id, { deadline, generation: current });
      }
      return docs.length;
    },

    /** How many armed deadlines this process holds in memory. */
    armedInMemory: () => armedInMemory.size,

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

    /** Armed deadlines due before `now`: the scheduler should have fired them. */
    async countOverdue(now: Date): Promise<number> {
      return deadlines.countDocuments({ status: 'ARMED', dueAt: { $lt: now } });
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
