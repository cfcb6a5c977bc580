import { FACT_TYPE_HEADER } from '@loan/contracts';
import { context as otelContext } from '@opentelemetry/api';
import type { EachMessagePayload } from 'kafkajs';
import { ServiceError, isRetriable } from '../errors';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { SpanKind, contextOf, endSpan, loanAttributes, startSpan, traceIdsOf, withSpan } from '../tracing';
import type { Codec } from './codec';
import { headersToRecord, type InboundMessage } from './messages';
import type { DeadLetter } from './producer';

/** What `consume` is asked: a group, its topics, and the handler of their messages. */
export interface ConsumeOptions {
  groupId: string;
  topics: string[];
  fromBeginning?: boolean;
  partitionsConsumedConcurrently?: number;
  /**
   * Messages of one partition handled at once (1 by default: one after the other). Above 1,
   * messages of different keys run side by side and those of one key stay in offset order;
   * a handler error that is retriable stops the partition's batch at the first message not
   * handled, which is fetched again with every later one (handlers are idempotent).
   */
  keyConcurrency?: number;
  /**
   * Per topic, the fact types the handler acts on: a message whose `x-fact-type` header names
   * another type is passed over (its offset committed) without being decoded. A message without
   * the header is decoded and handed over as always.
   */
  types?: Partial<Record<string, readonly string[]>>;
  /**
   * How many bytes of records a fetch waits at the broker to gather before it returns, for at
   * most the fetch wait (1 s by default); 1 by default: it returns as soon as any record is
   * there. Kafka's `fetch.min.bytes`. A consumer nobody waits on (the janitor's) gathers more
   * records per fetch: fewer Kafka requests, and larger batches for its writes to coalesce.
   */
  fetchMinBytes?: number;
  handle: (message: InboundMessage) => Promise<void>;
}

/**
 * What happens to one fetched message: passed over when its fact type is not wanted; decoded
 * and validated, or dead-lettered as poison; handed to the handler inside a CONSUMER span. A
 * handler error that is retriable (and a registry that cannot be asked) is thrown back, for
 * the consumer to read the message again after a backoff; one that is not dead-letters the
 * message. Answers the
 * work the handler asked its offset to wait for (`commitAfter`), if any.
 */
export function createMessagePipeline(deps: {
  options: ConsumeOptions;
  codec: Codec;
  metrics: Metrics;
  logger: Logger;
  /** The plain name of a topic the broker names. */
  logical: (topic: string) => string;
  deadLetter: DeadLetter;
}) {
  const { options, codec, metrics, logger, deadLetter } = deps;

  return async function handleMessage({
    topic: realTopic,
    partition,
    message,
    heartbeat,
  }: EachMessagePayload): Promise<{ work: Promise<unknown> } | undefined> {
    const topic = deps.logical(realTopic);
    const receivedAt = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - receivedAt) / 1e9;
    const wanted = options.types?.[topic];
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
        logger.warn({ err: error, topic, partition, offset: message.offset }, 'message not decoded yet; will retry');
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
    const span = startSpan(
      `process ${topic}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: () => ({
          'messaging.system': 'kafka',
          'messaging.operation.type': 'process',
          'messaging.destination.name': topic,
          'messaging.consumer.group.name': options.groupId,
          'messaging.destination.partition.id': String(partition),
          'messaging.kafka.offset': Number(message.offset),
          ...loanAttributes(value),
        }),
      },
      parent,
    );
    try {
      await otelContext.with(withSpan(parent, span), () =>
        options.handle({
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
        logger.warn({ err: error, topic, partition, offset: message.offset, ...ids }, 'handler failed; will retry');
        await heartbeat().catch(() => undefined);
        throw error;
      }
      logger.error(
        { err: error, topic, partition, offset: message.offset, ...ids },
        'handler failed for good; dead-lettered',
      );
      await deadLetter(topic, message, partition, error);
    }
    return undefined;
  };
}
