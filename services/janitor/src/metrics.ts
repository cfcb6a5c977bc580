import { Counter, Gauge, type Registry } from 'prom-client';
import type { DeadlineGauges } from './data-access/deadlineGauges';
import type { DeadlineKind } from './domain/deadline';

const KINDS: readonly DeadlineKind[] = [
  'no_link',
  'no_analyze',
  'enrichment_timeout',
  'analysis_timeout',
  'bank_data_retention',
  'offer_expiry',
  'record_retention',
];

/** The janitor's own metrics, on the service's registry. */
export function createJanitorMetrics(registry: Registry, gauges: DeadlineGauges, now: () => Date = () => new Date()) {
  const armed = new Counter({
    name: 'janitor_deadlines_armed_total',
    help: 'Deadlines armed, by kind',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const fired = new Counter({
    name: 'janitor_deadlines_fired_total',
    help: 'Deadlines that passed and were fired, by kind',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const cancelled = new Counter({
    name: 'janitor_deadlines_cancelled_total',
    help: 'Armed deadlines cancelled before they passed, by kind',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'janitor_deadlines_armed',
    help: 'Deadlines currently armed (waiting for their due time), by kind, as of the last count in the database',
    labelNames: ['kind'] as const,
    registers: [registry],
    // Counted from the database at most every JANITOR_GAUGE_SCAN_INTERVAL (a scrape in between
    // reports the last counts, and one during a long scan does not wait for it): every replica
    // reports the shared total. Nothing until a first scan has finished.
    async collect() {
      const counts = await gauges.armedByKind();
      if (!counts) this.reset();
      else for (const kind of KINDS) this.set({ kind }, counts[kind]);
    },
  });
  new Gauge({
    name: 'janitor_deadlines_unpublished',
    help: 'Deadlines fired but not yet published to the broker',
    registers: [registry],
    async collect() {
      this.set(await gauges.countUnpublished());
    },
  });
  new Gauge({
    name: 'janitor_deadlines_overdue',
    help: 'Armed deadlines whose due time has passed but that have not fired yet, as this replica sees them (the replicas converge within a reload interval: take the max)',
    registers: [registry],
    // From memory, no database read: the armed deadlines due by the reload horizon that this
    // replica holds. Nothing is reported until a full reload has been taken in (the first
    // reload of a process is one, at start): until then it knows only what it armed itself.
    collect() {
      const overdue = gauges.countOverdue(now());
      if (overdue === null) this.remove({});
      else this.set(overdue);
    },
  });
  for (const kind of KINDS) {
    armed.inc({ kind }, 0);
    fired.inc({ kind }, 0);
    cancelled.inc({ kind }, 0);
  }
  return { armed, fired, cancelled };
}
export type JanitorMetrics = ReturnType<typeof createJanitorMetrics>;
