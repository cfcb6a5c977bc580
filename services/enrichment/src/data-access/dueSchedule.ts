/**
 * When this process should next look at each pending job it knows of: the jobs it created or
 * changed itself, plus those the periodic reload found in the database (left by a stopped
 * process or worked on by another replica). The poll loop reads this, not the database, to
 * find the jobs that are due; a due job is then claimed by its `_id`, which also corrects an
 * entry another process made stale (the job's current `nextTryAt` replaces it, or the entry
 * goes once the job is no longer pending).
 */
export function createDueSchedule() {
  const dueAt = new Map<string, number>();
  return {
    /** What a write or a read of the job showed: due at `nextTryAt`, or nothing to do (null). */
    note(accountId: string, nextTryAt: Date | null) {
      if (nextTryAt) dueAt.set(accountId, nextTryAt.getTime());
      else dueAt.delete(accountId);
    },
    /**
     * Adds what a reload read. An entry known already keeps the earlier time: a write of this
     * process may be newer than the read, and looking at a job too early costs one read.
     */
    merge(entries: Array<{ accountId: string; nextTryAt: Date | null }>) {
      for (const { accountId, nextTryAt } of entries) {
        if (!nextTryAt) continue;
        const known = dueAt.get(accountId);
        if (known === undefined || nextTryAt.getTime() < known) dueAt.set(accountId, nextTryAt.getTime());
      }
    },
    /** The jobs due at `now`, earliest first. */
    due(now: Date, limit: number): string[] {
      const at = now.getTime();
      return [...dueAt.entries()]
        .filter(([, t]) => t <= at)
        .sort((a, b) => a[1] - b[1])
        .slice(0, limit)
        .map(([accountId]) => accountId);
    },
    size: () => dueAt.size,
  };
}
export type DueSchedule = ReturnType<typeof createDueSchedule>;
