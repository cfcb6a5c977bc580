import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger';

/** Events the provider sends. */
export type ProviderEvent =
  | 'mono.events.account_connected'
  | 'mono.events.account_updated'
  | 'mono.events.account_reauthorized'
  | 'mono.events.account_income'
  | 'mono.events.statement_insights';

/** Body of every webhook. */
export interface WebhookEnvelope {
  event: ProviderEvent;
  /** Unique per event; the same id is reused on every retry of it. */
  event_id: string;
  timestamp: string;
  data: unknown;
}

export interface WebhookSenderOptions {
  url: string;
  secret: string;
  /** First retry delay; doubles with each further attempt. */
  retryBaseMs: number;
  maxAttempts: number;
  /** Per-attempt timeout. */
  timeoutMs?: number;
  clock: () => Date;
  logger: Logger;
  fetch?: typeof fetch;
}

export interface WebhookSender {
  /** Queues an event; events with the same key (the account id) are delivered in order. */
  send(key: string, event: ProviderEvent, data: unknown): WebhookEnvelope;
  /** Abandons queued and in-flight deliveries. */
  stop(): void;
}

/**
 * Delivers webhooks as JSON POSTs with the `mono-webhook-secret` header, retrying on non-2xx
 * answers and network errors with exponential backoff (base, 2x base, 4x base...).
 */
export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const doFetch = options.fetch ?? fetch;
  const logger = options.logger.child({ component: 'webhooks' });
  const queues = new Map<string, Promise<void>>();
  const stopping = new AbortController();

  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      if (stopping.signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        stopping.signal.removeEventListener('abort', done);
        resolve();
      }
      stopping.signal.addEventListener('abort', done);
    });

  async function deliver(envelope: WebhookEnvelope): Promise<void> {
    const body = JSON.stringify(envelope);
    for (let attempt = 1; attempt <= options.maxAttempts; attempt += 1) {
      if (stopping.signal.aborted) return;
      const log = { event: envelope.event, eventId: envelope.event_id, attempt };
      try {
        const response = await doFetch(options.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'mono-webhook-secret': options.secret },
          body,
          signal: AbortSignal.any([stopping.signal, AbortSignal.timeout(options.timeoutMs ?? 10_000)]),
        });
        await response.arrayBuffer().catch(() => undefined);
        if (response.ok) {
          logger.info({ ...log, status: response.status }, 'webhook delivered');
          return;
        }
        logger.warn({ ...log, status: response.status }, 'webhook refused');
      } catch (error) {
        if (stopping.signal.aborted) return;
        logger.warn({ ...log, err: (error as Error).message }, 'webhook delivery failed');
      }
      if (attempt < options.maxAttempts) await pause(options.retryBaseMs * 2 ** (attempt - 1));
    }
    logger.error({ event: envelope.event, eventId: envelope.event_id }, 'webhook given up');
  }

  return {
    send: (key, event, data) => {
      const envelope: WebhookEnvelope = {
        event,
        event_id: randomUUID(),
        timestamp: options.clock().toISOString(),
        data,
      };
      const next = (queues.get(key) ?? Promise.resolve()).then(() => deliver(envelope));
      queues.set(key, next);
      void next.finally(() => {
        if (queues.get(key) === next) queues.delete(key);
      });
      return envelope;
    },
    stop: () => stopping.abort(),
  };
}
