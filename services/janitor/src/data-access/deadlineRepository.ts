import { ServiceError, rawCollection, type OutboxEntry } from '@loan/runtime';
import { type Deadline, type TrackedDeadline, hourOf, hoursBetween, startOfHour } from '../domain/deadline';
import { fireIn } from '../domain/fireDeadline/decide';
import { createArmedCache, type DueDeadline } from './armedCache';
import type { PendingMessage } from './leases';
import { createLegacyDeadlines, type OutcomeHeld, type StoredDeadline } from './legacyDeadlines';
import type { JanitorModels } from './models';
import { type TimelineDoc, nextDueFields, toStored, toTrackedDoc } from './timelineRepository';

export type { DueDeadline } from './armedCache';
export type { PendingMessage } from './leases';
export type { OutcomeHeld, StoredDeadline } from './legacyDeadlines';

/** Conflicts with other writers of one timeline after which a firing gives up until the next pass. */
const MAX_FIRE_CONFLICTS = 10;

/** Timelines a full reload files under their hour per bulk write. */
const FILE_BATCH = 500;

/** What a reload covers: the horizon (`now + aheadMs`) and how far back a periodic one looks. */
export interface ReloadWindow {
  aheadMs: number;
  lookbackMs: number;
}

/** What a reload did: deadlines read, whether it was full, timelines it filed under their hour. */
export interface Reload {
  found: number;
  full: boolean;
  filed: number;
}

/** A timeline whose `nextDueHour` is missing or is not the hour of its `nextDueAt`. */
const misfiled = (doc: Pick<TimelineDoc, 'nextDueAt' | 'nextDueHour'>): boolean =>
  doc.nextDueAt != null && doc.nextDueHour !== hourOf(new Date(doc.nextDueAt));

/**
 * Finds, fires and reads deadlines. A deadline lives in its application's timeline document
 * (written by the fact consumer, `timelineRepository.save`); firing it is one update of that
 * document conditional on its revision, with the message in its outbox, so a firing and a
 * cancellation of the same deadline (or two replicas firing it) are writes of one document of
 * which exactly one applies to the revision both read: the other reads again and finds it
 * ended.
 *
 * Deadlines the previous version armed in documents of their own end as that version ended
 * them (`legacyDeadlines.ts`). Due deadlines are found in memory (`armedCache.ts`), which the
 * fact consumer (`track`, `settle`) and the scheduler's reloads (`reloadArmed`) keep.
 */
