import { Topics, type ApplicationFact, type ApplicationFactType, type EnrichmentResultType } from '@loan/contracts';
import { continueAfter, type InboundMessage } from '@loan/runtime';
import type { createAnalysisHandler } from './analyzeApplication';
import type { createProfileHandlers } from './projectProfiles';

/**
 * The topics the service consumes and the handler of each. Messages arrive parsed and
 * validated against their topic's schema (anything else was dead-lettered by the bus).
 */
export function consumerHandlers(handlers: {
  analyze: ReturnType<typeof createAnalysisHandler>;
  profiles: ReturnType<typeof createProfileHandlers>;
}): Record<string, (message: InboundMessage) => Promise<void>> {
  const { analyze, profiles } = handlers;
  return {
    [Topics.enrichmentResults]: profiles.onEnrichmentResult,
    [Topics.applicationFacts]: async (message) => {
      const fact = message.value as ApplicationFact;
      if (fact.type === 'AnalysisRequested') {
        // The decision is stored; its publication goes on while the next fact is handled.
        const { published } = await analyze(fact);
        await continueAfter(message, published);
      } else if (fact.type === 'ApplicationClosed' && fact.abandonReason === 'no_analyze')
        await profiles.scrub(fact.applicationId);
    },
  };
}

/** What the handlers act on; the other kinds are passed over undecoded. */
export const HANDLED_FACTS = {
  [Topics.enrichmentResults]: ['AccountEnriched', 'BankDataScrubbed'] satisfies EnrichmentResultType[],
  [Topics.applicationFacts]: ['AnalysisRequested', 'ApplicationClosed'] satisfies ApplicationFactType[],
};

export { createAnalysisHandler } from './analyzeApplication';
export { createProfileHandlers } from './projectProfiles';
