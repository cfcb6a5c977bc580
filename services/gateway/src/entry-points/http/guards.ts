import type { RequestHandler } from 'express';
import { MemoryStore } from 'express-rate-limit';
import { errorBody } from '@loan/contracts';
import type { Counter } from 'prom-client';
import { HttpError } from '../../domain/errors';
import { hashApiKey, safeEqual } from '../../domain/keys';
import { limitFor, windowOf } from '../../domain/rateLimit';
import type { ClientRecord, ClientRepository } from '../../data-access/clientRepository';
import type { RateWindowModel } from '../../data-access/clientModel';
import type { Clock } from '@loan/runtime';
import { isDuplicateKey } from '@loan/runtime';
import { ctx } from './support';
import { roleAllows, type Permission } from '../../domain/staff';

/**
 * `x-api-key` on every /api route; on /console/api the lender of the console's session (its
 * gate sets `consoleSession`), never the header; at console sign-in the key typed (`consoleKey`). Keys are looked up by their SHA-256 (only the hash is
 * stored) and the stored hash is compared in constant time. Lookups are cached briefly, misses
 * too: a key sent again and again costs one query per TTL, not one per request. (A miss can
 * never turn into a hit: keys are random and made only by us.)
 */
export function authenticate(deps: { clients: ClientRepository; cacheTtlMs: number; clock: Clock }): RequestHandler & {
  forget(): void;
} {
  const cache = new Map<string, { client: ClientRecord | null; until: number }>();
  /** A console session stands for its lender: the same 401 as /api without a key when there is none. */
  async function clientOfSession(session: { clientId: string } | null): Promise<ClientRecord> {
    if (!session) throw new HttpError(401, 'Missing x-api-key header');
    const client = await deps.clients.get(session.clientId);
    if (!client) throw new HttpError(401, 'Invalid API key');
    return client;
  }
  const handler = (async (req, res, next) => {
    try {
      const { consoleKey, consoleSession } = ctx(res);
      if (consoleKey === undefined && consoleSession !== undefined) {
        ctx(res).client = await clientOfSession(consoleSession);
        return next();
      }
      const key = consoleKey !== undefined ? consoleKey : req.header('x-api-key');
      if (!key) throw new HttpError(401, 'Missing x-api-key header');
      const hash = hashApiKey(key);
      const now = deps.clock.now().getTime();
      const hit = cache.get(hash);
      let client: ClientRecord | null;
      if (hit && hit.until > now) {
        client = hit.client;
      } else {
        const found = await deps.clients.findByKeyHash(hash);
        client = found && safeEqual(found.apiKeyHash, hash) ? found : null;
        if (cache.size > 10_000) cache.clear();
        cache.set(hash, { client, until: now + deps.cacheTtlMs });
      }
      if (!client) throw new HttpError(401, 'Invalid API key');
      ctx(res).client = client;
      next();
    } catch (error) {
      next(error);
    }
  }) as RequestHandler & { forget(): void };
  handler.forget = () => cache.clear();
  return handler;
}

export function adminOnly(token: string): RequestHandler {
  return (req, _res, next) => {
    const given = req.header('x-admin-token');
    if (!given || !safeEqual(given, token)) {
      next(new HttpError(401, given ? 'Invalid admin token' : 'Missing x-admin-token header'));
      return;
    }
    next();
  };
}

export interface RateLimitSettings {
  enabled: boolean;
  windowMs: number;
  initiate: number;
  analyze: number;
  global: number;
}

/**
 * Fixed 60-second windows counted in the database, so every gateway replica enforces the same
 * limit. Over the limit: 429 with Retry-After (seconds until the window resets).
 */
