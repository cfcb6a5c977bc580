import { claimJob } from '../../domain/advanceEnrichment/decide';
import { isActive } from '../../domain/job';
import { leaseFrom, type UseCaseDeps } from '../deps';

/**
 * The worker's clock-driven entry point. Every poll interval it claims the jobs that are due
 * (a restart after a crash, a late webhook, a retry) and kicks the worker on them; due jobs
 * come from the schedule in memory, each then read and claimed by `_id`. At start and every
 * rescan interval it reloads the schedule from the database (`reload`), for the jobs another
 * replica or a stopped process left; the database is read whole only then.
 */
export function createPollLoop(
  deps: Pick<
    UseCaseDeps,
    'writer' | 'jobs' | 'index' | 'schedule' | 'progress' | 'clock' | 'logger' | 'metrics' | 'leaseMs' | 'kick'
  > & {
    settings: { pollIntervalMs: number; rescanIntervalMs: number };
  },
) {
  const { writer, jobs, index, schedule, progress, clock, logger, metrics, settings } = deps;
  const lease = leaseFrom(deps.leaseMs);

  /** Claims the jobs that are due and kicks the worker on each; returns how many. */
  async function claimDue(limit = 50): Promise<number> {
    let claimed = 0;
    for (const accountId of schedule.due(clock.now(), limit)) {
      const { written, current } = await writer
        .change(accountId, (j, now) => claimJob(j, { now, leaseUntil: lease(now) }))
        .catch(() => ({ written: null, current: null }));
      if (!written) {
        // Still held by this process's own claim, with progress not written yet: worked on now.
        const ours = writer.remembered(accountId)?.job.nextTryAt?.getTime() === current?.nextTryAt?.getTime();
        if (current && isActive(current) && ours && progress.holds(accountId)) deps.kick(accountId);
        continue;
      }
      claimed += 1;
      deps.kick(accountId);
    }
    return claimed;
  }

  let indexChecked = false;
  /**
   * Reads when every pending job is due into the schedule: the jobs another replica or a
   * stopped process left. The first reload of the process also adds the lookups that jobs
   * written before them lack. Both read whole collections: at start and every
   * `ENRICHMENT_RESCAN_INTERVAL`, never per message. Returns how many jobs are pending.
   */
  async function readPending(): Promise<number> {
    if (!indexChecked) {
      const added = await index.backfill(await jobs.open());
      if (added > 0) logger.info({ jobs: added }, 'lookups of earlier enrichment jobs added');
      indexChecked = true;
    }
    const pending = await jobs.activeSchedule();
    schedule.merge(pending);
    return pending.length;
  }

  const timers: NodeJS.Timeout[] = [];
  let sweeping = false;
  async function sweep() {
    if (sweeping) return;
    sweeping = true;
    try {
      await claimDue();
    } catch (error) {
      logger.warn({ err: error }, 'sweep of pending enrichments failed');
    } finally {
      sweeping = false;
    }
  }
  let reloading = false;
  async function reload() {
    if (reloading) return;
    reloading = true;
    try {
      metrics.pending.set(await readPending());
    } catch (error) {
      logger.warn({ err: error }, 'reload of pending enrichments failed');
    } finally {
      reloading = false;
    }
  }

  return {
    /** Reads the pending jobs into the schedule (and the lookups they lack, the first time). */
    reload,
    /** Starts polling, with a first sweep now. */
    start() {
      timers.push(setInterval(() => void sweep(), settings.pollIntervalMs));
      timers.push(setInterval(() => void reload(), settings.rescanIntervalMs));
      for (const timer of timers) timer.unref();
      void sweep();
    },
    stop() {
      for (const timer of timers.splice(0)) clearInterval(timer);
    },
  };
}
export type PollLoop = ReturnType<typeof createPollLoop>;
