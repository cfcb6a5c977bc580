import { randomUUID } from 'node:crypto';
import { Topics, type ApplicationFact, type DeadlinePassed, type ProviderCallback } from '@loan/contracts';
import type { AccountLinkingProvider } from '@loan/provider';
import {
  ServiceError,
  isDuplicateKey,
  toOutboxEntries,
  type Clock,
  type KeyedLock,
  type Logger,
  type OutboxEntry,
  type OutboxRelay,
  type Sealer,
} from '@loan/runtime';
import { LRUCache } from 'lru-cache';
import type { AccountIndex } from './data-access/accountIndex';
import type { BankDataRepository } from './data-access/bankDataRepository';
import type { JobRepository, StoredJob } from './data-access/jobRepository';
import {
  type Pacing,
  type PartOutcome,
  applyStep,
  bothDone,
  claimJob,
  isFreshIncome,
  nextTry,
  planStep,
  recordFailure,
  signalPart,
} from './domain/advanceEnrichment/decide';
import { buildEnrichedAccount } from './domain/buildEnrichedAccount/buildEnrichedAccount';
import { looksLikeIncome } from './domain/buildEnrichedAccount/providerResults';
import { completeJob } from './domain/completeEnrichment/decide';
import { expireJob } from './domain/expireEnrichment/decide';
import { type Change, type Effect, type EnrichmentJob, type EnrichmentPart, isActive } from './domain/job';

type ResultEffect = Extract<Effect, { kind: 'result' }>['result'];
import { closeJob, mustScrub } from './domain/scrubBankData/decide';
import { openJob, restartJob } from './domain/startEnrichment/decide';
import type { EnrichmentMetrics } from './metrics';
import type { DueSchedule } from './schedule';

const MAX_CONFLICT_RETRIES = 10;
/** Jobs whose last write by this process is remembered (a few KB each, results included). */
const REMEMBERED_JOBS = 1_000;

type Fact<T extends ApplicationFact['type']> = Extract<ApplicationFact, { type: T }>;

/** The provider webhooks that announce a part of the enrichment; the others concern it not. */
const PART_OF: Partial<Record<ProviderCallback['kind'], EnrichmentPart>> = {
  income_ready: 'income',
  statement_insights_ready: 'insights',
};
export const PROVIDER_CALLBACKS_ACTED_ON = Object.keys(PART_OF) as ProviderCallback['kind'][];

export interface WorkflowDeps {
  jobs: JobRepository;
  /** Provider account -> jobs and application -> jobs, by `_id`. */
  index: AccountIndex;
  /** When the jobs this process knows of are next due (the poll loop reads it). */
  schedule: DueSchedule;
  bankData: BankDataRepository;
  jobRelay: Pick<OutboxRelay, 'flush'>;
  scrubRelay: Pick<OutboxRelay, 'flush'>;
  provider: AccountLinkingProvider;
  sealer: Sealer;
  clock: Clock;
  logger: Logger;
  metrics: EnrichmentMetrics;
  pacing: Pacing;
  leaseMs: number;
  incomePeriodMonths: number;
  /** Serialises the changes of one job within the process (shared with the job outbox relay). */
  lock: KeyedLock;
  /** Asks for work on an account soon (the worker). */
  kick: (accountId: string) => void;
}

const message = (error: unknown): string => String((error as Error)?.message ?? error).slice(0, 500);

/**
 * The use cases of the enrichment service: each loads the account's job, takes a pure
 * decision, writes the job with its outbox in one document write and publishes. Provider
 * calls happen outside the decisions; their answers are applied to the freshest state.
 */
