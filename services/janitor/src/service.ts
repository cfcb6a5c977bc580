import { createOpsApp, createOutboxRelay, listen, syncIndexes, type Clock, type ServiceRuntime } from '@loan/runtime';
import type { JanitorConfig } from './config';
import { createDeadlineGauges } from './data-access/deadlineGauges';
import { createDeadlineRepository } from './data-access/deadlineRepository';
import { createPublishLeases } from './data-access/leases';
import { janitorModels } from './data-access/models';
import { createTimelineRepository } from './data-access/timelineRepository';
import { prepareTopics } from './data-access/topics';
import type { DeadlineTtls } from './domain/deadline';
import { TRACKED_FACT_TYPES, consumerHandlers, createFactHandler } from './entry-points/consumers';
import { createScheduler } from './entry-points/scheduler/fireDueDeadlines';
import { createJanitorMetrics } from './metrics';

/**
 * The janitor: keeps the deadlines of spec sections 3 and 8 (24 hours to link, 7 days to
 * analyze, 20 minutes of enrichment) from the facts other services publish, and announces on
 * `loan.janitor.deadlines` the ones that pass. The owners decide what a passed deadline means.
 */
export function createJanitorService(deps: { runtime: ServiceRuntime; config: JanitorConfig; clock: Clock }) {
  const { runtime, config, clock } = deps;
  const { bus, logger } = runtime;
  const models = janitorModels(runtime.db);
  const deadlines = createDeadlineRepository(models);
  const leases = createPublishLeases(models);
  const gauges = createDeadlineGauges({
    models,
    deadlines,
    clock,
    armedScanIntervalMs: config.JANITOR_GAUGE_SCAN_INTERVAL,
    scrapeWaitMs: config.JANITOR_GAUGE_SCRAPE_WAIT,
  });
  const timelines = createTimelineRepository(models, runtime.bulkLane);
  const metrics = createJanitorMetrics(runtime.metrics.registry, gauges, () => clock.now());
  const ttls: DeadlineTtls = {
    no_link: config.NO_LINK_TTL,
    no_analyze: config.NO_ANALYZE_TTL,
    analysis_timeout: config.ANALYSIS_TIMEOUT,
    bank_data_retention: config.BANK_DATA_RETENTION,
    record_retention: config.RECORD_RETENTION,
    enrichment_timeout: config.ENRICHMENT_TIMEOUT,
    offer_expiry: config.OFFER_EXPIRY_GRACE,
  };
  const relays = {
    timeline: createOutboxRelay({
      bus,
      bulkLane: runtime.bulkLane,
      model: models.timelineHeads,
      logger,
      clearDelayMs: config.OUTBOX_CLEAR_DELAY,
    }),
    outcome: createOutboxRelay({
      bus,
      bulkLane: runtime.bulkLane,
      model: models.outcomes,
      logger,
      clearDelayMs: config.OUTBOX_CLEAR_DELAY,
    }),
  };
  const scheduler = createScheduler({
    deadlines,
    leases,
    relays,
    clock,
    metrics,
    logger,
    settings: {
      pollIntervalMs: config.JANITOR_POLL_INTERVAL,
      batchSize: config.JANITOR_BATCH_SIZE,
      publishLeaseMs: config.JANITOR_PUBLISH_LEASE,
      reloadIntervalMs: config.JANITOR_RELOAD_INTERVAL,
      reloadLookbackMs: config.JANITOR_RELOAD_LOOKBACK,
    },
  });
  const handlers = consumerHandlers({
    trackFact: createFactHandler({ timelines, deadlines, ttls, clock, metrics, logger }),
  });
  let http: Awaited<ReturnType<typeof listen>> | null = null;

  return {
    deadlines,
    gauges,
    timelines,
    scheduler,
    async start() {
      await syncIndexes(runtime.db);
      const headed = await timelines.backfillHeads();
      if (headed > 0) logger.info({ count: headed }, 'timeline heads written for timelines stored without one');
      await prepareTopics(bus, logger);
      await bus.consume({
        groupId: config.CONSUMER_GROUP,
        topics: Object.keys(handlers),
        types: TRACKED_FACT_TYPES,
        partitionsConsumedConcurrently: config.CONSUMER_CONCURRENCY,
        keyConcurrency: config.CONSUMER_KEY_CONCURRENCY,
        fetchMinBytes: config.JANITOR_FETCH_MIN_BYTES,
        handle: async (message) => handlers[message.topic]?.(message),
      });
      // A publish that fails right after firing is retried every few seconds by this process;
      // what a dead replica left behind is taken over by lease (the scheduler), not swept.
      for (const [name, relay] of Object.entries(relays)) {
        relay.start({ sweep: false });
        runtime.lifecycle.onStop(`outbox of ${name}`, () => relay.stop());
      }
      // Deadlines that passed while no janitor ran fire on the first pass.
      scheduler.start();
      runtime.lifecycle.onStop('scheduler', () => scheduler.stop());
      http = await listen(
        createOpsApp({ metrics: runtime.metrics, checks: runtime.checks }),
        config.HTTP_HOST,
        config.HTTP_PORT,
      );
      runtime.lifecycle.onStop('http', () => http?.close());
      logger.info({ url: http.url }, 'janitor service started');
      return { url: http.url };
    },
    stop: () => runtime.lifecycle.stop(),
  };
}
export type JanitorService = ReturnType<typeof createJanitorService>;