export function createDeadlineRepository(models: Pick<JanitorModels, 'deadlines' | 'outcomes' | 'timelineHeads'>) {
  const heads = rawCollection<TimelineDoc>(models.timelineHeads);
  const legacy = createLegacyDeadlines(models);
  const cache = createArmedCache();
  /** The `now` of the last full reload that succeeded (null: none yet). */
  let lastFullReload: number | null = null;

  /**
   * Files under their hour the timelines a full reload read and every other one with a deadline
   * armed whose `nextDueHour` is missing (written by an earlier version, which did not keep it)
   * or wrong (written by a replica of that version, during a rolling upgrade, after this one
   * filed it). Each write is conditional on the revision read, so it never undoes a newer write,
   * which files the timeline itself. Returns how many it filed.
   */
  async function fileUnderHours(read: readonly TimelineDoc[], horizon: Date): Promise<number> {
    type Op = Parameters<typeof heads.bulkWrite>[0][number];
    let ops: Op[] = [];
    let filed = 0;
    const file = (doc: Pick<TimelineDoc, '_id' | 'rev' | 'nextDueAt'>) =>
      ops.push({
        updateOne: {
          filter: { _id: doc._id, rev: doc.rev },
          update: { $set: { nextDueHour: hourOf(new Date(doc.nextDueAt!)) } },
        },
      });
    const flush = async () => {
      if (ops.length === 0) return;
      const batch = ops;
      ops = [];
      filed += (await heads.bulkWrite(batch, { ordered: false })).modifiedCount;
    };
    for (const doc of read) if (misfiled(doc)) file(doc);
    // The timelines due after the horizon are read for their due time only, a batch at a time.
    const later = heads.find(
      { nextDueAt: { $gt: horizon } },
      { projection: { rev: 1, nextDueAt: 1, nextDueHour: 1 }, batchSize: FILE_BATCH },
    );
    for await (const doc of later) {
      if (misfiled(doc)) file(doc);
      if (ops.length >= FILE_BATCH) await flush();
    }
    await flush();
    return filed;
  }

  /**
   * Fires a deadline of a timeline: reads the timeline and writes it back with the deadline
   * FIRED and its message in the outbox, conditional on the revision read. True when this call
   * fired it; false when it is no longer armed (cancelled, fired by another replica).
   */
  async function fireInTimeline(deadline: Deadline, entry: OutboxEntry, now: Date): Promise<boolean> {
    for (let conflict = 0; conflict < MAX_FIRE_CONFLICTS; conflict++) {
      const doc = await heads.findOne({ _id: deadline.applicationId });
      const fired = doc ? fireIn(toStored(doc).deadlines, deadline.deadlineId, now) : null;
      if (!doc || !fired) {
        cache.forget(deadline.deadlineId);
        return false;
      }
      const written = await heads.updateOne(
        { _id: doc._id, rev: doc.rev },
        {
          $set: {
            rev: doc.rev + 1,
            deadlines: fired.map(toTrackedDoc),
            ...nextDueFields(fired),
            outboxPending: true,
            outboxAt: now,
          },
          $push: { outbox: entry },
        },
      );
      if (written.modifiedCount === 1) {
        cache.forget(deadline.deadlineId);
        return true;
      }
    }
    throw new ServiceError(`Timeline of application ${deadline.applicationId} kept changing while firing`, {
      retriable: true,
    });
  }

  return {
    /**
     * Records the cancellation of a previous version's deadline unless it already has an
     * outcome; the outcome that holds is returned for `settle` to mirror on the deadline. Until
     * then only the outcome says the deadline is over (firing it later is refused by the outcome
     * already recorded, and mirrors it).
     */
    async recordCancel(deadline: Pick<Deadline, 'deadlineId' | 'kind' | 'applicationId'>, now: Date) {
      const recorded = await legacy.record(deadline, 'CANCELLED', now);
      cache.forget(deadline.deadlineId);
      return recorded;
    },

    /**
     * Mirrors the outcomes that hold on the previous version's deadlines, and arms those it
     * listed in a timeline but did not get to arm (see `legacyDeadlines.settle`). Returns the
     * ids this call armed.
     */
    async settle(held: readonly OutcomeHeld[], arms: readonly Deadline[], now: Date): Promise<Set<string>> {
      const armed = await legacy.settle(held, arms, now);
      for (const deadline of arms) if (armed.has(deadline.deadlineId)) cache.remember(deadline, true);
      return armed;
    },

    /**
     * What the fact consumer just wrote of an application's deadlines: the armed ones are kept
     * in memory (those due before the horizon), the ended ones forgotten.
     */
    track: (tracked: readonly TrackedDeadline[]): void => cache.track(tracked),

    /** Armed deadlines due at `now`, oldest first, from memory. */
    findDue: (now: Date, limit: number): DueDeadline[] => cache.findDue(now, limit),

    /**
     * Reads the armed deadlines due by `now + aheadMs` (the horizon) into memory, from the
     * timelines whose earliest armed deadline is due by then and the previous version's
     * deadlines, and forgets those remembered before the pass that it could have seen and did
     * not find (no longer armed).
     *
     * A periodic reload asks for the timelines by the hour of their earliest due time
     * (`nextDueHour: {$in: [...]}`, indexed), every hour from the one `lookbackMs` before `now`
     * to the horizon's: equalities, which the local database narrows through the index, so its
     * cost follows the deadlines coming due rather than every armed one (each decided
     * application keeps its bank-data retention armed for 90 days). It finds every armed deadline
     * due by the horizon whose timeline's earliest armed deadline is due from that first hour on:
     * a timeline's deadlines are all due at or after its earliest, so all of a timeline it finds
     * are taken, and one whose earliest is due after the horizon has none due by then.
     *
     * What it cannot find is a timeline whose earliest armed deadline is overdue by more than
     * the lookback: one no replica fired for that long (all were down, or the one that armed it
     * late, from an old fact, died before firing it), or one an earlier version wrote. The
     * first reload of a process, and then one at least every `lookbackMs` (so also any after
     * reloads failed or the clock jumped for that long), is therefore full: it asks for every
     * timeline due by the horizon (`nextDueAt: {$lte: horizon}`), however long overdue, and files
     * under their hour the timelines that lack it or carry a wrong one (`fileUnderHours`). Such
     * a deadline fires at the latest a lookback late, and one remembered by a live replica fires
     * on time: a periodic reload forgets only what it could have seen.
     */
    async reloadArmed(now: Date, window: ReloadWindow): Promise<Reload> {
      const horizon = new Date(now.getTime() + window.aheadMs);
      const from = new Date(now.getTime() - window.lookbackMs);
      const full =
        lastFullReload === null ||
        now.getTime() < lastFullReload ||
        now.getTime() - lastFullReload >= window.lookbackMs;
      const current = cache.beginReload(horizon);
      const [older, docs] = await Promise.all([
        legacy.armedDueBy(horizon),
        heads
          .find(full ? { nextDueAt: { $lte: horizon } } : { nextDueHour: { $in: hoursBetween(from, horizon) } }, {
            projection: { applicationId: 1, clientId: 1, deadlines: 1, rev: 1, nextDueAt: 1, nextDueHour: 1 },
          })
          .toArray(),
      ]);
      const found: { deadline: Deadline; legacy: boolean }[] = older.map((deadline) => ({ deadline, legacy: true }));
      for (const doc of docs) {
        for (const d of toStored(doc).deadlines) {
          if (d.status !== 'ARMED' || !cache.withinHorizon(d)) continue;
          const { status: _status, armedAt: _armedAt, firedAt: _firedAt, cancelledAt: _cancelledAt, ...deadline } = d;
          found.push({ deadline, legacy: false });
        }
      }
      cache.reloaded(current, found, full ? null : startOfHour(from));
      if (!full) return { found: found.length, full, filed: 0 };
      const filed = await fileUnderHours(docs, horizon);
      lastFullReload = now.getTime();
      return { found: found.length, full, filed };
    },

    /** How many armed deadlines this process holds in memory. */
    armedInMemory: () => cache.size(),

    /**
     * Armed deadlines past due at `now` that this process knows of, from memory (no database
     * read); null until its first full reload has read the database.
     */
    countOverdue: (now: Date): number | null => cache.countOverdue(now),

    /**
     * Fires a deadline, its message in the same write, unless it already has an outcome. Of
     * several replicas (or a replica and a cancellation) trying at once exactly one succeeds;
     * it publishes while its lease runs.
     */
    async claim(deadline: DueDeadline, entry: OutboxEntry, now: Date): Promise<boolean> {
      if (!deadline.legacy) return fireInTimeline(deadline, entry, now);
      const fired = await legacy.fire(deadline, entry, now);
      cache.forget(deadline.deadlineId);
      return fired;
    },

    /** Where the message of a deadline this process just fired waits. */
    pendingOf: (deadline: DueDeadline): PendingMessage =>
      deadline.legacy
        ? { outbox: 'outcome', documentId: deadline.deadlineId }
        : { outbox: 'timeline', documentId: deadline.applicationId },

    async get(deadlineId: string): Promise<(StoredDeadline & { published: boolean | null }) | null> {
      const head = await heads.findOne({ 'deadlines.deadlineId': deadlineId });
      const tracked = head ? toStored(head).deadlines.find((d) => d.deadlineId === deadlineId) : undefined;
      if (head && tracked) {
        const { armedAt: _armedAt, ...deadline } = tracked;
        const published = tracked.status === 'FIRED' ? !(head.outbox ?? []).some((e) => e.id === deadlineId) : null;
        return { ...deadline, published };
      }
      return legacy.get(deadlineId);
    },

    /** The application's deadlines, the previous version's included, in the order their periods started. */
    async listByApplication(applicationId: string): Promise<StoredDeadline[]> {
      const [head, older] = await Promise.all([
        heads.findOne({ _id: applicationId }),
        legacy.listByApplication(applicationId),
      ]);
      const tracked = head
        ? toStored(head).deadlines.map(({ armedAt: _armedAt, ...deadline }): StoredDeadline => deadline)
        : [];
      return [...older, ...tracked].sort((a, b) => (a.since < b.since ? -1 : a.since > b.since ? 1 : 0));
    },
  };
}
export type DeadlineRepository = ReturnType<typeof createDeadlineRepository>;
