import { type EnrichmentJob, type EnrichmentPart, isActive } from '../job';

/** Timing of the work on pending enrichments (all configurable). */
export interface Pacing {
  /** A provider job started longer ago than this is polled even without its webhook. */
  pollAfterMs: number;
  /** How often waiting jobs are looked at. */
  pollIntervalMs: number;
  /** Backoff after a failed provider call: base, doubling, capped. */
  retryBaseMs: number;
  retryMaxMs: number;
}

/** What to ask the provider next for a pending enrichment. */
export interface Step {
  start: EnrichmentPart[];
  fetch: EnrichmentPart[];
}

/** What the provider answered to one request of a step. */
export type PartOutcome =
  | { part: 'income'; kind: 'started'; at: Date }
  | { part: 'insights'; kind: 'started'; jobId: string; at: Date }
  | { part: EnrichmentPart; kind: 'done'; result: Record<string, unknown>; at: Date }
  | { part: EnrichmentPart; kind: 'not_ready' }
  | { part: EnrichmentPart; kind: 'failed'; error: string };

const PARTS: EnrichmentPart[] = ['income', 'insights'];

/**
 * Which provider jobs to start and which results to fetch: a part not started yet is
 * started; a started part is fetched once its webhook came, or, as a fallback for late
 * webhooks, once it has run longer than `pollAfterMs`.
 */
export function planStep(job: EnrichmentJob, now: Date, pacing: Pacing): Step {
  if (!isActive(job)) return { start: [], fetch: [] };
  const start = PARTS.filter((p) => job[p].status === 'NOT_STARTED');
  const fetch = PARTS.filter((p) => {
    const part = job[p];
    if (part.status !== 'STARTED') return false;
    if (p === 'insights' && !job.insights.jobId) return false;
    if (part.signalledAt) return true;
    return part.startedAt !== null && now.getTime() - part.startedAt.getTime() >= pacing.pollAfterMs;
  });
  return { start, fetch };
}

export const bothDone = (job: EnrichmentJob): boolean => job.income.status === 'DONE' && job.insights.status === 'DONE';

export function backoffMs(failures: number, pacing: Pacing): number {
  if (failures <= 0) return 0;
  return Math.min(pacing.retryMaxMs, pacing.retryBaseMs * 2 ** Math.min(failures - 1, 20));
}

/** When a worker should next look at the job, given where it stands. */
export function nextTry(job: EnrichmentJob, now: Date, pacing: Pacing, failedNow: boolean): Date | null {
  if (!isActive(job)) return null;
  if (failedNow) return new Date(now.getTime() + backoffMs(job.failures, pacing));
  if (bothDone(job)) return now;
  if (PARTS.some((p) => job[p].status === 'NOT_STARTED')) return new Date(now.getTime() + pacing.retryBaseMs);
  if (PARTS.some((p) => job[p].status === 'STARTED' && job[p].signalledAt)) return now;
  const waiting = PARTS.map((p) => job[p])
    .filter((part) => part.status === 'STARTED' && part.startedAt)
    .map((part) => (part.startedAt as Date).getTime() + pacing.pollAfterMs);
  const earliestPoll = Math.min(...waiting);
  return new Date(Math.max(earliestPoll, now.getTime() + pacing.pollIntervalMs));
}

/**
 * Applies what the provider answered during a step, if the job is still on the attempt the
 * step was for. Returns null when the answers no longer matter (restart, timeout, scrub) or
 * change nothing. `holdUntil` keeps the worker's claim when it goes on to finish the job.
 */
