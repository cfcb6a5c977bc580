import type { StoredJob } from '../../data-access/jobRepository';
import {
  type PartOutcome,
  applyStep,
  bothDone,
  isFreshIncome,
  nextTry,
  planStep,
  recordFailure,
} from '../../domain/advanceEnrichment/decide';
import { buildEnrichedAccount } from '../../domain/buildEnrichedAccount/buildEnrichedAccount';
import { looksLikeIncome } from '../../domain/buildEnrichedAccount/providerResults';
import { completeJob } from '../../domain/completeEnrichment/decide';
import { type EnrichmentJob, type EnrichmentPart, isActive } from '../../domain/job';
import type { Progress } from '../../data-access/unsavedProgress';
import { leaseFrom, type UseCaseDeps } from '../deps';

const message = (error: unknown): string => String((error as Error)?.message ?? error).slice(0, 500);

/**
 * The worker's run on one pending enrichment (`advance`): start the provider jobs not started
 * yet, fetch the results that are due, and finish when both are in. Whatever fails is retried
 * after a backoff; the job stays pending in the database meanwhile.
 */
export function createAdvance(
  deps: Pick<
    UseCaseDeps,
    | 'writer'
    | 'jobs'
    | 'progress'
    | 'schedule'
    | 'bankData'
    | 'provider'
    | 'sealer'
    | 'clock'
    | 'logger'
    | 'metrics'
    | 'pacing'
    | 'leaseMs'
    | 'incomePeriodMonths'
  >,
) {
  const { writer, jobs, progress, schedule, bankData, provider, clock, logger, metrics, pacing } = deps;
  const lease = leaseFrom(deps.leaseMs);

  async function callProvider<T>(call: string, fn: () => Promise<T>): Promise<T> {
    try {
      const value = await fn();
      metrics.providerCalls.inc({ call, outcome: 'ok' });
      return value;
    } catch (error) {
      metrics.providerCalls.inc({ call, outcome: 'failed' });
      throw error;
    }
  }

  async function requestPart(
    job: EnrichmentJob,
    key: string,
    part: EnrichmentPart,
    kind: 'start' | 'fetch',
  ): Promise<PartOutcome> {
    try {
      if (kind === 'start' && part === 'income') {
        await callProvider('start_income', () =>
          provider.startIncomeAnalysis(key, job.providerAccountId, deps.incomePeriodMonths),
        );
        return { part, kind: 'started', at: clock.now() };
      }
      if (kind === 'start') {
        const { jobId } = await callProvider('start_insights', () =>
          provider.startStatementInsights(key, job.providerAccountId),
        );
        return { part: 'insights', kind: 'started', jobId, at: clock.now() };
      }
      if (part === 'income') {
        const record = await callProvider('get_income', () => provider.getLatestIncome(key, job.providerAccountId));
        if (record && looksLikeIncome(record) && isFreshIncome(record, job.income.startedAt)) {
          return { part, kind: 'done', result: record, at: clock.now() };
        }
        return { part, kind: 'not_ready' };
      }
      const record = await callProvider('get_insights', () =>
        provider.getInsightsRecord(key, job.insights.jobId ?? ''),
      );
      if (record.status === 'finished') return { part, kind: 'done', result: record.result, at: clock.now() };
      return { part, kind: 'not_ready' };
    } catch (error) {
      return { part, kind: 'failed', error: message(error) };
    }
  }

  /**
   * Reads the account and its statement and stores the enriched profile, then marks the job
   * READY with its messages, in the same write as the results fetched and not written yet
   * (`fetched`). The profile is stored first: a crash in between leaves the job pending, and
   * the next run stores the same profile again.
   */
  async function finish(job: EnrichmentJob, key: string, fetched: PartOutcome[], known?: StoredJob) {
    const attempt = job.attempt;
    // The results fetched and not written, applied to the job as it stands when written.
    const withFetched = (j: EnrichmentJob, now: Date) =>
      fetched.length === 0 ? j : applyStep(j, { attempt, outcomes: fetched, now, pacing, holdUntil: null });
    let profile;
    try {
      const account = await callProvider('get_account', () => provider.getAccount(key, job.providerAccountId));
      const transactions = await callProvider('get_transactions', () =>
        provider.getTransactions(key, job.providerAccountId),
      );
      profile = buildEnrichedAccount({
        accountId: job.accountId,
        providerAccountId: job.providerAccountId,
        linked: { institution: job.institution, accountNumber: job.accountNumber },
        account,
        transactions,
        income: job.income.result,
        insights: job.insights.result,
        periodMonths: deps.incomePeriodMonths,
        now: clock.now(),
      });
    } catch (error) {
      logger.warn({ err: error, accountId: job.accountId }, 'could not read the account to finish its enrichment');
      await writer.mutate(
        job.accountId,
        (j, now) => {
          const applied = withFetched(j, now);
          return applied && recordFailure(applied, { attempt, error: message(error), now, pacing });
        },
        known,
      );
      return;
    }
    await bankData.put({
      accountId: job.accountId,
      applicationId: job.applicationId,
      applicantId: job.applicantId,
      clientId: job.clientId,
      attempt,
      profile,
      storedAt: clock.now(),
    });
    const done = await writer.mutate(
      job.accountId,
      (j, now) => {
        const applied = withFetched(j, now);
        return applied && completeJob(applied, { attempt, profile, now });
      },
      known,
    );
    if (done) {
      metrics.jobs.inc({ outcome: 'enriched' });
      metrics.duration.observe(Math.max(0, (done.enrichedAt!.getTime() - Date.parse(done.since)) / 1000));
      logger.info({ accountId: done.accountId, attempt }, 'account enriched');
      return;
    }
    // Someone else decided first. If the application was scrubbed meanwhile, the profile just
    // stored must go too.
    const now = await jobs.get(job.accountId);
    if (!now || now.job.scrubbedAt) await bankData.deleteAccount(job.accountId);
  }

  /**
   * One run of the work on a pending enrichment: start the provider jobs not started yet,
   * fetch the results that are due (announced by a webhook, or polled), and finish when both
   * are in. Whatever fails is retried after a backoff; the job stays pending in the database
   * meanwhile. Provider jobs started and results fetched are kept in memory and written with
   * the completion (or the first write a failure, a part not ready yet or the end of the
   * job's claim calls for): nothing outside this process needs to see them before, and the
   * job in the database stays due for whoever takes it over after a crash.
   */
  return async function advance(accountId: string) {
    // As last written here when that is still work to do; anything else is checked afresh.
    let stored = writer.remembered(accountId);
    // Finished by this process (a webhook's kick during the run that finished it asks for one
    // more run): nothing to do, unless a webhook was taken in for it since (another replica
    // may have restarted it).
    if (stored && !isActive(stored.job) && !progress.holds(accountId)) return;
    if (!stored || !isActive(stored.job)) stored = (await jobs.get(accountId)) ?? undefined;
    if (!stored || !isActive(stored.job)) {
      if (stored) progress.written(stored.job);
      else progress.drop(accountId);
      return;
    }
    const attempt = stored.job.attempt;
    const key = deps.sealer.for('client-secrets').open(stored.job.providerKeySealed);
    // Each part is asked for at most once per run; a webhook that came while a part was being
    // started is acted on in a further round.
    const asked = new Set<EnrichmentPart>();
    for (let round = 0; round < 3; round++) {
      const view = progress.overlay(stored.job);
      if (bothDone(view)) return finish(view, key, progress.unwritten(view), stored);
      const planned = planStep(view, clock.now(), pacing);
      const step = { start: planned.start, fetch: planned.fetch.filter((part) => !asked.has(part)) };
      if (step.start.length === 0 && step.fetch.length === 0) break;
      for (const part of step.fetch) asked.add(part);
      const outcomes = await Promise.all([
        ...step.start.map((part) => requestPart(view, key, part, 'start')),
        ...step.fetch.map((part) => requestPart(view, key, part, 'fetch')),
      ]);
      for (const o of outcomes) {
        if (o.kind === 'failed') logger.warn({ accountId, part: o.part, error: o.error }, 'provider call failed');
      }
      const moved = outcomes.filter((o): o is Progress => o.kind === 'started' || o.kind === 'done');
      progress.keep(view, moved);
      // Only progress: kept for a later write (the next round finishes when both are in).
      if (moved.length === outcomes.length) continue;
      const unwritten = progress.unwritten(view);
      const applied = await writer.change(
        accountId,
        (j, now) =>
          applyStep(j, {
            attempt,
            outcomes: [...unwritten, ...outcomes.filter((o) => o.kind === 'failed' || o.kind === 'not_ready')],
            now,
            pacing,
            holdUntil: lease(now),
          }),
        stored,
      );
      if (!applied.written || !applied.stored) return;
      progress.answered(
        applied.written,
        outcomes.filter((o) => o.kind === 'not_ready').map((o) => o.part),
      );
      stored = applied.stored;
      // The write above set when the job is due next (a backoff, the next poll, or the claim kept to finish).
      if (outcomes.some((o) => o.kind === 'failed')) return;
    }
    const view = progress.overlay(stored.job);
    if (bothDone(view)) return finish(view, key, progress.unwritten(view), stored);
    const unwritten = progress.unwritten(view);
    const now = clock.now();
    const heldUntil = stored.job.nextTryAt;
    if (unwritten.length > 0 && heldUntil && heldUntil.getTime() > now.getTime()) {
      // Not due in the database before `heldUntil` (the claim, or the next poll): what is held
      // here waits for the webhooks, and is looked at again when polling is due.
      const due = nextTry(view, now, pacing, false);
      schedule.note(accountId, due && due.getTime() < heldUntil.getTime() ? due : heldUntil);
      return;
    }
    // Nothing more to do now: make sure the job is looked at again when it is due. The job as
    // last written here is the starting point; the claim of the poll loop reads it afresh.
    const due = nextTry(stored.job, now, pacing, false);
    if (unwritten.length === 0 && due?.getTime() === heldUntil?.getTime()) return;
    await writer.mutate(
      accountId,
      (j, now) => {
        if (!isActive(j) || j.attempt !== attempt) return null;
        // With what is held here, which sets when the job is due.
        if (unwritten.length > 0) return applyStep(j, { attempt, outcomes: unwritten, now, pacing, holdUntil: null });
        const next = nextTry(j, now, pacing, false);
        if (next?.getTime() === j.nextTryAt?.getTime()) return null;
        return { ...j, nextTryAt: next };
      },
      stored,
    );
  };
}
