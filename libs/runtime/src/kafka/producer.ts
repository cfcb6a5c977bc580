import { deadLetterTopicFor } from '@loan/contracts';
import type { Span } from '@opentelemetry/api';
import type { IHeaders, Kafka, Message, Producer } from 'kafkajs';
import type { Metrics } from '../metrics';
import { endSpan, startProducerSpan } from '../tracing';
import type { Codec } from './codec';
import type { OutboundMessage } from './messages';
import type { Names } from './topics';
import { sleep } from './timing';

/** Messages of one produce request at most, when waiting publishes are sent together. */
const MAX_MESSAGES_PER_REQUEST = 1_000;

/** A publication waiting for the next produce request, and how its caller learns the outcome. */
export interface WaitingSend {
  topic: string;
  messages: Message[];
  settle: (error?: unknown) => void;
}

/**
 * Takes from the front of `waiting` what the next produce request carries (at most
 * `MAX_MESSAGES_PER_REQUEST` messages, and always the first publication whatever its size), with
 * its messages grouped by topic, each topic's in call order.
 */
export function takeRequest(waiting: WaitingSend[]): {
  batch: WaitingSend[];
  topicMessages: { topic: string; messages: Message[] }[];
} {
  let count = 0;
  let take = 0;
  while (take < waiting.length && (take === 0 || count + waiting[take]!.messages.length <= MAX_MESSAGES_PER_REQUEST)) {
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
  return { batch, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) };
}

/**
 * A message encoded through the registry, with a PRODUCER span (added to `spans`) whose
 * context the record carries on (`traceparent`).
 */
export async function encodeTraced(codec: Codec, topic: string, message: OutboundMessage, spans: Span[]) {
  const { span, headers } = startProducerSpan(topic, message);
  spans.push(span);
  return { key: message.key, value: await codec.encode(topic, message.value), headers };
}

/**
 * The idempotent producer of a bus: what services publish, encoded through the registry and
 * sent in as few produce requests as the load allows, and the dead letters of its consumers.
 */
export function createProducer(deps: {
  kafka: Kafka;
  codec: Codec;
  metrics: Metrics;
  names: Names;
  /** See `KafkaSettings.producerLingerMs`. */
  lingerMs: number;
}) {
  const { codec, metrics, lingerMs } = deps;
  const { real } = deps.names;
  const producer: Producer = deps.kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
  });

  /**
   * Publishes waiting while a request is in flight go out together in the next one (the
   * idempotent producer allows one request in flight): under load a handful of requests carry
   * what would otherwise be hundreds, and alone a publish is sent at once. Call order is kept.
   */
  const waiting: WaitingSend[] = [];
  let sending = false;

  async function sendWaiting(): Promise<void> {
    if (sending) return;
    sending = true;
    try {
      if (lingerMs > 0) await sleep(lingerMs);
      while (waiting.length > 0) {
        const { batch, topicMessages } = takeRequest(waiting);
        try {
          await producer.sendBatch({ topicMessages });
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
    const spans: Span[] = [];
    try {
      const encoded = await Promise.all(
        batches
          .filter((b) => b.messages.length > 0)
          .map(async ({ topic, messages }) => ({
            topic,
            messages: await Promise.all(messages.map((m) => encodeTraced(codec, topic, m, spans))),
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

  /**
   * Sends a message a consumer could not handle, as it was fetched, to `<topic>.dlq`, with
   * headers saying why and where it came from.
   */
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

  return {
    producer,
    publishAll,
    publish: (topic: string, messages: OutboundMessage[]): Promise<void> => publishAll([{ topic, messages }]),
    deadLetter,
  };
}
export type BusProducer = ReturnType<typeof createProducer>;
export type DeadLetter = BusProducer['deadLetter'];
