import { Topics } from '@loan/contracts';
import {
  ROOT_CONTEXT,
  inSpan,
  linkTo,
  withTraceContext,
  type Clock,
  type Logger,
  type OutboxEntry,
  type OutboxRelay,
} from '@loan/runtime';
import type { DeadlineRepository } from '../../data-access/deadlineRepository';
import type { PendingMessage, PublishLeases } from '../../data-access/leases';
import { fireDeadline } from '../../domain/fireDeadline/decide';
import type { JanitorMetrics } from '../../metrics';

/**
 * The janitor's clock-driven entry point: every poll interval it fires the deadlines that are
 * due and publishes them. Firing writes the deadline's timeline with the deadline FIRED and its
 * message in the outbox, in one update conditional on the timeline's revision, so of several
 * replicas (or a replica and a cancellation) exactly one wins;
 * the replica that fired it publishes right away, and retries every few seconds while the
 * broker refuses. A message still unpublished a lease later (that replica died, say) is
 * published by the one replica that takes the publication over. Deadlines that came due while
 * no janitor ran fire on the first pass.
 *
 * A poll looks only at the armed deadlines in memory (those this process armed, and those of
 * the last reload), so it reads nothing from the database. A full pass, `tick`, also reloads
 * the armed deadlines due before the next two reloads from the database (what other replicas
 * armed, or a replica that is gone, found by the hour of the timelines' next due time, looking
 * back `reloadLookbackMs`; the first reload, and one every `reloadLookbackMs`, reads every
 * timeline due by then, see `DeadlineRepository.reloadArmed`)
 * and takes over publications left behind; it runs at start, every reload interval, and when
 * the clock jumps by more than that. So a deadline armed by a replica that died fires at most a
 * reload interval late, and a fired message a replica could not publish goes out at most a
 * lease plus a reload interval late.
 */
export function createScheduler(deps: {
  deadlines: DeadlineRepository;
  leases: PublishLeases;
  /** The relays of the timelines' outboxes and of the earlier version's outcomes'. */
  relays: Record<PendingMessage['outbox'], Pick<OutboxRelay, 'flush'>>;
  clock: Clock;
  metrics: JanitorMetrics;
  logger: Logger;
  settings: {
    pollIntervalMs: number;
    batchSize: number;
    publishLeaseMs: number;
    reloadIntervalMs: number;
    reloadLookbackMs: number;
  };
}) {
  const { deadlines, leases, relays, clock, metrics, settings } = deps;
  const logger = deps.logger.child({ component: 'scheduler' });
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let stopped = true;
  /** Clock time of the last full pass. */
  let lastFullPass: number | null = null;

  /** Publishes a fired deadline's outbox; `written` is its message when this process just fired it. */
  async function publish(pending: PendingMessage, written?: OutboxEntry[]): Promise<void> {
    try {
      await relays[pending.outbox].flush(pending.documentId, written);
    } catch (error) {
      // Still in the outbox: the relay retries it shortly, another replica once the lease runs out.
      logger.warn({ err: error, ...pending }, 'deadline fired but not published yet');
    }
  }

  /** Publishes what other (or earlier) janitors fired but did not get to publish. */
  async function publishLeftovers(): Promise<number> {
    const now = clock.now();
    const ids = await leases.takeOverUnpublished(now, settings.publishLeaseMs, settings.batchSize);
    for (const id of ids) await publish(id);
    if (ids.length > 0) logger.info({ count: ids.length }, 'published deadlines left unpublished');
    return ids.length;
  }

  async function fireDue(): Promise<number> {
    let fired = 0;
    for (;;) {
      const now = clock.now();
      const due = deadlines.findDue(now, settings.batchSize);
      for (const deadline of due) {
        const message = fireDeadline(deadline, now);
        if (!message) continue;
        // A trace of its own (the one that armed it may be days old), linked to that one.
        const won = await inSpan(
          `deadline ${deadline.kind}`,
          {
            parent: ROOT_CONTEXT,
            links: linkTo(deadline.armedBy),
            attributes: { 'loan.application_id': deadline.applicationId, 'loan.deadline_kind': deadline.kind },
          },
          async (span) => {
            const headers = withTraceContext();
            const entry: OutboxEntry = {
              id: deadline.deadlineId,
              topic: Topics.deadlines,
              key: deadline.applicationId,
              value: message,
              ...(headers ? { headers } : {}),
            };
            const claimed = await deadlines.claim(deadline, entry, now);
            span.setAttribute('loan.deadline_fired', claimed);
            if (!claimed) return false; // another replica, or a cancellation, came first
            metrics.fired.inc({ kind: deadline.kind });
            logger.info(
              { deadlineId: deadline.deadlineId, kind: deadline.kind, applicationId: deadline.applicationId },
              'deadline passed',
            );
            await publish(deadlines.pendingOf(deadline), [entry]);
            return true;
          },
        );
        if (won) fired++;
      }
      if (due.length < settings.batchSize || stopped) return fired;
    }
  }

  /** A full pass: leftovers first (they fired earlier), then the armed deadlines reloaded, then whatever is due now. */
  async function tick(): Promise<{ republished: number; fired: number }> {
    lastFullPass = clock.now().getTime();
    const republished = await publishLeftovers();
    const reload = await deadlines.reloadArmed(clock.now(), {
      aheadMs: 2 * settings.reloadIntervalMs,
      lookbackMs: settings.reloadLookbackMs,
    });
    if (reload.full) logger.info({ armed: reload.found, filed: reload.filed }, 'armed deadlines reloaded in full');
    const fired = await fireDue();
    return { republished, fired };
  }

  /** What the loop runs: a full pass when one is due (or the clock jumped), else the deadlines in memory. */
  async function poll(): Promise<void> {
    const now = clock.now().getTime();
    if (lastFullPass === null || now < lastFullPass || now - lastFullPass >= settings.reloadIntervalMs) await tick();
    else await fireDue();
  }

  function schedule(delayMs: number) {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      running = poll()
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
