import type { Span } from '@opentelemetry/api';
import type { Kafka, Producer } from 'kafkajs';
import type { Metrics } from '../metrics';
import { endSpan } from '../tracing';
import type { Codec } from './codec';
import { requestCounter } from './connect';
import type { OutboundMessage } from './messages';
import { encodeTraced } from './producer';
import type { Names } from './topics';

/**
 * Replies to a waiting requester (a gateway replica's own reply topic) travel apart from the
 * rest: the requester may be gone and its topic deleted with it (a rolling deploy), and a
 * produce request naming a topic that does not exist is retried until the retries run out.
 * On the idempotent producer that request would hold, and then fail, every publication
 * queued with it. Worse, a kafkajs producer that has once sent to a topic later deleted
 * fails every metadata refresh after it (kafkajs issues #651, #1622), so the producer of
 * replies is replaced after a failure (see `publishReply`).
 */
export function createReplyPublisher(deps: { kafka: Kafka; codec: Codec; metrics: Metrics; names: Names }) {
  const { kafka, codec, metrics } = deps;
  const { real } = deps.names;
  let replies: { producer: Producer; connected: Promise<void> } | null = null;

  function replyProducer() {
    if (!replies) {
      const producer = kafka.producer({ allowAutoTopicCreation: false, retry: { initialRetryTime: 100, retries: 2 } });
      producer.on(producer.events.REQUEST, requestCounter(metrics, 'replies'));
      const current = { producer, connected: producer.connect() };
      current.connected.catch(() => {
        if (replies === current) replies = null;
      });
      replies = current;
    }
    return replies;
  }

  /**
   * Publishes a reply to a requester's own topic on the producer of replies: a requester that
   * is gone costs its reply, never another publication's time. A failed send replaces that
   * producer and is tried once more on the new one, so a reply topic deleted earlier does not
   * fail the replies to live ones.
   */
  async function publishReply(topic: string, messages: OutboundMessage[]): Promise<void> {
    const spans: Span[] = [];
    let failure: unknown;
    try {
      const encoded = await Promise.all(messages.map((m) => encodeTraced(codec, topic, m, spans)));
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

  /** Disconnects the producer of replies, if one was made. */
  async function disconnect(): Promise<void> {
    const open = replies;
    replies = null;
    if (open) await open.connected.then(() => open.producer.disconnect()).catch(() => undefined);
  }

  return { publishReply, disconnect };
}
