import type { PartOutcome } from '../domain/advanceEnrichment/decide';
import { type EnrichmentJob, type EnrichmentPart, isActive } from '../domain/job';

type Done = Extract<PartOutcome, { kind: 'done' }>;

interface Entry {
  attempt: number;
  /** The provider's webhooks about a part, by when they came (the first one counts). */
  announced: Map<EnrichmentPart, Date>;
  /** Results fetched from the provider and not written yet. */
  fetched: Map<EnrichmentPart, Done>;
  /** Consumed offsets held until what they announced is in the database (or no longer needed). */
  holds: Map<EnrichmentPart, Array<() => void>>;
}

const PARTS: EnrichmentPart[] = ['income', 'insights'];

/**
 * What this process has learned about a pending job and not written: the provider's
 * announcements that a part is ready, and the results fetched on them. Both can be had again
 * from outside, so neither needs a write of its own: the webhook's offset is held until the
 * job's write that carries its result lands (a crash before it replays the webhook), and a
 * fetched result goes into the job's next write, at the latest the completion's. A hold is
 * released after `holdMaxMs` whatever happened: the part is then polled from the database like
 * any whose webhook was lost.
 */
export function createUnsavedProgress(options: { holdMaxMs: number }) {
  const entries = new Map<string, Entry>();

  function settle(entry: Entry, part: EnrichmentPart) {
    for (const release of entry.holds.get(part) ?? []) release();
    entry.holds.delete(part);
  }

  function drop(accountId: string) {
    const entry = entries.get(accountId);
    if (!entry) return;
    for (const part of PARTS) settle(entry, part);
    entries.delete(accountId);
  }

  /** The entry of the job's attempt; one of an earlier (or later) attempt no longer counts. */
  function entryOf(job: Pick<EnrichmentJob, 'accountId' | 'attempt'>, create: boolean): Entry | undefined {
    let entry = entries.get(job.accountId);
    if (entry && entry.attempt !== job.attempt) {
      drop(job.accountId);
      entry = undefined;
    }
    if (!entry && create) {
      entry = { attempt: job.attempt, announced: new Map(), fetched: new Map(), holds: new Map() };
      entries.set(job.accountId, entry);
    }
    return entry;
  }

  function forget(accountId: string, entry: Entry) {
    if (entry.announced.size === 0 && entry.fetched.size === 0 && entry.holds.size === 0) entries.delete(accountId);
  }

  return {
    /**
     * The provider said a part of the job's attempt is ready. Returns when the message that
     * said so may be committed: once the part's result is written, the job is over, or polling
     * took over.
     */
    announce(job: Pick<EnrichmentJob, 'accountId' | 'attempt'>, part: EnrichmentPart, at: Date): Promise<void> {
      const entry = entryOf(job, true)!;
      if (!entry.announced.has(part)) entry.announced.set(part, at);
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.holdMaxMs);
        timer.unref();
        const holds = entry.holds.get(part) ?? [];
        holds.push(() => {
          clearTimeout(timer);
          resolve();
        });
        entry.holds.set(part, holds);
      });
    },

    /** Keeps results fetched for the job's attempt until its next write. */
    keep(job: Pick<EnrichmentJob, 'accountId' | 'attempt'>, results: Done[]) {
      if (results.length === 0) return;
      const entry = entryOf(job, true)!;
      for (const result of results) entry.fetched.set(result.part, result);
    },

    /** The results fetched for the job's attempt and not written yet. */
    fetched(job: Pick<EnrichmentJob, 'accountId' | 'attempt'>): Done[] {
      return [...(entryOf(job, false)?.fetched.values() ?? [])];
    },

    /**
     * The job as this process knows it: as stored, with the announcements (`signalledAt`) and
     * the results fetched but not written.
     */
    overlay(job: EnrichmentJob): EnrichmentJob {
      const entry = isActive(job) ? entryOf(job, false) : undefined;
      if (!entry) return job;
      const view: EnrichmentJob = { ...job, income: { ...job.income }, insights: { ...job.insights } };
      for (const part of PARTS) {
        const fetched = entry.fetched.get(part);
        if (fetched && view[part].status === 'STARTED') {
          Object.assign(view[part], { status: 'DONE', doneAt: fetched.at, result: fetched.result, signalledAt: null });
        }
        const announced = entry.announced.get(part);
        if (announced && view[part].status !== 'DONE' && !view[part].signalledAt) view[part].signalledAt = announced;
      }
      return view;
    },

    /**
     * The job as it now stands in the database: what it holds is no longer owed. Everything
     * goes once it is over or on another attempt; otherwise each part it holds done.
     */
    written(job: EnrichmentJob) {
      const entry = entries.get(job.accountId);
      if (!entry) return;
      if (!isActive(job) || job.attempt !== entry.attempt) return drop(job.accountId);
      for (const part of PARTS) {
        if (job[part].status !== 'DONE') continue;
        entry.fetched.delete(part);
        entry.announced.delete(part);
        settle(entry, part);
      }
      forget(job.accountId, entry);
    },

    /** The announced parts were not ready after all and the job is written: polling takes over. */
    answered(job: Pick<EnrichmentJob, 'accountId' | 'attempt'>, parts: EnrichmentPart[]) {
      const entry = entryOf(job, false);
      if (!entry) return;
      for (const part of parts) {
        entry.announced.delete(part);
        settle(entry, part);
      }
      forget(job.accountId, entry);
    },

    drop,
    /** Jobs with something unwritten (for the tests). */
    size: () => entries.size,
  };
}
export type UnsavedProgress = ReturnType<typeof createUnsavedProgress>;
