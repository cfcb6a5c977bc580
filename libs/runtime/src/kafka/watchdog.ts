import type { Consumer } from 'kafkajs';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import type { OffsetCommitter } from './offsetCommitter';
import { sleep, withTimeout } from './timing';

/** A kafkajs consumer started by `consume`, with its stop and what tells whether it still works. */
export interface RunningConsumer {
  consumer: Consumer;
  /** Commits what it handled and leaves its group. */
  stop: () => Promise<void>;
  /** Why it is taken for stalled after `ms` without a sign of life, or undefined while it works. */
  stalled: (ms: number) => string | undefined;
}

/**
 * The signs of life of a consumer (a fetch started, a heartbeat, joining its group) and what
 * they say: a consumer that crashed without a restart, that has fetched nothing for `ms`
 * while no handler runs, or whose handler has run for twice that with no fetch since, is
 * stalled.
 */
export function watchLiveness(consumer: Consumer, committer: OffsetCommitter, logger: Logger, groupId: string) {
  let lastSign = Date.now();
  let crashedForGood: string | undefined;
  const sign = () => (lastSign = Date.now());
  consumer.on(consumer.events.FETCH_START, sign);
  consumer.on(consumer.events.HEARTBEAT, sign);
  consumer.on(consumer.events.GROUP_JOIN, sign);
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    logger.warn({ err: payload.error, groupId, restart: payload.restart }, 'consumer crashed');
    if (!payload.restart) crashedForGood = String(payload.error?.message ?? payload.error);
  });
  return {
    sign,
    stalled(ms: number): string | undefined {
      if (crashedForGood) return `crashed without a restart: ${crashedForGood}`;
      const quiet = Date.now() - lastSign;
      if (committer.inFlight() === 0 && quiet > ms) return `no fetch for ${Math.round(quiet / 1000)} s`;
      // A handler waiting on something that never settles holds its partition for good; its
      // message is handled again by the consumer started in its place (handlers are idempotent).
      const oldest = committer.oldestInFlight();
      if (oldest !== undefined && quiet > 2 * ms && Date.now() - oldest > 2 * ms)
        return `a handler running for ${Math.round((Date.now() - oldest) / 1000)} s and no fetch since`;
      return undefined;
    },
  };
}

/**
 * Keeps one consumer of `consume` working. A kafkajs consumer can stop for good after a broker
 * outage without a crash event; one that is stalled (see `watchLiveness`) is stopped and a new
 * one started in its place, tried again with backoff until it starts. Answers the first
 * consumer and the stop of whichever runs (idempotent: its first call's promise).
 */
export async function superviseConsumer(deps: {
  start: () => Promise<RunningConsumer>;
  stallMs: number;
  groupId: string;
  topics: string[];
  metrics: Metrics;
  logger: Logger;
}): Promise<{ first: Consumer; stop: () => Promise<void> }> {
  const { stallMs, groupId, metrics, logger } = deps;
  let current = await deps.start();
  let stopped = false;
  let restarting = false;
  const restart = async (why: string) => {
    restarting = true;
    logger.error({ groupId, why }, 'consumer stalled; starting it again');
    metrics.handlerFailures.inc({ topic: deps.topics.join(','), kind: 'consumer_restarted' });
    await withTimeout(current.stop(), 15_000).catch(() => undefined);
    for (let attempt = 1; !stopped; attempt += 1) {
      try {
        current = await deps.start();
        logger.warn({ groupId, attempt }, 'consumer started again');
        break;
      } catch (error) {
        logger.warn({ err: error, groupId, attempt }, 'consumer could not start again yet; retrying');
        await sleep(Math.min(10_000, 500 * 2 ** attempt));
      }
    }
    restarting = false;
  };
  const timer = setInterval(
    () => {
      if (stopped || restarting) return;
      const why = current.stalled(stallMs);
      if (why) void restart(why);
    },
    Math.min(5_000, Math.max(250, stallMs / 4)),
  );
  timer.unref();
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      stopped = true;
      clearInterval(timer);
      while (restarting) await sleep(50);
      await current.stop();
    })());
  return { first: current.consumer, stop };
}
