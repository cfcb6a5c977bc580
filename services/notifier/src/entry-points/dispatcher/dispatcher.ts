import type { Clock, Logger } from '@loan/runtime';
import type { DeliveryRepository } from '../../data-access/deliveryRepository';
import { firstClaimOf, type Delivery, type ScheduleEntry } from '../../domain/delivery';
import { dueHeads, nextHeadDueAt } from '../../domain/orderDeliveries/dueHeads';
import { fairPick } from '../../domain/orderDeliveries/fairShare';
import type { Claim, Claimer } from './claims';
import { createScheduleView } from './scheduleView';

/**
 * How stale this replica's picture of the schedule may get while it has work of its own: a
 * full read costs a scan of every pending delivery (FerretDB 1.x has no index to narrow it).
 */
const busyReadIntervalMs = (pollMs: number) => Math.max(10 * pollMs, 5_000);

/** How long a delivery recorded here is used as recorded for its first claim (see `createClaimer`). */
const RECORDED_FOR_MS = 60 * 60_000;
/** Claims of attempts are kept this long (they prove a version was attempted), then pruned. */
export const CLAIM_RETENTION_MS = 24 * 60 * 60_000;
const PRUNE_EVERY_MS = 60 * 60_000;
/** How long a new delivery that is not on the schedule may wait here for its first attempt. */
const FIRST_ATTEMPT_WAIT_MS = 1_000;

/**
 * The delivery loop of one replica: picks the due deliveries that are first of their
 * application, claims them and runs their attempts, up to `concurrency` at a time, shared
 * between lenders so that none holds them all (`fairPick`). It works
 * from its own picture of the schedule, read again from the database every poll interval when
 * it has nothing to do (every few seconds when it has), and is woken early when an event is
 * recorded, a delivery is requeued or an attempt ends.
 */
