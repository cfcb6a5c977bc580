/**
 * When to try a call again. Pure: the time and the random source are parameters, so the
 * schedule is tested without waiting.
 */

export interface RetryPolicy {
  /** Retries after the first attempt, for network errors, timeouts, 5xx and 429. */
  maxRetries: number;
  /** The first retry's delay before jitter; each further retry doubles it. */
  baseDelayMs: number;
  /** No single delay is longer than this (429 waits aside). */
  maxDelayMs: number;
  /**
   * The longest a 429 is waited out before retrying. The API's rate windows reset every 60
   * seconds and it says when in `Retry-After`; a wait longer than this throws `RateLimitError`
   * at once, with `retryAfterMs`, for the caller to schedule. 0 never waits on a 429.
   */
  maxRateLimitWaitMs: number;
}

/** The spec's guidance: up to 3 retries from 1 s, doubling (1 s, 2 s, 4 s); 429 waits out its window. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 3,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxRateLimitWaitMs: 65_000,
});

/** What a 429 without `Retry-After` waits: the spec's "at least one full minute". */
export const RATE_LIMIT_FALLBACK_MS = 60_000;

/** Upper bound of the random spread added to a 429 wait, so clients do not all return at once. */
const RATE_LIMIT_SPREAD_MS = 1_000;

/**
 * Exponential backoff with "equal jitter": the n-th retry (0-based) waits between half and all
 * of `min(maxDelayMs, baseDelayMs * 2^n)`. Never zero (a retry at once would meet the same
 * fault), and spread so that many clients do not retry in step.
 */
export function backoffDelay(
  retry: number,
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * How long the API asks to wait after a 429, from `Retry-After` (seconds or an HTTP date), the
 * IETF `RateLimit` / `RateLimit-Reset` headers (seconds), or `X-RateLimit-Reset` (the reset as
 * Unix seconds). Null when none says.
 */
export function retryAfterMs(headers: Headers, now: number): number | null {
  const retryAfter = headers.get('retry-after')?.trim();
  if (retryAfter) {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.round(Number(retryAfter) * 1000);
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  const combined = /(?:^|[;,\s])reset=(\d+)/.exec(headers.get('ratelimit') ?? '');
  const reset = combined?.[1] ?? headers.get('ratelimit-reset')?.trim();
  if (reset && /^\d+$/.test(reset)) return Number(reset) * 1000;
  const resetAt = headers.get('x-ratelimit-reset')?.trim();
  if (resetAt && /^\d+$/.test(resetAt)) return Math.max(0, Number(resetAt) * 1000 - now);
  return null;
}

/** What went wrong with one attempt. */
export type AttemptFailure = { kind: 'network' } | { kind: 'status'; status: number; headers: Headers };

/**
 * The delay before retry number `retry` (0-based) after `failure`, or null when the call must
 * not be retried: a 4xx other than 429, retries used up, or a 429 whose window is further
 * away than `maxRateLimitWaitMs`.
 */
export function retryDelay(
  failure: AttemptFailure,
  retry: number,
  policy: RetryPolicy,
  now: number,
  random: () => number = Math.random,
): number | null {
  if (retry >= policy.maxRetries) return null;
  if (failure.kind === 'network') return backoffDelay(retry, policy, random);
  if (failure.status >= 500) return backoffDelay(retry, policy, random);
  if (failure.status !== 429) return null;
  const asked = retryAfterMs(failure.headers, now) ?? RATE_LIMIT_FALLBACK_MS;
  // A repeated 429 backs off further, as the spec's guidance asks.
  const wait = Math.max(asked, backoffDelay(retry, policy, random)) + Math.round(random() * RATE_LIMIT_SPREAD_MS);
  return wait <= policy.maxRateLimitWaitMs ? wait : null;
}
