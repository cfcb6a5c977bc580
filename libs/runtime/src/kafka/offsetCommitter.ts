import type { Consumer } from 'kafkajs';
import type { Logger } from '../logger';
import { createOffsetTracker } from './offsetTracker';
import { sleep } from './timing';

/**
 * Offsets committed on an interval instead of after every fetched batch (kafkajs's
 * `autoCommit`, one OffsetCommit request per batch, most of them of one message under load).
 * What may be committed is the offset tracker's (`offsetTracker.ts`); a handler that throws
 * leaves its message unrecorded, to be read again. On a rebalance the offsets of
 * partitions no longer assigned are dropped (their new owner handles those messages again);
 * on stop, fetching pauses, the handlers in flight finish and what they handled is committed
 * before the consumer leaves its group.
 */
export function createOffsetCommitter(deps: {
  consumer: Consumer;
  groupId: string;
  /** The topics of the consumer, by the broker's names. */
  topics: string[];
  commitIntervalMs: number;
  logger: Logger;
}) {
  const { consumer, groupId, logger } = deps;
  const tracker = createOffsetTracker();
  let inFlight = 0;
  let accepting = true;
  /** When each handler in flight started. */
  const handlerStarts = new Set<{ at: number }>();
  let committing: Promise<void> = Promise.resolve();
  // kafkajs ignores a commit while the consumer is not running (before it joins, after a
  // crash until it rejoins): the offsets are kept for a commit once it is back.
  let running = false;
  consumer.on(consumer.events.CRASH, () => (running = false));
  consumer.on(consumer.events.STOP, () => (running = false));
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    running = true;
    tracker.assigned(payload.memberAssignment as Record<string, number[]>);
  });

  function commit(): Promise<void> {
    committing = committing.then(async () => {
      const batch = tracker.pending();
      if (batch.length === 0 || !running) return;
      try {
        await consumer.commitOffsets(batch);
        tracker.committed(batch);
      } catch (error) {
        logger.warn({ err: error, groupId }, 'committing consumer offsets failed; retried on the next interval');
      }
    });
    return committing;
  }

  /** Runs a handler counted as in flight (what `stop` waits for) until it ends. */
  async function inFlightWhile(run: () => Promise<void>): Promise<void> {
    inFlight += 1;
    const since = { at: Date.now() };
    handlerStarts.add(since);
    try {
      await run();
    } finally {
      inFlight -= 1;
      handlerStarts.delete(since);
    }
  }

  const timer = setInterval(() => void commit(), deps.commitIntervalMs);
  timer.unref();

  return {
    /**
     * Runs the handling of one message; its offset is recorded once `handle` returns, held
     * until the work it hands back (if any) ends.
     */
    handling: (
      topic: string,
      partition: number,
      offset: string,
      handle: () => Promise<{ work: Promise<unknown> } | undefined>,
    ) =>
      inFlightWhile(async () => {
        const work = (await handle())?.work;
        const release = tracker.handled(topic, partition, offset, work !== undefined);
        if (work && release) void work.then(release);
      }),
    /**
     * Records a message of a keyed batch as it is scheduled (in offset order): its partition's
     * position stops at it until the run answered ends well (and the work its handling hands
     * back, if any, ends). A run that throws leaves it held; `rewind` then forgets it and
     * what followed, for kafkajs to fetch again.
     */
    begin(topic: string, partition: number, offset: string) {
      const release = tracker.handled(topic, partition, offset, true)!;
      return (handle: () => Promise<{ work: Promise<unknown> } | undefined>) =>
        inFlightWhile(async () => {
          const work = (await handle())?.work;
          if (work) void work.then(release);
          else release();
        });
    },
    rewind: (topic: string, partition: number, offset: string) => tracker.rewind(topic, partition, offset),
    /** False once stopping: a keyed batch starts no more messages. */
    accepting: () => accepting,
    inFlight: () => inFlight,
    /** When the longest-running handler in flight started. */
    oldestInFlight: () => {
      let oldest: number | undefined;
      for (const { at } of handlerStarts) if (oldest === undefined || at < oldest) oldest = at;
      return oldest;
    },
    async stop() {
      accepting = false;
      clearInterval(timer);
      try {
        consumer.pause(deps.topics.map((topic) => ({ topic })));
      } catch {
        // Never ran (start-up failed before `run`): nothing is fetching.
      }
      const deadline = Date.now() + 10_000;
      while (inFlight > 0 && Date.now() < deadline) await sleep(10);
      await commit();
      await consumer.disconnect();
    },
  };
}
export type OffsetCommitter = ReturnType<typeof createOffsetCommitter>;
