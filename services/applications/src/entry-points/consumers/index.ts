import { Topics, type EnrichmentResultType, type ProviderCallback } from '@loan/contracts';
import type { InboundMessage } from '@loan/runtime';
import type { createCommandHandler } from './handleCommand';
import type { createProjectClientHandler } from './projectClient';
import type { createFactHandlers } from './recordFacts';

type Handler = (message: InboundMessage) => Promise<void>;

/**
 * The topics the service consumes and the handler of each, by the consumer group that reads
 * them (`ConsumerGroups`). Messages arrive parsed and validated against their topic's schema
 * (anything else was dead-lettered by the bus).
 */
export function consumerHandlers(handlers: {
  onCommand: ReturnType<typeof createCommandHandler>;
  facts: ReturnType<typeof createFactHandlers>;
  projectClient: ReturnType<typeof createProjectClientHandler>;
}): Record<keyof typeof ConsumerGroups, Record<string, Handler>> {
  const { onCommand, facts, projectClient } = handlers;
  return {
    commands: { [Topics.applicationCommands]: onCommand },
    facts: {
      [Topics.providerCallbacks]: facts.onProviderCallback,
      [Topics.enrichmentResults]: facts.onEnrichmentResult,
      [Topics.scoringResults]: facts.onScoringResult,
      [Topics.deadlines]: facts.onDeadline,
      // The lender's record retention, taken when an application ends.
      [Topics.clients]: projectClient,
    },
  };
}

/**
 * The consumer groups of the service. Commands have one of their own, so that a lender's call
 * never waits behind a fetch of facts: kafkajs fetches again only once every batch of the last
 * fetch is handled. Facts kept the group the service had when it read everything in one.
 */
export const ConsumerGroups = {
  /** `loan.applications.commands`. */
  commands: 'applications-commands',
  /** Every other topic the service reads. */
  facts: 'applications',
} as const;

/**
 * recordEnrichment acts on an account's outcome and on a scrub of its bank data (which clears
 * the monthly flows it keeps), onProviderCallback on a linked account only; the other kinds are
 * passed over undecoded.
 */
export const HANDLED_FACTS: Partial<Record<string, readonly (EnrichmentResultType | ProviderCallback['kind'])[]>> = {
  [Topics.enrichmentResults]: ['AccountEnriched', 'EnrichmentTimedOut', 'BankDataScrubbed'],
  [Topics.providerCallbacks]: ['account_connected'],
};

export { createCommandHandler } from './handleCommand';
export { createProjectClientHandler } from './projectClient';
export { createFactHandlers } from './recordFacts';
