import type { PartOutcome } from '../domain/advanceEnrichment/decide';
import { type EnrichmentJob, type EnrichmentPart, isActive } from '../domain/job';

type Done = Extract<PartOutcome, { kind: 'done' }>;
type Started = Extract<PartOutcome, { kind: 'started' }>;
/** What the provider answered that moves a part on: kept in memory until the job's next write. */
export type Progress = Started | Done;

interface Entry {
  attempt: number;
  /** The provider's webhooks about a part, by when they came (the first one counts). */
  announced: Map<EnrichmentPart, Date>;
  /** Provider jobs started and not written yet. */
  started: Map<EnrichmentPart, Started>;
  /** Results fetched from the provider and not written yet. */
  fetched: Map<EnrichmentPart, Done>;
  /** Consumed offsets held until what they announced is in the database (or no longer needed). */
  holds: Map<EnrichmentPart, Array<() => void>>;
}

const PARTS: EnrichmentPart[] = ['income', 'insights'];

/**
 * What this process has learned about a pending job and not written: the provider jobs it
 * started, the provider's announcements that a part is ready, and the results fetched. All of
 * it can be had again from outside, so none of it needs a write of its own; it goes into the
 * job's next write, at the latest the completion's. A crash before loses nothing: the job in
 * the database is still due (a claim that runs out, or its next poll) and is started or
 * polled again, and a webhook's offset is held until the write that carries its result lands,
 * so the webhook is handled again. A hold is released after `holdMaxMs` whatever happened: the
 * part is then polled from the database like any whose webhook was lost.
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

  /**
   * The entry of the job's attempt. One of an earlier attempt no longer counts; a caller still
   * on an earlier attempt than the entry's (a run that began before a restart) gets none.
   */
  function entryOf(job: Pick<EnrichmentJob, 'accountId' | 'attempt'>, create: boolean): Entry | undefined {
    let entry = entries.get(job.accountId);
    if (entry && entry.attempt > job.attempt) return undefined;
    if (entry && entry.attempt !== job.attempt) {
      drop(job.accountId);
      entry = undefined;
    }
    if (!entry && create) {
      entry = { attempt: job.attempt, announced: new Map(), started: new Map(), fetched: new Map(), holds: new Map() };
      entries.set(job.accountId, entry);
    }
    return entry;
  }

  function forget(accountId: string, entry: Entry) {
    const empty = entry.announced.size + entry.started.size + entry.fetched.size + entry.holds.size === 0;
    if (empty) entries.delete(accountId);
  }

  return {
    /**
     * The provider said a part of the job's attempt is ready. Returns when the message that
     * said so may be committed: once the part's result is written, the job is over, or polling
     * took over.
     */
    announce(job: Pick<EnrichmentJob, 'accountId' | 'attempt'>, part: EnrichmentPart, at: Date): Promise<void> {
      const entry = entryOf(job, true);
      if (!entry) return Promise.resolve();
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

    /** Keeps provider jobs started and results fetched for the job's attempt until its next write. */
    keep(job: Pick<EnrichmentJob, 'accountId' | 'attempt'>, outcomes: Progress[]) {
      const entry = outcomes.length > 0 ? entryOf(job, true) : undefined;
      if (!entry) return;
      for (const outcome of outcomes) {
        if (outcome.kind === 'started') entry.started.set(outcome.part, outcome);
        else entry.fetched.set(outcome.part, outcome);
      }
    },

    /** What the job's attempt has not written yet: the starts first, then the results. */
    unwritten(job: Pick<EnrichmentJob, 'accountId' | 'attempt'>): Progress[] {
      const entry = entryOf(job, false);
      return entry ? [...entry.started.values(), ...entry.fetched.values()] : [];
    },

    /** Whether this process holds anything of the job it has not written. */
    holds: (accountId: string): boolean => entries.has(accountId),

    /**
     * The job as this process knows it: as stored, with the announcements (`signalledAt`) and
     * the results fetched but not written.
     */
    overlay(job: EnrichmentJob): EnrichmentJob {
      const entry = isActive(job) ? entryOf(job, false) : undefined;
      if (!entry) return job;
      const view: EnrichmentJob = { ...job, income: { ...job.income }, insights: { ...job.insights } };
      for (const part of PARTS) {
        const started = entry.started.get(part);
        if (started && view[part].status === 'NOT_STARTED') {
          Object.assign(view[part], { status: 'STARTED', startedAt: started.at });
          if (started.part === 'insights') view.insights.jobId = started.jobId;
        }
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
        if (job[part].status !== 'NOT_STARTED') entry.started.delete(part);
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
