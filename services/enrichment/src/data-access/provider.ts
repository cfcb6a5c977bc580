import { createMonoClient, type AccountLinkingProvider } from '@loan/provider';
import type { Logger } from '@loan/runtime';
import type { EnrichmentConfig } from '../config';

export type BreakerState = 'open' | 'half_open' | 'closed';

/**
 * The account-linking provider as this service reaches it: Mono's API (or the sandbox) through
 * the shared client, with its retries and circuit breaker tuned by configuration.
 */
export function createProvider(options: {
  config: EnrichmentConfig;
  logger: Logger;
  onBreakerState: (state: BreakerState) => void;
}): AccountLinkingProvider {
  const { config } = options;
  return createMonoClient({
    baseUrl: config.PROVIDER_BASE_URL,
    logger: options.logger,
    timeoutMs: config.PROVIDER_TIMEOUT,
    retries: config.PROVIDER_RETRIES,
    retryBaseMs: config.PROVIDER_RETRY_BASE,
    breaker: { resetTimeoutMs: config.PROVIDER_BREAKER_RESET, volumeThreshold: config.PROVIDER_BREAKER_VOLUME },
    onBreakerState: options.onBreakerState,
  });
}
