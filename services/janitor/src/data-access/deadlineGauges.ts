import { rawCollection } from '@loan/runtime';
import type { Deadline, DeadlineKind } from '../domain/deadline';
import type { DeadlineRepository } from './deadlineRepository';
import { createLegacyDeadlines } from './legacyDeadlines';
import type { JanitorModels } from './models';
import { type TimelineDoc, toStored } from './timelineRepository';

/** How long one scan of the armed deadlines serves the gauges (a scrape asks for each kind). */
const ARMED_SCAN_REUSE_MS = 1_000;

/**
 * What the janitor's gauges report: armed deadlines by kind and fired ones not published,
 * counted from the database at scrape time (every replica reports the shared total), and
 * overdue ones, from the memory of this process (each replica reports its own view).
 */
export function createDeadlineGauges(options: {
  models: Pick<JanitorModels, 'timelineHeads' | 'deadlines' | 'outcomes'>;
  deadlines: Pick<DeadlineRepository, 'countOverdue'>;
}) {
  const { models, deadlines } = options;
  const heads = rawCollection<TimelineDoc>(models.timelineHeads);
  const legacy = createLegacyDeadlines(models);

  /**
   * Every armed deadline's kind and due time, from one scan of the timelines with one armed
   * and one of the previous version's deadlines; reused for a second, so that the gauges of one
   * scrape read them once.
   */
  let armedScan: { at: number; armed: Promise<Pick<Deadline, 'kind' | 'dueAt'>[]> } | null = null;
  function allArmed(): Promise<Pick<Deadline, 'kind' | 'dueAt'>[]> {
    if (armedScan && Date.now() - armedScan.at < ARMED_SCAN_REUSE_MS) return armedScan.armed;
    const armed = Promise.all([
      legacy.armed(),
      heads
        .find({ nextDueAt: { $ne: null } }, { projection: { applicationId: 1, clientId: 1, deadlines: 1, rev: 1 } })
        .toArray(),
    ]).then(([older, docs]) => [
      ...older,
      ...docs.flatMap((doc) => toStored(doc).deadlines.filter((d) => d.status === 'ARMED')),
    ]);
    armedScan = { at: Date.now(), armed };
    armed.catch(() => (armedScan = null));
    return armed;
  }

  return {
    async countArmed(kind: DeadlineKind): Promise<number> {
      return (await allArmed()).filter((d) => d.kind === kind).length;
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
