import { checkWebhookUrl } from '@loan/contracts';
import type { Delivery, DeliveryPolicy, DeliveryStatus, Endpoint, Round } from '../delivery';
import { Reasons } from '../delivery';
import { retryDelayMs, roundSpanMs } from './backoff';

/** What a delivery becomes after a step: its status, when it is next due, and why it stopped. */
export interface Step {
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  reason: string | null;
  round: Round;
}

/** What to do with a due delivery, given the client's endpoint as the notifier knows it. */
export type Plan = { kind: 'send'; url: URL; endpoint: Endpoint } | { kind: 'settle'; step: Step };

/**
 * Decides whether a due delivery is sent. A client with no webhook URL gets SKIPPED (nothing
 * to send to; a redelivery after a URL is set sends it). A client the notifier has not heard
 * of yet (its account change may still be on the way) is checked again after the retry base,
 * for as long as a full retry round would last, then FAILED. A refused target fails at once:
 * retrying would not change the URL.
 */
export function planAttempt(delivery: Delivery, endpoint: Endpoint | null, now: Date, policy: DeliveryPolicy): Plan {
  const { round } = delivery;
  if (!endpoint) {
    const waited = now.getTime() - delivery.createdAt.getTime();
    if (waited < Math.max(roundSpanMs(policy), policy.retryBaseMs)) {
      return {
        kind: 'settle',
        step: { status: 'PENDING', nextAttemptAt: new Date(now.getTime() + policy.retryBaseMs), reason: null, round },
      };
    }
    return { kind: 'settle', step: { status: 'FAILED', nextAttemptAt: null, reason: Reasons.unknownClient, round } };
  }
  if (!endpoint.webhookUrl) {
    return { kind: 'settle', step: { status: 'SKIPPED', nextAttemptAt: null, reason: Reasons.noWebhookUrl, round } };
  }
  const target = checkWebhookUrl(endpoint.webhookUrl, { allowPrivate: policy.allowPrivate });
  if (!target.ok) return { kind: 'settle', step: refused(round, target.reason) };
  if (endpoint.webhookSecrets.length === 0) {
    return { kind: 'settle', step: { status: 'FAILED', nextAttemptAt: null, reason: Reasons.noWebhookSecret, round } };
  }
  return { kind: 'send', url: target.url, endpoint };
}

/** A target the rules refuse: FAILED with the reason, no retry. */
export function refused(round: Round, why: string): Step {
  return { status: 'FAILED', nextAttemptAt: null, reason: `${Reasons.urlRefused}: ${why}`, round };
}

/**
 * After an attempt: a 2xx delivers; anything else (non-2xx, 3xx, timeout, connection error)
 * schedules the next retry of the round, or fails the delivery when the round is spent. An
 * event the receiver once accepted stays DELIVERED: a redelivery that fails later is an attempt
 * of its own in the log, not a rewrite of the earlier success as a failure.
 */
export function afterAttempt(args: {
  round: Round;
  delivered: boolean;
  /** Whether an earlier attempt of this delivery got a 2xx. */
  deliveredBefore?: boolean;
  at: Date;
  policy: DeliveryPolicy;
}): Step {
  const round: Round = { ...args.round, attempts: args.round.attempts + 1 };
  if (args.delivered) return { status: 'DELIVERED', nextAttemptAt: null, reason: null, round };
  if (round.attempts >= round.size) {
    if (args.deliveredBefore) return { status: 'DELIVERED', nextAttemptAt: null, reason: null, round };
    return { status: 'FAILED', nextAttemptAt: null, reason: Reasons.retriesExhausted, round };
  }
  return {
    status: 'PENDING',
    nextAttemptAt: new Date(args.at.getTime() + retryDelayMs(round.attempts, args.policy.retryBaseMs)),
    reason: null,
    round,
  };
}
