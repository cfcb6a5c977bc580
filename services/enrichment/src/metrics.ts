import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { BreakerState } from './data-access/provider';

const BREAKER_VALUE: Record<BreakerState, number> = { closed: 0, half_open: 1, open: 2 };

/** The enrichment service's own metrics, on the service's registry. */
export function createEnrichmentMetrics(registry: Registry) {
  const jobs = new Counter({
    name: 'enrichment_jobs_total',
    help: 'Enrichment jobs by outcome (started, restarted, enriched, timed_out, closed, scrubbed)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'enrichment_duration_seconds',
    help: 'Time from the start of an enrichment attempt (link or re-link) to the account being enriched',
    buckets: [1, 5, 15, 30, 60, 120, 300, 600, 900, 1200, 1800],
    registers: [registry],
  });
  const breaker = new Gauge({
    name: 'enrichment_provider_breaker_state',
    help: 'Circuit breaker in front of the account-linking provider: 0 closed, 1 half-open, 2 open',
    registers: [registry],
  });
  const providerCalls = new Counter({
    name: 'enrichment_provider_calls_total',
    help: 'Calls to the account-linking provider by call and outcome (ok, not_ready, failed)',
    labelNames: ['call', 'outcome'] as const,
    registers: [registry],
  });
  const pending = new Gauge({
    name: 'enrichment_jobs_pending',
    help: 'Enrichments still waiting for the provider',
    registers: [registry],
  });
  breaker.set(0);
  // The name every adapter's breaker shares across services (dashboards and alerts read it).
  const breakerOpen = new Gauge({
    name: 'circuit_breaker_open',
    help: '1 while the circuit breaker of an adapter is open',
    labelNames: ['adapter'] as const,
    registers: [registry],
  });
  breakerOpen.set({ adapter: 'provider' }, 0);
  return {
    jobs,
    duration,
    breaker,
    providerCalls,
    pending,
    breakerState: (state: BreakerState) => {
      breaker.set(BREAKER_VALUE[state]);
      breakerOpen.set({ adapter: 'provider' }, state === 'open' ? 1 : 0);
    },
  };
}
export type EnrichmentMetrics = ReturnType<typeof createEnrichmentMetrics>;
