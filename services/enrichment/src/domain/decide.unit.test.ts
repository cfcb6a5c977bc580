import { randomUUID } from 'node:crypto';
import type { ApplicationFact, DeadlinePassed, EnrichedAccount } from '@loan/contracts';
import {
  applyStep,
  backoffMs,
  claimJob,
  isFreshIncome,
  nextTry,
  planStep,
  signalPart,
  type Pacing,
} from './advanceEnrichment/decide';
import { completeJob } from './completeEnrichment/decide';
import { expireJob } from './expireEnrichment/decide';
import type { EnrichmentJob } from './job';
import { closeJob, mustScrub } from './scrubBankData/decide';
import { openJob, restartJob } from './startEnrichment/decide';

const t0 = new Date('2026-11-01T08:00:00.000Z');
const later = (ms: number) => new Date(t0.getTime() + ms);
const pacing: Pacing = { pollAfterMs: 60_000, pollIntervalMs: 5_000, retryBaseMs: 2_000, retryMaxMs: 120_000 };
const applicationId = randomUUID();
const accountId = randomUUID();
const applicantId = randomUUID();

type Linked = Extract<ApplicationFact, { type: 'AccountLinked' }>;
type Restart = Extract<ApplicationFact, { type: 'EnrichmentRestartRequested' }>;
type Closed = Extract<ApplicationFact, { type: 'ApplicationClosed' }>;

const linked: Linked = {
  type: 'AccountLinked',
  factId: randomUUID(),
  clientId: 'client-a',
  applicationId,
  at: t0.toISOString(),
  applicantId,
  accountId,
  providerAccountId: 'mono-acc-1',
  institution: 'GTBank',
  accountNumber: '0123456785',
  providerKey: 'v1.aaa.bbb.ccc',
};

const restart = (at: Date, factId = randomUUID()): Restart => ({
  type: 'EnrichmentRestartRequested',
  factId,
  clientId: 'client-a',
  applicationId,
  at: at.toISOString(),
  applicantId,
  accountId,
  providerAccountId: 'mono-acc-1',
  providerKey: 'v1.ddd.eee.fff',
});

const closed = (abandonReason: Closed['abandonReason']): Closed => ({
  type: 'ApplicationClosed',
  factId: randomUUID(),
  clientId: 'client-a',
  applicationId,
  at: later(1000).toISOString(),
  applicantId,
  status: 'ABANDONED',
  abandonReason,
});

const deadline = (since: string): DeadlinePassed => ({
  deadlineId: randomUUID(),
  kind: 'enrichment_timeout',
  clientId: 'client-a',
  applicationId,
  accountId,
  attempt: null,
  since,
  dueAt: later(20 * 60_000).toISOString(),
  firedAt: later(20 * 60_000).toISOString(),
});

const profile = { accountId } as unknown as EnrichedAccount;

function opened(): EnrichmentJob {
  const job = openJob(null, linked, { now: t0, leaseUntil: later(120_000) });
  if (!job) throw new Error('not opened');
  return job;
}

/** A job whose two provider jobs were started at t0. */
function started(): EnrichmentJob {
  const job = applyStep(opened(), {
    attempt: 1,
    outcomes: [
      { part: 'income', kind: 'started', at: t0 },
      { part: 'insights', kind: 'started', jobId: 'job-1', at: t0 },
    ],
    now: t0,
    pacing,
    holdUntil: null,
  });
  if (!job) throw new Error('not started');
  return job;
}

function done(job = started()): EnrichmentJob {
  const next = applyStep(job, {
    attempt: job.attempt,
    outcomes: [
      { part: 'income', kind: 'done', result: { total_income: 100 }, at: later(1000) },
      { part: 'insights', kind: 'done', result: { overall_credits: 100 }, at: later(1000) },
    ],
    now: later(1000),
    pacing,
    holdUntil: later(121_000),
  });
  if (!next) throw new Error('not done');
  return next;
}

