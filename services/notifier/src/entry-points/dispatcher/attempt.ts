import { SpanKind, contextOf, inSpan, lenderPseudonym, type Clock, type Logger, type Sealer } from '@loan/runtime';
import type { DeliveryRepository } from '../../data-access/deliveryRepository';
import type { EndpointRepository } from '../../data-access/endpointRepository';
import type { WebhookClient, WebhookResult } from '../../data-access/webhookClient';
import { afterAttempt, planAttempt, refused, type Step } from '../../domain/deliverWebhook/decide';
import { signatureHeaders, type SigningSecret } from '../../domain/deliverWebhook/signature';
import {
  Reasons,
  scheduleEntryOf,
  type Attempt,
  type Delivery,
  type DeliveryPolicy,
  type EndpointSecret,
  type ScheduleEntry,
} from '../../domain/delivery';
import type { AttemptOutcome, NotifierMetrics } from '../../metrics';
import type { Claim } from './claims';

export interface AttemptDeps {
  repo: DeliveryRepository;
  endpoints: Pick<EndpointRepository, 'get'>;
  client: WebhookClient;
  sealer: Sealer;
  clock: Clock;
  policy: DeliveryPolicy;
  timeoutMs: number;
  metrics: NotifierMetrics;
  logger: Logger;
  /** True once the process is going down hard: nothing more is written. */
  halted: () => boolean;
}

const outcomeDelivered = (a: Attempt) => a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300;

function outcomeOf(result: Exclude<WebhookResult, { kind: 'refused' }>): AttemptOutcome {
  if (result.kind !== 'answered') return result.kind;
  if (result.statusCode >= 200 && result.statusCode < 300) return 'delivered';
  return result.statusCode >= 300 && result.statusCode < 400 ? 'redirect' : 'http_error';
}

function attemptOf(
  at: Date,
  result: Exclude<WebhookResult, { kind: 'refused' }>,
  outcome: AttemptOutcome,
  manual: boolean,
): Attempt {
  if (result.kind === 'answered') {
    const error = outcome === 'redirect' ? 'redirects are not followed' : null;
    return { at, statusCode: result.statusCode, error, durationMs: result.durationMs, manual };
  }
  return { at, statusCode: null, error: result.error, durationMs: result.durationMs, manual };
}

/**
 * One attempt of a claimed delivery: load the client's endpoint, decide, POST the exact stored
 * body with its signatures, then record the attempt and the next step (retry time or settled
 * status). Resolves with the delivery's new schedule entry, or null once it has settled; the
 * dispatcher releases the claim.
 */
