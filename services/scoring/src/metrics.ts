import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The scoring service's own metrics, on the service's registry. */
export function createScoringMetrics(registry: Registry) {
  const decisions = new Counter({
    name: 'scoring_decisions_total',
    help: 'Decisions by outcome and band (failed analyses have decision FAILED)',
    labelNames: ['decision', 'band'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'scoring_scorecard_duration_seconds',
    help: 'CPU time of the scorecard for one application',
    buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1],
    registers: [registry],
  });
  const bureauLookups = new Counter({
    name: 'scoring_bureau_lookups_total',
    help: 'Credit bureau lookups by outcome',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const breakerState = new Gauge({
    name: 'circuit_breaker_open',
    help: '1 while the circuit breaker of an adapter is open',
    labelNames: ['adapter'] as const,
    registers: [registry],
  });
  breakerState.set({ adapter: 'bureau' }, 0);
  return {
    decisions,
    duration,
    bureauLookups,
    breakerState: (state: 'open' | 'half_open' | 'closed') =>
      breakerState.set({ adapter: 'bureau' }, state === 'open' ? 1 : 0),
  };
}
export type ScoringMetrics = ReturnType<typeof createScoringMetrics>;
