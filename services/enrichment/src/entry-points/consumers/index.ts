import {
  Topics,
  type ApplicationFact,
  type ApplicationFactType,
  type DeadlinePassed,
  type ProviderCallback,
} from '@loan/contracts';
import type { InboundMessage } from '@loan/runtime';
import { mustScrub } from '../../domain/scrubBankData/decide';
import type { UseCaseDeps } from '../deps';
import { createCloseHandler } from './closeApplication';
import { type ConsentEndHandler, createConsentEndHandler } from './endConsent';
import { createDeadlineHandler } from './expireDeadline';
import { createRestartHandler } from './restartEnrichment';
import { PROVIDER_CALLBACKS_ACTED_ON, createProviderCallbackHandler } from './signalProviderResult';
import { createAccountLinkedHandler } from './startEnrichment';

/**
 * The facts and provider webhooks the service acts on; the others are passed over undecoded.
 */
export const HANDLED_FACTS: Partial<Record<string, readonly (ApplicationFactType | ProviderCallback['kind'])[]>> = {
  [Topics.applicationFacts]: ['AccountLinked', 'EnrichmentRestartRequested', 'ApplicationClosed', 'ConsentEnded'],
  [Topics.providerCallbacks]: PROVIDER_CALLBACKS_ACTED_ON,
};

/**
 * The topics the service consumes and what each message asks of it. Messages arrive parsed
 * and validated against their topic's schema (anything else was dead-lettered by the bus).
 */
export function consumerHandlers(
  deps: UseCaseDeps,
  consentEnds: Pick<ConsentEndHandler, 'onConsentEnded' | 'unlink'> = createConsentEndHandler(deps),
): Record<string, (message: InboundMessage) => Promise<void>> {
  const onAccountLinked = createAccountLinkedHandler(deps);
  const onRestartRequested = createRestartHandler(deps);
  const onApplicationClosed = createCloseHandler({ ...deps, unlink: (accountId) => consentEnds.unlink(accountId) });
  const onProviderCallback = createProviderCallbackHandler(deps);
  const onDeadline = createDeadlineHandler({ ...deps, onApplicationClosed });

  async function onApplicationFact(fact: ApplicationFact) {
    switch (fact.type) {
      case 'AccountLinked':
        return onAccountLinked(fact);
      case 'EnrichmentRestartRequested':
        return onRestartRequested(fact);
      case 'ApplicationClosed':
        // Abandoned without analysis: scrubbed, and unlinked at the provider.
        return onApplicationClosed(fact, mustScrub(fact), mustScrub(fact));
      case 'ConsentEnded':
        return consentEnds.onConsentEnded(fact);
      default:
        return;
    }
  }

  return {
    [Topics.applicationFacts]: (message) => onApplicationFact(message.value as ApplicationFact),
    [Topics.providerCallbacks]: (message) => onProviderCallback(message.value as ProviderCallback, message),
    [Topics.deadlines]: (message) => onDeadline(message.value as DeadlinePassed),
  };
}
