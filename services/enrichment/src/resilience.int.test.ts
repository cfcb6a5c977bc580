import { waitFor } from '@testing/helpers';
import { startHarness, type Harness } from '@testing/enrichmentHarness';
import { openJob } from './domain/startEnrichment/decide';
import type { EnrichmentService } from './service';

const gauge = async (service: EnrichmentService) => (await service.metrics.breaker.get()).values[0]?.value;

describe('enrichment when the provider fails', () => {
  let h: Harness;
  let service: EnrichmentService;

  beforeAll(async () => {
    h = await startHarness();
    service = await h.startEnrichment();
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('when the provider answers a burst of 5xx, then the breaker opens, closes again, and the account still ends enriched once', async () => {
    const linked = await h.linkAccount({ persona: 'salaried', publish: false });
    const armed = await fetch(`${h.sandboxUrl}/sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 503, count: 10 }),
    });
    expect(armed.status).toBe(200);
    await h.publishFact(linked);

    await waitFor(async () => (await gauge(service)) === 2, { what: 'the breaker to open' });
    const pending = await h.job(linked.accountId);
    expect(pending).toMatchObject({ status: 'PENDING' });
    expect(pending!.failures).toBeGreaterThan(0);
    expect(pending!.lastError).toMatch(/503|breaker/i);

    // The event and the result go out one after the other: wait for both before counting.
    await h.enriched(linked.accountId, 45_000);
    expect(await gauge(service)).toBe(0);
    await h.settled(service);
    expect(h.eventsOf('account.enrichment_ready', linked.accountId)).toHaveLength(1);
    expect(h.resultsOf('AccountEnriched', linked.accountId)).toHaveLength(1);
    const failed = (await service.metrics.providerCalls.get()).values.filter((v) => v.labels.outcome === 'failed');
    expect(failed.reduce((s, v) => s + v.value, 0)).toBeGreaterThan(0);
    const left = (await (await fetch(`${h.sandboxUrl}/sandbox/faults/reset`, { method: 'POST' })).json()) as {
      armed: { provider: unknown };
    };
    expect(left.armed.provider).toBeNull();
  });
});

/** Links an account and stops the enrichment process once both provider jobs are under way. */
async function stopWhileProviderWorks(h: Harness) {
  const first = await h.startEnrichment();
  const linked = await h.linkAccount({ persona: 'salaried' });
  await waitFor(
    async () => {
      const job = await h.job(linked.accountId);
      return job?.income.status === 'STARTED' && job.insights.status === 'STARTED';
    },
    { what: 'both provider jobs started' },
  );
  await first.stop();
  return linked;
}

describe('enrichment when its process stops mid-way', () => {
  let h: Harness;

  beforeAll(async () => {
    // Provider jobs take long enough to stop the process while they run.
    h = await startHarness({ jobDelay: '3s' });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('when the process stops while the provider works and a fresh one starts on the same database, then the account still ends enriched once', async () => {
    const linked = await stopWhileProviderWorks(h);

    // The provider finishes and its webhooks are taken in while no enrichment process runs.
    const results = () =>
      h.webhooks.filter(
        (w) => w.accountId === linked.providerAccountId && /account_income|statement_insights/.test(w.event),
      );
    await waitFor(() => results().length >= 2, { what: 'the result webhooks' });
    expect((await h.job(linked.accountId))?.status).toBe('PENDING');

    const second = await h.startEnrichment();
    await h.enriched(linked.accountId);
    await h.settled(second);
    expect(h.eventsOf('account.enrichment_ready', linked.accountId)).toHaveLength(1);
    expect(h.resultsOf('AccountEnriched', linked.accountId)).toHaveLength(1);
    expect(await h.job(linked.accountId)).toMatchObject({ status: 'READY', attempt: 1 });
    await second.stop();
  });

  it('when the process stops after starting the provider jobs and before writing anything of them, then a fresh one ends the account enriched once', async () => {
    // No polling before the webhooks: the starts are held in memory, not written yet.
    const first = await h.startEnrichment({ ENRICHMENT_POLL_AFTER: '60s' });
    const linked = await h.linkAccount({ persona: 'salaried' });
    const started = async () =>
      (await first.metrics.providerCalls.get()).values
        .filter((v) => v.labels.outcome === 'ok' && /^start_/.test(String(v.labels.call)))
        .reduce((s, v) => s + v.value, 0);
    await waitFor(async () => (await started()) >= 2, { what: 'both provider jobs started' });
    await first.stop();
    const job = await h.job(linked.accountId);
    expect(job).toMatchObject({ status: 'PENDING' });
    expect(job!.income.status).toBe('NOT_STARTED');

    const second = await h.startEnrichment();
    await h.enriched(linked.accountId, 30_000);
    await h.settled(second);
    expect(h.eventsOf('account.enrichment_ready', linked.accountId)).toHaveLength(1);
    expect(h.resultsOf('AccountEnriched', linked.accountId)).toHaveLength(1);
    expect(await h.job(linked.accountId)).toMatchObject({ status: 'READY', attempt: 1 });
    await second.stop();
  });

  it('when the process stops after a webhook came and before its result was written, then the webhook is handled again by a fresh one', async () => {
    // Neither process polls nor retries soon: only the webhooks can move the job on.
    const slow = { ENRICHMENT_POLL_AFTER: '60s', ENRICHMENT_RETRY_BASE: '45s', ENRICHMENT_RETRY_MAX: '45s' };
    const first = await h.startEnrichment(slow);
    const linked = await h.linkAccount({ persona: 'gig' });
    const started = async () =>
      (await first.metrics.providerCalls.get()).values
        .filter((v) => v.labels.outcome === 'ok' && /^start_/.test(String(v.labels.call)))
        .reduce((s, v) => s + v.value, 0);
    await waitFor(async () => (await started()) >= 2, { what: 'both provider jobs started' });
    // The results cannot be fetched when their webhooks come: the job records the failure.
    const armed = await fetch(`${h.sandboxUrl}/sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 503, count: 50 }),
    });
    expect(armed.status).toBe(200);
    await waitFor(async () => ((await h.job(linked.accountId))?.failures ?? 0) > 0, { what: 'a failed fetch' });
    await first.stop();
    await fetch(`${h.sandboxUrl}/sandbox/faults/reset`, { method: 'POST' });
    expect(await h.job(linked.accountId)).toMatchObject({ status: 'PENDING', income: { status: 'STARTED' } });

    const second = await h.startEnrichment(slow);
    await h.enriched(linked.accountId, 30_000);
    await h.settled(second);
    expect(h.eventsOf('account.enrichment_ready', linked.accountId)).toHaveLength(1);
    expect(h.resultsOf('AccountEnriched', linked.accountId)).toHaveLength(1);
    await second.stop();
  });

  it('when the process stops before the provider could be reached, then a fresh one starts the provider jobs from the database', async () => {
    // The first process cannot reach the provider: its jobs stay pending, none started.
    const first = await h.startEnrichment({ PROVIDER_BASE_URL: 'http://127.0.0.1:9', ENRICHMENT_RETRY_BASE: '5s' });
    const linked = await h.linkAccount({ persona: 'gig' });
    await waitFor(async () => ((await h.job(linked.accountId))?.failures ?? 0) > 0, { what: 'a failed attempt' });
    await first.stop();
    const job = await h.job(linked.accountId);
    expect(job).toMatchObject({ status: 'PENDING' });
    expect(job!.income.status).toBe('NOT_STARTED');

    const second = await h.startEnrichment();
    await h.enriched(linked.accountId, 30_000);
    await h.settled(second);
    expect(h.eventsOf('account.enrichment_ready', linked.accountId)).toHaveLength(1);
  });
});

