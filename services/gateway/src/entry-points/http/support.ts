import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { errorBody } from '@loan/contracts';
import type { Logger } from '@loan/runtime';
import type { z } from 'zod';
import { HttpError, asHttpError } from './errors';
import type { ClientRecord } from '../../data-access/clientRepository';
import type { Actor } from '../../data-access/clientAccounts';
import type { ConsoleSession } from '../../domain/consoleSession';

/** What the middlewares learn about a request. */
export interface RequestContext {
  correlationId: string;
  client?: ClientRecord;
  /**
   * Set on console requests: the API key their session holds (null: no valid session), which
   * authentication then uses instead of the `x-api-key` header.
   */
  consoleKey?: string | null;
  /**
   * Set on console requests: the session their cookie opened (null: none), which authentication
   * takes for the session's lender instead of the `x-api-key` header.
   */
  consoleSession?: ConsoleSession | null;
  /** Set on /admin: the name of the admin token the request presented ("admin" for ADMIN_TOKEN). */
  adminName?: string;
}

export const ctx = (res: Response): RequestContext => res.locals as RequestContext;

function isPresent(value: unknown, path: PropertyKey[]): boolean {
  let at: unknown = value;
  for (const key of path) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, key)) return false;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at !== undefined;
}

/** Parses with a zod schema; a failure is a 400 naming each field and its problem. */
export function validate<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const field = issue.path.join('.');
    // Only a field that is not there is "required"; one of the wrong type (`null`, `{}`) says so.
    if (issue.code === 'invalid_type' && field && !isPresent(value, issue.path)) return `${field} is required`;
    return field && !issue.message.startsWith(field) ? `${field}: ${issue.message}` : issue.message;
  });
  throw new HttpError(400, [...new Set(problems)].join('; '));
}

/**
 * Who changes a client account, for the audit line: the operator or the lender itself, and on
 * the console the session (and its staff user) that asked.
 */
export const actorOf = (kind: Actor['kind'], req: Request, res?: Response): Actor => {
  const session = res ? ctx(res).consoleSession : undefined;
  const adminName = res && kind === 'admin' ? ctx(res).adminName : undefined;
  return {
    kind,
    ...(adminName !== undefined ? { adminName } : {}),
    ip: req.ip,
    correlationId: req.header('x-correlation-id') ?? null,
    ...(session ? { sessionId: session.id, userId: session.userId } : {}),
  };
};

/**
 * The body of a webhook-secret rotation: none, `{}` and a body with no fields all mean the
 * default overlap.
 */
export const rotationBody = (body: unknown): unknown =>
  body && Object.keys(body as object).length > 0 ? body : undefined;

/** Lets async handlers throw; express 5 forwards rejected promises to the error handler. */
export const route =
  (handler: (req: Request, res: Response) => Promise<void>): RequestHandler =>
  (req, res, next) =>
    handler(req, res).catch(next);

export function correlation(): RequestHandler {
  return (req, res, next) => {
    const given = req.header('x-correlation-id');
    const id = given && /^[\w.:-]{1,100}$/.test(given) ? given : randomUUID();
    ctx(res).correlationId = id;
    res.setHeader('x-correlation-id', id);
    next();
  };
}

/** Every error leaves in the spec's shape `{statusCode, message, error}`; never a stack. */
export function errorHandler(logger: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    let status = 500;
    let message = 'Internal server error';
    const e = error as { type?: string; status?: number; statusCode?: number; message?: string; expose?: boolean };
    const expected = asHttpError(error);
    if (expected) {
      status = expected.statusCode;
      message = expected.message;
      for (const [name, value] of Object.entries(expected.headers)) res.setHeader(name, value);
    } else if (e?.type === 'entity.parse.failed') {
      status = 400;
      message = 'Request body is not valid JSON';
    } else if (e?.type === 'entity.too.large') {
      status = 413;
      message = 'Request body is too large';
    } else if (e?.type === 'charset.unsupported' || e?.type === 'encoding.unsupported') {
      status = 415;
      message = 'Unsupported request body encoding';
    } else if (e?.expose === true && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
      // An error made to be shown (express and body-parser's http-errors). A 4xx of a dependency
      // (the schema registry's 409, a provider's 404) is this service's failure: a 500 below.
      status = e.status;
      message = e.message ?? 'Bad request';
    }
    if (status >= 500) {
      logger.error(
        { err: error, method: req.method, path: req.path, correlationId: ctx(res).correlationId },
        'request failed',
      );
    }
    if (res.headersSent) return;
    res.status(status).json(errorBody(status, message));
  };
}

