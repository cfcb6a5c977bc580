import type { Request, RequestHandler } from 'express';
import type { Counter } from 'prom-client';
import { HttpError } from './errors';
import { hashApiKey, safeEqual } from '../../domain/keys';
import { addressGroup, limitFor, windowOf } from '../../domain/rateLimit';
import type { ClientRecord, ClientRepository } from '../../data-access/clientRepository';
import type { RateWindowModel } from '../../data-access/clientModel';
import type { Clock } from '@loan/runtime';
import { isDuplicateKey } from '@loan/runtime';
import { ctx } from './support';
import type { AuditRecorder } from '../../data-access/auditLog';
import { roleAllows, type Permission } from '../../domain/staff';

/**
 * `x-api-key` on every /api route; on /console/api the lender of the console's session (its
 * gate sets `consoleSession`), never the header; at console sign-in the key typed (`consoleKey`). Keys are looked up by their SHA-256 (only the hash is
 * stored) and the stored hash is compared in constant time. Lookups are cached briefly, misses
 * too: a key sent again and again costs one query per TTL, not one per request. (A miss can
 * never turn into a hit: keys are random and made only by us.) A missing key is no failed
 * authentication; a wrong one is counted (see `createAuthFailures`) and, past the limit, answered
 * 429. A right key is never refused for what its address did: checking it costs no more than
 * refusing it, and an address may be shared (a NAT, a cloud egress) with whoever failed.
 */
export function authenticate(deps: {
  clients: ClientRepository;
  cacheTtlMs: number;
  clock: Clock;
  failures: AuthFailures;
}): RequestHandler & {
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
      // A wrong key counts against its address; a right one passes whatever the address did before.
      if (!client) throw await deps.failures.failed(req, new HttpError(401, 'Invalid API key'));
      ctx(res).client = client;
      next();
    } catch (error) {
      next(error);
    }
  }) as RequestHandler & { forget(): void };
  handler.forget = () => cache.clear();
  return handler;
}

/**
 * `x-admin-token` on /admin: ADMIN_TOKEN (named "admin") or one of the named ADMIN_TOKENS, each
 * compared in constant time (all of them, whichever matches), and the caller's name kept for
 * the audit. A missing token is no failed authentication. A presented one takes its count
 * before it is compared (given back when right): past the limit the address gets 429 whether
 * the token is right or not, so a burst of guesses, however parallel, tries at most the limit
 * of them; the operator chooses the token, which may be short. See docs/security.md. A wrong
 * token within the limit is written to the audit (`admin.denied`): at most the limit of them
 * per address and window, so guesses cannot flood it.
 */
export function adminOnly(
  tokens: readonly { name: string; token: string }[],
  failures: AuthFailures,
  audit?: AuditRecorder,
): RequestHandler {
  return async (req, res, next) => {
    try {
      const given = req.header('x-admin-token');
      if (!given) throw new HttpError(401, 'Missing x-admin-token header');
      const attempt = await failures.attempt(req);
      if (attempt.refused) throw attempt.refused;
      let name: string | undefined;
      for (const candidate of tokens)
        if (safeEqual(given, candidate.token) && name === undefined) name = candidate.name;
      if (name === undefined) {
        await audit?.record({
          action: 'admin.denied',
          actor: 'admin',
          details: {
            method: req.method,
            path: req.originalUrl.split('?')[0]!.slice(0, 200),
            reason: 'invalid admin token',
          },
          ip: req.ip ?? null,
          correlationId: req.header('x-correlation-id') ?? null,
        });
        throw new HttpError(401, 'Invalid admin token');
      }
      await attempt.giveBack();
      ctx(res).adminName = name;
      next();
    } catch (error) {
      next(error);
    }
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
 * Adds one to a bucket's count in the window `now` falls in, in one atomic step in the database
 * (so every replica sees it and parallel requests each get a count of their own), and returns it.
 */
async function countHit(model: RateWindowModel, bucket: string, windowMs: number, now: Date) {
  const window = windowOf(now, windowMs);
  const id = `${bucket}:${window.start}`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const doc = await model
        .findOneAndUpdate(
          { _id: id },
          { $inc: { count: 1 }, $setOnInsert: { expiresAt: new Date(window.resetsAt + windowMs) } },
          { upsert: true, new: true },
        )
        .lean<{ count: number }>();
      return { id, count: doc?.count ?? 1, window };
    } catch (error) {
      if (!isDuplicateKey(error)) throw error; // two first hits raced on the upsert
    }
  }
  throw new Error('Rate window kept conflicting');
}

/**
 * Fixed 60-second windows counted in the database, so every gateway replica enforces the same
 * limit. Over the limit: 429 with Retry-After (seconds until the window resets).
 */
export function createRateLimiter(deps: {
  model: RateWindowModel;
  settings: RateLimitSettings;
  clock: Clock;
  rejections: Counter<'bucket'>;
}) {
  const { model, settings } = deps;

  const hit = (bucket: string, now: Date) => countHit(model, bucket, settings.windowMs, now);

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
          throw new HttpError(
            429,
            `Rate limit of ${limit} requests per minute exceeded; retry after the window resets`,
            {
              'Retry-After': String(window.retryAfterSeconds),
            },
          );
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

export interface AuthFailures {
  /** Counts a presented wrong credential against its address; the error to answer: `refusal` until the limit, 429 past it. */
  failed(req: Request, refusal: HttpError): Promise<HttpError>;
  /** Takes a count before a credential is compared: `refused` (429) past the limit, else `giveBack` once it proved right. */
  attempt(req: Request): Promise<{ refused: HttpError | null; giveBack(): Promise<void> }>;
}

/**
 * Failed authentications per address (an IPv4 address, an IPv6 /64), counted in fixed windows of
 * `windowMs` in the gateway's `rate_windows`, like the route limits: one count for every replica,
 * taken and checked in one atomic step, so a parallel burst cannot pass the limit. Only a
 * presented wrong credential counts: a request without one guesses nothing, and business answers
 * (403 for another lender's idempotency key, 404, 409) are no authentication at all. The address
 * is Express's `req.ip`, which believes X-Forwarded-For only as far as TRUST_PROXY says. Past the
 * limit the answer carries the headers of the other 429s.
 */
export function createAuthFailures(deps: {
  model: RateWindowModel;
  settings: { limit: number; windowMs: number };
  clock: Clock;
}): AuthFailures {
  const { model, settings } = deps;
  const take = (req: Request) =>
    countHit(model, `auth:${addressGroup(req.ip ?? 'unknown')}`, settings.windowMs, deps.clock.now());
  const tooMany = (window: { resetsAt: number; retryAfterSeconds: number }) =>
    new HttpError(429, 'Too many failed authentications from this address; try again later', {
      'Retry-After': String(window.retryAfterSeconds),
      'X-RateLimit-Limit': String(settings.limit),
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(Math.ceil(window.resetsAt / 1000)),
    });
  return {
    async failed(req, refusal) {
      const { count, window } = await take(req);
      return count > settings.limit ? tooMany(window) : refusal;
    },
    async attempt(req) {
      const { id, count, window } = await take(req);
      if (count > settings.limit) return { refused: tooMany(window), giveBack: async () => undefined };
      return {
        refused: null,
        giveBack: async () => {
          await model.updateOne({ _id: id }, { $inc: { count: -1 } });
        },
      };
    },
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
    next(new HttpError(403, `Your role (${session.role}) does not allow this`));
  };
}