export function createEnrichmentWorkflow(deps: WorkflowDeps) {
  const { jobs, index, schedule, bankData, provider, clock, logger, metrics, pacing } = deps;
  const leaseFrom = (now: Date) => new Date(now.getTime() + deps.leaseMs);
  /**
   * Each job as this process last wrote it: the starting point of its next change here, which
   * is then written only if nobody changed the job since (see `change`).
   */
  const remembered = new LRUCache<string, StoredJob>({ max: REMEMBERED_JOBS });

  /**
   * A profile names its holder (the applicant, usually) and narrations may too: those leave
   * this service sealed. Figures stay readable for the services that score them.
   */
  function sealedResult(result: ResultEffect): ResultEffect {
    if (result.type !== 'AccountEnriched') return result;
    const { profile } = result;
    const seal = (value: string | null) => (value === null ? null : deps.sealer.seal(value));
    return {
      ...result,
      profile: {
        ...profile,
        holderName: deps.sealer.seal(profile.holderName),
        income: {
          ...profile.income,
          streams: profile.income.streams.map((s) => ({ ...s, lastIncomeDescription: seal(s.lastIncomeDescription) })),
        },
      },
    };
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
    decide: (job: EnrichmentJob, now: Date) => Change | EnrichmentJob | null,
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
      // An outbox empty before this write now holds exactly `outbox`: published without a read.
      if (result.outbox.length > 0) await deps.jobRelay.flush(accountId, result.wasPending ? undefined : result.outbox);
      return { current, written: after?.job ?? null, stored: after };
    }
    throw new ServiceError(`Enrichment of account ${accountId} kept changing under us`, { retriable: true });
  }

  /** `change`, returning the state written, or null when the decision changed nothing. */
  async function mutate(
    accountId: string,
    decide: (job: EnrichmentJob, now: Date) => Change | EnrichmentJob | null,
    known?: StoredJob,
  ): Promise<EnrichmentJob | null> {
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

  async function onAccountLinked(fact: Fact<'AccountLinked'>) {
    const now = clock.now();
    // One job per account: a redelivered fact finds it exists (the insert is refused).
    const job = openJob(null, fact, { now, leaseUntil: leaseFrom(now) });
    if (!job || !(await insertJob(job))) return;
    metrics.jobs.inc({ outcome: 'started' });
    logger.info({ accountId: job.accountId, applicationId: job.applicationId }, 'enrichment started');
    deps.kick(job.accountId);
  }

  async function onRestartRequested(fact: Fact<'EnrichmentRestartRequested'>) {
    // The restart may bring another provider account: it must lead to the job before the
    // provider jobs of the new attempt are started.
    await index.add(fact);
    const existing = remembered.get(fact.accountId) ?? (await jobs.get(fact.accountId));
    if (!existing) {
      const now = clock.now();
      const job = restartJob(null, fact, { now, leaseUntil: leaseFrom(now) });
      if (!job) return;
      if (!(await insertJob(job))) return onRestartRequested(fact);
      metrics.jobs.inc({ outcome: 'started' });
      deps.kick(job.accountId);
      return;
    }
    const restarted = await mutate(fact.accountId, (job, now) =>
      restartJob(job, fact, { now, leaseUntil: leaseFrom(now) }),
    );
    if (!restarted) return;
    metrics.jobs.inc({ outcome: 'restarted' });
    logger.info({ accountId: restarted.accountId, attempt: restarted.attempt }, 'enrichment restarted');
    deps.kick(restarted.accountId);
  }

  async function onApplicationClosed(
    fact: Pick<Fact<'ApplicationClosed'>, 'factId' | 'clientId' | 'applicationId'>,
    scrub: boolean,
  ) {
    // Every closing (each decided application has one) finds its jobs by `_id`. A scrub, rare,
    // also queries the collection, for jobs written before the lookup existed.
    const candidates = new Set(await index.byApplication(fact.applicationId));
    if (scrub) for (const id of await jobs.idsByApplication(fact.applicationId)) candidates.add(id);
    const accountIds: string[] = [];
    for (const accountId of candidates) {
      const { current, written } = await change(accountId, (job, now) =>
        job.applicationId === fact.applicationId ? closeJob(job, fact, now, scrub) : null,
      );
      if (current?.applicationId === fact.applicationId) accountIds.push(accountId);
      if (written) metrics.jobs.inc({ outcome: written.scrubbedAt ? 'scrubbed' : 'closed' });
    }
    if (!scrub) return;
    // The jobs are marked first, so that no worker stores a profile after the delete.
    const deleted = await bankData.deleteApplication(fact.applicationId);
    const now = clock.now();
    const id = randomUUID();
    const outbox: OutboxEntry[] = [
      {
        id,
        topic: Topics.enrichmentResults,
        key: fact.applicationId,
        value: {
          type: 'BankDataScrubbed',
          factId: id,
          clientId: fact.clientId,
          applicationId: fact.applicationId,
          at: now.toISOString(),
          accountIds,
        },
      },
    ];
    await bankData.recordScrub({
      scrubId: fact.factId,
      applicationId: fact.applicationId,
      accountIds,
      at: now,
      outbox,
    });
    await deps.scrubRelay.flush(fact.factId);
    logger.info(
      { applicationId: fact.applicationId, accounts: accountIds.length, profiles: deleted },
      'bank data scrubbed',
    );
  }

  async function onApplicationFact(fact: ApplicationFact) {
    switch (fact.type) {
      case 'AccountLinked':
        return onAccountLinked(fact);
      case 'EnrichmentRestartRequested':
        return onRestartRequested(fact);
      case 'ApplicationClosed':
        return onApplicationClosed(fact, mustScrub(fact));
      default:
        return;
    }
  }

  /** A provider webhook: the part it announces is fetched now rather than at the next poll. */
  async function onProviderCallback(callback: ProviderCallback) {
    const part = PART_OF[callback.kind];
    if (!part) return;
    const ours = (job: EnrichmentJob) => job.providerAccountId === callback.providerAccountId;
    for (const accountId of await index.byProviderAccount(callback.providerAccountId)) {
      const { current } = await change(accountId, (job, now) =>
        ours(job) ? signalPart(job, { part, at: now, leaseUntil: leaseFrom(now), clientId: callback.clientId }) : null,
      );
      // Also when the signal was recorded already (a redelivery after a crash): work resumes now.
      if (current && isActive(current) && ours(current) && (!callback.clientId || current.clientId === callback.clientId)) deps.kick(accountId);
    }
  }

  async function onDeadline(deadline: DeadlinePassed) {
    if (deadline.kind === 'bank_data_retention') {
      // The decided application's bank data has been kept long enough: scrubbed as after a
      // no_analyze abandonment (scoring follows BankDataScrubbed). The deadline id makes a
      // redelivered deadline a no-op.
      await onApplicationClosed({ factId: deadline.deadlineId, clientId: deadline.clientId, applicationId: deadline.applicationId }, true);
      return;
    }
    if (deadline.kind !== 'enrichment_timeout' || !deadline.accountId) return;
    const failed = await mutate(deadline.accountId, (job, now) => expireJob(job, deadline, now));
    if (!failed) return;
    metrics.jobs.inc({ outcome: 'timed_out' });
    logger.warn({ accountId: failed.accountId, attempt: failed.attempt }, 'enrichment timed out');
  }

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
   * READY with its messages. The profile is stored first: a crash in between leaves the job
   * pending, and the next run stores the same profile again.
   */
  async function finish(job: EnrichmentJob, key: string, known?: StoredJob) {
    const attempt = job.attempt;
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
      await mutate(job.accountId, (j, now) => recordFailure(j, { attempt, error: message(error), now, pacing }), known);
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
    const done = await mutate(job.accountId, (j, now) => completeJob(j, { attempt, profile, now }), known);
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
   * fetch the results that are due, and finish when both are in. Whatever fails is retried
   * after a backoff; the job stays pending in the database meanwhile.
   */
  async function advance(accountId: string) {
    // As last written here when that is still work to do; anything else is checked afresh.
    let stored = remembered.get(accountId);
    if (!stored || !isActive(stored.job)) stored = (await jobs.get(accountId)) ?? undefined;
    if (!stored || !isActive(stored.job)) return;
    let job = stored.job;
    const attempt = job.attempt;
    const key = deps.sealer.open(job.providerKeySealed);
    const step = planStep(job, clock.now(), pacing);
    if (step.start.length > 0 || step.fetch.length > 0) {
      const outcomes = await Promise.all([
        ...step.start.map((part) => requestPart(job, key, part, 'start')),
        ...step.fetch.map((part) => requestPart(job, key, part, 'fetch')),
      ]);
      for (const o of outcomes) {
        if (o.kind === 'failed') logger.warn({ accountId, part: o.part, error: o.error }, 'provider call failed');
      }
      const applied = await change(
        accountId,
        (j, now) => applyStep(j, { attempt, outcomes, now, pacing, holdUntil: leaseFrom(now) }),
        stored,
      );
      if (!applied.written || !applied.stored) return;
      job = applied.written;
      stored = applied.stored;
      // The write above set when the job is due next (a backoff, the next poll, or the claim kept to finish).
      if (outcomes.some((o) => o.kind === 'failed') || !bothDone(job)) return;
    }
    if (isActive(job) && job.attempt === attempt && bothDone(job)) {
      await finish(job, key, stored);
      return;
    }
    // Nothing more to do now: make sure the job is looked at again when it is due.
    await mutate(
      accountId,
      (j, now) => {
        if (!isActive(j) || j.attempt !== attempt) return null;
        const due = nextTry(j, now, pacing, false);
        if (due?.getTime() === j.nextTryAt?.getTime()) return null;
        return { ...j, nextTryAt: due };
      },
      stored,
    );
  }

  /**
   * Claims the jobs that are due (a restart after a crash, a late webhook, a retry) and works
   * on them. Due jobs come from the schedule in memory; each is then read and claimed by `_id`.
   */
  async function sweep(limit = 50): Promise<number> {
    let claimed = 0;
    for (const accountId of schedule.due(clock.now(), limit)) {
      const { written } = await change(accountId, (j, now) => claimJob(j, { now, leaseUntil: leaseFrom(now) })).catch(
        () => ({ written: null }),
      );
      if (!written) continue;
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
  async function reload(): Promise<number> {
    if (!indexChecked) {
      const added = await index.backfill(await jobs.open());
      if (added > 0) logger.info({ jobs: added }, 'lookups of earlier enrichment jobs added');
      indexChecked = true;
    }
    const pending = await jobs.activeSchedule();
    schedule.merge(pending);
    return pending.length;
  }

  return { onApplicationFact, onProviderCallback, onDeadline, advance, sweep, reload, mutate };
}
export type EnrichmentWorkflow = ReturnType<typeof createEnrichmentWorkflow>;
