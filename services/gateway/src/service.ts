import { createHash } from 'node:crypto';
import { Counter } from 'prom-client';
import {
  createOpsApp,
  createOutboxRelay,
  ensureContractTopics,
  listen,
  syncIndexes,
  type Clock,
  type ServiceRuntime,
} from '@loan/runtime';
import { adminTokensOf, type GatewayConfig } from './config';
import { auditModel, auditRecorder, createAuditLog } from './data-access/auditLog';
import { clientModel, rateWindowModel } from './data-access/clientModel';
import { createClientRepository } from './data-access/clientRepository';
import { createCommandBus } from './data-access/commandBus';
import { createReplyTopicSweeper } from './data-access/replyTopicSweeper';
import { createClientAccounts } from './data-access/clientAccounts';
import { adminRoutes } from './entry-points/http/adminRoutes';
import { createHttpApp } from './entry-points/http/app';
import { applicationRoutes, reviewRoutes } from './entry-points/http/applicationRoutes';
import { consoleRoutes } from './entry-points/http/consoleRoutes';
import { consoleSessionModel, createConsoleSessionStore } from './data-access/consoleSessionStore';
import { createStaffAccounts, logMailer, type InvitationMailer } from './data-access/staffAccounts';
import { createStaffUserRepository, staffSettingsModel, staffUserModel } from './data-access/staffUsers';
import { userRoutes } from './entry-points/http/userRoutes';
import { clientRoutes } from './entry-points/http/clientRoutes';
import { deliveryRoutes } from './entry-points/http/deliveryRoutes';
import { portfolioRoutes } from './entry-points/http/portfolioRoutes';
import { policyRoutes } from './entry-points/http/policyRoutes';
import { performanceRoutes } from './entry-points/http/performanceRoutes';
import { scoringCaller } from './entry-points/http/scoringForward';
import { createDecisionSigner } from './data-access/decisionSigner';
import {
  adminOnly,
  authenticate,
  createAuthFailures,
  createRateLimiter,
  pruneRateWindows,
} from './entry-points/http/guards';
import { providerWebhookRoutes } from './entry-points/http/providerWebhookRoutes';

/**
 * The gateway: the HTTP edge. Authenticates, rate-limits and validates, turns requests into
 * commands for the applications service and waits for the reply; takes the provider's
 * webhooks; serves the admin API of client accounts.
 */
