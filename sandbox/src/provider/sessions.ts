import type { LinkSession } from './store';

export type SessionLookup =
  { ok: true; session: LinkSession } | { ok: false; error: 'SESSION_NOT_FOUND' | 'SESSION_EXPIRED' };

/** A session is usable until its expiry; after that its widget address is dead. */
export function lookupSession(sessions: ReadonlyMap<string, LinkSession>, id: string, now: Date): SessionLookup {
  const session = sessions.get(id);
  if (!session) return { ok: false, error: 'SESSION_NOT_FOUND' };
  if (now.getTime() >= session.expiresAt.getTime()) return { ok: false, error: 'SESSION_EXPIRED' };
  return { ok: true, session };
}

/** The session id in a widget address (`<origin>/widget/<id>`), or null when it is not one. */
export function sessionIdOf(widgetUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(widgetUrl);
  } catch {
    return null;
  }
  const match = /^\/widget\/([A-Za-z0-9_-]+)\/?$/.exec(url.pathname);
  return match?.[1] ?? null;
}
