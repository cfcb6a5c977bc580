import {
  createOutboxRelay,
  createInternalApp,
  ensureContractTopics,
  listen,
  syncIndexes,
  type Clock,
  type ServiceRuntime,
} from '@loan/runtime';
import { Router } from 'express';
import type { ScoringConfig } from './config';
import type { CreditBureau } from './data-access/bureau';
import { createAnalysisRepository } from './data-access/analysisRepository';
import { analysisModel, outcomeModels, policyModels, profileModel } from './data-access/models';
import { createOutcomeRepository } from './data-access/outcomeRepository';
import { createPolicyRepository } from './data-access/policyRepository';
import { createProfileRepository } from './data-access/profileRepository';
import {
  HANDLED_FACTS,
  consumerHandlers,
  createAnalysisHandler,
  createProfileHandlers,
} from './entry-points/consumers';
import { outcomeRoutes } from './entry-points/http/outcomeRoutes';
import { policyRoutes } from './entry-points/http/policyRoutes';
import { createOutcomeBook } from './entry-points/http/outcomeBook';
import { createScoringMetrics } from './metrics';

/**
 * The scoring service: keeps its own projection of enriched accounts, looks the applicant up
 * at the credit bureau when a BVN was given, runs the scorecard and reports the decision
 * (`entry-points/consumers`); owns lenders' credit policies, served to the gateway on the
 * internal port (`entry-points/http`).
 */
export function createScoringService(deps: {
  runtime: ServiceRuntime;
  config: ScoringConfig;
  bureau: CreditBureau;
  clock: Clock;
}) {
  const { runtime, config, bureau, clock } = deps;
  const { bus, logger, sealer } = runtime;
  const profiles = profileModel(runtime.db);
  const analyses = analysisModel(runtime.db);
  const analysisRepository = createAnalysisRepository(analyses);
  const profileRepository = createProfileRepository(profiles);
  const policies = createPolicyRepository(policyModels(runtime.db));
  const relay = createOutboxRelay({
    bus,
    bulkLane: runtime.bulkLane,
    model: analyses,
    logger,
    clearDelayMs: config.OUTBOX_CLEAR_DELAY,
  });
  const loanModels = outcomeModels(runtime.db);
  const outcomes = createOutcomeRepository(loanModels, analyses);
  const loanRelay = createOutboxRelay({
    bus,
    bulkLane: runtime.bulkLane,
    model: loanModels.loans,
    logger,
    clearDelayMs: config.OUTBOX_CLEAR_DELAY,
    // A failed flush is retried by id within seconds; the sweep (a read of every loan on
    // FerretDB) only finds what a crashed process left behind.
    sweepEveryMs: 10 * 60_000,
  });
  const book = createOutcomeBook({
    repo: outcomes,
    relay: loanRelay,
    clock,
    logger: logger.child({ component: 'outcomes' }),
  });
  const metrics = createScoringMetrics(runtime.metrics.registry);
  const handlers = consumerHandlers({
    analyze: createAnalysisHandler({
      analyses: analysisRepository,
      profiles: profileRepository,
      relay,
      bureau,
      policies,
      decisionCounts: outcomes,
      sealer,
      metrics,
      config,
      clock,
      logger,
    }),
    profiles: createProfileHandlers({ profiles: profileRepository, clock }),
    grants: outcomes,
  });
  let http: Awaited<ReturnType<typeof listen>> | null = null;

  return {
    profiles,
    analyses,
    policies,
    outcomes,
    async start() {
      await syncIndexes(runtime.db);
      await ensureContractTopics(bus);
      relay.start();
      runtime.lifecycle.onStop('outbox', () => relay.stop());
      loanRelay.start();
      runtime.lifecycle.onStop('loan outbox', () => loanRelay.stop());
      // Counts a crash left behind are brought up at start and then every ten minutes (a read of
      // every loan on FerretDB, which answers no other query from an index).
      const sweep = () =>
        book.sweepCounts().catch((error: unknown) => logger.warn({ err: error }, 'count sweep failed'));
      void sweep();
      const sweeper = setInterval(sweep, 10 * 60_000);
      sweeper.unref();
      runtime.lifecycle.onStop('count sweep', () => clearInterval(sweeper));
      await bus.consume({
        groupId: config.CONSUMER_GROUP,
        topics: Object.keys(handlers),
        types: HANDLED_FACTS,
        handle: async (message) => handlers[message.topic]?.(message),
      });
      const app = createInternalApp({
        metrics: runtime.metrics,
        checks: runtime.checks,
        logger,
        bodyLimit: '64kb',
        api: Router().use(
          policyRoutes({
            policies,
            analyses: analysisRepository,
            outcomes: { loanStates: outcomes.loanStates, badDefinition: book.badDefinition },
            clock,
            logger: logger.child({ component: 'policies' }),
          }),
          outcomeRoutes({ book, repo: outcomes, clock, logger: logger.child({ component: 'outcomes' }) }),
        ),
        internalToken: config.INTERNAL_TOKEN,
      });
      http = await listen(app, config.HTTP_HOST, config.HTTP_PORT);
      runtime.lifecycle.onStop('http', () => http?.close());
      logger.info({ url: http.url }, 'scoring service started');
      return { url: http.url };
    },
    stop: () => runtime.lifecycle.stop(),
    breakerState: metrics.breakerState,
  };
}