export function createRateLimiter(deps: { model: RateWindowModel; settings: RateLimitSettings; clock: Clock; rejections: Counter<'bucket'> }) {
  const { model, settings } = deps;

  async function hit(bucket: string, now: Date) {
    const window = windowOf(now, settings.windowMs);
    const id = `${bucket}:${window.start}`;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const doc = await model
          .findOneAndUpdate(
            { _id: id },
            { $inc: { count: 1 }, $setOnInsert: { expiresAt: new Date(window.resetsAt + settings.windowMs) } },
            { upsert: true, new: true },
          )
          .lean<{ count: number }>();
        return { count: doc?.count ?? 1, window };
      } catch (error) {
        if (!isDuplicateKey(error)) throw error; // two first hits raced on the upsert
      }
    }
    throw new Error('Rate window kept conflicting');
  }

  return (routeKind: 'initiate' | 'analyze' | 'other'): RequestHandler =>
    async (req, res, next) => {
      if (!settings.enabled) return next();
      try {
        const clientId = ctx(res).client?.clientId ?? 'anonymous';
        const { bucket, limit } = limitFor(routeKind, { clientId, ip: req.ip ?? 'unknown' }, settings);
        const { count, window } = await hit(bucket, deps.clock.now());
        res.setHeader('X-RateLimit-Limit', String(limit));
        res.setHeader('X-RateLimit-Remaining', String(Math.max(0, limit - count)));
        res.setHeader('X-RateLimit-Reset', String(Math.ceil(window.resetsAt / 1000)));
        if (count > limit) {
          deps.rejections.inc({ bucket: routeKind });
          throw new HttpError(429, `Rate limit of ${limit} requests per minute exceeded; retry after the window resets`, {
            'Retry-After': String(window.retryAfterSeconds),
          });
        }
        next();
      } catch (error) {
        next(error);
      }
    };
}

/** Periodically removes windows past their end (MongoDB's TTL index does it too where supported). */
export function pruneRateWindows(model: RateWindowModel, clock: Clock) {
  return () => model.deleteMany({ expiresAt: { $lt: clock.now() } }).then(() => undefined);
}

/**
 * Counts failed authentications (401, 403) per client IP in this replica's memory; past the
 * limit the IP gets 429 (with Retry-After) before its key or token is even looked up, so
 * guessing keys or the admin token costs no database query and goes nowhere. Only answers that
 * were 401 or 403 count: a request the client gave up on before its answer (a timeout) proves
 * nothing about its key, and a signed-in user's 403 for what their role does not allow is no
 * failed authentication. The IP is Express's `req.ip`, which believes X-Forwarded-For only as
 * far as TRUST_PROXY says. Over the limit the answer carries the headers of the other 429s.
 */
export function authFailureLimit(settings: { limit: number; windowMs: number }): RequestHandler {
  const failures = new MemoryStore();
  failures.init({ windowMs: settings.windowMs } as Parameters<MemoryStore['init']>[0]);
  return async (req, res, next) => {
    const ip = req.ip ?? 'unknown';
    const seen = await failures.get(ip);
    if (seen && seen.totalHits >= settings.limit) {
      const resetsAt = seen.resetTime?.getTime() ?? Date.now() + settings.windowMs;
      res
        .status(429)
        .setHeader('Retry-After', String(Math.max(1, Math.ceil((resetsAt - Date.now()) / 1000))))
        .setHeader('X-RateLimit-Limit', String(settings.limit))
        .setHeader('X-RateLimit-Remaining', '0')
        .setHeader('X-RateLimit-Reset', String(Math.ceil(resetsAt / 1000)))
        .json(errorBody(429, 'Too many failed authentications from this address; try again later'));
      return;
    }
    res.once('finish', () => {
      // A signed-in user's role refusal is no failed authentication: a viewer who tries a change
      // must not lock out the office that shares the address.
      if (res.statusCode === 401 || (res.statusCode === 403 && !ctx(res).refusedByRole)) void failures.increment(ip);
    });
    next();
  };
}

/**
 * What the caller's role allows. The API key (on /api, or a console signed in with it by an
 * owner who has no account yet) may do everything; a staff user's console session what the
 * role says (`domain/staff.ts`), or 403 naming the role.
 */
export function permit(permission: Permission): RequestHandler {
  return (_req, res, next) => {
    const session = ctx(res).consoleSession;
    if (!session || session.role === null || roleAllows(session.role, permission)) return next();
    ctx(res).refusedByRole = true;
    next(new HttpError(403, `Your role (${session.role}) does not allow this`));
  };
}
