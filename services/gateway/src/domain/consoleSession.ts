import { createHash, randomBytes } from 'node:crypto';
import type { StaffRole } from '@loan/contracts';

/**
 * A signed-in console user, as the gateway's database holds it. The browser holds only a random
 * token; the record is found by the token's SHA-256, so a copy of the database opens no session.
 */
export interface ConsoleSession {
  /** SHA-256 (hex) of the cookie's token. */
  id: string;
  clientId: string;
  /** The staff user signed in; null for a sign-in with the lender's API key. */
  userId: string | null;
  /** The staff user's role at sign-in (a change of role ends the session); null with the API key, which may do everything. */
  role: StaffRole | null;
  /** What signed in: the lender's API key, or a staff user's password (and TOTP code). */
  via: 'api-key' | 'password';
  csrfToken: string;
  createdAt: Date;
  lastSeenAt: Date;
  /** The absolute end: CONSOLE_SESSION_TTL after sign-in, whatever the activity. */
  expiresAt: Date;
}

/** A random token for a CSRF check: 32 bytes, base64url. */
export const newCsrfToken = () => randomBytes(32).toString('base64url');
/** The cookie's value: 32 random bytes, base64url. */
export const newSessionToken = () => randomBytes(32).toString('base64url');
/** Where a token's session is stored: its SHA-256, never the token itself. */
export const sessionIdOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** A cookie value that could be a session token (anything else is not looked up). */
export const looksLikeSessionToken = (value: string | undefined): value is string =>
  typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);

export interface SessionTimes {
  /** CONSOLE_SESSION_TTL: the absolute lifetime. */
  ttlMs: number;
  /** CONSOLE_SESSION_IDLE: how long a session lasts without a request. */
  idleMs: number;
}

/** When a session that is used now ends: after its idle time, never beyond its absolute end. */
export function endOf(session: Pick<ConsoleSession, 'lastSeenAt' | 'expiresAt'>, times: SessionTimes): Date {
  return new Date(Math.min(session.expiresAt.getTime(), session.lastSeenAt.getTime() + times.idleMs));
}

/** Whether a stored session still lets its holder in at `now`. */
export function isLive(
  session: Pick<ConsoleSession, 'lastSeenAt' | 'expiresAt'>,
  now: Date,
  times: SessionTimes,
): boolean {
  return endOf(session, times).getTime() > now.getTime();
}

/**
 * Whether a request at `now` should record itself as the session's last activity. Not on every
 * request: once a tenth of the idle time (at most a minute) has passed, so a busy page costs a
 * write a minute and the idle timeout is early by no more than that.
 */
export function touchIsDue(session: Pick<ConsoleSession, 'lastSeenAt'>, now: Date, times: SessionTimes): boolean {
  return now.getTime() - session.lastSeenAt.getTime() >= Math.min(60_000, times.idleMs / 10);
}

/** A new session for a sign-in that has just succeeded, and the token its cookie holds. */
export function issueSession(
  who: { clientId: string; userId: string | null; role: StaffRole | null; via: ConsoleSession['via'] },
  now: Date,
  times: SessionTimes,
): { session: ConsoleSession; token: string } {
  const token = newSessionToken();
  return {
    token,
    session: {
      id: sessionIdOf(token),
      ...who,
      csrfToken: newCsrfToken(),
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + times.ttlMs),
    },
  };
}
