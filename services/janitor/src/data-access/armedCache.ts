import type { Deadline, TrackedDeadline } from '../domain/deadline';

/**
 * An armed deadline whose due time has come: `legacy` when the previous version armed it in a
 * document of its own (`legacyDeadlines.ts`), which is then also how it is fired.
 */
export interface DueDeadline extends Deadline {
  legacy: boolean;
}

/**
 * The armed deadlines due before the horizon of the last reload, kept in memory so that finding
 * the due ones reads no database: those this process armed (`track`, `remember`) and those of
 * the database as of the last reload (what other replicas armed). Firing one another replica
 * cancelled or fired only costs a read, so memory may lag behind the database without harm.
 */
export function createArmedCache() {
  /** Armed deadlines by id, each with the reload generation it was last confirmed in. */
  const armed = new Map<string, { deadline: Deadline; generation: number; legacy: boolean }>();
  let generation = 0;
  /** Deadlines due after this are left to a later reload (null: before the first reload, all kept). */
  let horizon: Date | null = null;
  /** Whether a full reload has been taken in: until then memory holds only what this process armed. */
  let reloadedInFull = false;
  const withinHorizon = (deadline: Pick<Deadline, 'dueAt'>) => horizon === null || deadline.dueAt <= horizon;

  return {
    withinHorizon,

    /** A deadline armed (or found armed) by this process. */
    remember(deadline: Deadline, legacy: boolean): void {
      armed.set(deadline.deadlineId, { deadline, generation, legacy });
    },

    /** A deadline that ended (fired, cancelled) or is no longer armed. */
    forget(deadlineId: string): void {
      armed.delete(deadlineId);
    },

    /** The deadlines of one timeline as just written: the armed ones within the horizon kept, the others forgotten. */
    track(tracked: readonly TrackedDeadline[]): void {
      for (const d of tracked) {
        if (d.status !== 'ARMED' || !withinHorizon(d)) {
          armed.delete(d.deadlineId);
          continue;
        }
        const { status: _status, armedAt: _armedAt, firedAt: _firedAt, cancelledAt: _cancelledAt, ...deadline } = d;
        armed.set(d.deadlineId, { deadline, generation, legacy: false });
      }
    },

    /** Armed deadlines due at `now`, oldest first. */
    findDue(now: Date, limit: number): DueDeadline[] {
      const due: DueDeadline[] = [];
      for (const { deadline, legacy } of armed.values())
        if (deadline.dueAt.getTime() <= now.getTime()) due.push({ ...deadline, legacy });
      due.sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime());
      return due.slice(0, limit);
    },

    /**
     * How many armed deadlines are past due at `now` (the scheduler should have fired them),
     * or null before the first full reload, while memory holds only what this process armed.
     * After it, memory holds every armed deadline due by the horizon that this process knows
     * of, overdue ones included, until it is fired or found ended.
     */
    countOverdue(now: Date): number | null {
      if (!reloadedInFull) return null;
      let overdue = 0;
      for (const { deadline } of armed.values()) if (deadline.dueAt.getTime() < now.getTime()) overdue++;
      return overdue;
    },

    /**
     * A reload begins: deadlines due after `newHorizon` are left to a later one. Returns the
     * generation that `reloaded` ends.
     */
    beginReload(newHorizon: Date): number {
      horizon = newHorizon;
      return ++generation;
    },

    /**
     * A reload's finds: kept, and those remembered before the reload began that it did not find
     * but could have seen are forgotten (no longer armed). A full reload (`coveredFrom` null)
     * sees every armed deadline due by the horizon; a periodic one only those of timelines whose
     * next due time falls from `coveredFrom` on, so a deadline remembered as due earlier stays
     * (firing it reads its timeline, and forgets it if it ended).
     */
    reloaded(
      current: number,
      found: readonly { deadline: Deadline; legacy: boolean }[],
      coveredFrom: Date | null,
    ): void {
      const ids = new Set(found.map((f) => f.deadline.deadlineId));
      for (const [id, entry] of armed) {
        const seen = coveredFrom === null || entry.deadline.dueAt.getTime() >= coveredFrom.getTime();
        if (entry.generation < current && seen && !ids.has(id)) armed.delete(id);
      }
      for (const { deadline, legacy } of found)
        armed.set(deadline.deadlineId, { deadline, generation: current, legacy });
      if (coveredFrom === null) reloadedInFull = true;
    },

    size: () => armed.size,
  };
}
export type ArmedCache = ReturnType<typeof createArmedCache>;