describe('enrichment finds its jobs by id', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ jobDelay: '3s' });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('when jobs were written before their lookups existed, then a fresh process adds them at start and the webhooks still reach the job', async () => {
    const linked = await stopWhileProviderWorks(h);
    // As an older version left them: no lookups by provider account or application.
    await h.driver.db.collection('enrichment_provider_accounts').deleteMany({});
    await h.driver.db.collection('enrichment_application_accounts').deleteMany({});

    // Polling comes only after a minute: enriched sooner means the webhooks found the job.
    const second = await h.startEnrichment({ ENRICHMENT_POLL_AFTER: '60s' });
    const lookup = await h.driver.db
      .collection<{ _id: string; accountIds: string[] }>('enrichment_provider_accounts')
      .findOne({ _id: linked.providerAccountId });
    expect(lookup?.accountIds).toEqual([linked.accountId]);
    await h.enriched(linked.accountId, 30_000);
    await h.settled(second);
    expect(h.resultsOf('AccountEnriched', linked.accountId)).toHaveLength(1);
    await second.stop();
  });

  it('when another process wrote a pending job this one never heard of, then the periodic reload finds it and works on it', async () => {
    const service = await h.startEnrichment({ ENRICHMENT_RESCAN_INTERVAL: '1s' });
    const linked = await h.linkAccount({ persona: 'gig', publish: false });
    // What another replica writes for the fact before it stops: the lookups and a due job.
    const now = new Date();
    const job = openJob(null, linked, { now, leaseUntil: now })!;
    await service.index.add(job);
    await service.jobs.insert(job);

    await h.enriched(linked.accountId, 30_000);
    await h.settled(service);
    expect(h.resultsOf('AccountEnriched', linked.accountId)).toHaveLength(1);
    expect(await h.job(linked.accountId)).toMatchObject({ status: 'READY', attempt: 1 });
  });
});