export function createAttemptRunner(deps: AttemptDeps) {
  const { repo, clock, policy, metrics, logger } = deps;
  const opened = new Map<string, string>();

  function open(secrets: EndpointSecret[]): SigningSecret[] {
    return secrets.map((s) => {
      let plain = opened.get(s.secret);
      if (plain === undefined) {
        plain = deps.sealer.open(s.secret);
        if (opened.size > 1_000) opened.clear();
        opened.set(s.secret, plain);
      }
      return { secret: plain, validUntil: s.validUntil };
    });
  }

  async function send(
    delivery: Delivery,
    url: URL,
    secrets: SigningSecret[],
    startedAt: Date,
  ): Promise<{ step: Step; attempt: Attempt | null }> {
    const signatures = signatureHeaders(delivery.body, secrets, startedAt, delivery.deliveryId);
    if (!signatures) {
      return {
        step: { status: 'FAILED', nextAttemptAt: null, reason: Reasons.noWebhookSecret, round: delivery.round },
        attempt: null,
      };
    }
    if (delivery.attempts.length === 0) {
      metrics.firstAttemptDelay.observe(Math.max(0, startedAt.getTime() - delivery.eventAt.getTime()) / 1000);
    }
    const number = delivery.attempts.length + 1;
    // A span per attempt, retries included, in the trace of the event it delivers.
    const clientId = lenderPseudonym(delivery.clientId);
    const result = await inSpan(
      `webhook attempt ${delivery.event}`,
      {
        kind: SpanKind.CLIENT,
        parent: delivery.trace ? contextOf(delivery.trace) : undefined,
        attributes: {
          'loan.application_id': delivery.applicationId,
          ...(clientId ? { 'loan.client_id': clientId } : {}),
          'loan.delivery_id': delivery.deliveryId,
          'loan.event_id': delivery.eventId,
          'loan.event': delivery.event,
          'loan.delivery_attempt': number,
        },
      },
      async (span) => {
        const answer = await deps.client.post({
          url,
          body: delivery.body,
          timeoutMs: deps.timeoutMs,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'loan-notifier/1.0',
            'x-event-id': delivery.eventId,
            'x-event-name': delivery.event,
            'x-delivery-id': delivery.deliveryId,
            'x-delivery-attempt': String(number),
            ...signatures,
          },
        });
        span.setAttribute('loan.delivery_outcome', answer.kind === 'refused' ? 'refused' : outcomeOf(answer));
        if (answer.kind === 'answered') span.setAttribute('http.response.status_code', answer.statusCode);
        return answer;
      },
    );
    if (result.kind === 'refused') return { step: refused(delivery.round, result.reason), attempt: null };
    const outcome = outcomeOf(result);
    metrics.attempts.inc({ outcome });
    metrics.attemptDuration.observe({ outcome }, result.durationMs / 1000);
    const attempt = attemptOf(startedAt, result, outcome, delivery.round.manual === true);
    const step = afterAttempt({
      round: delivery.round,
      delivered: outcome === 'delivered',
      deliveredBefore: delivery.deliveredAt !== null,
      at: clock.now(),
      policy,
    });
    return { step, attempt };
  }

  return async function run(claim: Claim): Promise<ScheduleEntry | null> {
    const { delivery } = claim;
    const startedAt = clock.now();
    const endpoint = await deps.endpoints.get(delivery.clientId);
    const plan = planAttempt(delivery, endpoint, startedAt, policy);
    let step: Step;
    let attempt: Attempt | null = null;
    if (plan.kind === 'settle') {
      step = plan.step;
    } else {
      let secrets: SigningSecret[];
      try {
        secrets = open(plan.endpoint.webhookSecrets);
      } catch (error) {
        logger.error({ err: error, clientId: delivery.clientId }, 'webhook secret cannot be opened; check DATA_KEY');
        secrets = [];
      }
      ({ step, attempt } = await send(delivery, plan.url, secrets, startedAt));
    }
    if (deps.halted()) return scheduleEntryOf(delivery);

    const now = clock.now();
    if (now.getTime() > claim.expiresAt.getTime()) {
      // Past the lease another replica may have taken over; write only if it has not.
      const fresh = await repo.get(delivery.deliveryId);
      if (!fresh || fresh.version !== delivery.version) {
        logger.warn({ deliveryId: delivery.deliveryId }, 'attempt outlived its claim; another replica took over');
        return fresh && fresh.status === 'PENDING' ? scheduleEntryOf(fresh) : null;
      }
    }
    const next: Delivery = {
      ...delivery,
      status: step.status,
      reason: step.reason,
      round: step.round,
      nextAttemptAt: step.nextAttemptAt,
      attempts: attempt ? [...delivery.attempts, attempt] : delivery.attempts,
      version: delivery.version + 1,
      updatedAt: now,
      deliveredAt: attempt && outcomeDelivered(attempt) ? now : delivery.deliveredAt,
    };
    await repo.save(next);
    if (next.status === 'PENDING') {
      const entry = scheduleEntryOf(next);
      if (claim.unscheduled) await repo.addEntry(entry);
      else await repo.setEntry(entry);
      return entry;
    }
    if (!claim.unscheduled) await repo.removeEntry(next.deliveryId);
    metrics.settled.inc({ status: next.status });
    if (next.status === 'FAILED' || next.status === 'SKIPPED') {
      logger.info(
        {
          deliveryId: next.deliveryId,
          eventId: next.eventId,
          clientId: next.clientId,
          status: next.status,
          reason: next.reason,
        },
        'delivery settled without a 2xx',
      );
    }
    return null;
  };
}
export type AttemptRunner = ReturnType<typeof createAttemptRunner>;
