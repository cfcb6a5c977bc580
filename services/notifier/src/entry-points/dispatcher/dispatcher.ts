import type { Clock, Logger } from '@loan/runtime';
import type { DeliveryRepository } from '../../data-access/deliveryRepository';
import { dueHeads } from '../../domain/orderDeliveries/dueHeads';
import type { Claim, Claimer } from './claims';

/**
 * The delivery loop of one replica: reads the schedule, picks the due deliveries that are first
 * of their application, claims them and runs their attempts, up to `concurrency` at a time.
 * It sleeps for the poll interval when there is nothing to do, and is woken early when an
 * event is recorded, a delivery is requeued or an attempt ends.
 */
export function createDispatcher(deps: {
  repo: Pick<DeliveryRepository, 'entries' | 'releaseClaims'>;
  claim: Claimer;
  run: (claim: Claim) => Promise<void>;
  clock: Clock;
  logger: Logger;
  concurrency: number;
  pollMs: number;
}) {
  const { repo, clock, logger } = deps;
  const busy = new Set<string>();
  const jobs = new Set<Promise<void>>();
  let active = false;
  let halted = false;
  let dirty = false;
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

  async function start(entry: Parameters<Claimer>[0], now: Date): Promise<boolean> {
    busy.add(entry.deliveryId);
    let claim: Claim | null = null;
    try {
      claim = await deps.claim(entry, now);
    } catch (error) {
      logger.warn({ err: error, deliveryId: entry.deliveryId }, 'claiming an attempt failed');
    }
    if (!claim || !active) {
      busy.delete(entry.deliveryId);
      if (claim && !halted) await repo.releaseClaims(claim.claimIds).catch(() => undefined);
      return false;
    }
    const job = deps
      .run(claim)
      .catch((error: unknown) => {
        if (!halted) logger.error({ err: error, deliveryId: entry.deliveryId }, 'webhook attempt failed to complete');
      })
      .finally(() => {
        busy.delete(entry.deliveryId);
        jobs.delete(job);
        wake();
      });
    jobs.add(job);
    return true;
  }

  async function cycle(): Promise<number> {
    const free = deps.concurrency - busy.size;
    if (free <= 0) return 0;
    const entries = await repo.entries();
    const now = clock.now();
    const due = dueHeads(entries, now, busy).slice(0, free);
    const started = await Promise.all(due.map((entry) => start(entry, now)));
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
      if (!dirty) await pause(deps.pollMs);
    }
  }

  return {
    wake,
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
    },
    /** Stops at once, leaving attempts under way unrecorded, as a crash would. */
    halt() {
      halted = true;
      active = false;
      wake();
    },
    isHalted: () => halted,
    inFlight: () => busy.size,
  };
}
export type Dispatcher = ReturnType<typeof createDispatcher>;
