import {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  RATE_LIMIT_FALLBACK_MS,
  retryAfterMs,
  retryDelay,
  type RetryPolicy,
} from './backoff';

const policy: RetryPolicy = { maxRetries: 3, baseDelayMs: 1_000, maxDelayMs: 30_000, maxRateLimitWaitMs: 65_000 };
const low = () => 0;
const high = () => 0.999999;
const now = Date.parse('2026-11-20T09:00:00.000Z');
const status = (code: number, headers: Record<string, string> = {}) => ({
  kind: 'status' as const,
  status: code,
  headers: new Headers(headers),
});

describe('backoffDelay', () => {
  it('when retries follow one another, then each ceiling doubles from the base (1 s, 2 s, 4 s) and the delay lies between half and all of it', () => {
    expect([0, 1, 2].map((n) => backoffDelay(n, policy, low))).toEqual([500, 1_000, 2_000]);
    expect([0, 1, 2].map((n) => backoffDelay(n, policy, high))).toEqual([1_000, 2_000, 4_000]);
    for (let n = 0; n < 3; n++) {
      const d = backoffDelay(n, policy);
      expect(d).toBeGreaterThanOrEqual(500 * 2 ** n);
      expect(d).toBeLessThanOrEqual(1_000 * 2 ** n);
    }
  });

  it('when many retries are made, then no delay exceeds maxDelayMs', () => {
    expect(backoffDelay(40, policy, high)).toBe(30_000);
    expect(backoffDelay(40, policy, low)).toBe(15_000);
  });

  it('when two clients retry at the same moment, then the jitter spreads them apart', () => {
    const delays = new Set(Array.from({ length: 50 }, () => backoffDelay(3, policy)));
    expect(delays.size).toBeGreaterThan(10);
  });

  it('follows the spec by default: three retries from one second', () => {
    expect(DEFAULT_RETRY_POLICY).toMatchObject({ maxRetries: 3, baseDelayMs: 1_000 });
  });
});

describe('retryAfterMs', () => {
  it('reads Retry-After in seconds or as an HTTP date', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '17' }), now)).toBe(17_000);
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(now + 42_000).toUTCString() }), now)).toBe(42_000);
  });

  it('falls back to the IETF RateLimit headers and to X-RateLimit-Reset (Unix seconds)', () => {
    expect(retryAfterMs(new Headers({ ratelimit: 'limit=30, remaining=0, reset=12' }), now)).toBe(12_000);
    expect(retryAfterMs(new Headers({ 'ratelimit-reset': '9' }), now)).toBe(9_000);
    expect(retryAfterMs(new Headers({ 'x-ratelimit-reset': String(now / 1000 + 25) }), now)).toBe(25_000);
  });

  it('when no header says, then it is null', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeNull();
    expect(retryAfterMs(new Headers(), now)).toBeNull();
  });
});

describe('retryDelay', () => {
  it('when a network error or a 5xx happens, then it backs off exponentially until the retries are used up', () => {
    expect(retryDelay({ kind: 'network' }, 0, policy, now, high)).toBe(1_000);
    expect(retryDelay(status(500), 1, policy, now, high)).toBe(2_000);
    expect(retryDelay(status(503), 2, policy, now, high)).toBe(4_000);
    expect(retryDelay(status(500), 3, policy, now, high)).toBeNull();
    expect(retryDelay({ kind: 'network' }, 3, policy, now, high)).toBeNull();
  });

  it('when the API answers 400, 401, 403, 404 or 409, then it does not retry (the spec: do not retry unchanged)', () => {
    for (const code of [400, 401, 403, 404, 409, 413, 415]) expect(retryDelay(status(code), 0, policy, now)).toBeNull();
  });

  it('when a 429 says Retry-After, then it waits that long (plus under a second of spread)', () => {
    const d = retryDelay(status(429, { 'retry-after': '20' }), 0, policy, now, low);
    expect(d).toBe(20_000);
    expect(retryDelay(status(429, { 'retry-after': '20' }), 0, policy, now, high)).toBeLessThanOrEqual(21_000);
  });

  it('when a 429 says nothing, then it waits the spec’s full minute', () => {
    expect(retryDelay(status(429), 0, policy, now, low)).toBe(RATE_LIMIT_FALLBACK_MS);
  });

  it('when a 429 repeats, then the wait grows with the backoff', () => {
    const big: RetryPolicy = { ...policy, maxRetries: 10, maxDelayMs: 600_000, maxRateLimitWaitMs: 600_000 };
    expect(retryDelay(status(429, { 'retry-after': '1' }), 6, big, now, low)).toBe(32_000);
  });

  it('when the wait is longer than maxRateLimitWaitMs, then it does not retry', () => {
    expect(retryDelay(status(429, { 'retry-after': '120' }), 0, policy, now)).toBeNull();
    expect(retryDelay(status(429, { 'retry-after': '1' }), 0, { ...policy, maxRateLimitWaitMs: 0 }, now)).toBeNull();
  });
});
