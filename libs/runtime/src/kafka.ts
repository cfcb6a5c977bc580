import type { Admin, Consumer } from 'kafkajs';
import { fixKafkajsIdleTimers } from './kafkajsRequestQueue';
import type { Logger } from './logger';
import type { Metrics } from './metrics';
import { createCodec } from './kafka/codec';
import { connectWithRetries, createKafkaClient, requestCounter } from './kafka/connect';
import { startConsumer } from './kafka/consumer';
import { watchLag } from './kafka/lagMetrics';
import type { ConsumeOptions } from './kafka/pipeline';
import { createProducer } from './kafka/producer';
import { createReplyPublisher } from './kafka/replies';
import type { KafkaSettings } from './kafka/settings';
import { createTopicAdmin, namespacedNames } from './kafka/topics';
import { superviseConsumer } from './kafka/watchdog';

export { createCodec, type Codec } from './kafka/codec';
export { continueAfter, type InboundMessage, type OutboundMessage } from './kafka/messages';
export type { KafkaSettings } from './kafka/settings';

/**
 * How long an idle consumer's fetch waits at the broker: a second, or an eighth of the time after
 * which the watchdog takes a consumer that starts no fetch for stalled, when that is shorter.
 */
export const fetchWaitFor = (stallMs: number): number => Math.min(1_000, Math.max(100, Math.floor(stallMs / 8)));

/**
 * Kafka plumbing of one service: an idempotent producer that encodes through the registry,
 * consumers that decode, validate and dead-letter poison messages, and topic creation.
 *
 * Fixes kafkajs's idle connection timer first (once per process, see kafkajsRequestQueue.ts):
 * before this bus opens any connection.
 */
export function createKafkaBus(options: { settings: KafkaSettings; logger: Logger; metrics: Metrics }) {
  fixKafkajsIdleTimers();
  const { settings, metrics } = options;
  const logger = options.logger.child({ component: 'kafka' });
  const kafka = createKafkaClient(settings, logger);
  const names = namespacedNames(settings.namespace);
  const { real } = names;
  const codec = createCodec(settings.registryUrl, settings.schemaOf);
  const published = createProducer({ kafka, codec, metrics, names, lingerMs: settings.producerLingerMs ?? 0 });
  const { producer } = published;
  const replies = createReplyPublisher({ kafka, codec, metrics, names });
  const admin: Admin = kafka.admin();
  const topics = createTopicAdmin({ admin, settings, names, logger });
  producer.on(producer.events.REQUEST, requestCounter(metrics, 'producer'));
  admin.on(admin.events.REQUEST, requestCounter(metrics, 'admin'));
  /** How to stop each consumer, with the offsets of what it handled committed. */
  const consumerStops: (() => Promise<void>)[] = [];
  /** The stop of each consumer of `consume`, by its group (before the namespace). */
  const stopsByGroup = new Map<string, () => Promise<void>>();
  const lagWatchStops: (() => void)[] = [];
  let producerConnected = false;

  async function connect(): Promise<void> {
    await connectWithRetries({ admin, producer }, logger);
    producerConnected = true;
  }

  /**
   * Subscribes a handler. Each message is decoded and validated; one that cannot be is poison:
   * it goes to `<topic>.dlq` and the consumer moves on. A handler error that is retriable has
   * its message read again after a backoff, its partition paused meanwhile and the others going
   * on (`consumer.ts`); one that is not is dead-lettered too. A consumer that stalls is started
   * again (see `watchdog.ts`).
   */
  async function consume(args: ConsumeOptions): Promise<Consumer> {
    const { first, stop } = await superviseConsumer({
      start: () =>
        startConsumer({
          kafka,
          options: args,
          names,
          codec,
          deadLetter: published.deadLetter,
          ensureTopics: (wanted) => topics.ensureTopics(wanted),
          commitIntervalMs: settings.commitIntervalMs ?? 1_000,
          fetchWaitMs: fetchWaitFor(settings.consumerStallMs ?? 60_000),
          ...(settings.retryBackoff ? { retryBackoff: settings.retryBackoff } : {}),
          metrics,
          logger,
        }),
      stallMs: settings.consumerStallMs ?? 60_000,
      groupId: args.groupId,
      topics: args.topics,
      metrics,
      logger,
    });
    consumerStops.push(stop);
    stopsByGroup.set(args.groupId, stop);
    lagWatchStops.push(
      watchLag({ offsetsOf: topics.offsetsOf, metrics, groupId: real(args.groupId), topics: args.topics.map(real) }),
    );
    return first;
  }

  /**
   * Stops one consumer of `consume` before the others (its offsets committed, its group left):
   * for a consumer whose topic is about to be deleted, which could not commit any more after.
   * Stopping it again, or on `disconnect`, does nothing more.
   */
  async function stopConsumer(groupId: string): Promise<void> {
    await stopsByGroup.get(groupId)?.();
  }

  async function disconnect(): Promise<void> {
    lagWatchStops.forEach((stop) => stop());
    await Promise.allSettled(consumerStops.map((stop) => stop()));
    await replies.disconnect();
    if (producerConnected) await Promise.allSettled([producer.disconnect(), admin.disconnect()]);
    producerConnected = false;
  }

  return {
    connect,
    disconnect,
    isConnected: () => producerConnected,
    checkBroker: topics.checkBroker,
    ensureTopics: topics.ensureTopics,
    listTopics: topics.listTopics,
    deleteTopics: topics.deleteTopics,
    topicOffsets: topics.topicOffsets,
    handOverOffsets: topics.handOverOffsets,
    groupMembers: topics.groupMembers,
    deleteGroups: topics.deleteGroups,
    publishAll: published.publishAll,
    publish: published.publish,
    publishReply: replies.publishReply,
    consume,
    stopConsumer,
    /** The broker's name of a topic (with the namespace). */
    topicName: real,
    /** The broker's name of a consumer group: prefixed with the topic namespace, as consume() does. */
    groupName: real,
    /**
     * kafkajs and the codec beneath the bus, for tests that work below it (raw bytes, a client
     * of their own, topic configurations). Services use the operations above.
     */
    raw: { kafka, admin, codec },
  };
}
export type KafkaBus = ReturnType<typeof createKafkaBus>;
