import { Topics, type ApplicationFact, type ApplicationFactType, type EnrichmentResultType } from '@loan/contracts';
import { continueAfter, type InboundMessage } from '@loan/runtime';
import type { createAnalysisHandler } from './analyzeApplication';
import type { createProfileHandlers } from './projectProfiles';
import type { OutcomeRepository } from '../../data-access/outcomeRepository';

/**
 * The topics the service consumes and the handler of each. Messages arrive parsed and
 * validated against their topic's schema (anything else was dead-lettered by the bus).
 */
export function consumerHandlers(handlers: {
  analyze: ReturnType<typeof createAnalysisHandler>;
  profiles: ReturnType<typeof createProfileHandlers>;
  /** Where reviews and answers to offers are kept, for the loans' outcomes. */
  grants: Pick<OutcomeRepository, 'recordReview' | 'recordOffer'>;
}): Record<string, (message: InboundMessage) => Promise<void>> {
  const { analyze, profiles, grants } = handlers;
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
      else if (fact.type === 'DecisionReviewed')
        await grants.recordReview(fact.applicationId, {
          outcome: fact.outcome,
          terms: fact.terms ? { amount: fact.terms.amount, tenor: fact.terms.tenor } : null,
          reviewedAt: fact.reviewedAt,
        });
      else if (fact.type === 'OfferAnswered')
        await grants.recordOffer(fact.applicationId, { response: fact.response, answeredAt: fact.answeredAt });
    },
  };
}

/** What the handlers act on; the other kinds are passed over undecoded. */
export const HANDLED_FACTS = {
  [Topics.enrichmentResults]: ['AccountEnriched', 'BankDataScrubbed'] satisfies EnrichmentResultType[],
  [Topics.applicationFacts]: [
    'AnalysisRequested',
    'ApplicationClosed',
    'DecisionReviewed',
    'OfferAnswered',
  ] satisfies ApplicationFactType[],
};

export { createAnalysisHandler } from './analyzeApplication';
export { createProfileHandlers } from './projectProfiles';
