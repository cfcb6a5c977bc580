import { Topics } from '@loan/contracts';
import {
  ServiceError,
  isDuplicateKey,
  toOutboxEntries,
  type Clock,
  type KeyedLock,
  type OutboxEntry,
  type OutboxRelay,
  type Sealer,
} from '@loan/runtime';
import { LRUCache } from 'lru-cache';
import { type Change, type Effect, type EnrichmentJob, isActive } from '../domain/job';
import type { AccountIndex } from './accountIndex';
import { sealedProfile } from './bankDataRepository';
import type { DueSchedule } from './dueSchedule';
import type { JobRepository, StoredJob } from './jobRepository';
import type { UnsavedProgress } from './unsavedProgress';

const MAX_CONFLICT_RETRIES = 10;
/** Jobs whose last write by this process is remembered (a few KB each, results included). */
const REMEMBERED_JOBS = 1_000;

type ResultEffect = Extract<Effect, { kind: 'result' }>['result'];

/** A decision on a job: the change to write, the job alone, or null to change nothing. */
export type Decide = (job: EnrichmentJob, now: Date) => Change | EnrichmentJob | null;

/**
 * Load, decide, persist (the job and its outbox in one single-document write), publish: how
 * every change of an enrichment job is made, one at a time per job within this process
 * (`lock`, shared with the job outbox relay). Every read and write goes by `_id`, and tells the
 * schedule when the job is due.
 *
 * Each job as this process last wrote it is remembered: the starting point of its next change
 * here, which is then written only if nobody changed the job since (see `change`).
 */
export function createJobWriter(deps: {
  jobs: JobRepository;
  /** Provider account -> jobs and application -> jobs, by `_id`. */
  index: AccountIndex;
  /** When the jobs this process knows of are next due (the poll loop reads it). */
  schedule: DueSchedule;
  jobRelay: Pick<OutboxRelay, 'flush'>;
  sealer: Sealer;
  clock: Clock;
  lock: KeyedLock;
  /** What this process knows of the jobs and has not written: told what each write now holds. */
  progress: Pick<UnsavedProgress, 'written' | 'drop'>;
}) {
  const { jobs, index, schedule, clock } = deps;
  const remembered = new LRUCache<string, StoredJob>({ max: REMEMBERED_JOBS });

  /** What names a person in a profile leaves this service sealed (`sealedProfile`). */
  function sealedResult(result: ResultEffect): ResultEffect {
    return result.type === 'AccountEnriched'
      ? { ...result, profile: sealedProfile(deps.sealer, result.profile) }
      : result;
  }

  function toOutbox(job: EnrichmentJob, effects: Effect[], now: Date): OutboxEntry[] {
    return toOutboxEntries(
      job,
      effects.map((e) =>
        e.kind === 'event'
          ? e
          : { kind: 'fact', topic: Topics.enrichmentResults, fact: sealedResult(e.result) as Record<string, unknown> },
      ),
      now,
    );
  }

  /**
   * Load, decide, persist (state and outbox in one write), publish. A concurrent change makes
   * the write miss; the decision is then taken again on the fresh state. Returns the job as it
   * now stands (null when there is none), the state written (null when the decision changed
   * nothing) and, after a write, the job as stored. Every read and write goes by `_id`, and
   * tells the schedule when the job is due.
   *
   * `known` is the job as this process last read or wrote it (by default, as it last wrote
   * it): the first decision is taken on it without reading, and the write still only lands if
   * nobody changed the job since. A decision to change nothing is only taken on a fresh read.
   */
  async function change(
    accountId: string,
    decide: Decide,
    known?: StoredJob,
  ): Promise<{ current: EnrichmentJob | null; written: EnrichmentJob | null; stored: StoredJob | null }> {
    let hint = known ?? remembered.get(accountId);
    for (let attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt++) {
      const result = await deps.lock(accountId, async () => {
        const now = clock.now();
        let stored = hint ?? (await jobs.get(accountId));
        let decided = stored ? decide(stored.job, now) : null;
        if (hint && !decided) {
          stored = await jobs.get(accountId);
          decided = stored ? decide(stored.job, now) : null;
        }
        hint = undefined;
        if (!stored) return { current: null, outbox: [], wasPending: false, after: null };
        if (!decided) return { current: stored.job, outbox: [], wasPending: false, after: null };
        const change: Change = 'effects' in decided ? decided : { job: decided, effects: [] };
        const outbox = toOutbox(change.job, change.effects, now);
        if (!(await jobs.replace(change.job, stored.rev, outbox))) {
          remembered.delete(accountId);
          return null;
        }
        // Once published (or the flush throws), the outbox is empty unless it held older entries.
        const after: StoredJob = {
          job: change.job,
          rev: stored.rev + 1,
          outboxPending: outbox.length === 0 && stored.outboxPending,
        };
        remembered.set(accountId, after);
        return { current: change.job, outbox, wasPending: stored.outboxPending, after };
      });
      if (!result) continue; // another replica changed the job: decide again on its state
      const { current, after } = result;
      schedule.note(accountId, current && isActive(current) ? current.nextTryAt : null);
      if (current) deps.progress.written(current);
      else deps.progress.drop(accountId);
      // An outbox empty before this write now holds exactly `outbox`: published without a read.
      if (result.outbox.length > 0) await deps.jobRelay.flush(accountId, result.wasPending ? undefined : result.outbox);
      return { current, written: after?.job ?? null, stored: after };
    }
    throw new ServiceError(`Enrichment of account ${accountId} kept changing under us`, { retriable: true });
  }

  /** `change`, returning the state written, or null when the decision changed nothing. */
  async function mutate(accountId: string, decide: Decide, known?: StoredJob): Promise<EnrichmentJob | null> {
    return (await change(accountId, decide, known)).written;
  }

  /** A new job: its lookups first (so that no webhook about it can miss it), then the job. */
  async function insertJob(job: EnrichmentJob): Promise<boolean> {
    await index.add(job);
    try {
      await jobs.insert(job);
    } catch (error) {
      if (isDuplicateKey(error)) return false; // a redelivery raced us: the job exists
      throw error;
    }
    schedule.note(job.accountId, job.nextTryAt);
    remembered.set(job.accountId, { job, rev: 1, outboxPending: false });
    return true;
  }

  return {
    change,
    mutate,
    insertJob,
    /** The job as this process last wrote it, if it still remembers it. */
    remembered: (accountId: string): StoredJob | undefined => remembered.get(accountId),
  };
}
export type JobWriter = ReturnType<typeof createJobWriter>;
