import { randomBytes } from 'node:crypto';

/**
 * A signed-in console user: the lender's API key (what every console request authenticates
 * with, exactly as `x-api-key` does on /api), the session's CSRF token and when it ends.
 */
export interface ConsoleSession {
  apiKey: string;
  csrfToken: string;
  expiresAt: Date;
}

/** Marks a sealed value as a console session, so no other sealed value is taken for one. */
const PURPOSE = 'console-session.v1';

/** A random token for a CSRF check: 32 bytes, base64url. */
export const newCsrfToken = () => randomBytes(32).toString('base64url');

/** What seals a session: the gateway's keyring (`Sealer` of `@loan/runtime`) in production. */
export interface SessionSealer {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

/**
 * Console sessions are stateless: the cookie holds the session sealed with the gateway's data
 * key (AES-256-GCM, so it can be neither read nor forged without the key), and every replica
 * that shares the key opens it. Nothing is stored; rotating the API key ends every session
 * holding the old one, because the old key no longer authenticates.
 */
export function createConsoleSessions(deps: { sealer: SessionSealer; ttlMs: number }) {
  return {
    ttlMs: deps.ttlMs,
    /** A new session for a key that has just authenticated, with a fresh CSRF token. */
    issue(apiKey: string, now: Date): { session: ConsoleSession; sealed: string } {
      const session = { apiKey, csrfToken: newCsrfToken(), expiresAt: new Date(now.getTime() + deps.ttlMs) };
      return { session, sealed: this.seal(session) };
    },
    seal(session: ConsoleSession): string {
      return deps.sealer.seal(
        JSON.stringify({ p: PURPOSE, k: session.apiKey, c: session.csrfToken, e: session.expiresAt.getTime() }),
      );
    },
    /** The session a cookie holds; null when it is absent, tampered with, of another key or expired. */
    open(sealed: string | undefined, now: Date): ConsoleSession | null {
      if (!sealed) return null;
      let payload: unknown;
      try {
        payload = JSON.parse(deps.sealer.open(sealed));
      } catch {
        return null;
      }
      const p = payload as { p?: unknown; k?: unknown; c?: unknown; e?: unknown };
      if (p?.p !== PURPOSE || typeof p.k !== 'string' || typeof p.c !== 'string' || typeof p.e !== 'number') return null;
      if (p.e <= now.getTime()) return null;
      return { apiKey: p.k, csrfToken: p.c, expiresAt: new Date(p.e) };
    },
  };
}
export type ConsoleSessions = ReturnType<typeof createConsoleSessions>;
