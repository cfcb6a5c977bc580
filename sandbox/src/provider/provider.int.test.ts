import { startTestSandbox, type TestSandbox } from '../testing/testSandbox';
import { waitFor } from '@testing/helpers';
import { isValidNuban } from '../personas';

describe('provider sandbox over HTTP', () => {
  let t: TestSandbox;

  beforeEach(async () => {
    t = await startTestSandbox();
  });

  afterEach(async () => {
    await t.stop();
  });

  const eventsFor = (accountId: string) =>
    t.webhooks.received
      .filter((w) => w.answered === 200)
      .filter((w) => {
        const data = w.body.data;
        const account = data.account as { _id?: string } | string | undefined;
        return (
          data.id === accountId || account === accountId || (typeof account === 'object' && account?._id === accountId)
        );
      })
      .map((w) => w.body.event);

  it('when a link is initiated, then the widget address is on the sandbox and the envelope is the provider’s', async () => {
    const { status, body } = await t.api('/v2/accounts/initiate', {
      body: {
        customer: { name: 'Ngozi Eze', email: 'ngozi@example.com' },
        scope: 'auth',
        meta: { ref: 'app-42' },
        redirect_url: 'https://lender.example/done',
      },
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'successful', message: expect.any(String), timestamp: expect.any(String) });
    expect(body.data).toEqual({
      mono_url: expect.stringMatching(new RegExp(`^${t.url}/widget/[0-9a-f]{24}$`)),
      customer: expect.stringMatching(/^[0-9a-f]{24}$/),
      meta: { ref: 'app-42' },
      scope: 'auth',
      redirect_url: 'https://lender.example/done',
      created_at: expect.any(String),
    });
  });

  it('when initiate lacks the secret key, then it answers 401 in the provider’s error shape', async () => {
    const { status, body } = await t.api('/v2/accounts/initiate', { body: { scope: 'auth' }, key: null });
    expect(status).toBe(401);
    expect(body).toMatchObject({ status: 'failed', message: expect.stringContaining('mono-sec-key') });
  });

  it('when initiate has a bad body, then it answers 400', async () => {
    const { status, body } = await t.api('/v2/accounts/initiate', { body: { scope: 'auth', customer: { name: 'x' } } });
    expect(status).toBe(400);
    expect(body.status).toBe('failed');
  });

  it('when an account is linked headlessly, then connected and updated webhooks arrive in order with the secret header', async () => {
    const widgetUrl = await t.initiate({ meta: { ref: 'app-7' } });
    const { status, body } = await t.link({ widgetUrl, institution: 'GTBank', persona: 'salaried' });
    expect(status).toBe(200);
    expect(body).toEqual({
      providerAccountId: expect.stringMatching(/^[0-9a-f]{24}$/),
      institution: 'GTBank',
      accountNumber: expect.stringMatching(/^\d{10}$/),
      // The customer of the session (Samuel Olamide), as a bank prints names.
      holderName: 'SAMUEL OLAMIDE',
      persona: 'salaried',
    });
    expect(isValidNuban('058', body.accountNumber)).toBe(true);

    await waitFor(() => eventsFor(body.providerAccountId).length === 2, { what: 'two account webhooks' });
    const [connected, updated] = t.webhooks.received;
    expect(eventsFor(body.providerAccountId)).toEqual(['mono.events.account_connected', 'mono.events.account_updated']);
    for (const webhook of [connected, updated]) {
      expect(webhook?.headers['mono-webhook-secret']).toBe('test-webhook-secret');
      expect(webhook?.headers['content-type']).toMatch(/application\/json/);
      expect(webhook?.body).toMatchObject({ event_id: expect.any(String), timestamp: expect.any(String) });
    }
    expect(connected?.body.event_id).not.toBe(updated?.body.event_id);
    expect(connected?.body.data).toEqual({
      id: body.providerAccountId,
      customer: expect.any(String),
      meta: { data_status: 'AVAILABLE', auth_method: 'internet_banking', ref: 'app-7' },
    });
    expect(updated?.body.data).toEqual({
      account: {
        _id: body.providerAccountId,
        name: 'SAMUEL OLAMIDE',
        accountNumber: body.accountNumber,
        currency: 'NGN',
        balance: expect.any(Number),
        type: 'SAVINGS_ACCOUNT',
        bvn: expect.stringMatching(/^\d{4}$/),
        authMethod: 'internet_banking',
        institution: { name: 'GTBank', bankCode: '058', type: 'PERSONAL_BANKING' },
      },
      meta: {
        data_status: 'AVAILABLE',
        auth_method: 'internet_banking',
        ref: 'app-7',
        retrieved_data: ['identity', 'balance', 'transactions'],
      },
    });
  });

  it('when the same widget session links twice, then two different accounts are linked, deterministically', async () => {
    const widgetUrl = await t.initiate();
    const first = await t.link({ widgetUrl });
    const second = await t.link({ widgetUrl, persona: 'gig' });
    expect(first.body.providerAccountId).not.toBe(second.body.providerAccountId);
    expect(first.body.persona).toBe('salaried');

    const again = await startTestSandbox();
    try {
      t.sandbox.store.sessions.forEach((session) =>
        again.sandbox.store.sessions.set(session.id, { ...session, linkedAccountIds: [], tickets: new Map() }),
      );
      const replay = await again.link({ widgetUrl });
      expect(replay.body).toEqual(first.body);
    } finally {
      await again.stop();
    }
  });

  it('when a linked account is read, then details, identity, balance and transactions come back in the provider’s shapes', async () => {
    const { body: linked } = await t.link({ widgetUrl: await t.initiate(), institution: 'zenith' });
    const id = linked.providerAccountId as string;

    const details = await t.api(`/v2/accounts/${id}`);
    expect(details.status).toBe(200);
    expect(details.body.data).toEqual({
      account: {
        id,
        name: 'SAMUEL OLAMIDE',
        currency: 'NGN',
        type: 'SAVINGS_ACCOUNT',
        account_number: linked.accountNumber,
        balance: expect.any(Number),
        bvn: expect.stringMatching(/^\d{4}$/),
        institution: { name: 'Zenith Bank', bank_code: '057', type: 'PERSONAL_BANKING' },
      },
      customer: { id: expect.any(String) },
      meta: {
        data_status: 'AVAILABLE',
        auth_method: 'internet_banking',
        retrieved_data: ['identity', 'balance', 'transactions'],
        ref: 'application-1',
      },
    });

    const identity = await t.api(`/v2/accounts/${id}/identity`);
    expect(identity.body.data).toMatchObject({
      full_name: 'SAMUEL OLAMIDE',
      email: 'samuel@example.com',
      bvn: expect.stringMatching(/^\d{11}$/),
    });
    expect(identity.body.data.bvn.slice(-4)).toBe(details.body.data.account.bvn);

    const all = await t.api(`/v2/accounts/${id}/transactions?paginate=false`);
    expect(all.body.meta).toEqual({ total: all.body.data.length, page: 1, previous: null, next: null });
    expect(all.body.data[0]).toEqual({
      id: expect.any(String),
      narration: expect.any(String),
      amount: expect.any(Number),
      type: expect.stringMatching(/^(debit|credit)$/),
      balance: expect.any(Number),
      date: expect.any(String),
      category: expect.any(String),
    });
    expect(all.body.data[0].balance).toBe(details.body.data.account.balance);

    const page2 = await t.api(`/v2/accounts/${id}/transactions?limit=5&page=2`);
    expect(page2.body.data).toEqual(all.body.data.slice(5, 10));
    expect(page2.body.meta).toMatchObject({ total: all.body.data.length, page: 2 });
    expect(page2.body.meta.previous).toContain('page=1');
    expect(page2.body.meta.next).toContain('page=3');

    const credits = await t.api(`/v2/accounts/${id}/transactions?paginate=false&type=credit`);
    expect(credits.body.data.length).toBeGreaterThan(0);
    expect(credits.body.data.every((tx: { type: string }) => tx.type === 'credit')).toBe(true);

    const newest = new Date(all.body.data[0].date);
    const day = `${String(newest.getUTCDate()).padStart(2, '0')}-${String(newest.getUTCMonth() + 1).padStart(2, '0')}-${newest.getUTCFullYear()}`;
    const oneDay = await t.api(`/v2/accounts/${id}/transactions?paginate=false&start=${day}&end=${day}`);
    expect(oneDay.body.data.length).toBeGreaterThan(0);
    expect(
      oneDay.body.data.every((tx: { date: string }) => tx.date.slice(0, 10) === newest.toISOString().slice(0, 10)),
    ).toBe(true);

    const bad = await t.api(`/v2/accounts/${id}/transactions?start=yesterday`);
    expect(bad.status).toBe(400);
  });

  it('when an unknown account is read, then it answers 404 in the provider’s error shape', async () => {
    const { status, body } = await t.api('/v2/accounts/000000000000000000000000/transactions');
    expect(status).toBe(404);
    expect(body).toMatchObject({ status: 'failed', message: expect.stringContaining('not found'), data: null });
  });

  it('when an income analysis is requested, then the job answers at once and the result arrives by webhook and in the records', async () => {
    const { body: linked } = await t.link({ widgetUrl: await t.initiate() });
    const id = linked.providerAccountId as string;

    const started = await t.api(`/v2/accounts/${id}/income?period=6`);
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ status: 'successful', data: null });

    const webhook = await waitFor(
      () => t.webhooks.received.find((w) => w.body.event === 'mono.events.account_income'),
      { what: 'income webhook' },
    );
    expect(webhook.headers['mono-webhook-secret']).toBe('test-webhook-secret');
    expect(webhook.body.data).toMatchObject({
      account: id,
      account_name: 'SAMUEL OLAMIDE',
      account_number: linked.accountNumber,
      period: 6,
      income_summary: { employer: expect.stringMatching(/.+/) },
      income_streams: [expect.objectContaining({ income_type: 'SALARY', frequency: 'MONTHLY', currency: 'NGN' })],
    });

    const records = await t.api(`/v2/accounts/${id}/income-records`);
    expect(records.body.data).toEqual([webhook.body.data]);
  });

  it('when statement insights are requested, then the job is processing until the webhook says it finished', async () => {
    const { body: linked } = await t.link({ widgetUrl: await t.initiate(), persona: 'overdrawn' });
    const id = linked.providerAccountId as string;

    const started = await t.api(`/v2/accounts/${id}/statement/insights`);
    expect(started.body).toMatchObject({
      status: 'processing',
      data: { jobId: expect.any(String), jobStatus: 'processing' },
    });
    const jobId = started.body.data.jobId as string;
    const early = await t.api(`/v2/enrichments/record/${jobId}`);
    expect(early.body).toMatchObject({ status: 'processing', data: { jobId, jobStatus: 'processing' } });

    const webhook = await waitFor(
      () => t.webhooks.received.find((w) => w.body.event === 'mono.events.statement_insights'),
      { what: 'insights webhook' },
    );
    expect(webhook.body.data).toEqual({ account: id, jobId, message: expect.any(String) });

    const record = await t.api(`/v2/enrichments/record/${jobId}`);
    expect(record.body.status).toBe('successful');
    expect(record.body.data).toMatchObject({
      transaction_count: expect.any(Number),
      opening_balance: expect.any(Number),
      closing_balance: expect.any(Number),
      average_balance: expect.any(Number),
      debit_to_credit_ratio: expect.any(Number),
      highest_debits: expect.any(Array),
      immediate_large_withdrawal_post_payday: expect.any(Boolean),
    });
    expect(record.body.data.average_balance).toBeLessThan(record.body.data.overall_credits);

    expect((await t.api('/v2/enrichments/record/unknown-job')).status).toBe(404);
  });

  it('when the persona never completes, then its jobs stay processing and send no webhook', async () => {
    const { body: linked } = await t.link({ widgetUrl: await t.initiate(), persona: 'never_completes' });
    const id = linked.providerAccountId as string;
    await t.api(`/v2/accounts/${id}/income`);
    const started = await t.api(`/v2/accounts/${id}/statement/insights`);
    const { body: control } = await t.link({ widgetUrl: await t.initiate() });
    await t.api(`/v2/accounts/${control.providerAccountId}/income`);

    // A normal account's job, started later, finishing proves the delay has passed.
    await waitFor(() => t.webhooks.received.some((w) => w.body.event === 'mono.events.account_income'), {
      what: 'control job',
    });
    expect(eventsFor(id)).toEqual(['mono.events.account_connected', 'mono.events.account_updated']);
    expect((await t.api(`/v2/enrichments/record/${started.body.data.jobId}`)).body.status).toBe('processing');
    expect((await t.api(`/v2/accounts/${id}/income-records`)).body.data).toEqual([]);
  });

  it('when a reauth session is completed, then the same account is re-linked and account_reauthorized is sent', async () => {
    const { body: linked } = await t.link({ widgetUrl: await t.initiate() });
    const id = linked.providerAccountId as string;
    const reauth = await t.api('/v2/accounts/initiate', {
      body: { scope: 'reauth', account: id, meta: { ref: 'app-re' }, redirect_url: 'https://lender.example/re' },
    });
    expect(reauth.status).toBe(200);
    expect(reauth.body.data.scope).toBe('reauth');

    const relinked = await t.link({ widgetUrl: reauth.body.data.mono_url });
    expect(relinked.status).toBe(200);
    expect(relinked.body).toEqual(linked);
    const webhook = await waitFor(
      () => t.webhooks.received.find((w) => w.body.event === 'mono.events.account_reauthorized'),
      { what: 'reauthorized webhook' },
    );
    expect(webhook.body.data).toEqual({ account: { _id: id } });

    const unknown = await t.api('/v2/accounts/initiate', {
      body: { scope: 'reauth', account: 'nope', redirect_url: 'https://lender.example/re' },
    });
    expect(unknown.status).toBe(404);
  });

  it('when the webhook receiver fails, then the webhook is retried with the same event id until it is accepted', async () => {
    t.webhooks.answerWith((_body, attempt) => (attempt < 3 ? 500 : 200));
    const { body: linked } = await t.link({ widgetUrl: await t.initiate() });
    await waitFor(() => eventsFor(linked.providerAccountId).length === 2, { what: 'both webhooks accepted' });
    const attempts = t.webhooks.received.map((w) => `${w.body.event}:${w.answered}`);
    expect(attempts).toEqual([
      'mono.events.account_connected:500',
      'mono.events.account_connected:500',
      'mono.events.account_connected:200',
      'mono.events.account_updated:500',
      'mono.events.account_updated:500',
      'mono.events.account_updated:200',
    ]);
    const connectedIds = new Set(
      t.webhooks.received.filter((w) => w.body.event === 'mono.events.account_connected').map((w) => w.body.event_id),
    );
    expect(connectedIds.size).toBe(1);
  });

  const armFaults = (body: Record<string, unknown>) =>
    fetch(`${t.url}/sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('when faults are armed, then the next N provider calls answer that status and then it recovers', async () => {
    const { body: linked } = await t.link({ widgetUrl: await t.initiate() });
    const account = `/v2/accounts/${linked.providerAccountId as string}`;
    expect((await armFaults({ status: 503, count: 2 })).status).toBe(200);

    const faulted = await t.api(account);
    expect(faulted).toEqual({ status: 503, body: expect.objectContaining({ status: 'failed' }) });
    expect((await t.api(`${account}/transactions`)).status).toBe(503);
    expect((await t.api(account)).status).toBe(200);

    await armFaults({ status: 500, count: 5 });
    await fetch(`${t.url}/sandbox/faults/reset`, { method: 'POST' });
    expect((await t.api(account)).status).toBe(200);

    expect((await armFaults({ status: 404, count: 1 })).status).toBe(400);
  });

  it('when faults are armed, then webhooks and the sandbox’s own endpoints are unaffected', async () => {
    const widgetUrl = await t.initiate();
    await armFaults({ status: 502, count: 50 });
    const { status, body: linked } = await t.link({ widgetUrl });
    expect(status).toBe(200);
    await waitFor(() => eventsFor(linked.providerAccountId).length === 2, { what: 'webhooks despite faults' });
    expect((await t.api(`/v2/accounts/${linked.providerAccountId as string}`)).status).toBe(502);
  });

  it('when the sandbox link body is bad or names an unknown session, persona or bank, then it answers 400 or 404', async () => {
    const widgetUrl = await t.initiate();
    expect((await t.link({})).status).toBe(400);
    expect((await t.link({ widgetUrl: 'not a url' })).status).toBe(400);
    expect((await t.link({ widgetUrl, persona: 'millionaire' })).status).toBe(400);
    expect((await t.link({ widgetUrl, institution: 'Bank of Nowhere' })).status).toBe(400);
    const unknown = await t.link({ widgetUrl: `${t.url}/widget/ffffffffffffffffffffffff` });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ status: 'failed', message: expect.any(String) });
  });

  it('when personas and health are asked for, then they are listed and healthy', async () => {
    const personas = await fetch(`${t.url}/sandbox/personas`).then(
      (r) => r.json() as Promise<Array<{ id: string; description: string }>>,
    );
    expect(personas).toHaveLength(9);
    expect(personas[0]).toEqual({ id: 'salaried', description: expect.any(String) });
    expect((await fetch(`${t.url}/sandbox/health`)).status).toBe(200);
  });
});

describe('widget session expiry', () => {
  let t: TestSandbox;

  beforeEach(async () => {
    t = await startTestSandbox({ SANDBOX_SESSION_TTL: '200ms' });
  });

  afterEach(async () => {
    await t.stop();
  });

  it('when the session TTL has passed, then linking answers 410 and the widget page answers 410', async () => {
    const widgetUrl = await t.initiate();
    expect((await t.link({ widgetUrl })).status).toBe(200);
    const expired = await waitFor(
      async () => {
        const attempt = await t.link({ widgetUrl });
        return attempt.status === 410 ? attempt : null;
      },
      { what: 'session expiry' },
    );
    expect(expired.body).toMatchObject({ status: 'failed', message: expect.stringContaining('expired') });
    const page = await fetch(widgetUrl);
    expect(page.status).toBe(410);
    expect(await page.text()).toContain('expired');
  });
});

describe('provider sandbox over HTTP, with more sessions than it keeps', () => {
  let t: TestSandbox;

  beforeAll(async () => {
    t = await startTestSandbox({ SANDBOX_MAX_SESSIONS: '2' });
  });

  afterAll(async () => {
    await t.stop();
  });

  it('when a third link is initiated, then the oldest session and the account linked through it are gone, and the two newest still answer', async () => {
    const accounts: string[] = [];
    for (let n = 0; n < 3; n++) {
      const { status, body } = await t.link({ widgetUrl: await t.initiate() });
      expect(status).toBe(200);
      accounts.push(body.providerAccountId as string);
    }
    const statuses = await Promise.all(accounts.map(async (id) => (await t.api(`/v2/accounts/${id}`)).status));
    // The third initiate pushed the first session out before the third link.
    expect(statuses).toEqual([404, 200, 200]);
    expect(t.sandbox.store.sessions.size).toBe(2);
  });
});
