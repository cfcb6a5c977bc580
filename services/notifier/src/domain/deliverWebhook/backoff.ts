import type { DeliveryPolicy, Round } from '../delivery';

/**
 * Delay before retry number `retry` (1-based): the base, doubled for each retry before it.
 * With a 10 s base: 10, 20, 40, 80, 160 s.
 */
export function retryDelayMs(retry: number, baseMs: number): number {
  if (!Number.isInteger(retry) || retry < 1) throw new RangeError(`retry must be a positive integer, got ${retry}`);
  return baseMs * 2 ** (retry - 1);
}

/** Every retry delay of a full round, in order. */
export function retrySchedule(policy: Pick<DeliveryPolicy, 'retryBaseMs' | 'maxRetries'>): number[] {
  return Array.from({ length: policy.maxRetries }, (_, i) => retryDelayMs(i + 1, policy.retryBaseMs));
}

/** How long a full round lasts from its first attempt to its last (not counting the attempts). */
export function roundSpanMs(policy: Pick<DeliveryPolicy, 'retryBaseMs' | 'maxRetries'>): number {
  return retrySchedule(policy).reduce((sum, delay) => sum + delay, 0);
}

/** The first round of a delivery, and the round a replay starts: 1 + WEBHOOK_MAX_RETRIES attempts. */
export const fullRound = (policy: Pick<DeliveryPolicy, 'maxRetries'>): Round => ({
  attempts: 0,
  size: 1 + policy.maxRetries,
});

/** The round of a manual redelivery: one attempt, now. */
export const singleAttemptRound = (): Round => ({ attempts: 0, size: 1, manual: true });
