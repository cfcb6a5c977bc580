import type { Span } from '@opentelemetry/api';
import type { Kafka, Message, Producer } from 'kafkajs';
import type { Metrics } from '../metrics';
import { endSpan } from '../tracing';
import type { Codec } from './codec';
import { requestCounter } from './connect';
import type { OutboundMessage } from './messages';
import { encodeTraced, takeRequest, type WaitingSend } from './producer';
import type { Names } from './topics';

/**
 * Replies to a waiting requester (a gateway replica's own reply topic) travel apart from the
 * rest: the requester may be gone and its topic deleted with it (a rolling deploy), and a
 * produce request naming a topic that does not exist is retried until the retries run out.
 * On the idempotent producer that request would hold, and then fail, every publication
 * queued with it. Worse, a kafkajs producer that has once sent to a topic later deleted
 * fails every metadata refresh after it (kafkajs issues #651, #1622), so the producer of
 * replies is replaced after a failure (see `publishReply`). Replies to several requesters share
 * a produce request when they come together (see `sendWaiting`).
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

  /** Sends on the current producer of replies; a failure replaces it (and disconnects the old one). */
  async function sendOnce(topicMessages: { topic: string; messages: Message[] }[]): Promise<void> {
    const current = replyProducer();
    try {
      await current.connected;
      await current.producer.sendBatch({ topicMessages });
    } catch (error) {
      if (replies === current) replies = null;
      void current.connected.then(() => current.producer.disconnect()).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Replies that come while a produce request of replies is in flight wait and go out together
   * in the next one (alone, a reply is sent at once): under load one request carries the
   * replies of a whole fetched batch of commands, to every requester's topic.
   */
  const waiting: WaitingSend[] = [];
  let sending = false;

  /**
   * After a failed request, each requester's replies are tried once more on their own, on a new
   * producer, side by side: a requester that is gone fails its own replies, and the replies to
   * live ones in the same request still arrive. Not waited for: the replies that came meanwhile
   * do not wait behind a gone topic's retries.
   */
  function separately(batch: typeof waiting) {
    const byTopic = new Map<string, typeof waiting>();
    for (const item of batch) {
      const items = byTopic.get(item.topic);
      if (items) items.push(item);
      else byTopic.set(item.topic, [item]);
    }
    for (const [topic, items] of byTopic) {
      sendOnce([{ topic, messages: items.flatMap((item) => item.messages) }]).then(
        () => items.forEach((item) => item.settle()),
        (error: unknown) => items.forEach((item) => item.settle(error)),
      );
    }
  }

  async function sendWaiting(): Promise<void> {
    if (sending) return;
    sending = true;
    try {
      while (waiting.length > 0) {
        const { batch, topicMessages } = takeRequest(waiting);
        try {
          await sendOnce(topicMessages);
          for (const item of batch) item.settle();
        } catch {
          separately(batch);
        }
      }
    } finally {
      sending = false;
    }
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
      const sent = new Promise<void>((resolve, reject) => {
        waiting.push({ topic: real(topic), messages: encoded, settle: (error) => (error ? reject(error) : resolve()) });
      });
      void sendWaiting();
      await sent;
      metrics.published.inc({ topic }, messages.length);
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