export function createGatewayService(deps: {
  runtime: ServiceRuntime;
  config: GatewayConfig;
  clock: Clock;
  /** Sends staff invitations; without one the link is logged and answered once (docs/staff.md). */
  mailer?: InvitationMailer;
}) {
  const { runtime, config, clock } = deps;
  const { bus, logger, metrics, sealer } = runtime;
  const clients = clientModel(runtime.db);
  const windows = rateWindowModel(runtime.db);
  const relay = createOutboxRelay({
    bus,
    bulkLane: runtime.bulkLane,
    model: clients,
    logger,
    clearDelayMs: config.OUTBOX_CLEAR_DELAY,
  });
  const clientRepo = createClientRepository({ model: clients, relay, sealer: sealer.for('client-secrets') });
  const commands = createCommandBus({
    bus,
    instanceId: config.GATEWAY_INSTANCE_ID,
    timeoutMs: config.REPLY_TIMEOUT,
    replyRetentionMs: config.REPLY_TOPIC_RETENTION,
    logger,
    sealer: sealer.for('command-replies'),
  });
  const sweeper = createReplyTopicSweeper({
    bus,
    ownInstanceId: config.GATEWAY_INSTANCE_ID,
    graceMs: config.REPLY_TOPIC_GRACE,
    clock,
    logger,
  });
  const rateRejections = new Counter({
    name: 'gateway_rate_limit_rejections_total',
    help: 'Requests refused with 429, by limit',
    labelNames: ['bucket'] as const,
    registers: [metrics.registry],
  });
  const providerWebhooks = new Counter({
    name: 'gateway_provider_webhooks_total',
    help: 'Provider webhooks by outcome (accepted, rejected, invalid)',
    labelNames: ['outcome'] as const,
    registers: [metrics.registry],
  });
  const keysOfAnotherAccount = new Counter({
    name: 'gateway_idempotency_keys_of_another_account_total',
    help: 'Initiates refused 403 because another account had used the idempotencyKey',
    registers: [metrics.registry],
  });
  /**
   * The audit names the lender and a digest of the key (not the key: it may be a loan
   * reference), so the operator can match a lender's 403s with another's for the same key.
   */
  async function keyOfAnotherAccount(seen: {
    clientId: string;
    idempotencyKey: string;
    ip: string | null;
    correlationId: string;
  }) {
    keysOfAnotherAccount.inc();
    const keyDigest = createHash('sha256').update(seen.idempotencyKey, 'utf8').digest('hex').slice(0, 32);
    await audit.record({
      action: 'application.key-of-another-account',
      actor: 'client',
      clientId: seen.clientId,
      details: { keyDigest },
      ip: seen.ip,
      correlationId: seen.correlationId,
    });
  }
  const consoleSessions = createConsoleSessionStore(consoleSessionModel(runtime.db));
  const authFailures = createAuthFailures({
    model: windows,
    clock,
    settings: { limit: config.AUTH_FAILURE_LIMIT, windowMs: config.AUTH_FAILURE_WINDOW },
  });
  const auth = authenticate({
    clients: clientRepo,
    cacheTtlMs: config.API_KEY_CACHE_TTL,
    clock,
    failures: authFailures,
  });
  const limiter = createRateLimiter({
    model: windows,
    clock,
    rejections: rateRejections,
    settings: {
      enabled: config.RATE_LIMITS_ENABLED,
      windowMs: config.RATE_LIMIT_WINDOW,
      initiate: config.RATE_LIMIT_INITIATE,
      analyze: config.RATE_LIMIT_ANALYZE,
      global: config.RATE_LIMIT_GLOBAL,
    },
  });
  const auditLog = createAuditLog({ model: auditModel(runtime.db), retentionMs: config.AUDIT_RETENTION });
  const audit = auditRecorder({ log: auditLog, clock, logger: logger.child({ component: 'audit' }) });
  const accounts = createClientAccounts({
    clients: clientRepo,
    audit,
    sealer: sealer.for('client-secrets'),
    clock,
    webhookSecretOverlapMs: config.WEBHOOK_SECRET_OVERLAP,
    allowPrivateWebhookUrls: config.ALLOW_PRIVATE_WEBHOOK_URLS,
    logger: logger.child({ component: 'accounts' }),
    onKeyChange: () => auth.forget(),
    onKeyRotated: async (clientId, by) => {
      await consoleSessions.endKeySessions(clientId, by.sessionId);
    },
  });
  let url = `http://${config.HTTP_HOST}:${config.GATEWAY_PORT}`;
  const staff = createStaffAccounts({
    users: createStaffUserRepository({ users: staffUserModel(runtime.db), settings: staffSettingsModel(runtime.db) }),
    sealer,
    clock,
    invitationTtlMs: config.INVITATION_TTL,
    mailer: deps.mailer ?? logMailer(logger.child({ component: 'invitations' }), { logLink: !config.production }),
    consoleUrl: () => (config.CONSOLE_PUBLIC_URL ?? url).replace(/\/$/, ''),
    lenderName: async (clientId) => (await clientRepo.get(clientId))?.name ?? 'Lender',
    endUserSessions: (clientId, userId, keep) => consoleSessions.endUserSessions(clientId, userId, keep),
    endKeySessions: (clientId) => consoleSessions.endKeySessions(clientId),
    audit,
    logger: logger.child({ component: 'staff' }),
  });
  const signer = createDecisionSigner({
    seed: config.DECISION_SIGNING_KEY,
    dataKey: config.DATA_KEY,
    issuer: config.DECISION_RECORD_ISSUER,
  });
  let ready = false;
  // Health and /metrics on the internal port only: the public port is what an ingress exposes.
  const ops = createOpsApp({ metrics, checks: { ...runtime.checks, replies: () => ready } });

  const scoring = scoringCaller({
    scoringUrl: config.SCORING_URL,
    internalToken: config.INTERNAL_TOKEN,
    unavailable: 'Loan outcomes and performance are unavailable right now; retry the request',
  });
  const performance = performanceRoutes({ scoring, authenticate: auth, limit: limiter });
  const app = createHttpApp({
    metrics,
    logger,
    trustProxy: config.TRUST_PROXY,
    performance: performance.performance,
    outcomes: performance.outcomes,
    api: applicationRoutes({
      commands,
      sealer,
      signer,
      staff,
      scoring,
      authenticate: auth,
      limit: limiter,
      onKeyOfAnotherAccount: keyOfAnotherAccount,
    }),
    reviews: reviewRoutes({ commands, authenticate: auth, limit: limiter }),
    portfolio: portfolioRoutes({
      commands,
      notifierUrl: config.NOTIFIER_URL,
      internalToken: config.INTERNAL_TOKEN,
      clock,
      authenticate: auth,
      limit: limiter,
    }),
    deliveries: deliveryRoutes({
      notifierUrl: config.NOTIFIER_URL,
      internalToken: config.INTERNAL_TOKEN,
      authenticate: auth,
      limit: limiter,
    }),
    policies: policyRoutes({
      scoringUrl: config.SCORING_URL,
      internalToken: config.INTERNAL_TOKEN,
      authenticate: auth,
      limit: limiter,
    }),
    console: consoleRoutes({
      sessions: consoleSessions,
      staff,
      clients: clientRepo,
      times: { ttlMs: config.CONSOLE_SESSION_TTL, idleMs: config.CONSOLE_SESSION_IDLE },
      clock,
      authenticate: auth,
      limit: limiter,
      failures: authFailures,
      logger: logger.child({ component: 'console' }),
      production: config.production,
      traceUiUrl: config.TRACE_UI_URL ?? null,
    }),
    client: clientRoutes({ accounts, clock, authenticate: auth, limit: limiter }),
    users: userRoutes({ staff, authenticate: auth, limit: limiter }),
    adminGuard: adminOnly(adminTokensOf(config), authFailures, audit),
    admin: adminRoutes({ accounts, staff, audit: auditLog }),
    providerWebhooks: providerWebhookRoutes({
      bus,
      secret: config.PROVIDER_WEBHOOK_SECRET,
      clients: clientRepo,
      sealer: sealer.for('client-secrets'),
      clock,
      logger,
      received: providerWebhooks,
    }),
    publicUrl: () => url,
    jwks: () => signer.jwks(),
  });

  return {
    app,
    clients: clientRepo,
    replyTopics: sweeper,
    async start() {
      await syncIndexes(runtime.db);
      await ensureContractTopics(bus);
      await commands.start();
      runtime.lifecycle.onStop('reply topic', () => commands.stop());
      const stopSweeping = sweeper.start(config.REPLY_TOPIC_SWEEP_INTERVAL);
      runtime.lifecycle.onStop('reply topic sweep', async () => stopSweeping());
      relay.start();
      runtime.lifecycle.onStop('outbox', () => relay.stop());
      const prune = setInterval(() => {
        pruneRateWindows(windows, clock)().catch(() => undefined);
        consoleSessions.prune(clock.now()).catch(() => undefined);
        auditLog.expire(clock.now()).catch(() => undefined);
      }, 60_000);
      prune.unref();
      runtime.lifecycle.onStop('prune', () => clearInterval(prune));
      const internal = await listen(ops, config.HTTP_HOST, config.HTTP_PORT);
      runtime.lifecycle.onStop('internal http', () => internal.close());
      const http = await listen(app, config.HTTP_HOST, config.GATEWAY_PORT);
      url = http.url;
      ready = true;
      runtime.lifecycle.onStop('http', async () => {
        ready = false;
        await http.close();
      });
      logger.info({ url, internalUrl: internal.url }, 'gateway started');
      return { url, internalUrl: internal.url };
    },
    stop: () => runtime.lifecycle.stop(),
  };
}
