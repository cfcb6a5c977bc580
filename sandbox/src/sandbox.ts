import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { createBureau } from './bureau/routes';
import type { SandboxConfig } from './config';
import { createControlRoutes } from './control/routes';
import { failed } from './http/envelope';
import { createLogger, type Logger } from './logger';
import { createProviderApi } from './provider/api';
import { requireSecretKey } from './provider/auth';
import { createFaults, faultInjection } from './provider/faults';
import { createJobs } from './provider/jobs';
import { createLinking } from './provider/linking';
import { createProviderStore, type ProviderStore } from './provider/store';
import { createWebhookSender } from './provider/webhooks';
import { createWidgetRoutes } from './widget/routes';

/** What a sandbox can be given instead of its defaults (tests pass a silent logger). */
export interface SandboxDependencies {
  logger?: Logger;
  clock?: () => Date;
  fetch?: typeof fetch;
}

export interface Sandbox {
  app: Express;
  /** Listens on the configured host and port (0 picks a free port). */
  start(): Promise<{ url: string }>;
  /** Stops listening, cancels pending jobs, webhooks and held bureau answers. */
  stop(): Promise<void>;
  /** The provider's state, for tests that look inside. */
  store: ProviderStore;
}

function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      logger.info(
        {
          method: req.method,
          path: req.path,
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request',
      );
    });
    next();
  };
}

/**
 * The account-linking provider (Mono-shaped REST API, hosted widget, webhooks) and the credit
 * bureau, in one express app with in-memory state.
 */
export function createSandbox(config: Readonly<SandboxConfig>, deps: SandboxDependencies = {}): Sandbox {
  const logger = deps.logger ?? createLogger(config.logLevel);
  const clock = deps.clock ?? (() => new Date());
  let publicUrl = config.publicUrl ?? `http://${config.host}:${config.port}`;

  const store = createProviderStore({
    accountCacheSize: config.accountCacheSize,
    jobRetentionMs: config.jobRetentionMs,
    retentionMs: config.retentionMs,
    maxSessions: config.maxSessions,
  });
  // Sessions pushed out before their time: said on the first and on every thousandth after.
  let evictedSessions = 0;
  const onSessionsEvicted = (count: number) => {
    const before = evictedSessions;
    evictedSessions += count;
    if (before === 0 || Math.floor(before / 1_000) < Math.floor(evictedSessions / 1_000))
      logger.warn(
        { evicted: evictedSessions, maxSessions: config.maxSessions },
        'more sessions than SANDBOX_MAX_SESSIONS: the oldest are forgotten with the accounts linked through them',
      );
  };
  // What a provider would have expired is forgotten once a minute, so memory stays bounded
  // however many applications a long-running sandbox serves.
  const pruneTimer = setInterval(() => {
    const pruned = store.prune(clock());
    if (pruned.jobs + pruned.sessions > 0) logger.info(pruned, 'expired sessions, accounts and jobs forgotten');
  }, 60_000);
  pruneTimer.unref();
  const webhooks = createWebhookSender({
    url: config.webhookUrl,
    secret: config.webhookSecret,
    retryBaseMs: config.webhookRetryBaseMs,
    maxAttempts: config.webhookMaxAttempts,
    clock,
    logger,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  const jobs = createJobs({ store, webhooks, delayMs: config.jobDelayMs, clock, logger });
  const linking = createLinking({ store, webhooks, clock });
  const faults = createFaults();
  const bureau = createBureau({ faults, clock, slowDelayMs: config.bureauSlowDelayMs, logger });

  const app = express();
  app.disable('x-powered-by');
  app.use(requestLog(logger.child({ component: 'http' })));
  app.use(express.json({ limit: '1mb' }));
  app.use(createControlRoutes({ linking, faults, clock }));
  app.use(createWidgetRoutes({ store, linking, clock }));
  app.use(bureau.router);
  app.use('/v2', faultInjection(faults, 'provider', clock), requireSecretKey(clock));
  app.use(
    createProviderApi({
      store,
      jobs,
      clock,
      sessionTtlMs: config.sessionTtlMs,
      publicUrl: () => publicUrl,
      onSessionsEvicted,
    }),
  );
  app.use((_req, res) => {
    res.status(404).json(failed(clock(), 'Not found'));
  });
  const onError: ErrorRequestHandler = (error: { type?: string; status?: number }, _req, res, _next) => {
    if (error.type === 'entity.parse.failed') {
      res.status(400).json(failed(clock(), 'Request body is not valid JSON'));
      return;
    }
    if (typeof error.status === 'number' && error.status >= 400 && error.status < 500) {
      res.status(error.status).json(failed(clock(), 'Bad request'));
      return;
    }
    logger.error({ err: error }, 'unhandled error');
    res.status(500).json(failed(clock(), 'Internal sandbox error'));
  };
  app.use(onError);

  let server: Server | null = null;

  return {
    app,
    store,
    start: () =>
      new Promise((resolve, reject) => {
        const listening = app.listen(config.port, config.host, (error?: Error) => {
          if (error) return reject(error);
          const { port } = listening.address() as AddressInfo;
          const url = `http://${config.host}:${port}`;
          publicUrl = config.publicUrl ?? url;
          logger.info({ url, publicUrl, webhookUrl: config.webhookUrl }, 'sandbox listening');
          resolve({ url });
        });
        server = listening;
      }),
    stop: async () => {
      clearInterval(pruneTimer);
      jobs.stop();
      webhooks.stop();
      bureau.stop();
      const listening = server;
      server = null;
      if (!listening) return;
      await new Promise<void>((resolve) => {
        listening.close(() => resolve());
        listening.closeAllConnections();
      });
    },
  };
}
