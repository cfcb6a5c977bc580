import { Topics, type ApplicationFactType, type EnrichmentResultType } from '@loan/contracts';
import type { InboundMessage } from '@loan/runtime';
import { CONSUMED_TOPICS } from '../../data-access/topics';
import type { createFactHandler } from './trackFacts';

/**
 * The topics the service consumes and the handler of each: every fact it consumes goes to
 * `trackFacts`. Messages arrive parsed and validated against their topic's schema (anything
 * else was dead-lettered by the bus).
 */
export function consumerHandlers(handlers: {
  trackFact: ReturnType<typeof createFactHandler>;
}): Record<string, (message: InboundMessage) => Promise<void>> {
  return Object.fromEntries(CONSUMED_TOPICS.map((topic) => [topic, handlers.trackFact]));
}

/**
 * The kinds of fact that concern a deadline (`trackFact`); the others (`LinkingFinalized`,
 * `EnrichmentTimedOut`, `BankDataScrubbed`) are passed over undecoded.
 */
export const TRACKED_FACT_TYPES: Partial<Record<string, readonly (ApplicationFactType | EnrichmentResultType)[]>> = {
  [Topics.applicationFacts]: [
    'ApplicationOpened',
    'ApplicationResumed',
    'AccountLinked',
    'EnrichmentRestartRequested',
    'AnalysisRequested',
    'ApplicationClosed',
    'ConsentRecorded',
    'ConsentEnded',
    'OfferMade',
    'OfferAnswered',
  ],
  [Topics.enrichmentResults]: ['AccountEnriched'],
};

export { createFactHandler } from './trackFacts';
