import { Topics } from '@loan/contracts';
import type { Clock, Logger, OutboxRelay } from '@loan/runtime';
import type { DeadlineRepository } from '../../data-access/deadlineRepository';
import { fireDeadline } from '../../domain/fireDeadline/decide';
import type { JanitorMetrics } from '../../metrics';

/**
 * The janitor's clock-driven entry point: every poll interval it fires the deadlines that are
 * due and publishes them. Firing writes the deadline's outcome with its message in the outbox,
 * in one insert, so of several replicas (or a replica and a cancellation) exactly one wins;
 * the replica that fired it publishes right away. A message still unpublished a lease later
 * (that replica died, or the broker refused) is published by the one replica that takes the
 * publication over. Deadlines that came due while no janitor ran fire on the next pass.
 */
export function createScheduler(deps: {
  deadlines: DeadlineRepository;
  relay: Pick<OutboxRelay, 'flush'>;
  clock: Clock;
  metrics: JanitorMetrics;
  logger: Logger;
  settings: { pollIntervalMs: number; batchSize: number; publishLeaseMs: number };
}) {
  const { deadlines, relay, clock, metrics, settings } = deps;
  const logger = deps.logger.child({ component: 'scheduler' });
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let stopped = true;

  async function publish(deadlineId: string): Promise<void> {
    try {
      await relay.flush(deadlineId);
    } catch (error) {
      // Still in the outbox: published again once the lease runs out.
      logger.warn({ err: error, deadlineId }, 'deadline fired but not published yet');
    }
  }

  /** Publishes what other (or earlier) janitors fired but did not get to publish. */
  async function publishLeftovers(): Promise<number> {
    const now = clock.now();
    const ids = await deadlines.takeOverUnpublished(now, settings.publishLeaseMs, settings.batchSize);
    for (const id of ids) await publish(id);
    if (ids.length > 0) logger.info({ count: ids.length }, 'published deadlines left unpublished');
    return ids.length;
  }

  async function fireDue(): Promise<number> {
    let fired = 0;
    for (;;) {
      const now = clock.now();
      const due = await deadlines.findDue(now, settings.batchSize);
      for (const deadline of due) {
        const message = fireDeadline(deadline, now);
        if (!message) continue;
        const entry = { id: deadline.deadlineId, topic: Topics.deadlines, key: deadline.applicationId, value: message };
        if (!(await deadlines.claim(deadline, entry, now))) continue; // another replica, or a cancellation, came first
        metrics.fired.inc({ kind: deadline.kind });
        logger.info(
          { deadlineId: deadline.deadlineId, kind: deadline.kind, applicationId: deadline.applicationId },
          'deadline passed',
        );
        fired++;
        await publish(deadline.deadlineId);
      }
      if (due.length < settings.batchSize || stopped) return fired;
    }
  }

  /** One pass: leftovers first (they fired earlier), then whatever is due now. */
  async function tick(): Promise<{ republished: number; fired: number }> {
    const republished = await publishLeftovers();
    const fired = await fireDue();
    return { republished, fired };
  }

  function schedule(delayMs: number) {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      running = tick()
        .then(() => undefined)
        .catch((error: unknown) => logger.error({ err: error }, 'scheduler pass failed'))
        .finally(() => {
          running = null;
          schedule(settings.pollIntervalMs);
        });
    }, delayMs);
  }

  return {
    tick,
    start() {
      if (!stopped) return;
      stopped = false;
      schedule(0);
    },
    /** Stops polling and waits for the pass in progress. */
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
  };
}
export type Scheduler = ReturnType<typeof createScheduler>;
