import axios, { type AxiosInstance } from 'axios';
import CircuitBreaker from 'opossum';
import type { Logger } from '@loan/runtime';
import { normaliseCrcResponse } from './normalise';
import type { BureauOutcome, CreditBureau } from '../../domain/bureauReport';

/**
 * Client of a CRC-shaped consumer report API (the sandbox speaks the same). A timeout, a 5xx,
 * an answer over the size cap or one whose fields have another shape (checked with zod before
 * use) is UNAVAILABLE: the decision still completes, flagged for review.
 */
export function createHttpBureau(options: {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  logger: Logger;
  /** Largest answer read; a credit report is tens of KB, one far larger is refused rather than buffered. */
  maxResponseBytes?: number;
  onBreakerState?: (state: 'open' | 'half_open' | 'closed') => void;
}): CreditBureau & { breaker: CircuitBreaker } {
  const http: AxiosInstance = axios.create({
    baseURL: options.baseUrl,
    timeout: options.timeoutMs,
    headers: { 'content-type': 'application/json', 'x-api-key': options.apiKey },
    maxRedirects: 0,
    maxContentLength: options.maxResponseBytes ?? 2 * 1024 * 1024,
  });
  const breaker = new CircuitBreaker(
    async (bvn: string) => (await http.post('/bureau/v1/consumer/report', { bvn })).data as unknown,
    { timeout: false, errorThresholdPercentage: 50, resetTimeout: 30_000, volumeThreshold: 5 },
  );
  breaker.on('open', () => options.onBreakerState?.('open'));
  breaker.on('halfOpen', () => options.onBreakerState?.('half_open'));
  breaker.on('close', () => options.onBreakerState?.('closed'));

  return {
    breaker,
    async lookup(bvn: string): Promise<BureauOutcome> {
      try {
        const body = await breaker.fire(bvn);
        return normaliseCrcResponse(body, { bvn, pulledAt: new Date() });
      } catch (error) {
        const reason = axios.isAxiosError(error)
          ? error.response
            ? `bureau answered ${error.response.status}`
            : error.code === 'ERR_BAD_RESPONSE'
              ? `bureau answer refused: ${error.message}`
              : `bureau unreachable: ${error.code ?? error.message}`
          : String((error as Error).message ?? error);
        options.logger.warn({ reason }, 'credit bureau unavailable');
        return { status: 'UNAVAILABLE', reason };
      }
    },
  };
}
