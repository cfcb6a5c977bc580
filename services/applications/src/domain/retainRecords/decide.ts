import type { DeadlinePassed } from '@loan/contracts';
import type { Application, Effect } from '../application';

/** The states an application's records are kept in for the lender's retention period, then purged. */
const ENDED: ReadonlySet<Application['status']> = new Set(['COMPLETED', 'FAILED', 'ABANDONED']);

/**
 * Until when the records of an application that ended at `endedAt` are kept: `years` calendar
 * years later (UTC; 29 February ends on 1 March), or `years` times `yearMs` when a shorter year
 * is configured (tests).
 */
export function retainedUntilOf(endedAt: Date, years: number, yearMs: number | null = null): Date {
  if (yearMs !== null) return new Date(endedAt.getTime() + years * yearMs);
  const until = new Date(endedAt.getTime());
  until.setUTCFullYear(until.getUTCFullYear() + years);
  return until;
}

/**
 * A change as its records' retention makes it: a change that ends the application (its
 * `ApplicationClosed` fact) starts the lender's retention period, on the state (the lender reads
 * `retainedUntil`) and on the fact (the janitor's `record_retention` deadline is due then); one
 * that opens it again (a resume) ends it.
 */
export function withRetention<C extends { state: Application; effects: Effect[] }>(
  change: C,
  years: number,
  now: Date,
  yearMs: number | null = null,
): C {
  const closes = change.effects.some((e) => e.kind === 'fact' && e.fact.type === 'ApplicationClosed');
  if (closes && ENDED.has(change.state.status)) {
    const until = retainedUntilOf(now, years, yearMs);
    return {
      ...change,
      state: { ...change.state, retainedUntil: until },
      effects: change.effects.map((e) =>
        e.kind === 'fact' && e.fact.type === 'ApplicationClosed'
          ? { ...e, fact: { ...e.fact, retainedUntil: until.toISOString() } }
          : e,
      ),
    };
  }
  if (!ENDED.has(change.state.status) && change.state.retainedUntil)
    return { ...change, state: { ...change.state, retainedUntil: null } };
  return change;
}

/**
 * Whether a `record_retention` deadline ends the application's records: it is still ended, and
 * the deadline is that of its last ending (a resume and a new ending since make it stale). An
 * application that ended before retention was kept on it has no `retainedUntil` of its own.
 */
export function recordRetentionEnded(state: Application, deadline: DeadlinePassed): boolean {
  if (deadline.kind !== 'record_retention' || !ENDED.has(state.status)) return false;
  return !state.retainedUntil || state.retainedUntil.toISOString() === deadline.dueAt;
}
