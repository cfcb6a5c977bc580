import { ServiceError, isDuplicateKey, rawCollection, type OutboxEntry } from '@loan/runtime';
import {
  type Deadline,
  type DeadlineKind,
  type DeadlineStatus,
  type TrackedDeadline,
  nextDueOf,
} from '../domain/deadline';
import { fireIn } from '../domain/fireDeadline/decide';
import { type TimelineDoc, toStored, toTrackedDoc } from './timelineRepository';
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

/**
 * An armed deadline whose due time has come: `legacy` when an earlier version armed it in a
 * document of its own (its outcome is then an insert into `deadline_outcomes`).
 */
export interface DueDeadline extends Deadline {
  legacy: boolean;
}

/** Where a fired deadline's message waits to be published: the timeline's outbox, or an earlier version's outcome's. */
export interface PendingMessage {
  outbox: 'timeline' | 'outcome';
  /** The document holding it: the application id, or the earlier version's deadline id. */
  documentId: string;
}

/** How long one scan of the armed deadlines serves the gauges (a scrape asks for each kind). */
const ARMED_SCAN_REUSE_MS = 1_000;

/** Conflicts with other writers of one timeline after which a firing gives up until the next pass. */
const MAX_FIRE_CONFLICTS = 10;

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
 * Stores deadlines and decides their outcomes. A deadline lives in its application's timeline
 * document (written by the fact consumer, `timelineRepository.save`); firing it is one update of
 * that document conditional on its revision, with the message in its outbox, so a firing and a
 * cancellation of the same deadline (or two replicas firing it) are writes of one document of
 * which exactly one applies to the revision both read: the other reads again and finds it
 * ended.
 *
 * Deadlines an earlier version armed in documents of their own (`deadlines`) end as that
 * version ended them: their outcome is an insert into `deadline_outcomes` under the deadline's
 * id (`recordCancel`, `claim`), the first insert wins, and `settle` mirrors it on the deadline.
 *
 * The armed deadlines due before the horizon of the last `reloadArmed` are also kept in
 * memory, so that finding the due ones reads no database: those this process armed (`track`),
 * and those of the database as of the last reload (what other replicas armed). Firing one
 * another replica cancelled or fired only costs a read, so memory may lag behind the database
 * without harm.
 */
