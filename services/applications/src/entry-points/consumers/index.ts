import { Topics, type EnrichmentResultType } from '@loan/contracts';
import type { InboundMessage } from '@loan/runtime';
import type { createCommandHandler } from './handleCommand';
import type { createFactHandlers } from './recordFacts';

/**
 * The topics the service consumes and the handler of each. Messages arrive parsed and
 * validated against their topic's schema (anything else was dead-lettered by the bus).
 */
export function consumerHandlers(handlers: {
  onCommand: ReturnType<typeof createCommandHandler>;
  facts: ReturnType<typeof createFactHandlers>;
}): Record<string, (message: InboundMessage) => Promise<void>> {
  const { onCommand, facts } = handlers;
  return {
    [Topics.applicationCommands]: onCommand,
    [Topics.providerCallbacks]: facts.onProviderCallback,
    [Topics.enrichmentResults]: facts.onEnrichmentResult,
    [Topics.scoringResults]: facts.onScoringResult,
    [Topics.deadlines]: facts.onDeadline,
  };
}

/** recordEnrichment acts on an account's outcome only (a scrub of bank data is not one). */
export const HANDLED_FACTS: Partial<Record<string, readonly EnrichmentResultType[]>> = {
  [Topics.enrichmentResults]: ['AccountEnriched', 'EnrichmentTimedOut', 'BankDataScrubbed'],
};

export { createCommandHandler } from './handleCommand';
export { createFactHandlers } from './recordFacts';
