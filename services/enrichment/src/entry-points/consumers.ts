import { Topics, type ApplicationFact, type DeadlinePassed, type ProviderCallback } from '@loan/contracts';
import type { InboundMessage } from '@loan/runtime';
import type { EnrichmentWorkflow } from '../workflow';

/**
 * The topics the service consumes and what each message asks of it. Messages arrive parsed
 * and validated against their topic's schema (anything else was dead-lettered by the bus).
 */
export function consumerHandlers(
  workflow: EnrichmentWorkflow,
): Record<string, (message: InboundMessage) => Promise<void>> {
  return {
    [Topics.applicationFacts]: (message) => workflow.onApplicationFact(message.value as ApplicationFact),
    [Topics.providerCallbacks]: (message) => workflow.onProviderCallback(message.value as ProviderCallback),
    [Topics.deadlines]: (message) => workflow.onDeadline(message.value as DeadlinePassed),
  };
}
