import { readFileSync } from 'node:fs';
import path from 'node:path';
import cookieParser from 'cookie-parser';
import express, { Router, type CookieOptions, type Request, type RequestHandler, type Response } from 'express';
import type { Clock } from '@loan/runtime';
import { z } from 'zod';
import { HttpError } from '../../domain/errors';
import { safeEqual } from '../../domain/keys';
import { newCsrfToken, type ConsoleSession, type ConsoleSessions } from '../../domain/consoleSession';
import { allowOnlyRoutedMethods, ctx, requireJson, route, validate } from './support';

/** Where `npm run build` puts the console (services/gateway/dist/console), from src/ and dist/ alike. */
export const CONSOLE_BUNDLE_DIR = path.resolve(__dirname, '../../../dist/console');

export const SESSION_COOKIE = 'console_session';
/** The sign-in form's CSRF token (double submit): set by `GET /console/session` before sign-in. */
export const SIGN_IN_COOKIE = 'console_signin';
export const CSRF_HEADER = 'x-csrf-token';

/**
 * What the console page may load: its own scripts and styles, calls to this origin, nothing
 * from another host, no inline script or style, no framing.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SignIn = z.object({
  apiKey: z.string({ error: 'apiKey is required and must be a string' }).min(1, 'apiKey is required').max(200, 'apiKey is not valid'),
});

interface ConsoleState {
  session: ConsoleSession | null;
}
const stateOf = (res: Response) => res.locals as { console?: ConsoleState };

/**
 * Whether an unsafe request comes from a page of this origin: the browser's `Sec-Fetch-Site`
 * when it sends one, and `Origin`, which every browser sends on a POST, otherwise. A request
 * with neither is refused: a page of this console always has them.
 */
function fromThisOrigin(req: Request): boolean {
  const site = req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = req.header('origin');
  if (origin === undefined) return site === 'same-origin';
  try {
    const url = new URL(origin);
    if (req.secure && url.protocol !== 'https:') return false;
    return url.host === req.host;
  } catch {
    return false;
  }
}

/**
 * The lender console under /console: the page and its assets, sign-in and sign-out, and the
 * gate of `/console/api`, where the API's own routers run with the session's key.
 *
 * The session cookie holds the API key sealed (HttpOnly, SameSite=Strict, Path=/console, Secure
 * over https): no script reads it, and it is never sent to /api, whose authentication ignores
 * it anyway. Every request that is not a GET needs the session's CSRF token in `x-csrf-token`
 * and must come from this origin, or it gets 403; sign-in needs the sign-in token instead.
 */
