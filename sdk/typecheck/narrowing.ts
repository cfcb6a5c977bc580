/**
 * `verifyWebhook` returns a union narrowed by `event`: a switch over it reaches each event's
 * own data, and one that forgets an event does not compile. Nothing here runs.
 */
import { verifyWebhook, type Decision, type WebhookEvent } from '../src/index';

export function describeEvent(event: WebhookEvent): string {
  switch (event.event) {
    case 'account.linked':
      return `${event.data.institution} ${event.data.accountNumber}`;
    case 'account.enrichment_ready':
      return event.data.providerAccountId;
    case 'application.ready_for_analysis':
      return String(event.data.accountCount);
    case 'account.enrichment_failed':
      return event.data.reason satisfies 'enrichment_timeout';
    case 'application.failed':
      return event.data.reason;
    case 'application.abandoned':
      return event.data.reason satisfies 'no_link' | 'no_analyze';
    case 'application.decision': {
      const decision: Decision = event.data.decision;
      return decision.decision;
    }
    case 'application.review_completed':
      return `${event.data.outcome} by ${event.data.reviewer}`;
    case 'application.offer_accepted':
      return `accepted, cooling off until ${event.data.coolingOffEndsAt}`;
    case 'application.offer_declined':
      return event.data.declinedAt;
    case 'application.offer_withdrawn':
      return event.data.withdrawnAt;
    case 'account.consent_ended':
      return event.data.reason satisfies 'WITHDRAWN' | 'EXPIRED' | 'LAPSED';
    case 'account.data_erased':
      return event.data.receipt;
    case 'application.offer_expired':
      return event.data.expiredAt;
    default:
      return event satisfies never;
  }
}

export function decisionOnly(raw: Buffer, signature: string): number | null {
  const event = verifyWebhook(raw, signature, ['whsec_example']);
  // @ts-expect-error: only application.decision carries a decision
  void event.data.decision;
  return event.event === 'application.decision' ? event.data.decision.score : null;
}
