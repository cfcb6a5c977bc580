import { randomUUID } from 'node:crypto';
import { EnrichedAccount, type DeadlinePassed, type EnrichmentResult } from '@loan/contracts';
import { isSealed } from '@loan/runtime';
import { waitFor } from '@testing/helpers';
import { testSealer } from '@testing/stack';
import { startHarness, type Harness } from '@testing/enrichmentHarness';
import type { EnrichmentService } from './service';

const sealer = testSealer();

type Enriched = Extract<EnrichmentResult, { type: 'AccountEnriched' }>;

const timeout = (input: { applicationId: string; accountId: string; since: string }): DeadlinePassed => ({
  deadlineId: randomUUID(),
  kind: 'enrichment_timeout',
  clientId: 'client-test',
  applicationId: input.applicationId,
  accountId: input.accountId,
  attempt: null,
  since: input.since,
  dueAt: new Date().toISOString(),
  firedAt: new Date().toISOString(),
});

describe('enrichment service against the broker, the database and the sandbox provider', () => {
  let h: Harness;
  let service: EnrichmentService;

  beforeAll(async () => {
    h = await startHarness();
    service = await h.startEnrichment();
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('when an account is linked, then it is enriched: account.enrichment_ready, then the profile for scoring, and the bank data is stored', async () => {
    const linked = await h.linkAccount({ persona: 'salaried' });
    const ready = await waitFor(() => h.eventsOf('account.enrichment_ready', linked.accountId)[0], {
      what: 'enrichment_ready',
    });
    expect(ready.data).toEqual({
      accountId: linked.accountId,
      providerAccountId: linked.providerAccountId,
      applicantId: linked.applicantId,
      applicationId: linked.applicationId,
      message: expect.any(String),
    });
    expect(ready.applicationId).toBe(linked.applicationId);
    expect(ready.clientId).toBe('client-test');

    const enriched = (await waitFor(() => h.resultsOf('AccountEnriched', linked.accountId)[0], {
      what: 'AccountEnriched',
    })) as Enriched;
    expect(enriched.attempt).toBe(1);
    // The public event went out first (same outbox, published in order).
    expect(h.publishedAt.get(ready.id)!).toBeLessThanOrEqual(h.publishedAt.get(enriched.factId)!);
    const profile = EnrichedAccount.parse(enriched.profile);
    expect(profile).toMatchObject({
      accountId: linked.accountId,
      providerAccountId: linked.providerAccountId,
      accountNumber: linked.accountNumber,
      institution: linked.institution,
      currency: 'NGN',
    });
    // The holder's name and the narrations travel sealed; the figures stay readable.
    expect(profile.holderName).not.toContain('OKAFOR');
    expect(sealer.open(profile.holderName)).toBe('ADAEZE OKAFOR');
    for (const stream of profile.income.streams) {
      if (stream.lastIncomeDescription !== null) expect(isSealed(stream.lastIncomeDescription)).toBe(true);
    }
    expect(profile.months.length).toBeGreaterThanOrEqual(6);
    expect(profile.months.some((m) => m.salaryCredits > 0)).toBe(true);
    expect(profile.income.monthlyIncome).toBeGreaterThan(0);
    expect(profile.insights.transactionCount).toBeGreaterThan(50);

    const [stored] = await h.bankData({ _id: linked.accountId });
    expect(stored).toMatchObject({ applicationId: linked.applicationId, applicantId: linked.applicantId, attempt: 1 });
    // The service's own copy keeps the name and narrations sealed too, the figures readable.
    const { holderName: _sealedName, income, ...figures } = profile;
    expect(stored!.profile).toMatchObject(figures);
    expect(sealer.open(stored!.profile.holderName)).toBe('ADAEZE OKAFOR');
    for (const stream of stored!.profile.income.streams) {
      if (stream.lastIncomeDescription !== null) expect(isSealed(stream.lastIncomeDescription)).toBe(true);
    }
    expect(stored!.profile.income.monthlyIncome).toBe(income.monthlyIncome);

    // The relay marks the outbox empty right after publishing.
    const job = await waitFor(
      async () => {
        const doc = await h.job(linked.accountId);
        return doc?.outboxPending === false && doc;
      },
      { what: 'the outbox published' },
    );
    expect(job).toMatchObject({ status: 'READY', attempt: 1, outboxPending: false });
    expect(job!.income.status).toBe('DONE');
    expect(job!.insights.status).toBe('DONE');
    // The provider's results are kept sealed: they name the holder, and narrations may.
    expect(JSON.stringify(job)).not.toContain('OKAFOR');
    expect([job!.income.result, job!.insights.result].map((r) => typeof r === 'string' && isSealed(r))).toEqual([
      true,
      true,
    ]);
  });

  it('when an application links several accounts, then each is enriched once', async () => {
    const first = await h.linkAccount({ persona: 'gig' });
    const second = await h.linkAccount({
      persona: 'heavy_betting',
      applicationId: first.applicationId,
      applicantId: first.applicantId,
      widgetUrl: first.widgetUrl,
    });
    const third = await h.linkAccount({
      persona: 'overdrawn',
      applicationId: first.applicationId,
      applicantId: first.applicantId,
      widgetUrl: first.widgetUrl,
    });
    const accounts = [first, second, third];
    await waitFor(() => accounts.every((a) => h.resultsOf('AccountEnriched', a.accountId).length === 1), {
      what: 'three enriched accounts',
    });
    await h.settled(service);
    for (const a of accounts) expect(h.eventsOf('account.enrichment_ready', a.accountId)).toHaveLength(1);
    const stored = await h.bankData({ applicationId: first.applicationId });
    expect(stored.map((d) => d._id).sort()).toEqual(accounts.map((a) => a.accountId).sort());
    const betting = stored.find((d) => d._id === second.accountId)!.profile;
    expect(betting.months.reduce((s, m) => s + m.bettingDebits, 0)).toBeGreaterThan(0);
    const overdrawn = stored.find((d) => d._id === third.accountId)!.profile;
    expect(overdrawn.months.reduce((s, m) => s + m.overdraftDays, 0)).toBeGreaterThan(0);
  });

  it('when the provider sends its webhooks several times, then the account is announced once', async () => {
    const linked = await h.linkAccount({ persona: 'salaried_high' });
    // The provider retries each of its result webhooks three times, some while we are still working.
    const mine = () =>
      h.webhooks.filter(
        (w) => w.accountId === linked.providerAccountId && /account_income|statement_insights/.test(w.event),
      );
    const originals = await waitFor(() => mine().length >= 2 && mine().slice(0, 2), { what: 'the result webhooks' });
    for (let i = 0; i < 3; i++) for (const webhook of originals) await h.redeliver(webhook);
    await h.enriched(linked.accountId);
    for (const webhook of originals) await h.redeliver(webhook);
    await h.settled(service);
    expect(mine().length).toBeGreaterThanOrEqual(10);
    expect(h.eventsOf('account.enrichment_ready', linked.accountId)).toHaveLength(1);
    expect(h.resultsOf('AccountEnriched', linked.accountId)).toHaveLength(1);
  });

  it('when the provider never finishes, then the account stays pending until its timeout, and a stale timeout is ignored', async () => {
    const linked = await h.linkAccount({ persona: 'never_completes' });
    // Started, then polled (the webhooks never come) and still pending.
    await waitFor(
      async () => {
        const job = await h.job(linked.accountId);
        return job?.income.status === 'STARTED' && job.insights.status === 'STARTED';
      },
      { what: 'both provider jobs started' },
    );
    const polls = async () =>
      (await service.metrics.providerCalls.get()).values
        .filter((v) => v.labels.call === 'get_insights')
        .reduce((s, v) => s + v.value, 0);
    const before = await polls();
    await waitFor(async () => (await polls()) >= before + 2, { what: 'the provider to be polled' });
    expect((await h.job(linked.accountId))?.status).toBe('PENDING');

    await h.publishDeadline(timeout({ ...linked, since: new Date(Date.parse(linked.at) - 60_000).toISOString() }));
    await h.settled(service);
    expect((await h.job(linked.accountId))?.status).toBe('PENDING');
    expect(h.eventsOf('account.enrichment_failed', linked.accountId)).toHaveLength(0);

    await h.publishDeadline(timeout({ ...linked, since: linked.at }));
    const failed = await waitFor(() => h.eventsOf('account.enrichment_failed', linked.accountId)[0], {
      what: 'enrichment_failed',
    });
    expect(failed.data).toEqual({
      accountId: linked.accountId,
      providerAccountId: linked.providerAccountId,
      applicantId: linked.applicantId,
      reason: 'enrichment_timeout',
      message: expect.stringContaining('link-account'),
    });
    await waitFor(() => h.resultsOf('EnrichmentTimedOut', linked.accountId).length === 1, {
      what: 'EnrichmentTimedOut',
    });
    await h.publishDeadline(timeout({ ...linked, since: linked.at }));
    await h.settled(service);
    expect(h.eventsOf('account.enrichment_failed', linked.accountId)).toHaveLength(1);
    expect((await h.job(linked.accountId))?.status).toBe('FAILED');
    expect(h.eventsOf('account.enrichment_ready', linked.accountId)).toHaveLength(0);
  });

  it('when an enriched account is re-linked, then enrichment restarts and it is enriched again as attempt 2', async () => {
    const linked = await h.linkAccount({ persona: 'debt_stressed' });
    await waitFor(() => h.resultsOf('AccountEnriched', linked.accountId).length === 1, { what: 'first enrichment' });
    const restartAt = new Date().toISOString();
    await h.publishFact({
      type: 'EnrichmentRestartRequested',
      factId: randomUUID(),
      clientId: 'client-test',
      applicationId: linked.applicationId,
      at: restartAt,
      applicantId: linked.applicantId,
      accountId: linked.accountId,
      providerAccountId: linked.providerAccountId,
      providerKey: linked.providerKey,
    });
    const second = (await waitFor(
      () => h.resultsOf('AccountEnriched', linked.accountId).find((r) => (r as Enriched).attempt === 2),
      { what: 'second enrichment' },
    )) as Enriched;
    expect(second.profile.accountId).toBe(linked.accountId);
    await h.settled(service);
    expect(h.eventsOf('account.enrichment_ready', linked.accountId)).toHaveLength(2);
    expect(await h.job(linked.accountId)).toMatchObject({ status: 'READY', attempt: 2, since: restartAt });
    const [stored] = await h.bankData({ _id: linked.accountId });
    expect(stored!.attempt).toBe(2);

    // A timeout set for the first attempt finds nothing to do.
    await h.publishDeadline(timeout({ ...linked, since: linked.at }));
    await h.settled(service);
    expect(h.eventsOf('account.enrichment_failed', linked.accountId)).toHaveLength(0);
  });

  it('when another replica changed a job after this process last wrote it, then the next change here is written on top of that change', async () => {
    const linked = await h.linkAccount({ persona: 'salaried' });
    await h.enriched(linked.accountId);
    await h.settled(service);
    const before = (await h.job(linked.accountId))!;
    const jobs = h.driver.db.collection('enrichment_jobs');
    // Another replica's write, which this process has not seen.
    const other = await jobs.updateOne(
      { _id: linked.accountId as never, rev: before.rev },
      { $set: { institution: 'Written elsewhere', rev: before.rev + 1 } },
    );
    expect(other.modifiedCount).toBe(1);
    await h.publishFact({
      type: 'ApplicationClosed',
      factId: randomUUID(),
      clientId: 'client-test',
      applicationId: linked.applicationId,
      at: new Date().toISOString(),
      applicantId: linked.applicantId,
      status: 'COMPLETED',
      abandonReason: null,
    });
    const closed = await waitFor(
      async () => {
        const job = await h.job(linked.accountId);
        return job?.closedAt ? job : null;
      },
      { what: 'the job closed' },
    );
    expect(closed).toMatchObject({ rev: before.rev + 2, institution: 'Written elsewhere', status: 'READY' });
  });

  it('when the application is abandoned without analysis, then its bank data is deleted and the scrub is announced', async () => {
    const first = await h.linkAccount({ persona: 'salaried' });
    const second = await h.linkAccount({
      persona: 'thin_file',
      applicationId: first.applicationId,
      applicantId: first.applicantId,
      widgetUrl: first.widgetUrl,
    });
    await waitFor(() => [first, second].every((a) => h.resultsOf('AccountEnriched', a.accountId).length === 1), {
      what: 'both accounts enriched',
    });
    expect(await h.bankData({ applicationId: first.applicationId })).toHaveLength(2);
    const other = await h.linkAccount({ persona: 'salaried' });
    await waitFor(() => h.resultsOf('AccountEnriched', other.accountId).length === 1, {
      what: 'another application enriched',
    });

    const closed = {
      type: 'ApplicationClosed' as const,
      factId: randomUUID(),
      clientId: 'client-test',
      applicationId: first.applicationId,
      at: new Date().toISOString(),
      applicantId: first.applicantId,
      status: 'ABANDONED' as const,
      abandonReason: 'no_analyze' as const,
    };
    await h.publishFact(closed);
    const scrubbed = await waitFor(
      () => h.results.find((r) => r.type === 'BankDataScrubbed' && r.applicationId === first.applicationId),
      { what: 'BankDataScrubbed' },
    );
    expect(scrubbed).toMatchObject({ accountIds: expect.arrayContaining([first.accountId, second.accountId]) });
    expect(await h.bankData({ applicationId: first.applicationId })).toHaveLength(0);
    expect(await h.bankData({ _id: other.accountId })).toHaveLength(1);
    const job = await h.job(first.accountId);
    expect(job).toMatchObject({ accountNumber: null, status: 'READY' });
    expect(job!.scrubbedAt).toBeTruthy();
    expect(job!.income.result).toBeNull();
    expect(job!.insights.result).toBeNull();

    // A redelivered close scrubs nothing more and announces nothing more.
    await h.publishFact(closed);
    await h.settled(service);
    expect(
      h.results.filter((r) => r.type === 'BankDataScrubbed' && r.applicationId === first.applicationId),
    ).toHaveLength(1);
  });
});
