import { startTestSandbox, type TestSandbox } from '../testing/testSandbox';
import { waitFor } from '@testing/helpers';

/** Submits a form the way a browser does (urlencoded, following nothing). */
async function submit(url: string, fields: Record<string, string>) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, html: await response.text() };
}

const hiddenValue = (html: string, name: string): string => {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!match?.[1]) throw new Error(`no hidden field ${name}`);
  return match[1];
};

describe('hosted widget', () => {
  let t: TestSandbox;

  beforeEach(async () => {
    t = await startTestSandbox();
  });

  afterEach(async () => {
    await t.stop();
  });

  it('when an applicant chooses a bank, signs in, picks an account and consents, then the account is linked and webhooks are sent', async () => {
    const widgetUrl = await t.initiate({ meta: { ref: 'app-widget' } });

    const start = await fetch(widgetUrl);
    const startHtml = await start.text();
    expect(start.status).toBe(200);
    expect(start.headers.get('content-type')).toMatch(/text\/html/);
    expect(startHtml).toContain('<select id="bank" name="bank"');
    expect(startHtml).toContain('<option value="gtbank">GTBank</option>');
    expect(startHtml).toContain('Continue');

    const signIn = await fetch(`${widgetUrl}/login?bank=gtbank`);
    const signInHtml = await signIn.text();
    expect(signInHtml).toContain('Sign in to GTBank');
    expect(signInHtml).toContain('id="username"');
    expect(signInHtml).toContain('id="password"');

    const wrong = await submit(`${widgetUrl}/login`, { bank: 'gtbank', username: 'user_good', password: 'wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('Incorrect username or password');

    const accounts = await submit(`${widgetUrl}/login`, { bank: 'gtbank', username: 'user_good', password: '123456' });
    expect(accounts.status).toBe(200);
    expect(accounts.html).toContain('<select id="persona" name="persona"');
    expect(accounts.html).toContain('value="heavy_betting"');
    expect(accounts.html).toContain('id="consent"');
    expect(accounts.html).toContain('Link account');
    const ticket = hiddenValue(accounts.html, 'ticket');

    const noConsent = await submit(`${widgetUrl}/link`, { ticket, persona: 'heavy_betting' });
    expect(noConsent.status).toBe(400);
    expect(noConsent.html).toContain('Please tick the consent box');

    const linked = await submit(`${widgetUrl}/link`, { ticket, persona: 'heavy_betting', consent: 'yes' });
    expect(linked.status).toBe(200);
    expect(linked.html).toContain('Account linked');
    expect(linked.html).toContain('GTBank account');
    expect(linked.html).toContain('Link another account');
    expect(linked.html).toContain('https://lender.example/linked?status=linked&amp;reference=app-widget');

    const [account] = [...t.sandbox.store.accounts.values()];
    expect(account).toMatchObject({ persona: 'heavy_betting', ref: 'app-widget', institution: { id: 'gtbank' } });
    await waitFor(() => t.webhooks.received.length === 2, { what: 'link webhooks' });
    expect(t.webhooks.received.map((w) => w.body.event)).toEqual([
      'mono.events.account_connected',
      'mono.events.account_updated',
    ]);

    const reused = await submit(`${widgetUrl}/link`, { ticket, persona: 'salaried', consent: 'yes' });
    expect(reused.status).toBe(400);
    expect(reused.html).toContain('sign in again');

    const again = await fetch(widgetUrl).then((r) => r.text());
    expect(again).toContain('id="linked-accounts"');
  });

  it('when the same session links a second account through the widget, then both accounts belong to the session', async () => {
    const widgetUrl = await t.initiate();
    for (const [bank, persona] of [
      ['access', 'salaried'],
      ['opay', 'gig'],
    ] as const) {
      const accounts = await submit(`${widgetUrl}/login`, { bank, username: 'user_good', password: '123456' });
      const linked = await submit(`${widgetUrl}/link`, {
        ticket: hiddenValue(accounts.html, 'ticket'),
        persona,
        consent: 'yes',
      });
      expect(linked.html).toContain('Account linked');
    }
    const [session] = [...t.sandbox.store.sessions.values()];
    expect(session?.linkedAccountIds).toHaveLength(2);
    const wallet = t.sandbox.store.accounts.get(session?.linkedAccountIds[1] ?? '');
    expect(wallet).toMatchObject({ persona: 'gig', authMethod: 'mobile_banking', institution: { name: 'OPay' } });
  });

  it('when the address names no session, then the page answers 404', async () => {
    const response = await fetch(`${t.url}/widget/ffffffffffffffffffffffff`);
    expect(response.status).toBe(404);
    expect(await response.text()).toContain('Link not found');
  });

  it('when an unknown bank is chosen, then the applicant is sent back to the list', async () => {
    const widgetUrl = await t.initiate();
    const response = await fetch(`${widgetUrl}/login?bank=nowhere`);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('Start again');
  });

  it('when the session is a reauth, then only the account’s bank is offered and completing it re-links the account', async () => {
    const { body: first } = await t.link({ widgetUrl: await t.initiate(), institution: 'uba' });
    const reauth = await t.api('/v2/accounts/initiate', {
      body: { scope: 'reauth', account: first.providerAccountId, redirect_url: 'https://lender.example/re' },
    });
    const widgetUrl = reauth.body.data.mono_url as string;

    const start = await fetch(widgetUrl).then((r) => r.text());
    expect(start).toContain('Re-link your bank account');
    expect(start).toContain('<option value="uba" selected>UBA</option>');
    expect(start).not.toContain('value="gtbank"');

    const accounts = await submit(`${widgetUrl}/login`, { bank: 'uba', username: 'user_good', password: '123456' });
    expect(accounts.html).toContain('id="relink-account"');
    const done = await submit(`${widgetUrl}/link`, { ticket: hiddenValue(accounts.html, 'ticket'), consent: 'yes' });
    expect(done.html).toContain('Account re-linked');
    expect(done.html).not.toContain('Link another account');
    await waitFor(() => t.webhooks.received.some((w) => w.body.event === 'mono.events.account_reauthorized'), {
      what: 'reauthorized webhook',
    });
    expect(t.sandbox.store.accounts.size).toBe(1);
  });
});

describe('hosted widget of a lender’s loan application', () => {
  let t: TestSandbox;

  beforeEach(async () => {
    t = await startTestSandbox();
  });

  afterEach(async () => {
    await t.stop();
  });

  const purposeMeta = { ref: 'app-purpose', lender_name: 'Kobo Credit', loan_amount: 42_500_000, loan_tenor: 9 };
  const close = (reason: string, before?: string) =>
    t.api('/v2/accounts/initiate/close', {
      body: { meta: { ref: 'app-purpose' }, reason, ...(before ? { before } : {}) },
    });

  it('when the caller names the lender and the loan, then every page of the widget names them', async () => {
    const widgetUrl = await t.initiate({ meta: purposeMeta });
    const start = await fetch(widgetUrl).then((r) => r.text());
    expect(start).toContain('<span class="lender" id="lender-name">Kobo Credit</span>');
    expect(start).toContain('Your application for a loan of ₦425,000 over 9 months');
    const accounts = await submit(`${widgetUrl}/login`, { bank: 'gtbank', username: 'user_good', password: '123456' });
    expect(accounts.html).toContain('id="loan-summary"');
    expect(accounts.html).toContain('I allow Kobo Credit to read this GTBank account');
    const linked = await submit(`${widgetUrl}/link`, {
      ticket: hiddenValue(accounts.html, 'ticket'),
      persona: 'salaried',
      consent: 'yes',
    });
    expect(linked.html).toContain('id="lender-name"');
  });

  it('when the meta carries values the widget cannot show, then the link still opens and the page names what it can', async () => {
    const widgetUrl = await t.initiate({
      meta: { ref: 'app-odd-meta', lender_name: 'Kobo Credit', loan_amount: 0, loan_tenor: 'nine' },
    });
    const start = await fetch(widgetUrl);
    expect(start.status).toBe(200);
    const html = await start.text();
    expect(html).toContain('<span class="lender" id="lender-name">Kobo Credit</span>');
    expect(html).not.toContain('Your application for a loan of');
  });

  it('when the caller closes the application’s sessions, then the widget answers 409 saying why and nothing more is linked', async () => {
    const widgetUrl = await t.initiate({ meta: purposeMeta });
    const accounts = await submit(`${widgetUrl}/login`, { bank: 'gtbank', username: 'user_good', password: '123456' });
    const ticket = hiddenValue(accounts.html, 'ticket');

    const closed = await close('decided');
    expect(closed.status).toBe(200);
    expect(closed.body.data).toEqual({ ref: 'app-purpose', closed: 1 });

    const page = await fetch(widgetUrl);
    const html = await page.text();
    expect(page.status).toBe(409);
    expect(html).toContain('This application takes no more bank accounts');
    expect(html).toContain('Kobo Credit has already decided this loan application');
    expect(html).toContain('a loan of ₦425,000 over 9 months');
    expect(html).not.toContain('<select id="bank"');
    // A sign-in from before the close does not link either, from the page or headless.
    const late = await submit(`${widgetUrl}/link`, { ticket, persona: 'salaried', consent: 'yes' });
    expect(late.status).toBe(409);
    const headless = await t.link({ widgetUrl });
    expect(headless.status).toBe(409);
    expect(headless.body.message).toContain('already decided');
    expect(t.sandbox.store.accounts.size).toBe(0);
    expect(t.webhooks.received).toHaveLength(0);
  });

  it('when linking is only finalized, then new links close and the re-link of an account stays open', async () => {
    const widgetUrl = await t.initiate({ meta: purposeMeta });
    const { body: first } = await t.link({ widgetUrl });
    const reauth = await t.api('/v2/accounts/initiate', {
      body: { scope: 'reauth', account: first.providerAccountId, meta: purposeMeta },
    });
    expect((await close('linking_finalized')).body.data.closed).toBe(1);
    expect((await t.link({ widgetUrl })).status).toBe(409);
    expect(await fetch(widgetUrl).then((r) => r.text())).toContain('linking was completed');
    expect((await t.link({ widgetUrl: reauth.body.data.mono_url })).status).toBe(200);
    // Decided later: both sessions close, and the page gives the new reason.
    expect((await close('decided')).body.data.closed).toBe(2);
    expect(await fetch(widgetUrl).then((r) => r.text())).toContain('already decided');
    expect((await close('decided')).body.data.closed).toBe(0);
  });

  it('when a session was opened after the close’s instant (a resumed application), then it stays open', async () => {
    const old = await t.initiate({ meta: purposeMeta });
    const before = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const resumed = await t.initiate({ meta: purposeMeta });
    expect((await close('abandoned', before)).body.data.closed).toBe(1);
    expect((await t.link({ widgetUrl: old })).status).toBe(409);
    expect((await t.link({ widgetUrl: resumed })).status).toBe(200);
  });

  it('when the close names no reference or an unknown reason, then it answers 400 and closes nothing', async () => {
    const widgetUrl = await t.initiate({ meta: purposeMeta });
    expect((await t.api('/v2/accounts/initiate/close', { body: {} })).status).toBe(400);
    expect((await close('because')).status).toBe(400);
    expect((await t.link({ widgetUrl })).status).toBe(200);
  });
});

describe('hosted widget after expiry', () => {
  let t: TestSandbox;

  beforeEach(async () => {
    t = await startTestSandbox({ SANDBOX_SESSION_TTL: '200ms' });
  });

  afterEach(async () => {
    await t.stop();
  });

  it('when the session has expired mid-way, then every step answers 410', async () => {
    const widgetUrl = await t.initiate();
    const accounts = await submit(`${widgetUrl}/login`, { bank: 'gtbank', username: 'user_good', password: '123456' });
    const ticket = hiddenValue(accounts.html, 'ticket');
    await waitFor(async () => (await fetch(widgetUrl)).status === 410, { what: 'expiry' });
    expect((await fetch(`${widgetUrl}/login?bank=gtbank`)).status).toBe(410);
    expect((await submit(`${widgetUrl}/link`, { ticket, persona: 'salaried', consent: 'yes' })).status).toBe(410);
    expect(t.sandbox.store.accounts.size).toBe(0);
  });
});
