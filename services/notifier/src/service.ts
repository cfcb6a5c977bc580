import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  createInternalApp,
  ensureContractTopics,
  listen,
  syncIndexes,
  type Clock,
  type ServiceRuntime,
} from '@loan/runtime';
import type { NotifierConfig } from './config';
import { createDeliveryRepository } from './data-access/deliveryRepository';
import { createEndpointRepository } from './data-access/endpointRepository';
import { notifierModels } from './data-access/models';
import { createWebhookClient, type WebhookClient } from './data-access/webhookClient';
import { scheduleEntryOf, type DeliveryPolicy } from './domain/delivery';
import {
  consumerHandlers,
  createProjectAnalyticsHandler,
  createProjectClientHandler,
  createRecordEventHandler,
  createScrubBodiesHandlers,
} from './entry-points/consumers';
import { createAttemptRunner } from './entry-points/dispatcher/attempt';
import { createClaimer } from './entry-points/dispatcher/claims';
import { createDispatcher } from './entry-points/dispatcher/dispatcher';
import { deliveryRoutes } from './entry-points/http/deliveryRoutes';
import { createNotifierMetrics } from './metrics';

/** How long a replica trusts its cached copy of a client's endpoint. */
const ENDPOINT_CACHE_MS = 1_000;

/**
 * The notifier: records every public event as a delivery to the client that owns it, POSTs it
 * signed to the client's webhook URL with durable retries, keeps the delivery log, and serves
 * that log (with redelivery and replay) to the gateway.
 */
export function createNotifierService(deps: {
  runtime: ServiceRuntime;
  config: NotifierConfig;
  clock: Clock;
  /** The HTTP client for webhooks; the real one unless a test brings its own. */
  client?: WebhookClient;
}) {
  const { runtime, config, clock } = deps;
  if (config.DELIVERY_LEASE <= config.WEBHOOK_TIMEOUT) {
    throw new Error('DELIVERY_LEASE must be longer than WEBHOOK_TIMEOUT: a claim must outlast the attempt it covers');
  }
  const { bus, sealer, logger } = runtime;
  const models = notifierModels(runtime.db);
  const repo = createDeliveryRepository(models, runtime.bulkLane);
  const endpoints = createEndpointRepository({ model: models.endpoints, clock, cacheMs: ENDPOINT_CACHE_MS });
  const policy: DeliveryPolicy = {
    retryBaseMs: config.WEBHOOK_RETRY_BASE,
    maxRetries: config.WEBHOOK_MAX_RETRIES,
    allowPrivate: config.ALLOW_PRIVATE_WEBHOOK_URLS,
  };
  const metrics = createNotifierMetrics(
    runtime.metrics.registry,
    { count: () => repo.countEntries(), oldestEventAt: () => repo.oldestPendingEventAt() },
    () => clock.now(),
  );
  const client =
    deps.client ?? createWebhookClient({ allowPrivate: policy.allowPrivate, maxSockets: config.DELIVERY_CONCURRENCY });
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const dispatcherLogger = logger.child({ component: 'dispatcher' });
  let halted = false;

  const dispatcher = createDispatcher({
    repo,
    claim: createClaimer({ repo, owner, leaseMs: config.DELIVERY_LEASE, attemptMs: config.WEBHOOK_TIMEOUT }),
    owner,
    run: createAttemptRunner({
      repo,
      endpoints,
      client,
      sealer: sealer.for('client-secrets'),
      clock,
      policy,
      timeoutMs: config.WEBHOOK_TIMEOUT,
      metrics,
      logger: dispatcherLogger,
      halted: () => halted,
    }),
    clock,
    logger: dispatcherLogger,
    concurrency: config.DELIVERY_CONCURRENCY,
    pollMs: config.DELIVERY_POLL_INTERVAL,
  });

  const handlers = consumerHandlers({
    projectClient: createProjectClientHandler({ endpoints, logger }),
    recordEvent: createRecordEventHandler({
      repo,
      clock,
      policy,
      owner,
      leaseMs: config.DELIVERY_LEASE,
      onRecorded: (entry, delivery, inserted) => dispatcher.wake(entry, delivery, inserted),
      attemptFirst: (entry, delivery) => dispatcher.attemptFirst(entry, delivery),
    }),
    scrubBodies: createScrubBodiesHandlers({ repo, logger }),
    projectAnalytics: createProjectAnalyticsHandler({ bus, key: config.ANALYTICS_KEY }),
  });

  let http: Awaited<ReturnType<typeof listen>> | null = null;

  /** Puts back on the schedule any pending delivery missing from it (a crash mid-write). */
  async function rebuildSchedule(): Promise<number> {
    let added = 0;
    for (const delivery of await repo.pending()) {
      if (await repo.addEntry(scheduleEntryOf(delivery))) added++;
    }
    return added;
  }

  return {
    repo,
    endpoints,
    metrics,
    owner,
    async start() {
      await syncIndexes(runtime.db);
      await ensureContractTopics(bus);
      const rescheduled = await rebuildSchedule();
      if (rescheduled > 0) logger.warn({ rescheduled }, 'pending deliveries were missing from the schedule');
      dispatcher.start();
      runtime.lifecycle.onStop('dispatcher', async () => {
        await dispatcher.stop();
        client.close();
      });
      await bus.consume({
        groupId: config.CONSUMER_GROUP,
        topics: Object.keys(handlers),
        partitionsConsumedConcurrently: config.INGEST_CONCURRENCY,
        keyConcurrency: config.INGEST_KEY_CONCURRENCY,
        handle: async (message) => handlers[message.topic]?.(message),
      });
      const app = createInternalApp({
        metrics: runtime.metrics,
        checks: runtime.checks,
        logger,
        bodyLimit: '16kb',
        api: deliveryRoutes({ repo, clock, policy, onRequeued: (entry) => dispatcher.wake(entry) }),
        internalToken: config.INTERNAL_TOKEN,
      });
      http = await listen(app, config.HTTP_HOST, config.HTTP_PORT);
      runtime.lifecycle.onStop('http', () => http?.close());
      logger.info({ url: http.url, owner }, 'notifier service started');
      return { url: http.url };
    },
    /** Graceful: stops taking work, lets attempts under way finish and be recorded, closes. */
    stop: () => runtime.lifecycle.stop(),
    /**
     * Stops at once, as a crash would: attempts under way are abandoned unrecorded and their
     * claims left to expire, the consumer leaves without finishing, connections drop.
     */
    async halt() {
      halted = true;
      dispatcher.halt();
      client.close();
      http?.server.closeAllConnections();
      http?.server.close();
      await runtime.db.close(true).catch(() => undefined);
      await bus.disconnect().catch(() => undefined);
    },
  };
}
export type NotifierService = ReturnType<typeof createNotifierService>;
