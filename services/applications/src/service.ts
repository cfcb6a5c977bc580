import { Topics } from '@loan/contracts';
import type { AccountLinkingProvider } from '@loan/provider';
import {
  createOpsApp,
  createOutboxRelay,
  ensureContractTopics,
  listen,
  syncIndexes,
  type Clock,
  type ServiceRuntime,
} from '@loan/runtime';
import type { ApplicationsConfig } from './config';
import { applicationModel } from './data-access/applicationModel';
import { createApplicationRepository } from './data-access/applicationRepository';
import { createApplicationWriter } from './data-access/applicationWriter';
import { clientSettingsModel, createClientSettingsRepository } from './data-access/clientSettings';
import { createLinkCloser } from './entry-points/consumers/closeLinks';
import {
  ConsumerGroups,
  HANDLED_FACTS,
  consumerHandlers,
  createCommandHandler,
  createFactHandlers,
  createProjectClientHandler,
} from './entry-points/consumers';

/**
 * The applications service: owns applicants, applications, linked accounts and idempotency
 * keys; answers the gateway's commands and turns provider callbacks, enrichment and scoring
 * results and passed deadlines into state changes and events (`entry-points/consumers`).
 */
export function createApplicationsService(deps: {
  runtime: ServiceRuntime;
  config: ApplicationsConfig;
  provider: AccountLinkingProvider;
  clock: Clock;
}) {
  const { runtime, config, provider, clock } = deps;
  const { bus, logger, sealer } = runtime;
  const model = applicationModel(runtime.db);
  const repo = createApplicationRepository(model, sealer);
  const relay = createOutboxRelay({
    bus,
    bulkLane: runtime.bulkLane,
    model,
    logger,
    clearDelayMs: config.OUTBOX_CLEAR_DELAY,
  });
  const linkCloser = createLinkCloser({ provider, sealer, logger });
  const settings = createClientSettingsRepository(clientSettingsModel(runtime.db));
  const writer = createApplicationWriter({
    repo,
    relay,
    sealer,
    clock,
    onLinksClosed: linkCloser.close,
    retention: { yearsOf: settings.recordRetentionYears, yearMs: config.RECORD_RETENTION_YEAR ?? null },
  });
  const handlers = consumerHandlers({
    onCommand: createCommandHandler({ writer, repo, provider, bus, sealer, config, clock, logger }),
    facts: createFactHandlers({
      writer,
      repo,
      provider,
      sealer,
      logger,
      consentTerms: { validityMs: config.CONSENT_VALIDITY, idleMs: config.CONSENT_IDLE_LAPSE },
    }),
    projectClient: createProjectClientHandler({ settings, logger }),
  });
  let http: Awaited<ReturnType<typeof listen>> | null = null;

  return {
    repo,
    model,
    async start() {
      await syncIndexes(runtime.db);
      await ensureContractTopics(bus);
      relay.start();
      runtime.lifecycle.onStop('outbox', () => relay.stop());
      runtime.lifecycle.onStop('widget sessions', () => linkCloser.drain());
      // A release that read commands in the facts' group left its position there: the commands'
      // group starts from it rather than from the start of the topic. Only while the commands'
      // group has no offsets: replicas starting together copy the same ones, or find the group
      // joined already and wait for its offsets.
      await bus.handOverOffsets({
        topic: Topics.applicationCommands,
        from: ConsumerGroups.facts,
        to: ConsumerGroups.commands,
      });
      // Two consumers, so that commands are fetched while facts are being handled and the other
      // way round. Order per application is what it was: a command and a fact about one
      // application were already on different topic-partitions, handled side by side in
      // whatever order their fetches brought them (the writer's conditional updates serialise
      // their writes); within a topic-partition nothing changes. The bus restarts either one
      // that stalls and stops both, their offsets committed, on shutdown.
      await bus.consume({
        groupId: ConsumerGroups.commands,
        topics: Object.keys(handlers.commands),
        partitionsConsumedConcurrently: config.COMMAND_CONCURRENCY,
        // Commands about different applications (or different initiations) do not wait for
        // one another within a partition either; one application's stay in order.
        keyConcurrency: config.COMMAND_KEY_CONCURRENCY,
        handle: async (message) => handlers.commands[message.topic]?.(message),
      });
      await bus.consume({
        groupId: ConsumerGroups.facts,
        topics: Object.keys(handlers.facts),
        partitionsConsumedConcurrently: config.FACT_CONCURRENCY,
        types: HANDLED_FACTS,
        handle: async (message) => handlers.facts[message.topic]?.(message),
      });
      http = await listen(
        createOpsApp({ metrics: runtime.metrics, checks: runtime.checks }),
        config.HTTP_HOST,
        config.HTTP_PORT,
      );
      runtime.lifecycle.onStop('http', () => http?.close());
      logger.info({ url: http.url }, 'applications service started');
      return { url: http.url };
    },
    stop: () => runtime.lifecycle.stop(),
  };
}