export function applyStep(
  job: EnrichmentJob,
  input: { attempt: number; outcomes: PartOutcome[]; now: Date; pacing: Pacing; holdUntil: Date | null },
): EnrichmentJob | null {
  if (!isActive(job) || job.attempt !== input.attempt) return null;
  const next: EnrichmentJob = { ...job, income: { ...job.income }, insights: { ...job.insights } };
  let failed: string | null = null;
  let progressed = false;
  for (const outcome of input.outcomes) {
    const part = next[outcome.part];
    switch (outcome.kind) {
      case 'started':
        if (part.status !== 'NOT_STARTED') break;
        part.status = 'STARTED';
        part.startedAt = outcome.at;
        // A webhook that came while the start request was on its way is kept: fetched at once.
        if (outcome.part === 'insights') next.insights.jobId = outcome.jobId;
        progressed = true;
        break;
      case 'done':
        if (part.status !== 'STARTED') break;
        part.status = 'DONE';
        part.doneAt = outcome.at;
        part.result = outcome.result;
        part.signalledAt = null;
        progressed = true;
        break;
      case 'not_ready':
        // The webhook was early or about an older job: polling takes over.
        part.signalledAt = null;
        break;
      case 'failed':
        failed = outcome.error;
        break;
    }
  }
  if (failed) {
    next.failures = job.failures + 1;
    next.lastError = failed;
  } else if (progressed) {
    next.failures = 0;
    next.lastError = null;
  }
  next.updatedAt = input.now;
  const keepClaim = !failed && bothDone(next) && input.holdUntil;
  next.nextTryAt = keepClaim ? input.holdUntil : nextTry(next, input.now, input.pacing, failed !== null);
  return next;
}

/**
 * A webhook says a part's result is ready: remembered, so that it is fetched at once. A
 * webhook verified with one client's own provider secret (`clientId`) signals only that
 * client's jobs.
 */
export function signalPart(
  job: EnrichmentJob,
  input: { part: EnrichmentPart; at: Date; leaseUntil: Date; clientId?: string | null },
): EnrichmentJob | null {
  if (!isActive(job)) return null;
  if (input.clientId && input.clientId !== job.clientId) return null;
  const part = job[input.part];
  // NOT_STARTED too: the provider may finish (and say so) before the start is recorded here.
  if (part.status === 'DONE' || part.signalledAt) return null;
  return {
    ...job,
    [input.part]: { ...part, signalledAt: input.at },
    // The worker kicked by the webhook holds the job; a start still on its way keeps its time.
    nextTryAt: part.status === 'STARTED' ? input.leaseUntil : job.nextTryAt,
    updatedAt: input.at,
  };
}

/** A worker takes the job for a while (so that no other worker does the same calls). */
export function claimJob(job: EnrichmentJob, input: { now: Date; leaseUntil: Date }): EnrichmentJob | null {
  if (!isActive(job)) return null;
  if (job.nextTryAt && job.nextTryAt.getTime() > input.now.getTime()) return null;
  return { ...job, nextTryAt: input.leaseUntil, updatedAt: input.now };
}

/** Finishing the job failed (the provider did not answer): try again after a backoff. */
export function recordFailure(
  job: EnrichmentJob,
  input: { attempt: number; error: string; now: Date; pacing: Pacing },
): EnrichmentJob | null {
  if (!isActive(job) || job.attempt !== input.attempt) return null;
  const next = { ...job, failures: job.failures + 1, lastError: input.error, updatedAt: input.now };
  return { ...next, nextTryAt: nextTry(next, input.now, input.pacing, true) };
}

/** How far the provider's clock may be behind ours when we judge a result's age. */
const CLOCK_SKEW_MS = 60_000;
const TIMESTAMP_FIELDS = ['created_at', 'createdAt', 'updated_at', 'updatedAt', 'timestamp'];

/**
 * Whether an income record the provider lists as its latest belongs to the job we started
 * (and not to an analysis from before a restart). Records without a timestamp are taken.
 */
export function isFreshIncome(record: Record<string, unknown>, startedAt: Date | null): boolean {
  if (!startedAt) return true;
  for (const field of TIMESTAMP_FIELDS) {
    const value = record[field];
    if (typeof value !== 'string' && !(value instanceof Date)) continue;
    const at = new Date(value).getTime();
    if (Number.isFinite(at)) return at >= startedAt.getTime() - CLOCK_SKEW_MS;
  }
  return true;
}