export function createDeadlineRepository(
  models: Pick<JanitorModels, 'deadlines' | 'outcomes' | 'leases' | 'timelineHeads'>,
) {
  const { deadlines, outcomes, leases, timelineHeads } = models;
  // Per-message writes and reads go through the driver's collections, documents as they are.
  const raw = {
    deadlines: rawCollection<DeadlineDoc & { armedAt?: Date }>(deadlines),
    outcomes: rawCollection<OutcomeDoc & { kind: DeadlineKind; applicationId: string; outbox: OutboxEntry[] }>(
      outcomes,
    ),
    heads: rawCollection<TimelineDoc>(timelineHeads),
  };
  /** Armed deadlines by id, each with the reload generation it was last confirmed in. */
  const armedInMemory = new Map<string, { deadline: Deadline; generation: number; legacy: boolean }>();
  let generation = 0;
  /** Deadlines due after this are left to a later reload (null: before the first reload, all kept). */
  let horizon: Date | null = null;
  const withinHorizon = (deadline: Pick<Deadline, 'dueAt'>) => horizon === null || deadline.dueAt <= horizon;

  /**
   * Records the outcome of an earlier version's deadline unless it already has one, then
   * mirrors the outcome that holds (this one or the earlier) on the deadline. True when this
   * call decided it.
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
   * Records the outcome of an earlier version's deadline unless it already has one. Returns
   * whether this call decided it and the outcome that holds (this one or the earlier), for
   * `settle` to mirror.
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
    return {
      won,
      held: held ? { deadlineId: deadline.deadlineId, outcome: held.outcome, decidedAt: held.decidedAt } : null,
    };
  }

  /**
   * One write command for the earlier version's deadlines of a fact: mirrors the outcomes that
   * hold on their deadlines and arms the deadlines that version listed in a timeline but did
   * not get to arm (it died in between), each unless one with its id exists (an upsert that
   * only sets fields on insert). Returns the ids this call armed.
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
      if (upserted[held.length + i] === undefined) return;
      armed.add(deadline.deadlineId);
      armedInMemory.set(deadline.deadlineId, { deadline, generation, legacy: true });
    });
    return armed;
  }

  /**
   * Fires a deadline of a timeline: reads the timeline and writes it back with the deadline
   * FIRED and its message in the outbox, conditional on the revision read. True when this call
   * fired it; false when it is no longer armed (cancelled, fired by another replica).
   */
  async function fireInTimeline(deadline: Deadline, entry: OutboxEntry, now: Date): Promise<boolean> {
    for (let conflict = 0; conflict < MAX_FIRE_CONFLICTS; conflict++) {
      const doc = await raw.heads.findOne({ _id: deadline.applicationId });
      const fired = doc ? fireIn(toStored(doc).deadlines, deadline.deadlineId, now) : null;
      if (!doc || !fired) {
        armedInMemory.delete(deadline.deadlineId);
        return false;
      }
      const written = await raw.heads.updateOne(
        { _id: doc._id, rev: doc.rev },
        {
          $set: {
            rev: doc.rev + 1,
            deadlines: fired.map(toTrackedDoc),
            nextDueAt: nextDueOf(fired),
            outboxPending: true,
            outboxAt: now,
          },
          $push: { outbox: entry },
        },
      );
      if (written.modifiedCount === 1) {
        armedInMemory.delete(deadline.deadlineId);
        return true;
      }
    }
    throw new ServiceError(`Timeline of application ${deadline.applicationId} kept changing while firing`, {
      retriable: true,
    });
  }

  /**
   * Every armed deadline's kind and due time, from one scan of the timelines with one armed
   * and one of the earlier version's deadlines; reused for a second, so that the gauges of one
   * scrape read them once.
   */
  let armedScan: { at: number; armed: Promise<Pick<Deadline, 'kind' | 'dueAt'>[]> } | null = null;
  function allArmed(): Promise<Pick<Deadline, 'kind' | 'dueAt'>[]> {
    if (armedScan && Date.now() - armedScan.at < ARMED_SCAN_REUSE_MS) return armedScan.armed;
    const armed = Promise.all([
      deadlines.find({ status: 'ARMED' }, { _id: 0, kind: 1, dueAt: 1 }).lean<{ kind: DeadlineKind; dueAt: Date }[]>(),
      raw.heads
        .find({ nextDueAt: { $ne: null } }, { projection: { applicationId: 1, clientId: 1, deadlines: 1, rev: 1 } })
        .toArray(),
    ]).then(([legacy, heads]) => [
      ...legacy.map((d) => ({ kind: d.kind, dueAt: new Date(d.dueAt) })),
      ...heads.flatMap((doc) => toStored(doc).deadlines.filter((d) => d.status === 'ARMED')),
    ]);
    armedScan = { at: Date.now(), armed };
    armed.catch(() => (armedScan = null));
    return armed;
  }

  return {
    /**
     * Records the cancellation of an earlier version's deadline unless it already has an
     * outcome; the outcome that holds is returned for `settle` to mirror on the deadline. Until
     * then only the outcome says the deadline is over (firing it later is refused by the outcome
     * already recorded, and mirrors it).
     */
    recordCancel: (deadline: Pick<Deadline, 'deadlineId' | 'kind' | 'applicationId'>, now: Date) =>
      record(deadline, 'CANCELLED', now),

    settle,

    /**
     * What the fact consumer just wrote of an application's deadlines: the armed ones are kept
     * in memory (those due before the horizon), the ended ones forgotten.
     */
    track(tracked: readonly TrackedDeadline[]): void {
      for (const d of tracked) {
        if (d.status !== 'ARMED' || !withinHorizon(d)) {
          armedInMemory.delete(d.deadlineId);
          continue;
        }
        const { status: _status, armedAt: _armedAt, firedAt: _firedAt, cancelledAt: _cancelledAt, ...deadline } = d;
        armedInMemory.set(d.deadlineId, { deadline, generation, legacy: false });
      }
    },

    /** Armed deadlines due at `now`, oldest first, from memory. */
    findDue(now: Date, limit: number): DueDeadline[] {
      const due: DueDeadline[] = [];
      for (const { deadline, legacy } of armedInMemory.values())
        if (deadline.dueAt.getTime() <= now.getTime()) due.push({ ...deadline, legacy });
      due.sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime());
      return due.slice(0, limit);
    },

    /**
     * Reads the armed deadlines due before `now + aheadMs` (the horizon) into memory, from the
     * timelines whose earliest armed deadline is due by then (`nextDueAt`, indexed) and the
     * earlier version's deadlines, and forgets those remembered before the pass that are no
     * longer armed. Returns how many it read.
     */
    async reloadArmed(now: Date, aheadMs: number): Promise<number> {
      const current = ++generation;
      horizon = new Date(now.getTime() + aheadMs);
      const [legacyDocs, heads] = await Promise.all([
        deadlines.find({ status: 'ARMED', dueAt: { $lte: horizon } }).lean<DeadlineDoc[]>(),
        raw.heads
          .find(
            { nextDueAt: { $lte: horizon } },
            { projection: { applicationId: 1, clientId: 1, deadlines: 1, rev: 1 } },
          )
          .toArray(),
      ]);
      const found: { deadline: Deadline; legacy: boolean }[] = [];
      for (const doc of legacyDocs) {
        const { status: _status, firedAt: _firedAt, cancelledAt: _cancelledAt, ...deadline } = toDeadline(doc);
        found.push({ deadline, legacy: true });
      }
      for (const head of heads) {
        for (const d of toStored(head).deadlines) {
          if (d.status !== 'ARMED' || !withinHorizon(d)) continue;
          const { status: _status, armedAt: _armedAt, firedAt: _firedAt, cancelledAt: _cancelledAt, ...deadline } = d;
          found.push({ deadline, legacy: false });
        }
      }
      const ids = new Set(found.map((f) => f.deadline.deadlineId));
      for (const [id, entry] of armedInMemory) {
        if (entry.generation < current && !ids.has(id)) armedInMemory.delete(id);
      }
      for (const { deadline, legacy } of found)
        armedInMemory.set(deadline.deadlineId, { deadline, generation: current, legacy });
      return found.length;
    },

    /** How many armed deadlines this process holds in memory. */
    armedInMemory: () => armedInMemory.size,

    /**
     * Fires a deadline, its message in the same write, unless it already has an outcome. Of
     * several replicas (or a replica and a cancellation) trying at once exactly one succeeds;
     * it publishes while its lease runs.
     */
    claim: (deadline: DueDeadline, entry: OutboxEntry, now: Date): Promise<boolean> =>
      deadline.legacy ? decide(deadline, 'FIRED', now, [entry]) : fireInTimeline(deadline, entry, now),

    /** Where the message of a deadline this process just fired waits. */
    pendingOf: (deadline: DueDeadline): PendingMessage =>
      deadline.legacy
        ? { outbox: 'outcome', documentId: deadline.deadlineId }
        : { outbox: 'timeline', documentId: deadline.applicationId },

    /**
     * Fired deadlines whose message is still unpublished a lease after they fired (the replica
     * that fired them died or lost the broker). Each lease period after that, one replica
     * takes the publication over.
     */
    async takeOverUnpublished(now: Date, leaseMs: number, limit: number): Promise<PendingMessage[]> {
      const before = new Date(now.getTime() - leaseMs);
      const [stale, staleHeads] = await Promise.all([
        outcomes
          .find({ outboxPending: true, decidedAt: { $lte: before } }, { _id: 1, decidedAt: 1 })
          .limit(limit)
          .lean<OutcomeDoc[]>(),
        raw.heads
          .find({ outboxPending: true, outboxAt: { $lte: before } }, { projection: { _id: 1, outboxAt: 1 }, limit })
          .toArray(),
      ]);
      const candidates: (PendingMessage & { since: Date })[] = [
        ...stale.map((doc) => ({ outbox: 'outcome' as const, documentId: doc._id, since: new Date(doc.decidedAt) })),
        ...staleHeads.map((doc) => ({
          outbox: 'timeline' as const,
          documentId: doc._id,
          since: new Date(doc.outboxAt ?? 0),
        })),
      ];
      const taken: PendingMessage[] = [];
      for (const { since, ...pending } of candidates) {
        const period = Math.floor((now.getTime() - since.getTime()) / leaseMs);
        // A timeline's outbox may fill again after a later firing: its periods count from that
        // firing. An outcome's id is as the earlier version took it, so both versions compete.
        const leaseId =
          pending.outbox === 'timeline'
            ? `${pending.documentId}:${since.getTime()}:${period}`
            : `${pending.documentId}:${period}`;
        if (await insertOnce(() => leases.create({ _id: leaseId, takenAt: now }))) taken.push(pending);
      }
      return taken;
    },

    async countArmed(kind: DeadlineKind): Promise<number> {
      return (await allArmed()).filter((d) => d.kind === kind).length;
    },

    /** Armed deadlines due before `now`: the scheduler should have fired them. */
    async countOverdue(now: Date): Promise<number> {
      return (await allArmed()).filter((d) => d.dueAt < now).length;
    },

    /** Fired deadlines whose message is not on the broker yet. */
    async countUnpublished(): Promise<number> {
      const [legacy, heads] = await Promise.all([
        outcomes.countDocuments({ outboxPending: true }),
        raw.heads.find({ outboxPending: true }, { projection: { outbox: 1 } }).toArray(),
      ]);
      return legacy + heads.reduce((n, doc) => n + (doc.outbox?.length ?? 0), 0);
    },

    async get(deadlineId: string): Promise<(StoredDeadline & { published: boolean | null }) | null> {
      const head = await raw.heads.findOne({ 'deadlines.deadlineId': deadlineId });
      const tracked = head ? toStored(head).deadlines.find((d) => d.deadlineId === deadlineId) : undefined;
      if (head && tracked) {
        const { armedAt: _armedAt, ...deadline } = tracked;
        const published = tracked.status === 'FIRED' ? !(head.outbox ?? []).some((e) => e.id === deadlineId) : null;
        return { ...deadline, published };
      }
      const [doc, outcome] = await Promise.all([
        deadlines.findById(deadlineId).lean<DeadlineDoc>(),
        outcomes.findById(deadlineId, { outcome: 1, outboxPending: 1 }).lean<OutcomeDoc>(),
      ]);
      if (!doc) return null;
      const published = outcome?.outcome === 'FIRED' ? !outcome.outboxPending : null;
      return { ...toDeadline(doc), published };
    },

    /** The application's deadlines, the earlier version's included, in the order their periods started. */
    async listByApplication(applicationId: string): Promise<StoredDeadline[]> {
      const [head, docs] = await Promise.all([
        raw.heads.findOne({ _id: applicationId }),
        deadlines.find({ applicationId }).lean<DeadlineDoc[]>(),
      ]);
      const tracked = head
        ? toStored(head).deadlines.map(({ armedAt: _armedAt, ...deadline }): StoredDeadline => deadline)
        : [];
      return [...docs.map(toDeadline), ...tracked].sort((a, b) => (a.since < b.since ? -1 : a.since > b.since ? 1 : 0));
    },
  };
}
export type DeadlineRepository = ReturnType<typeof createDeadlineRepository>;
