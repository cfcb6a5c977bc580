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
  metrics: Metrics;
  logger: Logger;
}): Promise<RunningConsumer> {
  const { options, metrics, logger } = deps;
  const { real, logical } = deps.names;
  const consumer = deps.kafka.consumer({
    groupId: real(options.groupId),
    sessionTimeout: 15_000,
    heartbeatInterval: 1_000,
    rebalanceTimeout: 20_000,
    maxWaitTimeInMs: 250,
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
                afterEach: heartbeat,
              });
              if (!outcome.stoppedAt) return;
              // Fetched again from the first message not handled (kafkajs resumes after the
              // offset resolved last), and recorded anew then.
              const index = batch.messages.indexOf(outcome.stoppedAt);
              if (index > 0) resolveOffset(batch.messages[index - 1]!.offset);
              committer.rewind(topic, partition, outcome.stoppedAt.offset);
              if (outcome.error !== undefined) throw outcome.error;
            },
            eachBatchAutoResolve: true,
          }
        : {
            eachMessage: (payload: EachMessagePayload) =>
              committer.handling(payload.topic, payload.partition, payload.message.offset, () =>
                handleMessage(payload),
              ),
          }),
    });
  } catch (error) {
    await withTimeout(committer.stop(), 5_000).catch(() => undefined);
    throw error;
  }
  liveness.sign();
  return { consumer, stop: committer.stop, stalled: liveness.stalled };
}
