import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import type { JsonOptions } from '@kafkajs/confluent-schema-registry/dist/@types';
import { FACT_TYPE_HEADER, Topics, deadLetterTopicFor, schemaForTopic, subjectFor } from '@loan/contracts';
import { z } from 'zod';
import {
  Kafka,
  logLevel,
  type Admin,
  type Consumer,
  type IHeaders,
  type KafkaConfig,
  type LogEntry,
  type Message,
  type Producer,
} from 'kafkajs';
import type { Logger } from './logger';
import type { Metrics } from './metrics';
import { ServiceError, isRetriable } from './errors';
import { fixKafkajsIdleTimers } from './kafkajsRequestQueue';
import { SpanKind, contextOf, endSpan, loanAttributes, startProducerSpan, traceIdsOf, tracer } from './tracing';
import { context as otelContext, trace, type Span } from '@opentelemetry/api';

// Before any connection exists: see kafkajsRequestQueue.ts.
fixKafkajsIdleTimers();

export interface KafkaSettings {
  brokers: string[];
  clientId: string;
  ssl?: boolean;
  sasl?: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string };
  registryUrl: string;
  partitions: number;
  replicationFactor: number;
  /** Value schema of a topic; the contracts' by default. */
  schemaOf?: (topic: string) => z.ZodType;
  /**
   * Prefix of every topic and consumer group this bus touches (empty in production). Lets
   * test suites share one broker without seeing each other's messages; handlers and schemas
   * see the plain names.
   */
  namespace?: string;
  /**
   * How often consumers commit the offsets of the messages they have handled (1 s by
   * default). A process that dies loses at most that much progress: those messages are
   * handled again, which every handler tolerates (delivery is at least once).
   */
  commitIntervalMs?: number;
  /**
   * How long a consumer may go without starting a fetch, while none of its handlers runs,
   * before it is taken for stalled and started again (60 s by default). A kafkajs consumer can
   * stop for good after a broker outage without a crash event (it leaves its group, fetches
   * nothing and sends no heartbeat) while the process, its connections and `/readyz` look
   * healthy; a healthy one starts a fetch every few hundred milliseconds.
   */
  consumerStallMs?: number;
  /**
   * How long a publish waits for others to join it in one produce request when none is in
   * flight (0 by default: sent at once). A few milliseconds gather what several handlers
   * publish at about the same time into one request, as the Java producer's `linger.ms` does.
   */
  producerLingerMs?: number;
  /**
   * How long the broker keeps records of the topics this bus creates (`retention.ms`): the
   * public events and analytics topics keep `eventsRetentionMs`, every other one (commands, callbacks,
   * facts, results, replies, dead letters) `retentionMs`. Compacted topics keep their latest
   * record per key instead. Unset: the broker's default.
   */
  retentionMs?: number;
  eventsRetentionMs?: number;
}

/** A message as handlers see it: decoded and validated against the topic's schema. */
export interface InboundMessage<T = unknown> {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: T;
  headers: Record<string, string>;
  timestamp: string;
  /**
   * Keeps the message's offset (and every later one of its partition) from being committed
   * until `done` settles: for a handler that hands work over to go on after it returns, work
   * that a crash before it ends must find again by the message being handled again.
   */
  commitAfter?: (done: Promise<unknown>) => void;
}

/**
 * Lets `work` go on after the handler returns, with the message's offset held until it ends
 * (`commitAfter`); a message that cannot hold its offset (a handler called directly, outside a
 * consumer) waits for the work instead.
 */
export async function continueAfter(
  message: Pick<InboundMessage, 'commitAfter'>,
  work: Promise<unknown>,
): Promise<void> {
  if (message.commitAfter) message.commitAfter(work);
  else await work;
}

export interface OutboundMessage {
  key: string;
  value: unknown;
  headers?: Record<string, string>;
}

const KAFKA_TO_PINO: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

function headersToRecord(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) out[name] = first.toString();
  }
  return out;
}

type JsonValidator = NonNullable<JsonOptions['ajvInstance']>;

/**
 * The registry client's JSON Schema validator, which accepts every value: zod checks each
 * value before it is encoded and again after it is decoded, against the schema the registered
 * JSON Schema is derived from, so a second check (ajv's, on both sides) would only cost CPU.
 */
