import {
  createOpsApp,
  createOutboxRelay,
  ensureContractTopics,
  listen,
  syncIndexes,
  type Clock,
  type ServiceRuntime,
} from '@loan/runtime';
import type { ScoringConfig } from './config';
import type { CreditBureau } from './data-access/bureau';
import { analysisModel, profileModel, rawCollections } from './data-access/models';
import { HANDLED_FACTS, consumerHandlers, createAnalysisHandler, createProfileHandlers } from './entry-points/consumers';
import { createScoringMetrics } from './metrics';

/**
 * The scoring service: keeps its own projection of enriched accounts, looks the applicant up
 * at the credit bureau when a BVN was given, runs the scorecard and reports the decision
 * (`entry-points/consumers`).
 */
export function createScoringService(deps: { runtime: ServiceRuntime; config: ScoringConfig; bureau: CreditBureau; clock: Clock }) {
  const { runtime, config, bureau, clock } = deps;
  const { bus, logger, sealer } = runtime;
  const profiles = profileModel(runtime.db);
  const analyses = analysisModel(runtime.db);
  const raw = rawCollections({ profiles, analyses });
  const relay = createOutboxRelay({ bus, model: analyses, logger, clearDelayMs: config.OUTBOX_CLEAR_DELAY });
  const metrics = createScoringMetrics(runtime.metrics.registry);
  const handlers = consumerHandlers({
    analyse: createAnalysisHandler({ raw, relay, bureau, sealer, metrics, config, clock, logger }),
    profiles: createProfileHandlers({ profiles, raw, clock }),
  });
  let http: Awaited<ReturnType<typeof listen>> | null = null;

  return {
    profiles,
    analyses,
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
      http = await listen(createOpsApp({ metrics: runtime.metrics, checks: runtime.checks }), config.HTTP_HOST, config.HTTP_PORT);
      runtime.lifecycle.onStop('http', () => http?.close());
      logger.info({ url: http.url }, 'scoring service started');
      return { url: http.url };
    },
    stop: () => runtime.lifecycle.stop(),
    breakerState: metrics.breakerState,
  };
}
