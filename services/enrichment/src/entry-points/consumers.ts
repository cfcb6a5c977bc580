import {
  Topics,
  type ApplicationFact,
  type ApplicationFactType,
  type DeadlinePassed,
  type ProviderCallback,
} from '@loan/contracts';
import type { InboundMessage } from '@loan/runtime';
import { PROVIDER_CALLBACKS_ACTED_ON, type EnrichmentWorkflow } from '../workflow';

/**
 * The facts and provider webhooks the service acts on (`onApplicationFact`,
 * `onProviderCallback`); the others are passed over undecoded.
 */
export const HANDLED_FACTS: Partial<Record<string, readonly (ApplicationFactType | ProviderCallback['kind'])[]>> = {
  [Topics.applicationFacts]: ['AccountLinked', 'EnrichmentRestartRequested', 'ApplicationClosed'],
  [Topics.providerCallbacks]: PROVIDER_CALLBACKS_ACTED_ON,
};

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
