import express, { type Express, type RequestHandler } from 'express';
import { Limits } from '@loan/contracts';
import { httpMetrics, type Metrics } from '@loan/runtime';
import { adminDocsRoutes, docsRoutes } from './docsRoutes';
import { authFailureLimit } from './guards';
import { correlation, errorHandler, notFoundHandler, securityHeaders } from './support';
import type { Logger } from '@loan/runtime';

/**
 * Assembles the gateway's public HTTP app: the lender API, admin and provider webhooks.
 * Health and `/metrics` are not here: they are served on the internal port (HTTP_PORT).
 */
export function createHttpApp(deps: {
  metrics: Metrics;
  logger: Logger;
  trustProxy: false | number | string[];
  authFailures: { limit: number; windowMs: number };
  api: express.Router;
  deliveries: express.Router;
  /** The caller's own account (`/api/client`). */
  client: express.Router;
  admin: express.Router;
  adminGuard: RequestHandler;
  providerWebhooks: express.Router;
  publicUrl: () => string;
}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy);
  app.use(httpMetrics(deps.metrics));
  app.use(securityHeaders());
  app.use(correlation());
  app.use(
    express.json({
      limit: Limits.maxBodyBytes,
      strict: true,
      verify: (req, _res, buf) => {
        (req as unknown as { rawBody: Buffer }).rawBody = buf;
      },
    }),
  );
  // The documents of the API; the operator's document is behind the admin token like the rest of /admin.
  app.use('/api', docsRoutes({ publicUrl: deps.publicUrl }));
  // Before authentication: an IP that keeps failing it is turned away without a key lookup.
  app.use(['/api/applications', '/api/webhooks', '/api/client', '/admin'], authFailureLimit(deps.authFailures));
  app.use('/api/applications', deps.api);
  app.use('/api/webhooks', deps.deliveries);
  app.use('/api/client', deps.client);
  app.use('/admin', deps.adminGuard, adminDocsRoutes({ publicUrl: deps.publicUrl }), deps.admin);
  app.use('/provider/webhooks', deps.providerWebhooks);
  app.use(notFoundHandler());
  app.use(errorHandler(deps.logger));
  return app;
}
