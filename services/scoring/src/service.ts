import {
  createOutboxRelay,
  createInternalApp,
  ensureContractTopics,
  listen,
  syncIndexes,
  type Clock,
  type ServiceRuntime,
} from '@loan/runtime';
import type { ScoringConfig } from './config';
import type { CreditBureau } from './data-access/bureau';
import { createAnalysisRepository } from './data-access/analysisRepository';
import { analysisModel, policyModels, profileModel } from './data-access/models';
import { createPolicyRepository } from './data-access/policyRepository';
import { createProfileRepository } from './data-access/profileRepository';
import {
  HANDLED_FACTS,
  consumerHandlers,
  createAnalysisHandler,
  createProfileHandlers,
} from './entry-points/consumers';
import { policyRoutes } from './entry-points/http/policyRoutes';
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
  const metrics = createScoringMetrics(runtime.metrics.registry);
  const handlers = consumerHandlers({
    analyze: createAnalysisHandler({
      analyses: analysisRepository,
      profiles: profileRepository,
      relay,
      bureau,
      policies,
      sealer,
      metrics,
      config,
      clock,
      logger,
    }),
    profiles: createProfileHandlers({ profiles: profileRepository, clock }),
  });
  let http: Awaited<ReturnType<typeof listen>> | null = null;

  return {
    profiles,
    analyses,
    policies,
    async start() {
      await syncIndexes(runtime.db);
      await ensureContractTopics(bus);
      relay.start();
      runtime.lifecycle.onStop('outbox', () => relay.stop());
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
        api: policyRoutes({
          policies,
          analyses: analysisRepository,
          clock,
          logger: logger.child({ component: 'policies' }),
        }),
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
