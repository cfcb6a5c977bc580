import { SpanKind, SpanStatusCode, context, type Attributes } from '@opentelemetry/api';
import express, { type Express, type Request, type Response, type NextFunction, type Router } from 'express';
import { errorBody } from '@loan/contracts';
import { timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from './logger';
import type { Metrics } from './metrics';
import { contextOf, startSpan, withSpan } from './tracing';
import { OPS_PATHS, REDACTED_SERVER_QUERY_PARAMS } from './tracingSdk';

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
/** The route template a request took (`/api/applications/:id`), or `unmatched`. */
const routeTemplateOf = (req: Request): string => {
  const route = req.route?.path as string | undefined;
  return typeof route === 'string' ? `${req.baseUrl ?? ''}${route}` : 'unmatched';
};

export function httpMetrics(metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const path = routeTemplateOf(req);
      metrics.httpDuration.observe(
        { method: req.method, route: path, status: String(res.statusCode) },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    });
    next();
  };
}

const KNOWN_METHODS = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'CONNECT',
  'OPTIONS',
  'TRACE',
  'PATCH',
  'QUERY',
]);

/**
 * The SERVER span of each request but the orchestrator's and Prometheus's (`/healthz`,
 * `/readyz`, `/metrics`): child of the caller's `traceparent`, or the root of a trace the
 * sampler decides on. It stands in for the HTTP instrumentation's server side, which worked out
 * a request's URL and attributes, and started a span, before the sampler had decided; here the
 * attributes are worked out only for a span that is recorded, and a request in a trace not
 * sampled gets no span of its own (see `followUnsampledParents`). Named `POST
 * /api/applications/initiate` and given `http.route` once a route took it, with its status when
 * the response ends. Mounted first, so that every middleware runs in the span's context.
 */
export function traceRequests() {
  return (req: Request, res: Response, next: NextFunction) => {
    const path = (req.originalUrl ?? req.url ?? '/').split('?')[0] ?? '/';
    if (OPS_PATHS.has(path)) return next();
    const parent = contextOf(req.headers);
    const method = KNOWN_METHODS.has(req.method) ? req.method : '_OTHER';
    const span = startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: () => requestAttributes(req, method, path) },
      parent,
    );
    if (span.isRecording()) {
      res.once('close', () => {
        const template = routeTemplateOf(req);
        if (template !== 'unmatched') {
          span.setAttribute('http.route', template);
          span.updateName(`${method} ${template}`);
        }
        span.setAttribute('http.response.status_code', res.statusCode);
        if (res.statusCode >= 500 || res.statusCode < 100) {
          span.setAttribute('error.type', String(res.statusCode));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
      });
    }
    // No emitter is bound to the context: the body read and the response written from within
    // it run in it, as do the listeners added by the handlers (the tests send a body in parts).
    context.with(withSpan(parent, span), next);
  };
}

/** What a recorded SERVER span says of its request (the HTTP semantic conventions' names). */
function requestAttributes(req: Request, method: string, path: string): Attributes {
  const attributes: Attributes = {
    'http.request.method': method,
    'url.scheme': req.protocol,
    'url.path': path,
    'server.address': req.hostname,
    'client.address': req.ip,
    'network.peer.address': req.socket.remoteAddress,
    'network.peer.port': req.socket.remotePort,
    'network.protocol.version': req.httpVersion,
    'user_agent.original': req.headers['user-agent'],
  };
  if (method !== req.method) attributes['http.request.method_original'] = req.method;
  const port = /:(\d+)$/.exec(req.headers.host ?? '')?.[1];
  if (port) attributes['server.port'] = Number(port);
  const at = (req.originalUrl ?? '').indexOf('?');
  if (at >= 0) {
    const query = new URLSearchParams(req.originalUrl.slice(at + 1));
    for (const name of REDACTED_SERVER_QUERY_PARAMS) if (query.has(name)) query.set(name, 'REDACTED');
    attributes['url.query'] = query.toString();
  }
  return attributes;
}

export function createOpsApp(options: { metrics: Metrics; checks: Record<string, ReadinessCheck> }): Express {
  const app = express();
  app.disable('x-powered-by');
  mountOps(app, options);
  return app;
}

/**
 * A service's internal port with an API of its own for the gateway: health, readiness and
 * metrics, and `api` under `/internal`, answered only to a caller presenting the internal token
 * (which is why the API may trust the `x-client-id` it is given). Errors in the spec's shape.
 */
export function createInternalApp(deps: {
  metrics: Metrics;
  checks: Record<string, ReadinessCheck>;
  logger: Logger;
  /** Mounted at `/internal`. */
  api: Router;
  /** The gateway's token. */
  internalToken: string;
  /** Largest JSON body the API takes, e.g. `16kb`. */
  bodyLimit: string;
}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(traceRequests());
  app.use(httpMetrics(deps.metrics));
  mountOps(app, { metrics: deps.metrics, checks: deps.checks });
  app.use(
    '/internal',
    internalOnly(deps.internalToken),
    express.json({ limit: deps.bodyLimit, strict: true }),
    deps.api,
  );
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
