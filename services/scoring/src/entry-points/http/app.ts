import express, { type Express, type NextFunction, type Request, type Response, type Router } from 'express';
import { errorBody } from '@loan/contracts';
import { timingSafeEqual } from 'node:crypto';
import { httpMetrics, mountOps, type Logger, type Metrics, type ReadinessCheck } from '@loan/runtime';

/** The scoring service's HTTP app (internal port): health, readiness and metrics, and the internal credit policy API. */
export function createHttpApp(deps: {
  metrics: Metrics;
  checks: Record<string, ReadinessCheck>;
  logger: Logger;
  policies: Router;
  /** The gateway's token: the internal API trusts `x-client-id` only from a caller holding it. */
  internalToken: string;
}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(httpMetrics(deps.metrics));
  mountOps(app, { metrics: deps.metrics, checks: deps.checks });
  app.use('/internal', internalOnly(deps.internalToken), express.json({ limit: '64kb', strict: true }), deps.policies);
  app.use((req: Request, res: Response) => {
    res.status(404).json(errorBody(404, `Cannot ${req.method} ${req.path}`));
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = error as { type?: string; status?: number };
    let status = 500;
    let message = 'Internal server error';
    if (e?.type === 'entity.parse.failed') {
      status = 400;
      message = 'Request body is not valid JSON';
    } else if (e?.type === 'entity.too.large') {
      status = 413;
      message = 'Request body is too large';
    } else if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
      status = e.status;
      message = (error as Error).message;
    }
    if (status >= 500) deps.logger.error({ err: error, method: req.method, path: req.path }, 'request failed');
    if (!res.headersSent) res.status(status).json(errorBody(status, message));
  });
  return app;
}

/** 401 unless the caller presents the internal token (compared in constant time). */
function internalOnly(token: string) {
  const expected = Buffer.from(token);
  return (req: Request, res: Response, next: NextFunction) => {
    const given = Buffer.from(req.header('x-internal-token') ?? '');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return next();
    res.status(401).json(errorBody(401, 'Missing or invalid x-internal-token header'));
  };
}