describe('enrichment decisions', () => {
  it('when an account is linked, then a pending job of attempt 1 starts from the link time; a second link of it changes nothing', () => {
    const job = opened();
    expect(job).toMatchObject({ status: 'PENDING', attempt: 1, since: t0.toISOString(), nextTryAt: later(120_000) });
    expect(planStep(job, t0, pacing)).toEqual({ start: ['income', 'insights'], fetch: [] });
    expect(openJob(job, linked, { now: later(5), leaseUntil: later(10) })).toBeNull();
  });

  it('when the provider starts both jobs, then they are waited for and polled only after the poll delay', () => {
    const job = started();
    expect(job.insights.jobId).toBe('job-1');
    expect(job.nextTryAt).toEqual(later(60_000));
    expect(planStep(job, later(59_000), pacing)).toEqual({ start: [], fetch: [] });
    expect(planStep(job, later(60_000), pacing)).toEqual({ start: [], fetch: ['income', 'insights'] });
  });

  it('when a webhook says a result is ready, then that part is fetched at once', () => {
    const signalled = signalPart(started(), { part: 'insights', at: later(500), leaseUntil: later(30_000) });
    expect(planStep(signalled!, later(600), pacing)).toEqual({ start: [], fetch: ['insights'] });
    expect(signalPart(signalled!, { part: 'insights', at: later(700), leaseUntil: later(30_000) })).toBeNull();
  });

  it("when a webhook verified with another client's own provider secret names the account, then the job is not signalled; its own client's is", () => {
    const job = started();
    expect(
      signalPart(job, { part: 'income', at: later(500), leaseUntil: later(30_000), clientId: 'another-client' }),
    ).toBeNull();
    expect(
      signalPart(job, { part: 'income', at: later(500), leaseUntil: later(30_000), clientId: job.clientId })?.income
        .signalledAt,
    ).toEqual(later(500));
    expect(
      signalPart(job, { part: 'income', at: later(500), leaseUntil: later(30_000), clientId: null })?.income
        .signalledAt,
    ).toEqual(later(500));
  });

  it('when a webhook arrives before the start of its part is recorded, then the part is fetched as soon as the start is', () => {
    const job = opened();
    // The provider finished the income job (and said so) while our start request was on its way.
    const early = signalPart(job, { part: 'income', at: later(50), leaseUntil: later(30_000) });
    expect(early?.income).toMatchObject({ status: 'NOT_STARTED', signalledAt: later(50) });
    expect(early?.nextTryAt).toEqual(job.nextTryAt);
    const recorded = applyStep(early!, {
      attempt: 1,
      outcomes: [
        { part: 'income', kind: 'started', at: later(100) },
        { part: 'insights', kind: 'started', jobId: 'job-1', at: later(100) },
      ],
      now: later(100),
      pacing,
      holdUntil: null,
    });
    expect(recorded?.nextTryAt).toEqual(later(100));
    expect(planStep(recorded!, later(100), pacing)).toEqual({ start: [], fetch: ['income'] });
    // Done parts ignore late webhooks.
    expect(signalPart(done(), { part: 'income', at: later(2000), leaseUntil: later(30_000) })).toBeNull();
  });

  it('when the provider is down, then the job stays pending and is tried again after a growing backoff', () => {
    let job = opened();
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) {
      job = applyStep(job, {
        attempt: 1,
        outcomes: [{ part: 'income', kind: 'failed', error: 'Provider call failed with 503' }],
        now: t0,
        pacing,
        holdUntil: null,
      })!;
      waits.push(job.nextTryAt!.getTime() - t0.getTime());
    }
    expect(job.status).toBe('PENDING');
    expect(waits).toEqual([2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 120_000, 120_000]);
    expect(backoffMs(0, pacing)).toBe(0);
  });

  it('when both results are in, then the account is enriched once, the public event before the profile', () => {
    const job = done();
    expect(job.nextTryAt).toEqual(later(121_000)); // the worker keeps its claim to finish
    const change = completeJob(job, { attempt: 1, profile, now: later(2000) });
    expect(change?.job).toMatchObject({ status: 'READY', enrichedAt: later(2000), nextTryAt: null });
    expect(change?.effects.map((e) => (e.kind === 'event' ? e.event : e.result.type))).toEqual([
      'account.enrichment_ready',
      'AccountEnriched',
    ]);
    expect(change?.effects[1]).toMatchObject({ kind: 'result', result: { attempt: 1, profile } });
    expect(completeJob(change!.job, { attempt: 1, profile, now: later(3000) })).toBeNull();
  });

  it('when results of an older attempt come back, then they are ignored', () => {
    const restarted = restartJob(done(), restart(later(5000)), { now: later(5000), leaseUntil: later(10_000) })!;
    expect(restarted).toMatchObject({ attempt: 2, status: 'PENDING', since: later(5000).toISOString() });
    expect(restarted.income).toMatchObject({ status: 'NOT_STARTED', result: null });
    expect(completeJob(restarted, { attempt: 1, profile, now: later(6000) })).toBeNull();
    expect(
      applyStep(restarted, {
        attempt: 1,
        outcomes: [{ part: 'income', kind: 'started', at: t0 }],
        now: later(6000),
        pacing,
        holdUntil: null,
      }),
    ).toBeNull();
  });

  it('when a restart is redelivered or older than the current attempt, then nothing changes', () => {
    const fact = restart(later(5000));
    const once = restartJob(opened(), fact, { now: later(5000), leaseUntil: later(10_000) })!;
    expect(restartJob(once, fact, { now: later(6000), leaseUntil: later(10_000) })).toBeNull();
    expect(restartJob(once, restart(later(-1000)), { now: later(6000), leaseUntil: later(10_000) })).toBeNull();
  });

  it('when the enriched account is re-linked, then a new attempt starts over', () => {
    const ready = completeJob(done(), { attempt: 1, profile, now: later(2000) })!.job;
    const again = restartJob(ready, restart(later(9000)), { now: later(9000), leaseUntil: later(10_000) })!;
    expect(again).toMatchObject({
      status: 'PENDING',
      attempt: 2,
      enrichedAt: null,
      providerKeySealed: 'v1.ddd.eee.fff',
    });
  });

  it('when the enrichment timeout of the current attempt passes while pending, then the account fails once', () => {
    const job = started();
    const change = expireJob(job, deadline(t0.toISOString()), later(20 * 60_000));
    expect(change?.job).toMatchObject({ status: 'FAILED', nextTryAt: null });
    expect(change?.effects[0]).toMatchObject({
      kind: 'event',
      event: 'account.enrichment_failed',
      data: { accountId, providerAccountId: 'mono-acc-1', applicantId, reason: 'enrichment_timeout' },
    });
    expect(change?.effects[1]).toMatchObject({ kind: 'result', result: { type: 'EnrichmentTimedOut', attempt: 1 } });
    expect(expireJob(change!.job, deadline(t0.toISOString()), later(20 * 60_000))).toBeNull();
  });

  it('when a timeout is for an earlier attempt or the account is enriched, then it is stale', () => {
    const restarted = restartJob(started(), restart(later(5000)), { now: later(5000), leaseUntil: later(10_000) })!;
    expect(expireJob(restarted, deadline(t0.toISOString()), later(20 * 60_000))).toBeNull();
    const ready = completeJob(done(), { attempt: 1, profile, now: later(2000) })!.job;
    expect(expireJob(ready, deadline(t0.toISOString()), later(20 * 60_000))).toBeNull();
  });

  it('when the application is abandoned without analysis, then the provider results and account number are dropped and work stops', () => {
    const scrubbed = closeJob(done(), closed('no_analyze'), later(9000), mustScrub(closed('no_analyze')))!;
    expect(scrubbed).toMatchObject({
      accountNumber: null,
      scrubbedAt: later(9000),
      closedAt: later(9000),
      nextTryAt: null,
    });
    expect(scrubbed.income.result).toBeNull();
    expect(scrubbed.insights.result).toBeNull();
    expect(planStep(scrubbed, later(100_000), pacing)).toEqual({ start: [], fetch: [] });
    expect(completeJob(scrubbed, { attempt: 1, profile, now: later(9500) })).toBeNull();
    expect(expireJob(scrubbed, deadline(t0.toISOString()), later(20 * 60_000))).toBeNull();
  });

  it('when the application closes for another reason, then pending work stops but the data stays', () => {
    const job = closeJob(done(), closed('no_link'), later(9000), mustScrub(closed('no_link')))!;
    expect(job.closedAt).toEqual(later(9000));
    expect(job.scrubbedAt).toBeNull();
    expect(job.income.result).not.toBeNull();
  });

  it("when a closed application's bank data retention ends, then the data of its closed job is dropped too, once", () => {
    const closedJob = closeJob(done(), closed('no_link'), later(9000), false)!;
    const scrubbed = closeJob(closedJob, { factId: 'bank_data_retention:a:t' }, later(90_000), true)!;
    expect(scrubbed).toMatchObject({ accountNumber: null, scrubbedAt: later(90_000), closedAt: later(9000) });
    expect(scrubbed.income.result).toBeNull();
    expect(closeJob(scrubbed, { factId: 'bank_data_retention:a:t' }, later(95_000), true)).toBeNull();
  });

  it('when a worker claims a job that is not due, then it does not get it', () => {
    const job = opened();
    expect(claimJob(job, { now: t0, leaseUntil: later(1000) })).toBeNull();
    expect(claimJob(job, { now: later(120_000), leaseUntil: later(240_000) })?.nextTryAt).toEqual(later(240_000));
  });

  it('when a result says it was made before the job was started, then it is not taken for its result', () => {
    expect(isFreshIncome({ created_at: later(-10 * 60_000).toISOString() }, t0)).toBe(false);
    expect(isFreshIncome({ created_at: later(5_000).toISOString() }, t0)).toBe(true);
    expect(isFreshIncome({ total_income: 1 }, t0)).toBe(true);
  });

  it('when nothing is due, then the next look is at the earliest poll time', () => {
    expect(nextTry(started(), later(1000), pacing, false)).toEqual(later(60_000));
    expect(nextTry(started(), later(70_000), pacing, false)).toEqual(later(75_000));
  });
});