const validatedByZod: JsonValidator = {
  addSchema: (() => validatedByZod) as unknown as JsonValidator['addSchema'],
  compile: () => Object.assign(() => true, { errors: null }) as unknown as ReturnType<JsonValidator['compile']>,
};

/** The promise, or a rejection once `ms` have passed without it settling. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** How long one schema-registry request may take (each retry of a lookup gets as long again). */
const REGISTRY_TIMEOUT_MS = 10_000;

/**
 * Encodes and decodes values through the schema registry (Confluent wire format). The JSON
 * Schema of each subject is derived from the zod schema in libs/contracts and registered on
 * first use with BACKWARD compatibility; values are validated by zod.
 */
export function createCodec(
  registryUrl: string,
  schemaOf: (topic: string) => z.ZodType = schemaForTopic,
  options: {
    /**
     * Limit of each registry request. The client sets none, so a registry that accepts a
     * connection and never answers would hold every publish and consume of a schema not
     * cached yet for good: a handler waiting on it stops its partition while /readyz, which
     * asks the broker and the database, stays green.
     */
    registryTimeoutMs?: number;
  } = {},
) {
  const timeout = options.registryTimeoutMs ?? REGISTRY_TIMEOUT_MS;
  const registry = new SchemaRegistry(
    {
      host: registryUrl,
      retry: { retries: 5, initialRetryTimeInSecs: 0.2 },
      // mappersmith's own timeout, set on every request that has none.
      middlewares: [
        () => ({
          async prepareRequest(next) {
            const request = await next();
            return request.timeout() ? request : request.enhance({ timeout });
          },
        }),
      ],
    },
    { [SchemaType.JSON]: { ajvInstance: validatedByZod } },
  );
  const ids = new Map<string, Promise<number>>();

  /**
   * Registers the topic's schema. A subject's first registration also sets its compatibility,
   * and processes starting together race for that: Apicurio refuses the second setting with
   * 409 ("a rule named COMPATIBILITY already exists"), and a process that looks between the
   * first one's registration and its setting sees the default (NONE) and refuses to go on. Both
   * are transient: the process tries again shortly, up to a few times.
   */
  async function register(topic: string, subject: string): Promise<number> {
    const schema = {
      type: SchemaType.JSON,
      schema: JSON.stringify(z.toJSONSchema(schemaOf(topic), { target: 'draft-7', unrepresentable: 'any' })),
    } as const;
    for (let attempt = 1; ; attempt++) {
      try {
        return (await registry.register(schema, { subject })).id;
      } catch (error) {
        const racing =
          (error as { status?: number }).status === 409 ||
          (error as Error).name === 'ConfluentSchemaRegistryCompatibilityError';
        if (!racing || attempt >= 5) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  }

  function schemaId(topic: string): Promise<number> {
    const subject = subjectFor(topic);
    let id = ids.get(subject);
    if (!id) {
      id = register(topic, subject);
      id.catch(() => ids.delete(subject));
      ids.set(subject, id);
    }
    return id;
  }

  return {
    registry,
    schemaId,
    async encode(topic: string, value: unknown): Promise<Buffer> {
      const parsed = schemaOf(topic).parse(value);
      return registry.encode(await schemaId(topic), parsed);
    },
    /**
     * Decodes and validates; throws on a message that is not what the topic promises. When the
     * registry cannot be asked for the message's schema (no answer in time, refused, 5xx), the
     * error is retriable: the message may well be sound, and dead-lettering it would take it
     * out of the pipeline. A schema id the registry says it does not know (404) is poison.
     */
    async decode(topic: string, buffer: Buffer): Promise<unknown> {
      let raw: unknown;
      try {
        raw = await registry.decode(buffer);
      } catch (error) {
        const { name, status, message } = error as { name?: string; status?: number; message?: string };
        if (name === 'ResponseError' && status !== 404) {
          throw new ServiceError(`The schema registry could not be asked: ${message}`, {
            retriable: true,
            cause: error,
          });
        }
        throw error;
      }
      return schemaOf(topic).parse(raw);
    },
  };
}
export type Codec = ReturnType<typeof createCodec>;

/** Messages of one produce request at most, when waiting publishes are sent together. */
const MAX_MESSAGES_PER_REQUEST = 1_000;

/**
 * Kafka plumbing of one service: an idempotent producer that encodes through the registry,
 * consumers that decode, validate and dead-letter poison messages, and topic creation.
 */
export function createKafkaBus(options: { settings: KafkaSettings; logger: Logger; metrics: Metrics }) {
  const { settings, metrics } = options;
  const logger = options.logger.child({ component: 'kafka' });
  const config: KafkaConfig = {
    clientId: settings.clientId,
    brokers: settings.brokers,
    ssl: settings.ssl,
    sasl: settings.sasl as KafkaConfig['sasl'],
    connectionTimeout: 3_000,
    retry: { initialRetryTime: 100, retries: 8 },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log }: LogEntry) => {
        const { message, ...extra } = log;
        logger[KAFKA_TO_PINO[level] ?? 'info'](extra, message);
      },
  };
  const kafka = new Kafka(config);
  const ns = settings.namespace ?? '';
  const real = (topic: string) => `${ns}${topic}`;
  const logical = (topic: string) => (ns && topic.startsWith(ns) ? topic.slice(ns.length) : topic);
  const codec = createCodec(settings.registryUrl, settings.schemaOf);
  const producer: Producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
  });
  /**
   * Replies to a waiting requester (a gateway replica's own reply topic) travel apart from the
   * rest: the requester may be gone and its topic deleted with it (a rolling deploy), and a
   * produce request naming a topic that does not exist is retried until the retries run out.
   * On the idempotent producer that request would hold, and then fail, every publication
   * queued with it. Worse, a kafkajs producer that has once sent to a topic later deleted
   * fails every metadata refresh after it (kafkajs issues #651, #1622), so the producer of
   * replies is replaced after a failure (see `publishReply`).
   */
  let replies: { producer: Producer; connected: Promise<void> } | null = null;
  function replyProducer() {
    if (!replies) {
      const producer = kafka.producer({ allowAutoTopicCreation: false, retry: { initialRetryTime: 100, retries: 2 } });
      producer.on(producer.events.REQUEST, countRequests('replies'));
      const current = { producer, connected: producer.connect() };
      current.connected.catch(() => {
        if (replies === current) replies = null;
      });
      replies = current;
    }
    return replies;
  }
  const admin: Admin = kafka.admin();
  /** How to stop each consumer, with the offsets of what it handled committed. */
  const consumerStops: (() => Promise<void>)[] = [];
  /** The stop of each consumer of `consume`, by its group (before the namespace). */
  const stopsByGroup = new Map<string, () => Promise<void>>();
  /** Counts the requests each client sends, by API (Produce, Fetch, OffsetCommit...). */
  const countRequests = (client: string) => (event: { payload: { apiName: string } }) =>
    metrics.kafkaRequests.inc({ client, api: event.payload.apiName });
  producer.on(producer.events.REQUEST, countRequests('producer'));
  admin.on(admin.events.REQUEST, countRequests('admin'));
  let producerConnected = false;
  const lagTimers: NodeJS.Timeout[] = [];

  /**
   * Connects the producer and the admin client. A broker that has just started may still be
   * electing leaders (the idempotent producer's id comes from an internal topic), so failures
   * are retried with backoff for up to a minute before giving up.
   */
  async function connect(): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.connect();
        await producer.connect();
        producerConnected = true;
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        logger.warn({ err: error, attempt }, 'Kafka not ready yet; retrying');
        await producer.disconnect().catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 250 * 2 ** attempt)));
      }
    }
  }

  /** What a topic is created with: compaction, or how long its records are kept. */
  function topicConfig(topic: string, compacted: boolean, retentionMs?: number): { name: string; value: string }[] {
    if (compacted) return [{ name: 'cleanup.policy', value: 'compact' }];
    const published = topic === real(Topics.events) || topic === real(Topics.analytics);
    const retention = retentionMs ?? (published ? settings.eventsRetentionMs : settings.retentionMs);
    return retention === undefined ? [] : [{ name: 'retention.ms', value: String(retention) }];
  }

  /**
   * Creates the topics that are missing (existing ones are left as they are), then waits until
   * every partition has a leader: a topic another process is creating at the same moment is
   * not usable before that.
   */
  async function ensureTopics(
    topics: string[],
    overrides: { partitions?: number; compacted?: boolean; retentionMs?: number } = {},
  ) {
    const names = topics.map(real);
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        const existing = new Set(await admin.listTopics());
        const missing = names.filter((t) => !existing.has(t));
        if (missing.length > 0) {
          await admin.createTopics({
            waitForLeaders: true,
            topics: missing.map((topic) => ({
              topic,
              numPartitions: overrides.partitions ?? settings.partitions,
              replicationFactor: settings.replicationFactor,
              configEntries: topicConfig(topic, overrides.compacted ?? false, overrides.retentionMs),
            })),
          });
        }
        const { topics: meta } = await admin.fetchTopicMetadata({ topics: names });
        if (meta.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))) return;
      } catch (error) {
        // Another process may be creating the same topics, and right after creation a KRaft
        // broker may still answer that it does not host them: both settle within moments.
        if (Date.now() > deadline) throw error;
        logger.debug({ err: error }, 'topics not ready yet');
      }
      if (Date.now() > deadline) throw new Error(`Topics have no leaders yet: ${names.join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /**
   * Publishes waiting while a request is in flight go out together in the next one (the
   * idempotent producer allows one request in flight): under load a handful of requests carry
   * what would otherwise be hundreds, and alone a publish is sent at once. Call order is kept.
   */
  const waiting: { topic: string; messages: Message[]; settle: (error?: unknown) => void }[] = [];
  let sending = false;

  const lingerMs = settings.producerLingerMs ?? 0;

  async function sendWaiting(): Promise<void> {
    if (sending) return;
    sending = true;
    try {
      if (lingerMs > 0) await new Promise((resolve) => setTimeout(resolve, lingerMs));
      while (waiting.length > 0) {
        let count = 0;
        let take = 0;
        while (
          take < waiting.length &&
          (take === 0 || count + waiting[take]!.messages.length <= MAX_MESSAGES_PER_REQUEST)
        ) {
          count += waiting[take]!.messages.length;
          take++;
        }
        const batch = waiting.splice(0, take);
        const byTopic = new Map<string, Message[]>();
        for (const item of batch) {
          const messages = byTopic.get(item.topic);
          if (messages) messages.push(...item.messages);
          else byTopic.set(item.topic, [...item.messages]);
        }
        try {
          await producer.sendBatch({ topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) });
          for (const item of batch) item.settle();
        } catch (error) {
          for (const item of batch) item.settle(error);
        }
      }
    } finally {
      sending = false;
    }
  }

  /**
   * Publishes to several topics in one produce request (when nothing else waits), each
   * topic's messages in the order given. What one state change emits (a public event and a
   * fact, say) goes out together.
   */
  async function publishAll(batches: readonly { topic: string; messages: OutboundMessage[] }[]): Promise<void> {
    // A PRODUCER span per record, whose context the record carries on (`traceparent`).
    const spans: Span[] = [];
    try {
      const encoded = await Promise.all(
        batches
          .filter((b) => b.messages.length > 0)
          .map(async ({ topic, messages }) => ({
            topic,
            messages: await Promise.all(
              messages.map(async (m) => {
                const { span, headers } = startProducerSpan(topic, m);
                spans.push(span);
                return { key: m.key, value: await codec.encode(topic, m.value), headers };
              }),
            ),
          })),
      );
      if (encoded.length === 0) return;
      // Queued in one go, so that they travel in the same request.
      const sent = encoded.map(
        ({ topic, messages }) =>
          new Promise<void>((resolve, reject) => {
            waiting.push({ topic: real(topic), messages, settle: (error) => (error ? reject(error) : resolve()) });
          }),
      );
      void sendWaiting();
      await Promise.all(sent);
      for (const { topic, messages } of encoded) metrics.published.inc({ topic }, messages.length);
    } catch (error) {
      for (const span of spans.splice(0)) endSpan(span, error);
      throw error;
    } finally {
      for (const span of spans) endSpan(span);
    }
  }

  const publish = (topic: string, messages: OutboundMessage[]): Promise<void> => publishAll([{ topic, messages }]);

  /**
   * Publishes a reply to a requester's own topic on the producer of replies (see `replies`): a
   * requester that is gone costs its reply, never another publication's time. A failed send
   * replaces that producer and is tried once more on the new one, so a reply topic deleted
   * earlier does not fail the replies to live ones.
   */
  async function publishReply(topic: string, messages: OutboundMessage[]): Promise<void> {
    const spans: Span[] = [];
    let failure: unknown;
    try {
      const encoded = await Promise.all(
        messages.map(async (m) => {
          const { span, headers } = startProducerSpan(topic, m);
          spans.push(span);
          return { key: m.key, value: await codec.encode(topic, m.value), headers };
        }),
      );
      for (let attempt = 0; ; attempt++) {
        const current = replyProducer();
        try {
          await current.connected;
          await current.producer.send({ topic: real(topic), messages: encoded });
          metrics.published.inc({ topic }, messages.length);
          return;
        } catch (error) {
          if (replies === current) replies = null;
          void current.connected.then(() => current.producer.disconnect()).catch(() => undefined);
          if (attempt >= 1) throw error;
        }
      }
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      for (const span of spans) endSpan(span, failure);
    }
  }

  async function deadLetter(
    topic: string,
    message: { key: Buffer | null; value: Buffer | null; headers?: IHeaders; offset: string },
    partition: number,
    error: unknown,
  ) {
    await producer.send({
      topic: real(deadLetterTopicFor(topic)),
      messages: [
        {
          key: message.key,
          value: message.value,
          headers: {
            ...(message.headers ?? {}),
            'x-dead-letter-reason': String((error as Error)?.message ?? error).slice(0, 2_000),
            'x-dead-letter-topic': topic,
            'x-dead-letter-partition': String(partition),
            'x-dead-letter-offset': message.offset,
          },
        },
      ],
    });
    metrics.handlerFailures.inc({ topic, kind: 'dead_lettered' });
  }

  /**
   * Subscribes a handler. Each message is decoded and validated; one that cannot be is poison:
   * it goes to `<topic>.dlq` and the consumer moves on. A handler error that is retriable is
   * thrown back so kafkajs redelivers the message; one that is not is dead-lettered too.
   *
   * `types` names, per topic, the fact types the handler acts on: a message whose
   * `x-fact-type` header names another type is passed over (its offset committed) without
   * being decoded. A message without the header is decoded and handed over as always.
   */
  async function consume(args: {
    groupId: string;
    topics: string[];
    fromBeginning?: boolean;
    partitionsConsumedConcurrently?: number;
    types?: Partial<Record<string, readonly string[]>>;
    handle: (message: InboundMessage) => Promise<void>;
  }): Promise<Consumer> {
    const stallMs = settings.consumerStallMs ?? 60_000;
    let current = await startConsumer(args);
    let stopped = false;
    let restarting = false;
    const restart = async (why: string) => {
      restarting = true;
      logger.error({ groupId: args.groupId, why }, 'consumer stalled; starting it again');
      metrics.handlerFailures.inc({ topic: args.topics.join(','), kind: 'consumer_restarted' });
      await withTimeout(current.stop(), 15_000).catch(() => undefined);
      for (let attempt = 1; !stopped; attempt += 1) {
        try {
          current = await startConsumer(args);
          logger.warn({ groupId: args.groupId, attempt }, 'consumer started again');
          break;
        } catch (error) {
          logger.warn({ err: error, groupId: args.groupId, attempt }, 'consumer could not start again yet; retrying');
          await new Promise((resolve) => setTimeout(resolve, Math.min(10_000, 500 * 2 ** attempt)));
        }
      }
      restarting = false;
    };
    const watchdog = setInterval(
      () => {
        if (stopped || restarting) return;
        const why = current.stalled(stallMs);
        if (why) void restart(why);
      },
      Math.min(5_000, Math.max(250, stallMs / 4)),
    );
    watchdog.unref();
    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        stopped = true;
        clearInterval(watchdog);
        while (restarting) await new Promise((resolve) => setTimeout(resolve, 50));
        await current.stop();
      })());
    consumerStops.push(stop);
    stopsByGroup.set(args.groupId, stop);
    watchLag(`${ns}${args.groupId}`, args.topics.map(real));
    return current.consumer;
  }

  /** One kafkajs consumer of `consume`, running, with what tells whether it still works. */
  async function startConsumer(args: Parameters<typeof consume>[0]) {
    const consumer = kafka.consumer({
      groupId: `${ns}${args.groupId}`,
      sessionTimeout: 15_000,
      heartbeatInterval: 1_000,
      rebalanceTimeout: 20_000,
      maxWaitTimeInMs: 250,
      retry: { initialRetryTime: 200, retries: 10 },
      allowAutoTopicCreation: false,
    });
    consumer.on(consumer.events.REQUEST, countRequests('consumer'));
    const offsets = trackOffsets(consumer, args.groupId, args.topics.map(real));
    let lastSign = Date.now();
    let crashedForGood: string | undefined;
    const sign = () => (lastSign = Date.now());
    consumer.on(consumer.events.FETCH_START, sign);
    consumer.on(consumer.events.HEARTBEAT, sign);
    consumer.on(consumer.events.GROUP_JOIN, sign);
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      logger.warn({ err: payload.error, groupId: args.groupId, restart: payload.restart }, 'consumer crashed');
      if (!payload.restart) crashedForGood = String(payload.error?.message ?? payload.error);
    });
    const started = {
      consumer,
      stop: offsets.stop,
      stalled: (ms: number) => {
        if (crashedForGood) return `crashed without a restart: ${crashedForGood}`;
        const quiet = Date.now() - lastSign;
        if (offsets.inFlight() === 0 && quiet > ms) return `no fetch for ${Math.round(quiet / 1000)} s`;
        // A handler waiting on something that never settles holds its partition for good; its
        // message is handled again by the consumer started in its place (handlers are idempotent).
        const oldest = offsets.oldestInFlight();
        if (oldest !== undefined && quiet > 2 * ms && Date.now() - oldest > 2 * ms)
          return `a handler running for ${Math.round((Date.now() - oldest) / 1000)} s and no fetch since`;
        return undefined;
      },
    };
    try {
      await ensureTopics([...args.topics, ...args.topics.map(deadLetterTopicFor)]);
      await consumer.connect();
      await consumer.subscribe({ topics: args.topics.map(real), fromBeginning: args.fromBeginning ?? true });
      await consumer.run({
        partitionsConsumedConcurrently: args.partitionsConsumedConcurrently ?? 3,
        autoCommit: false,
        eachMessage: ({ topic: realTopic, partition, message, heartbeat }) =>
          offsets.handling(
            realTopic,
            partition,
            message.offset,
            async (): Promise<{ work: Promise<unknown> } | undefined> => {
              const topic = logical(realTopic);
              const started = process.hrtime.bigint();
              const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
              const wanted = args.types?.[topic];
              if (wanted) {
                const named = message.headers?.[FACT_TYPE_HEADER];
                const type = (Array.isArray(named) ? named[0] : named)?.toString();
                if (type !== undefined && !wanted.includes(type)) {
                  metrics.handlerDuration.observe({ topic, outcome: 'skipped' }, seconds());
                  return;
                }
              }
              let value: unknown;
              try {
                if (!message.value) throw new Error('Message has no value');
                value = await codec.decode(topic, message.value);
              } catch (error) {
                if (error instanceof ServiceError && error.retriable) {
                  // The registry is unreachable, not the message bad: fetched again after a backoff.
                  metrics.handlerFailures.inc({ topic, kind: 'retried' });
                  logger.warn(
                    { err: error, topic, partition, offset: message.offset },
                    'message not decoded yet; will retry',
                  );
                  await heartbeat().catch(() => undefined);
                  throw error;
                }
                logger.error({ err: error, topic, partition, offset: message.offset }, 'poison message dead-lettered');
                await deadLetter(topic, message, partition, error);
                metrics.handlerDuration.observe({ topic, outcome: 'poison' }, seconds());
                return;
              }
              const held: Promise<unknown>[] = [];
              const headers = headersToRecord(message.headers);
              // A CONSUMER span, child of the producer's: the handler's work (its database
              // commands, its publishes, its log lines) is in the trace of the record.
              const parent = contextOf(headers);
              const span = tracer().startSpan(
                `process ${topic}`,
                {
                  kind: SpanKind.CONSUMER,
                  attributes: {
                    'messaging.system': 'kafka',
                    'messaging.operation.type': 'process',
                    'messaging.destination.name': topic,
                    'messaging.consumer.group.name': args.groupId,
                    'messaging.destination.partition.id': String(partition),
                    'messaging.kafka.offset': Number(message.offset),
                    ...loanAttributes(value),
                  },
                },
                parent,
              );
              try {
                await otelContext.with(trace.setSpan(parent, span), () =>
                  args.handle({
                    topic,
                    partition,
                    offset: message.offset,
                    key: message.key?.toString() ?? null,
                    value,
                    headers,
                    timestamp: message.timestamp,
                    commitAfter: (done) => void held.push(done),
                  }),
                );
                endSpan(span);
                metrics.handlerDuration.observe({ topic, outcome: 'ok' }, seconds());
                // Wrapped: an async function returning a promise would wait for it.
                if (held.length > 0) return { work: Promise.allSettled(held) };
              } catch (error) {
                endSpan(span, error);
                metrics.handlerDuration.observe({ topic, outcome: 'error' }, seconds());
                // The failure's line names the span it failed in.
                const ids = traceIdsOf(span);
                if (isRetriable(error)) {
                  metrics.handlerFailures.inc({ topic, kind: 'retried' });
                  logger.warn(
                    { err: error, topic, partition, offset: message.offset, ...ids },
                    'handler failed; will retry',
                  );
                  await heartbeat().catch(() => undefined);
                  throw error;
                }
                logger.error(
                  { err: error, topic, partition, offset: message.offset, ...ids },
                  'handler failed for good; dead-lettered',
                );
                await deadLetter(topic, message, partition, error);
              }
            },
          ),
      });
    } catch (error) {
      await withTimeout(offsets.stop(), 5_000).catch(() => undefined);
      throw error;
    }
    sign();
    return started;
  }

  /**
   * Offsets committed on an interval instead of after every fetched batch (kafkajs's
   * `autoCommit`, one OffsetCommit request per batch, most of them of one message under load).
   * A message's offset is recorded once its handler succeeded or it was dead-lettered; a
   * handler that throws leaves it unrecorded and kafkajs fetches it again. On a rebalance the
   * offsets of partitions no longer assigned are dropped (their new owner handles those
   * messages again); on stop, fetching pauses, the handlers in flight finish and what they
   * handled is committed before the consumer leaves its group. A message whose handler asked
   * to (`commitAfter`) holds its partition's committed offset at itself until its work ends.
   */
  function trackOffsets(consumer: Consumer, groupId: string, topics: string[]) {
    const handled = new Map<string, { topic: string; partition: number; offset: string }>();
    /** Per partition: the messages handled whose work goes on, in offset order; the next offset after the last handled. */
    const holds = new Map<string, { offsets: { offset: bigint; done: boolean }[]; next: bigint }>();

    /** Records how far the partition may be committed: up to its first message still held. */
    function advance(topic: string, partition: number) {
      const key = `${topic}:${partition}`;
      const hold = holds.get(key);
      if (!hold) return;
      while (hold.offsets[0]?.done) hold.offsets.shift();
      const first = hold.offsets[0];
      handled.set(key, { topic, partition, offset: (first ? first.offset : hold.next).toString() });
      if (!first) holds.delete(key);
    }
    let inFlight = 0;
    /** When each handler in flight started. */
    const handlerStarts = new Set<{ at: number }>();
    let committing: Promise<void> = Promise.resolve();
    // kafkajs ignores a commit while the consumer is not running (before it joins, after a
    // crash until it rejoins): the offsets are kept for a commit once it is back.
    let running = false;
    consumer.on(consumer.events.CRASH, () => (running = false));
    consumer.on(consumer.events.STOP, () => (running = false));

    function commit(): Promise<void> {
      committing = committing.then(async () => {
        if (handled.size === 0 || !running) return;
        const batch = [...handled.entries()];
        try {
          await consumer.commitOffsets(batch.map(([, position]) => position));
          for (const [key, position] of batch) if (handled.get(key) === position) handled.delete(key);
        } catch (error) {
          logger.warn({ err: error, groupId }, 'committing consumer offsets failed; retried on the next interval');
        }
      });
      return committing;
    }

    const timer = setInterval(() => void commit(), settings.commitIntervalMs ?? 1_000);
    timer.unref();
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      running = true;
      const assigned = payload.memberAssignment as Record<string, number[]>;
      for (const [key, position] of handled) {
        if (!assigned[position.topic]?.includes(position.partition)) handled.delete(key);
      }
      for (const key of [...holds.keys()]) {
        const [topic, partition] = [key.slice(0, key.lastIndexOf(':')), Number(key.slice(key.lastIndexOf(':') + 1))];
        if (!assigned[topic]?.includes(partition)) holds.delete(key);
      }
    });

    return {
      async handling(
        topic: string,
        partition: number,
        offset: string,
        handle: () => Promise<{ work: Promise<unknown> } | undefined>,
      ) {
        inFlight += 1;
        const since = { at: Date.now() };
        handlerStarts.add(since);
        try {
          const work = (await handle())?.work;
          const key = `${topic}:${partition}`;
          const next = BigInt(offset) + 1n;
          const hold = holds.get(key);
          if (!work && !hold) {
            handled.set(key, { topic, partition, offset: next.toString() });
            return;
          }
          const entry = { offset: BigInt(offset), done: false };
          const current = hold ?? { offsets: [], next };
          current.next = next;
          if (work) current.offsets.push(entry);
          holds.set(key, current);
          advance(topic, partition);
          void work?.then(() => {
            entry.done = true;
            if (holds.get(key) === current) advance(topic, partition);
          });
        } finally {
          inFlight -= 1;
          handlerStarts.delete(since);
        }
      },
      inFlight: () => inFlight,
      /** When the longest-running handler in flight started. */
      oldestInFlight: () => {
        let oldest: number | undefined;
        for (const { at } of handlerStarts) if (oldest === undefined || at < oldest) oldest = at;
        return oldest;
      },
      async stop() {
        clearInterval(timer);
        try {
          consumer.pause(topics.map((topic) => ({ topic })));
        } catch {
          // Never ran (start-up failed before `run`): nothing is fetching.
        }
        const deadline = Date.now() + 10_000;
        while (inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
        await commit();
        await consumer.disconnect();
      },
    };
  }

  function watchLag(groupId: string, topics: string[]) {
    const timer = setInterval(() => {
      void (async () => {
        for (const topic of topics) {
          const [ends, committed] = await Promise.all([
            admin.fetchTopicOffsets(topic),
            admin.fetchOffsets({ groupId, topics: [topic] }),
          ]);
          const done = new Map(committed[0]?.partitions.map((p) => [p.partition, Number(p.offset)]) ?? []);
          for (const p of ends) {
            const at = done.get(p.partition) ?? -1;
            const lag = at < 0 ? Number(p.high) - Number(p.low) : Number(p.high) - at;
            metrics.consumerLag.set({ topic, partition: String(p.partition) }, Math.max(0, lag));
          }
        }
      })().catch(() => undefined);
    }, 10_000);
    timer.unref();
    lagTimers.push(timer);
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
    lagTimers.forEach(clearInterval);
    await Promise.allSettled(consumerStops.map((stop) => stop()));
    const open = replies;
    replies = null;
    if (open) await open.connected.then(() => open.producer.disconnect()).catch(() => undefined);
    if (producerConnected) await Promise.allSettled([producer.disconnect(), admin.disconnect()]);
    producerConnected = false;
  }

  return {
    kafka,
    codec,
    admin,
    connect,
    ensureTopics,
    publishAll,
    publish,
    publishReply,
    consume,
    stopConsumer,
    disconnect,
    isConnected: () => producerConnected,
    /** The broker's name of a topic (with the namespace). */
    topicName: real,
    /** The broker's name of a consumer group: prefixed with the topic namespace, as consume() does. */
    groupName: real,
  };
}
export type KafkaBus = ReturnType<typeof createKafkaBus>;
