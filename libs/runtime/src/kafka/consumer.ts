import { deadLetterTopicFor } from '@loan/contracts';
import type { EachMessagePayload, Kafka } from 'kafkajs';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import type { Codec } from './codec';
import { requestCounter } from './connect';
import { handleKeyedBatch } from './keyedBatch';
import { createOffsetCommitter } from './offsetCommitter';
import { createMessagePipeline, type ConsumeOptions } from './pipeline';
import type { DeadLetter } from './producer';
import { withTimeout } from './timing';
import type { Names } from './topics';
import { watchLiveness, type RunningConsumer } from './watchdog';

/**
 * Starts one kafkajs consumer of `consume`: its topics (and their dead-letter topics) created
 * if missing, its group joined, each message going through the pipeline with its offset
 * committed by the committer. A start that fails leaves nothing running.
 */
export async function startConsumer(deps: {
  kafka: Kafka;
  options: ConsumeOptions;
  names: Names;
  codec: Codec;
  deadLetter: DeadLetter;
  ensureTopics: (topics: string[]) => Promise<void>;
  commitIntervalMs: number;
  /**
   * How long a fetch waits at the broker for records when there are none: the fetches and
   * heartbeats of an idle consumer are most of the requests it sends, and a record that arrives
   * ends the wait at once. Bounded by the watchdog, which takes a consumer that has not started a
   * fetch for a while for stalled.
   */
  fetchWaitMs: number;
  /** Backoff of a message whose handling failed: its first wait, doubled up to the longest. */
  retryBackoff?: { initialMs: number; maxMs: number };
  metrics: Metrics;
  logger: Logger;
}): Promise<RunningConsumer> {
  const { options, metrics, logger } = deps;
  const { real, logical } = deps.names;
  const consumer = deps.kafka.consumer({
    groupId: real(options.groupId),
    sessionTimeout: 15_000,
    // A fifth of the session: a member that stops is still noticed in 15 s, and a rebalance
    // within a few seconds, with a third of the heartbeats of one a second.
    heartbeatInterval: 3_000,
    rebalanceTimeout: 20_000,
    maxWaitTimeInMs: deps.fetchWaitMs,
    minBytes: options.fetchMinBytes ?? 1,
    retry: { initialRetryTime: 200, retries: 10 },
    allowAutoTopicCreation: false,
  });
  consumer.on(consumer.events.REQUEST, requestCounter(metrics, 'consumer'));
  const committer = createOffsetCommitter({
    consumer,
    groupId: options.groupId,
    topics: options.topics.map(real),
    commitIntervalMs: deps.commitIntervalMs,
    logger,
  });
  const liveness = watchLiveness(consumer, committer, logger, options.groupId);
  const handleMessage = createMessagePipeline({
    options,
    codec: deps.codec,
    metrics,
    logger,
    logical,
    deadLetter: deps.deadLetter,
  });
  try {
    await deps.ensureTopics([...options.topics, ...options.topics.map(deadLetterTopicFor)]);
    await consumer.connect();
    await consumer.subscribe({ topics: options.topics.map(real), fromBeginning: options.fromBeginning ?? true });
    const keyConcurrency = options.keyConcurrency ?? 1;
    const retries = createRetryBackoff(deps.retryBackoff ?? { initialMs: 200, maxMs: 5_000 });
    /**
     * A message whose handling failed (retriable) is fetched again after a backoff of its own:
     * its partition pauses and is read again from it, while the consumer's other partitions go
     * on. Thrown back to kafkajs instead, the error would stop every partition for kafkajs's
     * backoff, which grows with every error the consumer ever had until it restarts (a scoring
     * request waiting for a profile stalled the whole consumer for 40 s in the soak).
     */
    const retryLater = (topic: string, partition: number, offset: string, pause: () => () => void) => {
      const delayMs = retries.failed(topic, partition, offset);
      consumer.seek({ topic, partition, offset });
      const resume = pause();
      setTimeout(resume, delayMs).unref();
    };
    await consumer.run({
      partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 3,
      autoCommit: false,
      ...(keyConcurrency > 1
        ? {
            eachBatch: async ({ batch, resolveOffset, heartbeat, pause, isRunning, isStale }) => {
              const { topic, partition } = batch;
              const outcome = await handleKeyedBatch({
                messages: batch.messages,
                limit: keyConcurrency,
                schedule: (message) => {
                  const run = committer.begin(topic, partition, message.offset);
                  return () => run(() => handleMessage({ topic, partition, message, heartbeat, pause }));
                },
                proceed: () => committer.accepting() && isRunning() && !isStale(),
                afterEach: () =>
                  heartbeat().catch((cause: unknown) => {
                    throw new HeartbeatFailed(cause);
                  }),
              });
              if (!outcome.stoppedAt) {
                retries.succeeded(topic, partition);
                return;
              }
              // Fetched again from the first message not handled, and recorded anew then.
              const index = batch.messages.indexOf(outcome.stoppedAt);
              if (index > 0) resolveOffset(batch.messages[index - 1]!.offset);
              committer.rewind(topic, partition, outcome.stoppedAt.offset);
              // A rebalance is kafkajs's to handle; a handler's failure is retried on its partition.
              if (outcome.error instanceof HeartbeatFailed) throw outcome.error.cause;
              if (outcome.error !== undefined) retryLater(topic, partition, outcome.stoppedAt.offset, pause);
            },
            eachBatchAutoResolve: true,
          }
        : {
            eachMessage: async (payload: EachMessagePayload) => {
              const { topic, partition, message } = payload;
              try {
                await committer.handling(topic, partition, message.offset, () => handleMessage(payload));
              } catch {
                retryLater(topic, partition, message.offset, payload.pause);
                return;
              }
              retries.succeeded(topic, partition);
            },
          }),
    });
  } catch (error) {
    await withTimeout(committer.stop(), 5_000).catch(() => undefined);
    throw error;
  }
  liveness.sign();
  return { consumer, stop: committer.stop, stalled: liveness.stalled };
}

/** A heartbeat's failure (the group rebalancing) that stopped a keyed batch: kafkajs's to handle. */
class HeartbeatFailed {
  constructor(readonly cause: unknown) {}
}

/**
 * How long each partition's failing message waits before it is tried again: `initialMs`
 * after its first failure, doubled after each next one up to `maxMs`; a partition starts over
 * once a message of it succeeds or another message fails.
 */
export function createRetryBackoff({ initialMs, maxMs }: { initialMs: number; maxMs: number }) {
  const failing = new Map<string, { offset: string; failures: number }>();
  return {
    failed(topic: string, partition: number, offset: string): number {
      const key = `${topic}:${partition}`;
      const current = failing.get(key);
      const failures = current?.offset === offset ? current.failures + 1 : 1;
      failing.set(key, { offset, failures });
      return Math.min(maxMs, initialMs * 2 ** (failures - 1));
    },
    succeeded(topic: string, partition: number): void {
      failing.delete(`${topic}:${partition}`);
    },
  };
}
