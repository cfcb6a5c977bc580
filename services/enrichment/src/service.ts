import type { AccountLinkingProvider } from '@loan/provider';
import {
  createOpsApp,
  ensureContractTopics,
  listen,
  syncIndexes,
  type Clock,
  type ServiceRuntime,
  createKeyedLock,
  createOutboxRelay,
} from '@loan/runtime';
import type { EnrichmentConfig } from './config';
import { createBankDataRepository } from './data-access/bankDataRepository';
import { createJobRepository } from './data-access/jobRepository';
import { enrichmentModels } from './data-access/models';
import { createProvider } from './data-access/provider';
import { consumerHandlers } from './entry-points/consumers';
import { createEnrichmentMetrics } from './metrics';
import { createWorker } from './worker';
import { createEnrichmentWorkflow } from './workflow';

/**
 * The enrichment service: for every linked account, asks the provider for its income analysis
 * and statement insights, reads the statement month by month, stores the enriched profile (the
 * applicant's bank data) and announces it; fails the account when the enrichment timeout
 * passes; deletes the bank data of applications abandoned without analysis.
 */
export function createEnrichmentService(deps: {
  runtime: ServiceRuntime;
  config: EnrichmentConfig;
  clock: Clock;
  /** The provider adapter; by default Mono's API (or the sandbox) at PROVIDER_BASE_URL. */
  provider?: AccountLinkingProvider;
}) {
  const { runtime, config, clock } = deps;
  const { bus, logger } = runtime;
  const metrics = createEnrichmentMetrics(runtime.metrics.registry);
  const provider =
    deps.provider ?? createProvider({ config, logger, onBreakerState: (state) => metrics.breakerState(state) });
  const models = enrichmentModels(runtime.db);
  const jobs = createJobRepository(models);
  const bankData = createBankDataRepository(models);
  const lock = createKeyedLock();
  const jobRelay = createOutboxRelay({ bus, model: models.jobs, logger, lock });
  const scrubRelay = createOutboxRelay({ bus, model: models.scrubs, logger });
  // The workflow and the worker need each other: the workflow kicks work, the worker runs it.
  let kick: (accountId: string) => void = () => undefined;
  const workflow = createEnrichmentWorkflow({
    jobs,
    bankData,
    jobRelay,
    scrubRelay,
    provider,
    sealer: runtime.sealer,
    clock,
    logger,
    metrics,
    pacing: {
      pollAfterMs: config.ENRICHMENT_POLL_AFTER,
      pollIntervalMs: config.ENRICHMENT_POLL_INTERVAL,
      retryBaseMs: config.ENRICHMENT_RETRY_BASE,
      retryMaxMs: config.ENRICHMENT_RETRY_MAX,
    },
    lock,
    leaseMs: config.ENRICHMENT_LEASE,
    incomePeriodMonths: config.INCOME_PERIOD_MONTHS,
    kick: (accountId) => kick(accountId),
  });
  const worker = createWorker({ concurrency: config.ENRICHMENT_WORKERS, run: workflow.advance, logger });
  kick = worker.kick;

  let timer: NodeJS.Timeout | null = null;
  let sweeping = false;
  async function sweep() {
    if (sweeping) return;
    sweeping = true;
    try {
      await workflow.sweep();
      metrics.pending.set(await jobs.countActive());
    } catch (error) {
      logger.warn({ err: error }, 'sweep of pending enrichments failed');
    } finally {
      sweeping = false;
    }
  }

  let http: Awaited<ReturnType<typeof listen>> | null = null;

  return {
    jobs,
    bankData,
    models,
    workflow,
    metrics,
    /** Enrichments being worked on right now (tests wait for 0). */
    busy: () => worker.busy(),
    async start() {
      await syncIndexes(runtime.db);
      await ensureContractTopics(bus);
      jobRelay.start();
      scrubRelay.start();
      runtime.lifecycle.onStop('outbox', () => {
        jobRelay.stop();
        scrubRelay.stop();
      });
      await bus.consume({
        groupId: config.CONSUMER_GROUP,
        topics: Object.keys(consumerHandlers(workflow)),
        partitionsConsumedConcurrently: config.CONSUMER_CONCURRENCY,
        handle: async (message) => consumerHandlers(workflow)[message.topic]?.(message),
      });
      // Pending work left by a previous process (or another replica that died) is resumed here.
      timer = setInterval(() => void sweep(), config.ENRICHMENT_POLL_INTERVAL);
      timer.unref();
      void sweep();
      runtime.lifecycle.onStop('worker', async () => {
        if (timer) clearInterval(timer);
        timer = null;
        await worker.stop();
      });
      http = await listen(
        createOpsApp({ metrics: runtime.metrics, checks: runtime.checks }),
        config.HTTP_HOST,
        config.HTTP_PORT,
      );
      runtime.lifecycle.onStop('http', () => http?.close());
      logger.info({ url: http.url }, 'enrichment service started');
      return { url: http.url };
    },
    stop: () => runtime.lifecycle.stop(),
  };
}
export type EnrichmentService = ReturnType<typeof createEnrichmentService>;
