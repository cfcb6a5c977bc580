import type { LinkClosedReason, LinkSession } from './store';

export type SessionLookup =
  | { ok: true; session: LinkSession }
  | { ok: false; error: 'SESSION_NOT_FOUND' | 'SESSION_EXPIRED' }
  | { ok: false; error: 'SESSION_CLOSED'; session: LinkSession };

/**
 * A session is usable until its expiry, or until its caller closes it (the application no
 * longer takes accounts); after that its widget address is dead.
 */
export function lookupSession(sessions: ReadonlyMap<string, LinkSession>, id: string, now: Date): SessionLookup {
  const session = sessions.get(id);
  if (!session) return { ok: false, error: 'SESSION_NOT_FOUND' };
  if (now.getTime() >= session.expiresAt.getTime()) return { ok: false, error: 'SESSION_EXPIRED' };
  if (session.closed) return { ok: false, error: 'SESSION_CLOSED', session };
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

/**
 * Why a closed session takes no more accounts, in the applicant's words: the widget's page and
 * the headless link's error say it.
 */
export function closedExplanation(session: Pick<LinkSession, 'purpose'>, reason: LinkClosedReason): string {
  const lender = session.purpose?.lenderName ?? 'The lender';
  switch (reason) {
    case 'linking_finalized':
      return `${lender} already has the accounts for this loan application: linking was completed, so no more accounts can be added.`;
    case 'decided':
      return `${lender} has already decided this loan application, so no more bank accounts can be linked to it.`;
    case 'failed':
      return `This loan application with ${lender} has ended, so no more bank accounts can be linked to it.`;
    case 'abandoned':
      return `This loan application with ${lender} has lapsed, so no more bank accounts can be linked to it. Ask ${lender} to start again.`;
    default:
      return `${lender} no longer accepts bank accounts for this loan application.`;
  }
}
