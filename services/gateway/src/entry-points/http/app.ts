import express, { type Express, type RequestHandler } from 'express';
import { Limits } from '@loan/contracts';
import { httpMetrics, traceRequests, type Metrics } from '@loan/runtime';
import { adminDocsRoutes, docsRoutes } from './docsRoutes';
import { correlation, errorHandler, notFoundHandler, securityHeaders } from './support';
import type { Logger } from '@loan/runtime';

/** Routes that read a body larger than a request's 16 KiB (the bulk upload of outcomes). */
const BULK_PATHS = new Set(['/api/outcomes', '/console/api/outcomes']);

/**
 * Assembles the gateway's public HTTP app: the lender API, admin and provider webhooks.
 * Health and `/metrics` are not here: they are served on the internal port (HTTP_PORT).
 */
export function createHttpApp(deps: {
  metrics: Metrics;
  logger: Logger;
  trustProxy: false | number | string[];
  api: express.Router;
  /** The review queue (`/api/reviews`). */
  reviews: express.Router;
  deliveries: express.Router;
  /** The credit policy API, forwarded to scoring. */
  policies: express.Router;
  /** The lender's numbers over a period (`/api/portfolio`). */
  portfolio: express.Router;
  /** How the lender's loans perform (`/api/performance`), and their outcomes in bulk (`/api/outcomes`). */
  performance: express.Router;
  outcomes: express.Router;
  /** The caller's own account (`/api/client`). */
  client: express.Router;
  /** The lender's staff (`/api/users`). */
  users: express.Router;
  /** The lender console: its pages and session routes, and the gate of its API. */
  console: { router: express.Router; api: RequestHandler };
  admin: express.Router;
  adminGuard: RequestHandler;
  providerWebhooks: express.Router;
  publicUrl: () => string;
  /** The key set that verifies decision records, published at `/.well-known/jwks.json`. */
  jwks: () => Promise<unknown>;
}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy);
  app.use(traceRequests());
  app.use(httpMetrics(deps.metrics));
  app.use(securityHeaders());
  app.use(correlation());
  app.use(
    express.json({
      limit: Limits.maxBodyBytes,
      strict: true,
      // A bulk upload of outcomes reads its own body, up to its own limit.
      type: (req) =>
        !BULK_PATHS.has(req.url?.split('?')[0] ?? '') &&
        /^application\/json\s*(;|$)/i.test(String(req.headers['content-type'] ?? '')),
      verify: (req, _res, buf) => {
        (req as unknown as { rawBody: Buffer }).rawBody = buf;
      },
    }),
  );
  // Anyone holding a decision record verifies it with this key set, offline once fetched.
  app.get('/.well-known/jwks.json', (_req, res, next) => {
    deps.jwks().then((jwks) => {
      res.set('cache-control', 'public, max-age=3600');
      res.type('application/jwk-set+json').send(JSON.stringify(jwks));
    }, next);
  });
  // The documents of the API; the operator's document is behind the admin token like the rest of /admin.
  app.use('/api', docsRoutes({ publicUrl: deps.publicUrl }));
  // The lender API, and the same routers under /console/api for the console, where the session
  // cookie stands for `x-api-key`: same authentication, limits, tenant checks and answers.
  const lenderApi: [string, express.Router][] = [
    ['/applications', deps.api],
    ['/reviews', deps.reviews],
    ['/portfolio', deps.portfolio],
    ['/performance', deps.performance],
    ['/outcomes', deps.outcomes],
    ['/webhooks', deps.deliveries],
    ['/policies', deps.policies],
    ['/client', deps.client],
    ['/users', deps.users],
  ];
  for (const [path, router] of lenderApi) app.use(`/api${path}`, router);
  app.use('/console', deps.console.router);
  app.use('/console/api', deps.console.api);
  for (const [path, router] of lenderApi) app.use(`/console/api${path}`, router);
  app.use('/admin', deps.adminGuard, adminDocsRoutes({ publicUrl: deps.publicUrl }), deps.admin);
  app.use('/provider/webhooks', deps.providerWebhooks);
  app.use(notFoundHandler());
  app.use(errorHandler(deps.logger));
  return app;
}
