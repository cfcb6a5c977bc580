import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Outcome of one webhook attempt, as counted. */
export type AttemptOutcome = 'delivered' | 'http_error' | 'redirect' | 'timeout' | 'unreachable';

/** The notifier's own metrics, on the service's registry. */
export function createNotifierMetrics(
  registry: Registry,
  pending: { count: () => Promise<number>; oldestEventAt: () => Promise<Date | null> },
  now: () => Date = () => new Date(),
) {
  const attempts = new Counter({
    name: 'webhook_attempts_total',
    help: 'Webhook attempts, by outcome (delivered, http_error, redirect, timeout, unreachable)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const attemptDuration = new Histogram({
    name: 'webhook_attempt_duration_seconds',
    help: 'Time from sending a webhook to its answer (or to giving up), by outcome',
    labelNames: ['outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const firstAttemptDelay = new Histogram({
    name: 'webhook_event_to_first_attempt_seconds',
    help: 'Time from an event being emitted to the first attempt to deliver it',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const settled = new Counter({
    name: 'webhook_deliveries_settled_total',
    help: 'Deliveries that reached DELIVERED, FAILED or SKIPPED, by status',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const pendingGauge = new Gauge({
    name: 'webhook_deliveries_pending',
    help: 'Deliveries waiting for an attempt or for a retry',
    registers: [registry],
    async collect() {
      try {
        this.set(await pending.count());
      } catch {
        // The database is unreachable: the gauge keeps its last value.
      }
    },
  });
  new Gauge({
    name: 'webhook_deliveries_oldest_pending_seconds',
    help: 'Age of the oldest delivery still pending, from its event (0 when none is pending)',
    registers: [registry],
    async collect() {
      try {
        const oldest = await pending.oldestEventAt();
        this.set(oldest ? Math.max(0, (now().getTime() - oldest.getTime()) / 1000) : 0);
      } catch {
        // The database is unreachable: the gauge keeps its last value.
      }
    },
  });
  return { attempts, attemptDuration, firstAttemptDelay, settled, pending: pendingGauge };
}
export type NotifierMetrics = ReturnType<typeof createNotifierMetrics>;
