import { DeadlineKind } from '@loan/contracts';
import { rawCollection, type Clock } from '@loan/runtime';
import type { DeadlineRepository } from './deadlineRepository';
import { createLegacyDeadlines } from './legacyDeadlines';
import type { JanitorModels } from './models';
import type { TimelineDoc } from './timelineRepository';

/** Armed deadlines by kind. */
export type ArmedCounts = Record<DeadlineKind, number>;

const noneArmed = (): ArmedCounts => Object.fromEntries(DeadlineKind.options.map((kind) => [kind, 0])) as ArmedCounts;

/**
 * What the janitor's gauges report: armed deadlines by kind and fired ones not published,
 * counted from the database (every replica reports the shared total), and overdue ones, from
 * the memory of this process (each replica reports its own view).
 *
 * Counting the armed deadlines reads every timeline with one armed, and every decided
 * application keeps its bank-data retention armed for 90 days, so that scan is made at most
 * once every `armedScanIntervalMs` (0: at every call) and a scrape in between reports the last
 * counts. Nor does a scrape wait for a scan longer than `scrapeWaitMs`: on a large history the
 * scan takes longer than a scraper waits (Prometheus gives up after 10 s by default, and then
 * has none of the process's metrics), so past that it goes on in the background and the scrape
 * reports the counts of the last scan that finished (none before the first). The overdue
 * deadlines are those the scheduler holds and should have fired, which it keeps in memory
 * anyway (`DeadlineRepository.countOverdue`).
 */
/** Timelines the armed scan reads per batch. */
const SCAN_BATCH = 500;

export function createDeadlineGauges(options: {
  models: Pick<JanitorModels, 'timelineHeads' | 'deadlines' | 'outcomes'>;
  deadlines: Pick<DeadlineRepository, 'countOverdue'>;
  clock: Clock;
  armedScanIntervalMs: number;
  /** How long a scrape waits for a scan under way (`JANITOR_GAUGE_SCRAPE_WAIT`); 0: not at all. */
  scrapeWaitMs: number;
}) {
  const { models, deadlines, clock, armedScanIntervalMs, scrapeWaitMs } = options;
  const heads = rawCollection<TimelineDoc>(models.timelineHeads);
  const legacy = createLegacyDeadlines(models);

  /**
   * Every armed deadline counted by kind, from the timelines with one armed and the previous
   * version's deadlines. The timelines are read a batch at a time, only their deadlines, so the
   * scan holds one batch in memory however many there are.
   */
  async function scanArmed(): Promise<ArmedCounts> {
    const counts = noneArmed();
    const older = legacy.armed();
    const timelines = heads.find({ nextDueAt: { $ne: null } }, { projection: { deadlines: 1 }, batchSize: SCAN_BATCH });
    for await (const doc of timelines)
      for (const d of (doc.deadlines ?? []) as { kind: DeadlineKind; status: string }[])
        if (d.status === 'ARMED') counts[d.kind]++;
    for (const d of await older) counts[d.kind]++;
    return counts;
  }

  /**
   * The last scan, by clock time when it began; callers in between, and callers while it is
   * still under way, share it; one that failed is made again at the next call. A clock that went
   * back (tests set it) scans again.
   */
  let lastScan: { at: number; counts: Promise<ArmedCounts>; running: boolean } | null = null;
  /** The counts of the latest-begun scan that finished. */
  let finished: { at: number; counts: ArmedCounts } | null = null;
  function armedCounts(): Promise<ArmedCounts> {
    const now = clock.now().getTime();
    if (lastScan && (lastScan.running || (now >= lastScan.at && now - lastScan.at < armedScanIntervalMs)))
      return lastScan.counts;
    const scan = { at: now, counts: scanArmed(), running: true };
    lastScan = scan;
    scan.counts.then(
      (counts) => {
        scan.running = false;
        if (!finished || finished.at <= scan.at) finished = { at: scan.at, counts };
      },
      () => {
        scan.running = false;
        if (lastScan === scan) lastScan = null;
      },
    );
    return scan.counts;
  }

  return {
    /**
     * Armed deadlines by kind, as of the last scan (at most `armedScanIntervalMs` old), waiting
     * at most `scrapeWaitMs` for a scan under way: past that, the counts of the last scan that
     * finished, or null before the first. A scan that failed is thrown when none finished before.
     */
    async armedByKind(): Promise<ArmedCounts | null> {
      const scan = armedCounts();
      if (scrapeWaitMs <= 0) {
        scan.catch(() => undefined);
        return finished?.counts ?? null;
      }
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), scrapeWaitMs);
        timer.unref();
      });
      try {
        return (await Promise.race([scan, waited])) ?? finished?.counts ?? null;
      } catch (error) {
        if (finished) return finished.counts;
        throw error;
      } finally {
        clearTimeout(timer);
      }
    },

    async countArmed(kind: DeadlineKind): Promise<number> {
      return (await armedCounts())[kind];
    },

    /**
     * Armed deadlines due before `now` that this process knows of (the scheduler should have
     * fired them), from memory; null until its first full reload, which runs at start.
     */
    countOverdue: (now: Date): number | null => deadlines.countOverdue(now),

    /** Fired deadlines whose message is not on the broker yet. */
    async countUnpublished(): Promise<number> {
      const [older, docs] = await Promise.all([
        legacy.countUnpublished(),
        heads.find({ outboxPending: true }, { projection: { outbox: 1 } }).toArray(),
      ]);
      return older + docs.reduce((n, doc) => n + (doc.outbox?.length ?? 0), 0);
    },
  };
}
export type DeadlineGauges = ReturnType<typeof createDeadlineGauges>;
