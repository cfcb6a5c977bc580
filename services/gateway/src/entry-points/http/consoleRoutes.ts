import { readFileSync } from 'node:fs';
import path from 'node:path';
import cookieParser from 'cookie-parser';
import express, { Router, type CookieOptions, type Request, type RequestHandler, type Response } from 'express';
import { DEFAULT_TIME_ZONE } from '@loan/contracts';
import type { Clock, Logger } from '@loan/runtime';
import type { Permission } from '../../domain/staff';
import { permit, type AuthFailures } from './guards';
import { z } from 'zod';
import { HttpError, asHttpError } from './errors';
import { safeEqual } from '../../domain/keys';
import {
  isLive,
  issueSession,
  looksLikeSessionToken,
  newCsrfToken,
  sessionIdOf,
  touchIsDue,
  type ConsoleSession,
  type SessionTimes,
} from '../../domain/consoleSession';
import type { ConsoleSessionStore } from '../../data-access/consoleSessionStore';
import type { ClientRecord, ClientRepository } from '../../data-access/clientRepository';
import type { StaffAccounts } from '../../data-access/staffAccounts';
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

const KeySignIn = z.object({
  apiKey: z
    .string({ error: 'apiKey is required and must be a string' })
    .min(1, 'apiKey is required')
    .max(200, 'apiKey is not valid'),
});
const StaffSignIn = z.object({
  email: z
    .string({ error: 'email is required and must be a string' })
    .trim()
    .toLowerCase()
    .min(3, 'email is required')
    .max(254, 'email is not valid'),
  password: z
    .string({ error: 'password is required and must be a string' })
    .min(1, 'password is required')
    .max(200, 'password is not valid'),
  totpCode: z.string({ error: 'totpCode must be a string' }).max(10, 'totpCode is not valid').optional(),
});
const InvitationToken = z.object({
  token: z.string({ error: 'token is required and must be a string' }).max(100, 'token is not valid'),
});
const AcceptInvitation = InvitationToken.extend({
  password: z.string({ error: 'password is required and must be a string' }),
  totpCode: z.string({ error: 'totpCode must be a string' }).max(10, 'totpCode is not valid').optional(),
});
const StartTotp = z.object({
  currentPassword: z.string({ error: 'currentPassword is required and must be a string' }).max(200),
});
const ConfirmTotp = z.object({
  enrolment: z.string({ error: 'enrolment is required and must be a string' }).max(1000, 'enrolment is not valid'),
  totpCode: z.string({ error: 'totpCode is required and must be a string' }).max(10, 'totpCode is not valid'),
});
const ChangePassword = z.object({
  currentPassword: z.string({ error: 'currentPassword is required and must be a string' }).max(200),
  newPassword: z.string({ error: 'newPassword is required and must be a string' }),
});

interface ConsoleState {
  /** The live session the request's cookie names, if any. */
  session: ConsoleSession | null;
  /** Whether the request presented a session cookie at all (a dead one is a failed authentication). */
  presented: boolean;
}
const stateOf = (res: Response) => res.locals as { console?: ConsoleState };

/** The session of a console request, once its gate has opened it (null: none). */
export const consoleSessionOf = (res: Response): ConsoleSession | null => stateOf(res).console?.session ?? null;

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
 * What a call of the console's API needs of the session's role: reading needs `read`, except the
 * users (owners only); a change of an application (a review included) or a policy draft needs
 * `applications`; confirming a review or activating a policy `manage`; a change of the webhook
 * endpoint, secrets, API key or deliveries `developer`; anything else (users included) `users`.
 */
export function permissionFor(method: string, path: string): Permission {
  if (path === '/users' || path.startsWith('/users/')) return 'users';
  if (method === 'GET' || method === 'HEAD') return 'read';
  // A review's confirmation (maker-checker) and a policy's activation are a credit manager's.
  if (
    /^\/applications\/[^/]+\/review\/confirm$/.test(path) ||
    /^\/policies\/.+\/activate$/.test(path) ||
    path === '/performance/settings'
  )
    return 'manage';
  if (path.startsWith('/applications/') || path === '/applications') return 'applications';
  if (path === '/policies' || path.startsWith('/policies/')) return 'applications';
  if (path === '/outcomes') return 'applications';
  if (path === '/client' || path.startsWith('/client/') || path.startsWith('/webhooks/')) return 'developer';
  return 'users';
}

/** Routes that check a token of their own (the sign-in form's, or the session's) in their handler. */
const OWN_TOKEN_ROUTES = new Set(['/session', '/invitation', '/invitation/accept']);

/** The cookies' names: with `__Host-` in production, which browsers take only from https, for Path=/ and no Domain. */
export const cookieNames = (production: boolean) => ({
  session: production ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE,
  signIn: production ? `__Host-${SIGN_IN_COOKIE}` : SIGN_IN_COOKIE,
});