export function consoleRoutes(deps: {
  sessions: ConsoleSessions;
  clock: Clock;
  authenticate: RequestHandler;
  /** Where the built page and assets are; the page answers 503 until they are built. */
  bundleDir?: string;
}) {
  const bundleDir = deps.bundleDir ?? CONSOLE_BUNDLE_DIR;
  let page: string | null = null;

  const cookieOptions = (req: Request, maxAgeMs: number): CookieOptions => ({
    httpOnly: true,
    secure: req.secure,
    sameSite: 'strict',
    path: '/console',
    maxAge: maxAgeMs,
  });
  const clearOptions = (req: Request): CookieOptions => ({ httpOnly: true, secure: req.secure, sameSite: 'strict', path: '/console' });

  function setSession(req: Request, res: Response, session: ConsoleSession) {
    const maxAge = Math.max(0, session.expiresAt.getTime() - deps.clock.now().getTime());
    res.cookie(SESSION_COOKIE, deps.sessions.seal(session), cookieOptions(req, maxAge));
  }

  /** Runs the API's authentication on a key; resolves to its failure, or null when it passed (the client is then in ctx). */
  function authenticateKey(req: Request, res: Response, key: string | null): Promise<unknown> {
    ctx(res).consoleKey = key;
    return new Promise((resolve) => {
      deps.authenticate(req, res, (error?: unknown) => resolve(error ?? null));
    });
  }

  /** Opens the session of every /console request and holds back forged unsafe ones. */
  const gate: RequestHandler = (req, res, next) => {
    const cookies = (req.cookies ?? {}) as Record<string, string | undefined>;
    const session = deps.sessions.open(cookies[SESSION_COOKIE], deps.clock.now());
    stateOf(res).console = { session };
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    if (!fromThisOrigin(req)) {
      next(new HttpError(403, 'Cross-site request refused: it does not come from this console'));
      return;
    }
    const token = req.header(CSRF_HEADER);
    const signingIn = req.method === 'POST' && req.path === '/session';
    // A request without a session carries no credentials: authentication answers it (401).
    const expected = signingIn ? cookies[SIGN_IN_COOKIE] : session?.csrfToken;
    if (!signingIn && !session) return next();
    if (!token || !expected || !safeEqual(token, expected)) {
      next(new HttpError(403, `Missing or invalid CSRF token (${CSRF_HEADER})`));
      return;
    }
    next();
  };

  const router = Router();
  router.use(cookieParser());
  router.use(gate);

  router.get(
    '/',
    route(async (_req, res) => {
      if (page === null) {
        try {
          page = readFileSync(path.join(bundleDir, 'index.html'), 'utf8');
        } catch {
          throw new HttpError(503, 'The console is not built; run npm run build');
        }
      }
      res.setHeader('Content-Security-Policy', CONSOLE_CSP);
      res.type('html').send(page);
    }),
  );

  // Hashed names: a file never changes under its name, so browsers keep it for a year.
  router.use(
    '/assets',
    ((_req, res, next) => {
      res.removeHeader('Cache-Control');
      next();
    }) as RequestHandler,
    express.static(path.join(bundleDir, 'assets'), { index: false, fallthrough: false, immutable: true, maxAge: '365d', redirect: false }),
  );

  router.get(
    '/session',
    route(async (req, res) => {
      const { session } = stateOf(res).console!;
      if (session) {
        const failure = await authenticateKey(req, res, session.apiKey);
        if (!failure) {
          const client = ctx(res).client!;
          res.json({ signedIn: true, clientId: client.clientId, name: client.name, csrfToken: session.csrfToken, expiresAt: session.expiresAt.toISOString() });
          return;
        }
        // Only a key that no longer authenticates ends the session; an outage is an error.
        if (!(failure instanceof HttpError && failure.statusCode === 401)) throw failure;
      }
      // Signed out (or the key was rotated): the token the sign-in form must send back.
      if (session) res.clearCookie(SESSION_COOKIE, clearOptions(req));
      const csrfToken = newCsrfToken();
      res.cookie(SIGN_IN_COOKIE, csrfToken, cookieOptions(req, 60 * 60_000));
      res.json({ signedIn: false, csrfToken });
    }),
  );

  router.post(
    '/session',
    requireJson(),
    route(async (req, res) => {
      const { apiKey } = validate(SignIn, req.body ?? {});
      const failure = await authenticateKey(req, res, apiKey);
      if (failure) throw failure;
      const client = ctx(res).client!;
      const { session } = deps.sessions.issue(apiKey, deps.clock.now());
      setSession(req, res, session);
      res.clearCookie(SIGN_IN_COOKIE, clearOptions(req));
      res.json({ signedIn: true, clientId: client.clientId, name: client.name, csrfToken: session.csrfToken, expiresAt: session.expiresAt.toISOString() });
    }),
  );

  router.delete('/session', (req, res) => {
    res.clearCookie(SESSION_COOKIE, clearOptions(req));
    res.status(204).end();
  });

  /**
   * In front of the API's routers on /console/api: authentication takes the session's key
   * (none without a valid session: the same 401 as /api without `x-api-key`). A rotation of the
   * API key through the console moves the session to the new key.
   */
  const api: RequestHandler = (req, res, next) => {
    const { session } = stateOf(res).console ?? { session: null };
    ctx(res).consoleKey = session?.apiKey ?? null;
    if (session && req.method === 'POST' && req.path === '/client/rotate-key') {
      const json = res.json.bind(res);
      res.json = (body: unknown) => {
        const apiKey = (body as { apiKey?: unknown } | null)?.apiKey;
        if (res.statusCode === 200 && typeof apiKey === 'string') setSession(req, res, { ...session, apiKey });
        return json(body);
      };
    }
    next();
  };

  return { router: allowOnlyRoutedMethods(router), api };
}