export function notFoundHandler(): RequestHandler {
  return (req, res) => {
    res.status(404).json(errorBody(404, `Cannot ${req.method} ${req.path}`));
  };
}

/** Bodies must be JSON when there is one. */
export function requireJson(): RequestHandler {
  return (req, _res, next) => {
    const length = Number(req.header('content-length') ?? 0);
    const chunked = req.header('transfer-encoding') !== undefined;
    if ((length > 0 || chunked) && !req.is('application/json')) {
      next(new HttpError(415, 'Content-Type must be application/json'));
      return;
    }
    next();
  };
}

/**
 * Headers on every response: no content sniffing; nothing stored by caches or browsers (API
 * answers carry applicants' data, admin answers keys and secrets; the OpenAPI document and
 * docs page and its assets may be cached); a Content-Security-Policy that lets nothing load
 * (the docs page has its own); HSTS when the request came over TLS (directly or, with
 * TRUST_PROXY, through the proxy).
 */
export function securityHeaders(): RequestHandler {
  return (req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // Answers are data, never a page to run or frame; the reference page sets its own policy.
    res.setHeader('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    // The console's hashed assets set their own long cache.
    if (req.path !== '/api/openapi.json' && req.path !== '/api/docs' && !req.path.startsWith('/api/docs/'))
      res.setHeader('Cache-Control', 'no-store');
    if (req.secure) res.setHeader('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    next();
  };
}

type RouteLayer = {
  route?: { path: string; methods: Record<string, boolean> };
  match(path: string): boolean;
};

const paramCount = (layer: RouteLayer) => (layer.route!.path.match(/[:*]/g) ?? []).length;

const methodsOf = (layer: RouteLayer) =>
  Object.entries(layer.route!.methods)
    .filter(([method, on]) => on && method !== '_all')
    .map(([method]) => method.toUpperCase());

/**
 * Closes a router: a path it serves asked with another method answers 405 with `Allow` (the
 * methods it does serve there) instead of falling through to 404 or to another route whose
 * pattern also matches (`GET /initiate` is not `GET /:id`). The check runs before the router's
 * own middleware (authentication, limits), and the table is read from the router itself, so a
 * new route is covered without listing it again. Call after the routes.
 */
export function allowOnlyRoutedMethods(router: Router): Router {
  const routes = (router.stack as unknown as RouteLayer[]).filter((layer) => layer.route);
  router.use((req, res, next) => {
    // The most specific routes that match decide: `/initiate` over `/:id`.
    const matching = routes.filter((layer) => layer.match(req.path));
    const fewest = Math.min(...matching.map(paramCount));
    const allowed = new Set<string>();
    for (const layer of matching)
      if (paramCount(layer) === fewest) for (const method of methodsOf(layer)) allowed.add(method);
    if (allowed.size === 0) return next();
    if (allowed.has('GET')) allowed.add('HEAD');
    if (allowed.has(req.method)) return next();
    const allow = [...allowed].sort().join(', ');
    res.setHeader('Allow', allow);
    res
      .status(405)
      .json(errorBody(405, `${req.method} is not allowed on ${req.originalUrl.split('?')[0]}; allowed: ${allow}`));
  });
  // The guard goes first: before the middleware and routes registered so far.
  router.stack.unshift(router.stack.pop()!);
  return router;
}

/** A route the app serves, with its path in OpenAPI's form (`/api/applications/{id}`). */
export interface ServedRoute {
  method: string;
  path: string;
}

type AnyLayer = RouteLayer & { rawPath?: unknown; handle: { stack?: AnyLayer[] } };

/** Every route of an express app or router, mounted routers included: the drift test's truth. */
export function servedRoutes(stack: unknown[], prefix = ''): ServedRoute[] {
  const out: ServedRoute[] = [];
  for (const layer of stack as AnyLayer[]) {
    if (layer.route) {
      // A router's `/` is its mount path: `/api/applications`, not `/api/applications/`.
      const path = `${prefix}${layer.route.path}`.replace(/(.)\/$/, '$1').replace(/:(\w+)/g, '{$1}');
      for (const method of methodsOf(layer)) out.push({ method: method.toLowerCase(), path });
    } else if (Array.isArray(layer.handle?.stack)) {
      const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      out.push(...servedRoutes(layer.handle.stack, `${prefix}${mount}`));
    }
  }
  return out;
}