/**
 * The lender console under /console: the page and its assets, sign-in and sign-out, and the
 * gate of `/console/api`, where the API's own routers run for the session's lender.
 *
 * Sessions live in the gateway's database (`console_sessions`); the cookie holds only a random
 * token (HttpOnly, SameSite=Strict; Path=/console and Secure over https locally, `__Host-`,
 * Path=/ and Secure in production, whatever the request says), so sign-out ends a session
 * everywhere and a copied cookie with it. A session ends after CONSOLE_SESSION_IDLE without a
 * request and CONSOLE_SESSION_TTL after sign-in. Every request that is not a GET needs the
 * session's CSRF token in `x-csrf-token` and must come from this origin, or it gets 403;
 * sign-in needs the sign-in token instead, which its handler checks itself. Routes are matched
 * strictly and case-sensitively: `/session/` and `/Session` are not `/session`.
 */
export function consoleRoutes(deps: {
  sessions: ConsoleSessionStore;
  staff: StaffAccounts;
  times: SessionTimes;
  clock: Clock;
  authenticate: RequestHandler;
  clients: Pick<ClientRepository, 'get'>;
  limit: (kind: 'other') => RequestHandler;
  /** Failed authentications per address, shared with the API (a wrong password, invitation link or dead cookie counts). */
  failures: AuthFailures;
  logger: Logger;
  /** Production: cookies take `__Host-` and `Secure` whether or not the request came over https. */
  production: boolean;
  /** Where the built page and assets are; the page answers 503 until they are built. */
  bundleDir?: string;
  /** A trace UI (Jaeger) the application page links to, when there is one (TRACE_UI_URL). */
  traceUiUrl?: string | null;
}) {
  const bundleDir = deps.bundleDir ?? CONSOLE_BUNDLE_DIR;
  const names = cookieNames(deps.production);
  let page: string | null = null;

  const baseOptions = (req: Request): CookieOptions => ({
    httpOnly: true,
    secure: deps.production || req.secure,
    sameSite: 'strict',
    path: deps.production ? '/' : '/console',
  });
  const cookieOptions = (req: Request, maxAgeMs: number): CookieOptions => ({ ...baseOptions(req), maxAge: maxAgeMs });

  /** Runs the API's authentication on a key; resolves to its failure, or null when it passed (the client is then in ctx). */
  function authenticateKey(req: Request, res: Response, key: string | null): Promise<unknown> {
    ctx(res).consoleKey = key;
    return authenticateNow(req, res);
  }
  function authenticateNow(req: Request, res: Response): Promise<unknown> {
    return new Promise((resolve) => {
      deps.authenticate(req, res, (error?: unknown) => resolve(error ?? null));
    });
  }

  async function openSession(cookie: string | undefined): Promise<ConsoleSession | null> {
    if (!looksLikeSessionToken(cookie)) return null;
    const session = await deps.sessions.find(sessionIdOf(cookie));
    const now = deps.clock.now();
    if (!session || !isLive(session, now, deps.times)) return null;
    if (touchIsDue(session, now, deps.times)) {
      await deps.sessions.touch(session.id, now);
      return { ...session, lastSeenAt: now };
    }
    return session;
  }

  /** Opens the session of every /console request and holds back forged unsafe ones. */
  const gate: RequestHandler = async (req, res, next) => {
    try {
      const cookies = (req.cookies ?? {}) as Record<string, string | undefined>;
      const cookie = cookies[names.session];
      const session = await openSession(cookie);
      stateOf(res).console = { session, presented: cookie !== undefined && cookie !== '' };
      // Authentication of /console/api takes the session (none: the API's 401 without a key).
      ctx(res).consoleSession = session;
      if (req.method === 'GET' || req.method === 'HEAD') return next();
      if (!fromThisOrigin(req))
        throw new HttpError(403, 'Cross-site request refused: it does not come from this console');
      // Sign-in checks its own token; a request without a session carries no credentials and
      // authentication answers it (401).
      if ((req.method === 'POST' && OWN_TOKEN_ROUTES.has(req.path)) || !session) return next();
      const token = req.header(CSRF_HEADER);
      if (!token || !safeEqual(token, session.csrfToken))
        throw new HttpError(403, `Missing or invalid CSRF token (${CSRF_HEADER})`);
      next();
    } catch (error) {
      next(error);
    }
  };

  const signedIn = (session: ConsoleSession, client: ClientRecord, email: string | null) => ({
    signedIn: true,
    clientId: client.clientId,
    name: client.name,
    csrfToken: session.csrfToken,
    expiresAt: session.expiresAt.toISOString(),
    /** The staff user; null for a console signed in with the API key, which may do everything. */
    user: session.userId ? { userId: session.userId, email, role: session.role } : null,
    traceUiUrl: deps.traceUiUrl ?? null,
    timeZone: client.timeZone ?? DEFAULT_TIME_ZONE,
  });
  const emailOf = async (session: ConsoleSession) =>
    session.userId ? ((await deps.staff.get(session.clientId, session.userId))?.email ?? null) : null;

  const router = Router({ strict: true, caseSensitive: true });
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
    express.static(path.join(bundleDir, 'assets'), {
      index: false,
      fallthrough: false,
      immutable: true,
      maxAge: '365d',
      redirect: false,
    }),
  );

  router.get(
    '/session',
    deps.limit('other'),
    route(async (req, res) => {
      const { session, presented } = stateOf(res).console!;
      if (session) {
        const failure = await authenticateNow(req, res);
        if (failure) throw failure;
        res.json(signedIn(session, ctx(res).client!, await emailOf(session)));
        return;
      }
      if (presented) {
        // A cookie that opens no session is a failed authentication (counted per address like
        // a wrong key), so this is no free oracle for cookies. The browser drops it and asks again.
        res.clearCookie(names.session, baseOptions(req));
        throw await deps.failures.failed(req, new HttpError(401, 'The console session has ended; sign in again'));
      }
      // Signed out: the token the sign-in form must send back.
      const csrfToken = newCsrfToken();
      res.cookie(names.signIn, csrfToken, cookieOptions(req, 60 * 60_000));
      res.json({ signedIn: false, csrfToken });
    }),
  );

  /**
   * The sign-in form's token (double submit), or a signed-in page's session token, checked here
   * so that no path spelling skips it.
   */
  function checkSignInToken(req: Request, res: Response) {
    const fromForm = ((req.cookies ?? {}) as Record<string, string | undefined>)[names.signIn];
    const fromSession = stateOf(res).console?.session?.csrfToken;
    const token = req.header(CSRF_HEADER);
    const matches = (expected: string | undefined) => !!expected && !!token && safeEqual(token, expected);
    if (!matches(fromForm) && !matches(fromSession))
      throw new HttpError(403, `Missing or invalid CSRF token (${CSRF_HEADER})`);
  }

  /** The answer to a refused credential (401, 403 or 404), or null when the error is anything else. */
  function credentialRefusal(error: unknown): HttpError | null {
    const refusal = asHttpError(error);
    return refusal && [401, 403, 404].includes(refusal.statusCode) ? refusal : null;
  }

  /** A refusal of a presented credential (a wrong invitation link, say) counts against the address. */
  async function counted<T>(req: Request, check: () => Promise<T>): Promise<T> {
    try {
      return await check();
    } catch (error) {
      const refusal = credentialRefusal(error);
      if (refusal) throw await deps.failures.failed(req, refusal);
      throw error;
    }
  }

  /**
   * A password is checked with scrypt, which costs far more than refusing: an address past the
   * limit gets 429 before any is computed, and its count is given back when the check passes.
   */
  async function passwordChecked<T>(req: Request, check: () => Promise<T>): Promise<T> {
    const attempt = await deps.failures.attempt(req);
    if (attempt.refused) throw attempt.refused;
    let passed = false;
    try {
      const result = await check();
      passed = true;
      return result;
    } catch (error) {
      // Only a wrong credential keeps its count: a bad field (400) or an account's own wait (429) proves nothing.
      passed = !credentialRefusal(error);
      throw error;
    } finally {
      if (passed) await attempt.giveBack();
    }
  }

  async function startSession(
    req: Request,
    res: Response,
    who: { clientId: string; userId: string | null; role: ConsoleSession['role']; via: ConsoleSession['via'] },
  ) {
    const now = deps.clock.now();
    const { session, token } = issueSession(who, now, deps.times);
    await deps.sessions.create(session);
    res.cookie(names.session, token, cookieOptions(req, deps.times.ttlMs));
    res.clearCookie(names.signIn, baseOptions(req));
    return session;
  }

  router.post(
    '/session',
    deps.limit('other'),
    requireJson(),
    route(async (req, res) => {
      checkSignInToken(req, res);
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (body.apiKey === undefined && (body.email !== undefined || body.password !== undefined)) {
        const { email, password, totpCode } = validate(StaffSignIn, body);
        const user = await passwordChecked(req, () => deps.staff.signIn(email, password, totpCode, req.ip));
        const client = await deps.clients.get(user.clientId);
        if (!client) throw new HttpError(401, 'Wrong e-mail address, password or authenticator code');
        const session = await startSession(req, res, {
          clientId: user.clientId,
          userId: user.userId,
          role: user.role,
          via: 'password',
        });
        res.json(signedIn(session, client, user.email));
        return;
      }
      const { apiKey } = validate(KeySignIn, body);
      const failure = await authenticateKey(req, res, apiKey);
      if (failure) throw failure;
      const client = ctx(res).client!;
      // The key opens the console only until the lender's first owner has an account.
      if (await deps.staff.hasOwner(client.clientId)) {
        throw new HttpError(
          403,
          "This lender's staff sign in with their e-mail address and password; the API key does not open the console",
        );
      }
      const session = await startSession(req, res, {
        clientId: client.clientId,
        userId: null,
        role: null,
        via: 'api-key',
      });
      res.json(signedIn(session, client, null));
    }),
  );

  router.post(
    '/invitation',
    deps.limit('other'),
    requireJson(),
    route(async (req, res) => {
      checkSignInToken(req, res);
      const { token } = validate(InvitationToken, req.body ?? {});
      res.json(await counted(req, () => deps.staff.invitation(token)));
    }),
  );

  router.post(
    '/invitation/accept',
    deps.limit('other'),
    requireJson(),
    route(async (req, res) => {
      checkSignInToken(req, res);
      const { token, password, totpCode } = validate(AcceptInvitation, req.body ?? {});
      res.json(await passwordChecked(req, () => deps.staff.accept(token, password, totpCode)));
    }),
  );

  /** The session of a signed-in staff user (401 without a session; 400 for a console signed in with the API key). */
  function signedInUser(res: Response): ConsoleSession & { userId: string } {
    const { session } = stateOf(res).console!;
    if (!session) throw new HttpError(401, 'Sign in first');
    if (!session.userId)
      throw new HttpError(400, 'A console signed in with the API key has no password or authenticator of its own');
    return { ...session, userId: session.userId };
  }

  router.post(
    '/password',
    deps.limit('other'),
    requireJson(),
    route(async (req, res) => {
      const session = signedInUser(res);
      const { currentPassword, newPassword } = validate(ChangePassword, req.body ?? {});
      await passwordChecked(req, () =>
        deps.staff.changePassword(session.clientId, session.userId!, currentPassword, newPassword, session.id),
      );
      res.status(204).end();
    }),
  );

  /** A new authenticator for the signed-in user: a new secret after the current password... */
  router.post(
    '/totp',
    deps.limit('other'),
    requireJson(),
    route(async (req, res) => {
      const session = signedInUser(res);
      const { currentPassword } = validate(StartTotp, req.body ?? {});
      res.json(
        await passwordChecked(req, () =>
          deps.staff.startTotpEnrolment(session.clientId, session.userId, currentPassword),
        ),
      );
    }),
  );

  /** ...then a code of it, which makes it the user's; the user's other sessions end. */
  router.post(
    '/totp/confirm',
    deps.limit('other'),
    requireJson(),
    route(async (req, res) => {
      const session = signedInUser(res);
      const { enrolment, totpCode } = validate(ConfirmTotp, req.body ?? {});
      await deps.staff.enrolTotp(session.clientId, session.userId, enrolment, totpCode, session.id);
      res.status(204).end();
    }),
  );

  router.delete(
    '/session',
    route(async (req, res) => {
      const { session } = stateOf(res).console!;
      // Ends the session for every copy of its cookie, not only this browser's.
      if (session) await deps.sessions.end(session.id);
      res.clearCookie(names.session, baseOptions(req));
      res.status(204).end();
    }),
  );

  /**
   * In front of the API's routers on /console/api: they authenticate the session's lender, and
   * here the session's role is checked (403 naming it) before anything else is. Every change
   * made from the console writes an audit line naming the user.
   */
  const api: RequestHandler = (req, res, next) => {
    if (ctx(res).consoleSession === undefined) ctx(res).consoleSession = null;
    const session = ctx(res).consoleSession;
    // A cookie that opens no session is a presented wrong credential, counted like a wrong key;
    // no cookie at all guesses nothing and gets the API's 401 without a count.
    if (!session && stateOf(res).console?.presented) {
      deps.failures.failed(req, new HttpError(401, 'The console session has ended; sign in again')).then(next, next);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD' && session) {
      const action = `console ${req.method} ${req.originalUrl.split('?')[0]}`;
      res.once('finish', () => {
        if (res.statusCode >= 400) return;
        deps.logger.info(
          {
            audit: {
              action,
              actor: 'client',
              userId: session.userId,
              role: session.role,
              clientId: session.clientId,
              status: res.statusCode,
              ip: req.ip,
              correlationId: ctx(res).correlationId,
            },
          },
          'client action',
        );
      });
    }
    permit(permissionFor(req.method, req.path))(req, res, next);
  };
  return { router: allowOnlyRoutedMethods(router), api };
}
