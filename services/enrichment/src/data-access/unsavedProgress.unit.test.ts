import { openJob } from '../domain/startEnrichment/decide';
import type { EnrichmentJob } from '../domain/job';
import { createUnsavedProgress } from './unsavedProgress';

const now = new Date('2026-01-05T10:00:00Z');
const pending = (): EnrichmentJob => {
  const job = openJob(
    null,
    {
      type: 'AccountLinked',
      factId: 'fact-1',
      clientId: 'client-1',
      applicationId: 'app-1',
      at: now.toISOString(),
      applicantId: 'applicant-1',
      accountId: 'account-1',
      providerAccountId: 'provider-1',
      institution: 'GTBank',
      accountNumber: '0123456789',
      providerKey: 'sealed',
    },
    { now, leaseUntil: now },
  )!;
  const started = { status: 'STARTED' as const, startedAt: now, signalledAt: null, doneAt: null, result: null };
  return { ...job, income: started, insights: { ...started, jobId: 'insights-1' } };
};

/** Whether a promise has settled by the time the queued callbacks ran. */
async function settled(promise: Promise<void>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('unsaved progress of enrichment jobs', () => {
  it('when a part is announced, then the job shows it signalled and the message is held until the result is written', async () => {
    const progress = createUnsavedProgress({ holdMaxMs: 60_000 });
    const job = pending();
    const held = progress.announce(job, 'income', now);
    expect(progress.overlay(job).income.signalledAt).toEqual(now);

    progress.keep(job, [{ part: 'income', kind: 'done', result: { amount: 1 }, at: now }]);
    expect(progress.overlay(job).income).toMatchObject({ status: 'DONE', result: { amount: 1 } });
    // Fetched but not in the database yet: the webhook's offset stays held.
    progress.written(job);
    expect(await settled(held)).toBe(false);

    progress.written({ ...job, income: { ...job.income, status: 'DONE', result: { amount: 1 } } });
    expect(await settled(held)).toBe(true);
    expect(progress.unwritten(job)).toEqual([]);
    expect(progress.size()).toBe(0);
  });

  it('when provider jobs were started and not written, then the job shows them started until a write holds them', () => {
    const progress = createUnsavedProgress({ holdMaxMs: 60_000 });
    const stored = { ...pending(), income: { ...pending().income, status: 'NOT_STARTED' as const, startedAt: null } };
    const notStarted = {
      ...stored,
      insights: { ...stored.insights, status: 'NOT_STARTED' as const, startedAt: null, jobId: null },
    };
    const at = new Date(now.getTime() + 1_000);
    progress.keep(notStarted, [
      { part: 'income', kind: 'started', at },
      { part: 'insights', kind: 'started', jobId: 'insights-9', at },
    ]);
    expect(progress.overlay(notStarted)).toMatchObject({
      income: { status: 'STARTED', startedAt: at },
      insights: { status: 'STARTED', startedAt: at, jobId: 'insights-9' },
    });
    expect(progress.unwritten(notStarted).map((o) => o.kind)).toEqual(['started', 'started']);
    expect(progress.holds(notStarted.accountId)).toBe(true);

    progress.written(pending());
    expect(progress.unwritten(notStarted)).toEqual([]);
    expect(progress.holds(notStarted.accountId)).toBe(false);
  });

  it('when the job is over or on another attempt, then what was held for it is let go', async () => {
    const progress = createUnsavedProgress({ holdMaxMs: 60_000 });
    const job = pending();
    const income = progress.announce(job, 'income', now);
    const insights = progress.announce(job, 'insights', now);
    progress.written({ ...job, status: 'FAILED' });
    expect(await settled(income)).toBe(true);
    expect(await settled(insights)).toBe(true);

    const again = progress.announce(job, 'income', now);
    expect(progress.overlay({ ...job, attempt: 2 }).income.signalledAt).toBeNull();
    expect(await settled(again)).toBe(true);
  });

  it('when a run that began before a restart comes back with its answers, then the new attempt keeps what it holds', async () => {
    const progress = createUnsavedProgress({ holdMaxMs: 60_000 });
    const restarted = { ...pending(), attempt: 2 };
    const held = progress.announce(restarted, 'income', now);
    progress.keep(pending(), [{ part: 'insights', kind: 'done', result: { stale: true }, at: now }]);
    expect(progress.overlay(restarted).income.signalledAt).toEqual(now);
    expect(progress.overlay(restarted).insights.status).toBe('STARTED');
    expect(await settled(held)).toBe(false);
  });

  it('when an announced part was not ready, then polling takes over and the message is let go', async () => {
    const progress = createUnsavedProgress({ holdMaxMs: 60_000 });
    const job = pending();
    const held = progress.announce(job, 'insights', now);
    progress.answered(job, ['insights']);
    expect(await settled(held)).toBe(true);
    expect(progress.overlay(job).insights.signalledAt).toBeNull();
  });

  it('when nothing writes the result for longer than the hold, then the message is let go (the part is polled like a lost webhook)', async () => {
    jest.useFakeTimers();
    try {
      const progress = createUnsavedProgress({ holdMaxMs: 60_000 });
      const held = progress.announce(pending(), 'income', now);
      jest.advanceTimersByTime(59_000);
      await Promise.resolve();
      let done = false;
      void held.then(() => (done = true));
      await Promise.resolve();
      expect(done).toBe(false);
      jest.advanceTimersByTime(1_000);
      await held;
    } finally {
      jest.useRealTimers();
    }
  });
});
