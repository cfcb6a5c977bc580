import { createSealer } from '@loan/runtime';
import { createConsoleSessions } from './consoleSession';

const sealer = createSealer('a-data-key-for-console-sessions');
const sessions = createConsoleSessions({ sealer, ttlMs: 60 * 60_000 });
const now = new Date('2026-11-24T10:00:00Z');

describe('console sessions', () => {
  it('when a session is issued, then the cookie value opens to the same key and token, and hides the key', () => {
    const { session, sealed } = sessions.issue('lk_secret_key', now);
    expect(sealed).not.toContain('lk_secret_key');
    expect(sessions.open(sealed, now)).toEqual(session);
    expect(session.expiresAt.toISOString()).toBe('2026-11-24T11:00:00.000Z');
    expect(session.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('when two sessions are issued for one key, then their CSRF tokens differ', () => {
    expect(sessions.issue('k', now).session.csrfToken).not.toBe(sessions.issue('k', now).session.csrfToken);
  });

  it('when the session has expired, then it does not open', () => {
    const { sealed } = sessions.issue('k', now);
    expect(sessions.open(sealed, new Date(now.getTime() + 60 * 60_000))).toBeNull();
    expect(sessions.open(sealed, new Date(now.getTime() + 60 * 60_000 - 1))).not.toBeNull();
  });

  it('when the cookie is tampered with, absent, sealed under another data key or another kind of sealed value, then it does not open', () => {
    const { sealed } = sessions.issue('k', now);
    const flipped = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'B' : 'A') + sealed.slice(-1);
    expect(sessions.open(flipped, now)).toBeNull();
    expect(sessions.open(undefined, now)).toBeNull();
    expect(sessions.open('not-a-session', now)).toBeNull();
    const other = createConsoleSessions({ sealer: createSealer('another-data-key-entirely'), ttlMs: 60_000 });
    expect(sessions.open(other.issue('k', now).sealed, now)).toBeNull();
    // A provider key sealed by the same gateway is not a session.
    expect(sessions.open(sealer.seal('test_sk_sandbox'), now)).toBeNull();
    expect(sessions.open(sealer.seal(JSON.stringify({ k: 'k', c: 'c', e: now.getTime() + 1000 })), now)).toBeNull();
  });
});
