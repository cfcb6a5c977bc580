import { endOf, isLive, issueSession, looksLikeSessionToken, sessionIdOf, touchIsDue } from './consoleSession';

const times = { ttlMs: 8 * 60 * 60_000, idleMs: 30 * 60_000 };
const now = new Date('2026-11-24T10:00:00Z');
const at = (ms: number) => new Date(now.getTime() + ms);

describe('console sessions', () => {
  it('when a session is issued, then the cookie token is random, only its hash is the id, and the CSRF tokens differ', () => {
    const one = issueSession({ clientId: 'c', userId: null, role: null, via: 'api-key' }, now, times);
    const two = issueSession({ clientId: 'c', userId: null, role: null, via: 'api-key' }, now, times);
    expect(looksLikeSessionToken(one.token)).toBe(true);
    expect(one.session.id).toBe(sessionIdOf(one.token));
    expect(one.session.id).not.toContain(one.token);
    expect(one.token).not.toBe(two.token);
    expect(one.session.csrfToken).not.toBe(two.session.csrfToken);
    expect(one.session.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(one.session.expiresAt.toISOString()).toBe('2026-11-24T18:00:00.000Z');
  });

  it('when a session is not used for its idle time, then it ends, and a used one ends at its absolute end at the latest', () => {
    const { session } = issueSession({ clientId: 'c', userId: 'u', role: 'viewer', via: 'password' }, now, times);
    expect(isLive(session, at(30 * 60_000 - 1), times)).toBe(true);
    expect(isLive(session, at(30 * 60_000), times)).toBe(false);
    const active = { ...session, lastSeenAt: at(8 * 60 * 60_000 - 60_000) };
    expect(endOf(active, times)).toEqual(session.expiresAt);
    expect(isLive(active, at(8 * 60 * 60_000), times)).toBe(false);
  });

  it('when a session is used, then its activity is recorded once a tenth of the idle time (at most a minute) has passed', () => {
    const { session } = issueSession({ clientId: 'c', userId: null, role: null, via: 'api-key' }, now, times);
    expect(touchIsDue(session, at(59_999), times)).toBe(false);
    expect(touchIsDue(session, at(60_000), times)).toBe(true);
    expect(touchIsDue(session, at(1_000), { ...times, idleMs: 10_000 })).toBe(true);
  });

  it('when a cookie value is not a token, then it is not taken for one', () => {
    for (const value of [undefined, '', 'short', 'x'.repeat(44), `${'a'.repeat(42)}!`])
      expect(looksLikeSessionToken(value)).toBe(false);
  });
});
