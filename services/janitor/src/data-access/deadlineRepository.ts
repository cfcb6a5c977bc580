import { ServiceError, rawCollection, type OutboxEntry } from '@loan/runtime';
import { type Deadline, type TrackedDeadline, nextDueOf } from '../domain/deadline';
import { fireIn } from '../domain/fireDeadline/decide';
import { createArmedCache, type DueDeadline } from './armedCache';
import type { PendingMessage } from './leases';
import { createLegacyDeadlines, type OutcomeHeld, type StoredDeadline } from './legacyDeadlines';
import type { JanitorModels } from './models';
import { type TimelineDoc, toStored, toTrackedDoc } from './timelineRepository';

export type { DueDeadline } from './armedCache';
export type { PendingMessage } from './leases';
export type { OutcomeHeld, StoredDeadline } from './legacyDeadlines';

/** Conflicts with other writers of one timeline after which a firing gives up until the next pass. */
const MAX_FIRE_CONFLICTS = 10;

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
            nextDueAt: nextDueOf(fired),
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
     * Reads the armed deadlines due before `now + aheadMs` (the horizon) into memory, from the
     * timelines whose earliest armed deadline is due by then (`nextDueAt`, indexed) and the
     * previous version's deadlines, and forgets those remembered before the pass that are no
     * longer armed. Returns how many it read.
     */
    async reloadArmed(now: Date, aheadMs: number): Promise<number> {
      const horizon = new Date(now.getTime() + aheadMs);
      const current = cache.beginReload(horizon);
      const [older, docs] = await Promise.all([
        legacy.armedDueBy(horizon),
        heads
          .find(
            { nextDueAt: { $lte: horizon } },
            { projection: { applicationId: 1, clientId: 1, deadlines: 1, rev: 1 } },
          )
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
      cache.reloaded(current, found);
      return found.length;
    },

    /** How many armed deadlines this process holds in memory. */
    armedInMemory: () => cache.size(),

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
