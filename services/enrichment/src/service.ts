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
import { createAccountIndex } from './data-access/accountIndex';
import { createBankDataRepository } from './data-access/bankDataRepository';
import { createDueSchedule } from './data-access/dueSchedule';
import { createJobRepository } from './data-access/jobRepository';
import { createJobWriter } from './data-access/jobWriter';
import { enrichmentModels } from './data-access/models';
import { createProvider } from './data-access/provider';
import { createUnsavedProgress } from './data-access/unsavedProgress';
import { HANDLED_FACTS, consumerHandlers } from './entry-points/consumers';
import { createConsentEndHandler } from './entry-points/consumers/endConsent';
import type { UseCaseDeps } from './entry-points/deps';
import { createAdvance } from './entry-points/worker/advanceEnrichment';
import { createPollLoop } from './entry-points/worker/pollDueJobs';
import { createWorker } from './entry-points/worker/worker';
import { createEnrichmentMetrics } from './metrics';

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
  const jobs = createJobRepository(models, runtime.sealer);
  const bankData = createBankDataRepository(models, runtime.sealer);
  const index = createAccountIndex(models);
  const schedule = createDueSchedule();
  const lock = createKeyedLock();
  // Every write is published right after it; the relays' sweeps (a query on the whole
  // collection) only catch what a stopped process left, so they run at the rescan pace.
  const sweepEveryMs = config.ENRICHMENT_RESCAN_INTERVAL;
  const jobRelay = createOutboxRelay({
    bus,
    bulkLane: runtime.bulkLane,
    model: models.jobs,
    logger,
    lock,
    sweepEveryMs,
    clearDelayMs: config.OUTBOX_CLEAR_DELAY,
  });
  const scrubRelay = createOutboxRelay({
    bus,
    bulkLane: runtime.bulkLane,
    model: models.scrubs,
    logger,
    sweepEveryMs,
    clearDelayMs: config.OUTBOX_CLEAR_DELAY,
  });
  // A webhook's offset is held at most until the part it announced would be polled anyway.
  const progress = createUnsavedProgress({ holdMaxMs: config.ENRICHMENT_POLL_AFTER });
  const writer = createJobWriter({ jobs, index, schedule, jobRelay, sealer: runtime.sealer, clock, lock, progress });
  // The use cases and the worker need each other: the use cases kick work, the worker runs it.
  let kick: (accountId: string) => void = () => undefined;
  const useCases: UseCaseDeps = {
    writer,
    jobs,
    index,
    schedule,
    progress,
    bankData,
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
    leaseMs: config.ENRICHMENT_LEASE,
    incomePeriodMonths: config.INCOME_PERIOD_MONTHS,
    kick: (accountId) => kick(accountId),
  };
  const consentEnds = createConsentEndHandler(useCases);
  const handlers = consumerHandlers(useCases, consentEnds);
  const worker = createWorker({ concurrency: config.ENRICHMENT_WORKERS, run: createAdvance(useCases), logger });
  kick = worker.kick;
  const poll = createPollLoop({
    ...useCases,
    settings: { pollIntervalMs: config.ENRICHMENT_POLL_INTERVAL, rescanIntervalMs: config.ENRICHMENT_RESCAN_INTERVAL },
  });

  let http: Awaited<ReturnType<typeof listen>> | null = null;

  return {
    jobs,
    index,
    schedule,
    bankData,
    models,
    metrics,
    /** Enrichments being worked on right now (tests wait for 0). */
    busy: () => worker.busy(),
    async start() {
      await syncIndexes(runtime.db);
      await ensureContractTopics(bus);
      // Before any message: the lookups the handlers use are complete, and the jobs a previous
      // process (or another replica that died) left are in the schedule, resumed by the loop.
      await poll.reload();
      jobRelay.start();
      scrubRelay.start();
      void jobRelay.sweep().catch((error: unknown) => logger.warn({ err: error }, 'outbox sweep failed'));
      void scrubRelay.sweep().catch((error: unknown) => logger.warn({ err: error }, 'outbox sweep failed'));
      runtime.lifecycle.onStop('outbox', async () => {
        await Promise.all([jobRelay.stop(), scrubRelay.stop()]);
      });
      // Accounts whose consent ended before a stop and that are not unlinked yet.
      void consentEnds
        .resume()
        .catch((error: unknown) => logger.warn({ err: error }, 'resuming unlinks after consent ended failed'));
      runtime.lifecycle.onStop('unlinks', () => consentEnds.stop());
      await bus.consume({
        groupId: config.CONSUMER_GROUP,
        topics: Object.keys(handlers),
        partitionsConsumedConcurrently: config.CONSUMER_CONCURRENCY,
        types: HANDLED_FACTS,
        handle: async (message) => handlers[message.topic]?.(message),
      });
      poll.start();
      runtime.lifecycle.onStop('worker', async () => {
        poll.stop();
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
