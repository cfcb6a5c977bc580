import { isDuplicateKey, rawCollection, type OutboxEntry } from '@loan/runtime';
import type { Deadline, DeadlineKind, DeadlineStatus } from '../domain/deadline';
import type { JanitorModels } from './models';

/*
 * The previous version's deadlines: each in a document of its own (`deadlines`), its outcome
 * decided by an insert into `deadline_outcomes` under the deadline's id (the first insert wins,
 * FIRED or CANCELLED), a fired deadline's message in that outcome's outbox. They end the way
 * they were armed, so that a replica of either version can end them during a rolling upgrade;
 * new deadlines are never written here. The removal plan is in the service's README ("Removing
 * the previous version's deadlines").
 */

export type Outcome = Exclude<DeadlineStatus, 'ARMED'>;

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

/** An insert under a deterministic id: true when this one landed, false when one with the id exists. */
export async function insertOnce(insert: () => Promise<unknown>): Promise<boolean> {
  try {
    await insert();
    return true;
  } catch (error) {
    if (isDuplicateKey(error)) return false;
    throw error;
  }
}

/** The previous version's deadlines and their outcomes, read and ended as that version did. */
export function createLegacyDeadlines(models: Pick<JanitorModels, 'deadlines' | 'outcomes'>) {
  const { deadlines, outcomes } = models;
  // Per-message writes and reads go through the driver's collections, documents as they are.
  const raw = {
    deadlines: rawCollection<DeadlineDoc & { armedAt?: Date }>(deadlines),
    outcomes: rawCollection<OutcomeDoc & { kind: DeadlineKind; applicationId: string; outbox: OutboxEntry[] }>(
      outcomes,
    ),
  };

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
    return {
      won,
      held: held ? { deadlineId: deadline.deadlineId, outcome: held.outcome, decidedAt: held.decidedAt } : null,
    };
  }

  /**
   * One write command for the deadlines of a fact: mirrors the outcomes that hold on their
   * deadlines and arms the deadlines the previous version listed in a timeline but did not get
   * to arm (it died in between), each unless one with its id exists (an upsert that only sets
   * fields on insert). Returns the ids this call armed.
   */
  async function settle(held: readonly OutcomeHeld[], arms: readonly Deadline[], now: Date): Promise<Set<string>> {
    type Op = Parameters<typeof raw.deadlines.bulkWrite>[0][number];
    const ops: Op[] = [
      ...held.map((h): Op => ({
        updateOne: {
          filter: { _id: h.deadlineId },
          update: {
            $set: {
              status: h.outcome,
              ...(h.outcome === 'FIRED' ? { firedAt: h.decidedAt } : { cancelledAt: h.decidedAt }),
            },
          },
        },
      })),
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
      if (upserted[held.length + i] !== undefined) armed.add(deadline.deadlineId);
    });
    return armed;
  }

  return {
    record,
    settle,

    /**
     * Fires a deadline unless it already has an outcome: the FIRED outcome is inserted with the
     * message in its outbox, then mirrored on the deadline. True when this call fired it.
     */
    async fire(deadline: Pick<Deadline, 'deadlineId' | 'kind' | 'applicationId'>, entry: OutboxEntry, now: Date) {
      const { won, held } = await record(deadline, 'FIRED', now, [entry]);
      if (held) await settle([held], [], now);
      return won;
    },

    /** The armed deadlines due by `horizon`. */
    async armedDueBy(horizon: Date): Promise<Deadline[]> {
      const docs = await deadlines.find({ status: 'ARMED', dueAt: { $lte: horizon } }).lean<DeadlineDoc[]>();
      return docs.map((doc) => {
        const { status: _status, firedAt: _firedAt, cancelledAt: _cancelledAt, ...deadline } = toDeadline(doc);
        return deadline;
      });
    },

    /** Every armed deadline's kind and due time (for the gauges). */
    async armed(): Promise<Pick<Deadline, 'kind' | 'dueAt'>[]> {
      const docs = await deadlines
        .find({ status: 'ARMED' }, { _id: 0, kind: 1, dueAt: 1 })
        .lean<{ kind: DeadlineKind; dueAt: Date }[]>();
      return docs.map((d) => ({ kind: d.kind, dueAt: new Date(d.dueAt) }));
    },

    /** Fired deadlines whose message is still unpublished since `before` or earlier, by id and when they fired. */
    async unpublishedSince(before: Date, limit: number): Promise<{ deadlineId: string; firedAt: Date }[]> {
      const docs = await outcomes
        .find({ outboxPending: true, decidedAt: { $lte: before } }, { _id: 1, decidedAt: 1 })
        .limit(limit)
        .lean<OutcomeDoc[]>();
      return docs.map((doc) => ({ deadlineId: doc._id, firedAt: new Date(doc.decidedAt) }));
    },

    /** Fired deadlines whose message is not on the broker yet. */
    countUnpublished: () => outcomes.countDocuments({ outboxPending: true }),

    /** A deadline with whether its message went out (null unless it fired), or null when there is none. */
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
      return (await deadlines.find({ applicationId }).lean<DeadlineDoc[]>()).map(toDeadline);
    },
  };
}
export type LegacyDeadlines = ReturnType<typeof createLegacyDeadlines>;