export function createDispatcher(deps: {
  repo: Pick<
    DeliveryRepository,
    'entries' | 'addEntries' | 'releaseClaims' | 'pruneClaims' | 'releaseFirstClaims' | 'releaseHolds'
  >;
  claim: Claimer;
  /** This replica, as the first claims of the deliveries it records name it. */
  owner: string;
  /** Runs a claimed attempt; resolves with the delivery's schedule entry, or null once it settled. */
  run: (claim: Claim) => Promise<ScheduleEntry | null>;
  clock: Clock;
  logger: Logger;
  concurrency: number;
  pollMs: number;
}) {
  const { repo, clock, logger } = deps;
  const view = createScheduleView();
  /** The attempts under way here, each with its lender, so that no lender holds every slot (`fairPick`). */
  const busy = new Map<string, string>();
  const busyPerLender = () => {
    const counts = new Map<string, number>();
    for (const clientId of busy.values()) counts.set(clientId, (counts.get(clientId) ?? 0) + 1);
    return counts;
  };
  const jobs = new Set<Promise<void>>();
  const toRelease: string[] = [];
  /**
   * Deliveries recorded here (`inserted`: by this replica's insert, which took their first
   * claim; otherwise found stored when an event came again), until their first claim: they need
   * no read after it.
   */
  const recorded = new Map<string, { delivery: Delivery; at: number; inserted: boolean }>();
  /** Whether this replica holds the first claim of an entry's delivery itself, to use it. */
  const ownHold = (entry: ScheduleEntry) => {
    const mine = recorded.get(entry.deliveryId);
    return (
      entry.heldBy === deps.owner &&
      mine !== undefined &&
      mine.inserted &&
      firstClaimOf(mine.delivery)?.owner === deps.owner
    );
  };
  /**
   * New deliveries recorded here and not on the schedule (see `attemptFirst`), with what waits
   * for each to settle or be scheduled.
   */
  const unscheduled = new Map<string, { entry: ScheduleEntry; since: number; done: () => void }>();
  let lastPrune = Date.now();
  let active = false;
  let halted = false;
  let dirty = false;
  let lastRead = 0;
  /**
   * Due heads were left because no slot was free, or none that their lenders may take: an
   * attempt ending wakes the loop, so it waits for that (or a poll) rather than their due time.
   */
  let waitingForSlot = false;
  let wakeUp: (() => void) | null = null;
  let loop: Promise<void> | null = null;

  function wake() {
    dirty = true;
    const resolve = wakeUp;
    wakeUp = null;
    resolve?.();
  }

  function pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = done;
    });
  }

  async function read() {
    const reading = view.beginRead();
    try {
      reading.finish(await repo.entries());
      // What waits here off the schedule is not in what was read; one under way too, so that it
      // keeps holding back the later events of its application until it settles.
      for (const [, waiting] of unscheduled) view.put(waiting.entry);
      lastRead = Date.now();
    } catch (error) {
      reading.abandon();
      throw error;
    }
  }

  /** Ends the wait of a delivery that was off the schedule: it settled, or is on the schedule now. */
  function leaveUnscheduled(deliveryId: string) {
    const waiting = unscheduled.get(deliveryId);
    unscheduled.delete(deliveryId);
    waiting?.done();
  }

  /**
   * Puts on the schedule the deliveries off it that waited too long for their first attempt
   * (an earlier event of the application is being retried, or every slot is busy), or all of
   * them when stopping, in one write. One that cannot be written yet keeps waiting. Their first
   * claims stay with this replica (the entries say so, and it may still use them).
   */
  async function scheduleWaiting(all: boolean) {
    const now = Date.now();
    const ready = [...unscheduled].filter(
      ([id, waiting]) => !busy.has(id) && (all || now - waiting.since >= FIRST_ATTEMPT_WAIT_MS),
    );
    if (ready.length === 0) return;
    try {
      await repo.addEntries(ready.map(([, waiting]) => waiting.entry));
    } catch (error) {
      logger.warn({ err: error, deliveries: ready.length }, 'putting deliveries on the schedule failed; retried');
      return;
    }
    for (const [id] of ready) leaveUnscheduled(id);
  }

  /**
   * When stopping: gives up the first claims this replica took and has not used, on the
   * deliveries and then on their entries, so that other replicas attempt them at once instead
   * of when the claims expire. Stopping before the second write leaves entries that keep
   * others waiting until then, no longer.
   */
  async function giveUpFirstClaims() {
    const now = clock.now().getTime();
    const unused = [...recorded]
      .filter(([, r]) => r.inserted && (firstClaimOf(r.delivery)?.expiresAt.getTime() ?? 0) > now)
      .map(([id]) => id);
    recorded.clear();
    if (unused.length === 0) return;
    try {
      await repo.releaseFirstClaims(unused, deps.owner);
      await repo.releaseHolds(unused, deps.owner);
    } catch (error) {
      logger.warn({ err: error }, 'giving up first claims failed; they expire on their own');
    }
  }

  /** Claims won but not used (stopping, a stale picture) are released in batches. */
  async function releaseClaims() {
    const ids = toRelease.splice(0);
    if (ids.length > 0) await repo.releaseClaims(ids);
  }

  async function start(entry: ScheduleEntry, now: Date): Promise<boolean> {
    busy.set(entry.deliveryId, entry.clientId);
    let claim: Claim | null = null;
    const mine = recorded.get(entry.deliveryId);
    recorded.delete(entry.deliveryId);
    try {
      claim = await deps.claim(entry, now, mine && Date.now() - mine.at < RECORDED_FOR_MS ? mine : undefined);
    } catch (error) {
      logger.warn({ err: error, deliveryId: entry.deliveryId }, 'claiming an attempt failed');
    }
    const offSchedule = unscheduled.has(entry.deliveryId);
    if (!claim || !active) {
      busy.delete(entry.deliveryId);
      // Held by another replica, or the picture was stale: left alone until the next read.
      if (!claim) view.heldElsewhere(entry.deliveryId);
      else if (!halted) toRelease.push(...claim.claimIds);
      // Claimed elsewhere: a replica that handled its event again put it on the schedule.
      if (!claim && offSchedule) leaveUnscheduled(entry.deliveryId);
      return false;
    }
    const held: Claim = offSchedule ? { ...claim, unscheduled: true } : claim;
    const job = deps
      .run(held)
      .then((next) => {
        if (next) view.put(next);
        else view.remove(entry.deliveryId);
        // Settled, or on the schedule for its next attempt.
        if (offSchedule) leaveUnscheduled(entry.deliveryId);
      })
      .catch((error: unknown) => {
        if (!halted) logger.error({ err: error, deliveryId: entry.deliveryId }, 'webhook attempt failed to complete');
        view.heldElsewhere(entry.deliveryId);
        // Still off the schedule: put there by the next cycle once its wait is over.
      })
      .finally(() => {
        // The claims stay: they record that this version was attempted.
        busy.delete(entry.deliveryId);
        jobs.delete(job);
        wake();
      });
    jobs.add(job);
    return true;
  }

  async function cycle(): Promise<number> {
    if (toRelease.length >= 100 || (busy.size === 0 && toRelease.length > 0)) await releaseClaims();
    if (Date.now() - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = Date.now();
      const pruned = await deps.repo.pruneClaims(new Date(clock.now().getTime() - CLAIM_RETENTION_MS));
      if (pruned > 0) logger.info({ pruned }, 'claims of attempts older than a day pruned');
    }
    const free = deps.concurrency - busy.size;
    waitingForSlot = free <= 0;
    if (free <= 0) {
      if (unscheduled.size > 0) await scheduleWaiting(false);
      return 0;
    }
    const now = clock.now();
    let due = dueHeads(view.entries(), now, busy, ownHold).filter((e) => !view.isHeldElsewhere(e.deliveryId));
    const sinceRead = Date.now() - lastRead;
    if (sinceRead >= deps.pollMs && (due.length === 0 || sinceRead >= busyReadIntervalMs(deps.pollMs))) {
      await read();
      due = dueHeads(view.entries(), now, busy, ownHold).filter((e) => !view.isHeldElsewhere(e.deliveryId));
    }
    const picked = fairPick(due, busyPerLender(), deps.concurrency);
    waitingForSlot = picked.length < due.length;
    const started = await Promise.all(picked.map((entry) => start(entry, now)));
    // Only then what is still waiting goes on the schedule: a new delivery whose wait ran out
    // while this replica was busy elsewhere (a slow read) is attempted rather than scheduled.
    if (unscheduled.size > 0) await scheduleWaiting(false);
    return started.filter(Boolean).length;
  }

  async function runLoop() {
    while (active) {
      dirty = false;
      let started = 0;
      try {
        started = await cycle();
      } catch (error) {
        if (active) logger.error({ err: error }, 'reading the delivery schedule failed');
      }
      if (!active) break;
      if (started > 0 && busy.size < deps.concurrency) continue;
      if (dirty) continue;
      // Entries waiting behind an earlier event of their application are not counted: that
      // one settling wakes the loop.
      const nextDue = nextHeadDueAt(view.entries(), busy, ownHold, view.isHeldElsewhere);
      const untilDue = nextDue === null || waitingForSlot ? deps.pollMs : nextDue - clock.now().getTime();
      await pause(Math.max(1, Math.min(deps.pollMs, untilDue)));
    }
  }

  return {
    /**
     * Something changed: a delivery was recorded (pass its entry, the delivery as stored and
     * whether this replica's insert stored it) or requeued here (its entry), or may have been
     * elsewhere.
     */
    wake(entry?: ScheduleEntry, delivery?: Delivery, inserted = false) {
      if (entry) view.put(entry);
      // A copy found stored does not replace the one this replica inserted and has not used yet.
      if (entry && delivery && (inserted || !recorded.get(entry.deliveryId)?.inserted)) {
        if (recorded.size >= 10_000) recorded.clear();
        recorded.set(entry.deliveryId, { delivery, at: Date.now(), inserted });
      }
      wake();
    },
    /**
     * A delivery just recorded here and not on the schedule: attempted first here, without a
     * read. Resolves once it has settled or is on the schedule (see `createRecordEventHandler`).
     */
    attemptFirst(entry: ScheduleEntry, delivery: Delivery): Promise<void> {
      return new Promise<void>((done) => {
        unscheduled.set(entry.deliveryId, { entry, since: Date.now(), done });
        view.put(entry);
        if (recorded.size >= 10_000) recorded.clear();
        recorded.set(entry.deliveryId, { delivery, at: Date.now(), inserted: true });
        wake();
      });
    },
    start() {
      if (active) return;
      active = true;
      loop = runLoop();
    },
    /** Stops taking work and waits for the attempts under way to be recorded. */
    async stop() {
      active = false;
      wake();
      await loop;
      await Promise.allSettled([...jobs]);
      await scheduleWaiting(true);
      await giveUpFirstClaims();
      await releaseClaims().catch(() => undefined);
    },
    /** Stops at once, leaving attempts under way unrecorded, as a crash would. */
    halt() {
      halted = true;
      active = false;
      wake();
    },
    isHalted: () => halted,
    inFlight: () => busy.size,
    scheduled: () => view.size(),
  };
}
export type Dispatcher = ReturnType<typeof createDispatcher>;
