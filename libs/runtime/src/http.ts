import express, { type Express, type Request, type Response, type NextFunction } from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics';

export type ReadinessCheck = () => boolean | Promise<boolean>;

/**
 * `/healthz` (the process is alive), `/readyz` (connected to Kafka and the database) and
 * `/metrics` (Prometheus), mounted on the service's HTTP app.
 */
export function mountOps(app: Express, options: { metrics: Metrics; checks: Record<string, ReadinessCheck> }) {
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const results: Record<string, boolean> = {};
    for (const [name, check] of Object.entries(options.checks)) {
      results[name] = await Promise.resolve()
        .then(check)
        .catch(() => false);
    }
    const ready = Object.values(results).every(Boolean);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks: results });
  });
  app.get('/metrics', async (_req, res) => {
    res.set('Content-Type', options.metrics.registry.contentType);
    res.send(await options.metrics.registry.metrics());
  });
}

/**
 * Records request duration by route template (not raw path) and status. A request that no
 * route took (a 404, or a 401/400/413 answered before routing) is `unmatched`: a raw path
 * would let anyone mint a metric series per URL.
 */
export function httpMetrics(metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const route = req.route?.path as string | undefined;
      const path = typeof route === 'string' ? `${req.baseUrl ?? ''}${route}` : 'unmatched';
      metrics.httpDuration.observe(
        { method: req.method, route: path, status: String(res.statusCode) },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    });
    next();
  };
}

export function createOpsApp(options: { metrics: Metrics; checks: Record<string, ReadinessCheck> }): Express {
  const app = express();
  app.disable('x-powered-by');
  mountOps(app, options);
  return app;
}

/** Listens and resolves with the bound URL; `close` stops accepting and drains keep-alives. */
export async function listen(app: Express, host: string, port: number) {
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(s)));
  });
  server.keepAliveTimeout = 5_000;
  const address = server.address() as AddressInfo;
  return {
    server,
    url: `http://${host}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
