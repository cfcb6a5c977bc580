import { randomUUID } from 'node:crypto';
import { createLogger, systemClock } from '@loan/runtime';
import { waitFor } from '@testing/helpers';
import type { Delivery, ScheduleEntry } from '../../domain/delivery';
import type { Claim } from './claims';
import { createDispatcher } from './dispatcher';

/**
 * The dispatcher's ordering of one application's deliveries, with the database replaced by an
 * empty schedule (every delivery here is new and off the schedule) and attempts that end when
 * the test says so.
 */
function setUp() {
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  let reads = 0;
  const dispatcher = createDispatcher({
    repo: {
      entries: async () => {
        reads += 1;
        return [];
      },
      addEntries: async () => undefined,
      releaseClaims: async () => undefined,
      pruneClaims: async () => 0,
      releaseFirstClaims: async () => undefined,
      releaseHolds: async () => undefined,
    },
    claim: async (entry, _now, known) =>
      ({
        delivery: known?.delivery ?? ({ deliveryId: entry.deliveryId } as Delivery),
        claimIds: [],
        expiresAt: new Date(Date.now() + 60_000),
      }) as Claim,
    owner: 'replica-a',
    run: (claim) =>
      new Promise<ScheduleEntry | null>((resolve) => {
        started.push(claim.delivery.deliveryId);
        finish.set(claim.delivery.deliveryId, () => resolve(null));
      }),
    clock: systemClock,
    logger: createLogger('notifier-test', 'silent'),
    concurrency: 8,
    pollMs: 5,
  });
  return { dispatcher, started, finish, reads: () => reads };
}

/** Waits, a millisecond at a time and for at most 5 s, until `done` holds. */
const until = (done: () => boolean, what: string) => waitFor(done, { intervalMs: 1, timeoutMs: 5_000, what });

function delivery(applicationId: string, seq: number): { entry: ScheduleEntry; delivery: Delivery } {
  const deliveryId = randomUUID();
  const entry: ScheduleEntry = {
    deliveryId,
    clientId: 'client-1',
    applicationId,
    partition: 0,
    seq,
    nextAttemptAt: new Date(0),
    version: 0,
  };
  return { entry, delivery: { deliveryId } as Delivery };
}

describe('dispatcher', () => {
  it('when the schedule is read again while the first event of an application is being attempted off the schedule, then its later event still waits for it', async () => {
    const { dispatcher, started, finish, reads } = setUp();
    dispatcher.start();
    try {
      const first = delivery('app-1', 1);
      const second = delivery('app-1', 2);
      void dispatcher.attemptFirst(first.entry, first.delivery);
      await until(() => started.includes(first.entry.deliveryId), 'the first attempt');
      // Reads of the (empty) schedule happen while the first attempt runs.
      const readsBefore = reads();
      await until(() => reads() >= readsBefore + 3, 'three reads of the schedule');
      void dispatcher.attemptFirst(second.entry, second.delivery);
      await until(() => reads() >= readsBefore + 6, 'three more reads');
      expect(started).toEqual([first.entry.deliveryId]);

      finish.get(first.entry.deliveryId)!();
      await until(() => started.includes(second.entry.deliveryId), 'the second attempt');
      expect(started).toEqual([first.entry.deliveryId, second.entry.deliveryId]);
    } finally {
      for (const done of finish.values()) done();
      await dispatcher.stop();
    }
  });

  it('when two applications each have a new event, then both are attempted at once', async () => {
    const { dispatcher, started, finish } = setUp();
    dispatcher.start();
    try {
      const a = delivery('app-a', 1);
      const b = delivery('app-b', 1);
      void dispatcher.attemptFirst(a.entry, a.delivery);
      void dispatcher.attemptFirst(b.entry, b.delivery);
      await until(() => started.length === 2, 'both attempts');
      expect(new Set(started)).toEqual(new Set([a.entry.deliveryId, b.entry.deliveryId]));
    } finally {
      for (const done of finish.values()) done();
      await dispatcher.stop();
    }
  });
});
