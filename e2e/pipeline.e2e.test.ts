import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Decision } from '@loan/contracts';
import { waitFor } from '../testing/helpers';
import { applicant, call, createClient, startWholeStack, suiteNamespace, type Running } from '../testing/stack';
import { launchBrowser } from '../testing/browser';

/**
 * The whole system as a lender meets it: every service, the sandbox provider and bureau, the
 * real broker, registry and database, and a webhook receiver that checks every signature.
 */
const ns = suiteNamespace();
let stack: Awaited<ReturnType<typeof startWholeStack>>;
let services: Running[];
let receiver: Awaited<ReturnType<typeof startWholeStack>>['receiver'];
let lender: Awaited<ReturnType<typeof startWholeStack>>['lender'];
let gatewayUrl: string;

const timings = {
  // The widget's address lives as long (SANDBOX_SESSION_TTL below): long enough for a browser
  // started on a loaded machine to click through it, short enough to wait for once.
  NO_LINK_TTL: '40s',
  NO_ANALYZE_TTL: '2m',
  ENRICHMENT_TIMEOUT: '5s',
  WEBHOOK_RETRY_BASE: '300ms',
  RATE_LIMITS_ENABLED: 'false',
};

beforeAll(async () => {
  stack = await startWholeStack(ns, timings, { SANDBOX_SESSION_TTL: timings.NO_LINK_TTL });
  ({ services, receiver, lender, gatewayUrl } = stack);
});

afterAll(async () => {
  await stack?.stop();
});

const api = (method: string, path: string, body?: unknown) => call(gatewayUrl, lender.apiKey, method, path, body);

async function link(widgetUrl: string, persona: string, institution?: string) {
  const res = await fetch(`${new URL(widgetUrl).origin}/sandbox/link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ widgetUrl, persona, ...(institution ? { institution } : {}) }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { providerAccountId: string };
}

const eventsOf = (applicationId: string, name?: string) =>
  receiver.received
    .map((r) => r.body)
    .filter(
      (b) =>
        (b.data?.applicationId === applicationId || b.applicationId === applicationId) && (!name || b.event === name),
    );

function signatureValid(raw: Buffer, signature: string | string[] | undefined): boolean {
  if (typeof signature !== 'string') return false;
  const expected = createHmac('sha256', lender.webhookSecret).update(raw).digest();
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('a loan application from initiate to a signed decision', () => {
  it('when an applicant links two accounts and the lender analyses, then every event arrives signed and in order, ending in a complete decision', async () => {
    const start = await api(
      'POST',
      '/api/applications/initiate',
      applicant({ bvn: '22200000001', amount: 250_000, tenor: 6 }),
    );
    expect(start.status).toBe(201);
    const { applicationId, applicantId, widgetUrl } = start.body;

    await link(widgetUrl, 'salaried', 'GTBank');
    await link(widgetUrl, 'salaried', 'Access Bank');
    const ready = await waitFor(
      () =>
        eventsOf(applicationId, 'account.enrichment_ready').length === 2 &&
        eventsOf(applicationId, 'account.enrichment_ready'),
      {
        timeoutMs: 60_000,
        what: 'two account.enrichment_ready events',
      },
    );
    const linked = eventsOf(applicationId, 'account.linked');
    expect(linked).toHaveLength(2);
    for (const e of linked) {
      expect(e.data).toEqual({
        applicationId,
        applicantId,
        accountId: expect.any(String),
        institution: expect.any(String),
        accountNumber: expect.stringMatching(/^\d{10}$/),
      });
    }
    // account.linked precedes account.enrichment_ready for the same account
    const order = receiver.received.map((r) => r.body).filter((b) => b.data?.applicationId === applicationId);
    for (const r of ready) {
      const linkedAt = order.findIndex((b) => b.event === 'account.linked' && b.data.accountId === r.data.accountId);
      const readyAt = order.findIndex(
        (b) => b.event === 'account.enrichment_ready' && b.data.accountId === r.data.accountId,
      );
      expect(linkedAt).toBeGreaterThanOrEqual(0);
      expect(linkedAt).toBeLessThan(readyAt);
      expect(r.data).toMatchObject({
        applicantId,
        applicationId,
        providerAccountId: expect.any(String),
        message: expect.any(String),
      });
    }

    const fin = await api('POST', `/api/applications/${applicationId}/finalize-linking`);
    expect(fin.status).toBe(200);
    const readyEvent = await waitFor(() => eventsOf(applicationId, 'application.ready_for_analysis')[0], {
      timeoutMs: 30_000,
      what: 'ready_for_analysis',
    });
    expect(readyEvent.data).toMatchObject({ applicationId, applicantId, accountCount: 2 });

    const analyze = await api('POST', `/api/applications/${applicationId}/analyze`);
    expect(analyze.status).toBe(200);
    expect(analyze.body.status).toBe('PROCESSING');
    const decisionEvent = await waitFor(() => eventsOf(applicationId, 'application.decision')[0], {
      timeoutMs: 60_000,
      what: 'application.decision',
    });
    expect(decisionEvent.data).toMatchObject({
      applicationId,
      applicantId,
      status: 'COMPLETED',
      score: expect.any(Number),
    });
    const decision = Decision.parse(decisionEvent.data.decision);
    expect(decision.applicant_id).toBe(applicantId);
    expect(decision.score).toBe(decisionEvent.data.score);
    expect(decision.regulatory_compliance.credit_bureau_checked).toBe(true);
    expect(decision.regulatory_compliance.identity_verified).toBe(true);
    expect(decision.score_breakdown.total).toBe(decision.score);

    // Every delivery is signed over the raw body and carries the envelope with millisecond timestamps.
    const mine = receiver.received.filter((r) => r.body.data?.applicationId === applicationId);
    expect(mine.length).toBeGreaterThanOrEqual(6);
    for (const r of mine) {
      expect(signatureValid(r.raw, r.headers['x-signature'])).toBe(true);
      expect(r.body).toEqual({
        id: expect.any(String),
        event: expect.any(String),
        data: expect.any(Object),
        timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
    }
    expect(new Set(mine.map((r) => r.body.id)).size).toBe(mine.length);

    const log = await api('GET', `/api/webhooks/deliveries?applicationId=${applicationId}`);
    expect(log.status).toBe(200);
    const logged = JSON.stringify(log.body);
    for (const r of mine) expect(logged).toContain(r.body.id);

    const view = await api('GET', `/api/applications/${applicationId}`);
    expect(view.body).toMatchObject({ status: 'COMPLETED', decision: { score: decision.score } });
    expect(view.body.accounts.every((a: { enrichmentStatus: string }) => a.enrichmentStatus === 'READY')).toBe(true);
    // Each account's statement month by month, as the provider's transactions gave it.
    for (const account of view.body.accounts as {
      monthlyFlows: { month: string; inflow: number; outflow: number }[];
    }[]) {
      const months = account.monthlyFlows.map((f) => f.month);
      expect(months.length).toBeGreaterThan(0);
      expect(months).toEqual([...months].sort());
      expect(account.monthlyFlows.some((f) => f.inflow > 0 && f.outflow > 0)).toBe(true);
    }
    // And its row in the lender's list.
    const listed = await api('GET', `/api/applications?q=${applicationId}`);
    expect(listed.body).toEqual({
      items: [
        expect.objectContaining({
          applicationId,
          status: 'COMPLETED',
          accountCount: 2,
          score: decision.score,
          decision: decision.decision,
        }),
      ],
      nextCursor: null,
      total: 1,
      totalCapped: false,
    });
    const relink = await api('POST', `/api/applications/${applicationId}/link-account`);
    expect(relink.status).toBe(400);

    // What an operator scrapes after a full flow.
    const scrape = async (name: string) =>
      (await fetch(`${services.find((x) => x.name === name)!.opsUrl}/metrics`)).text();
    const gatewayMetrics = await scrape('gateway');
    expect(gatewayMetrics).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/api\/applications\/initiate"/);
    expect(gatewayMetrics).toMatch(/gateway_provider_webhooks_total\{[^}]*outcome="accepted"/);
    for (const name of ['applications', 'enrichment', 'scoring', 'notifier', 'janitor']) {
      const text = await scrape(name);
      expect(text).toMatch(/kafka_handler_duration_seconds_count\{[^}]*outcome="ok"/);
      expect(text).toContain('process_resident_memory_bytes');
    }
    expect(await scrape('scoring')).toMatch(
      new RegExp(`scoring_decisions_total\\{[^}]*decision="${decision.decision}"`),
    );
    expect(await scrape('notifier')).toMatch(/webhook_attempts_total\{[^}]*outcome="delivered"/);
    for (const name of ['enrichment', 'scoring']) expect(await scrape(name)).toMatch(/circuit_breaker_open\{[^}]*\} 0/);

    const again = await api('POST', '/api/applications/initiate', {
      ...applicant(),
      idempotencyKey: await keyOf(applicationId),
    });
    expect(again.status).toBe(409);
  });

  it('when an applicant clicks through the widget in a browser, then account.linked and then account.enrichment_ready arrive', async () => {
    // The browser is up before the application's widget address starts its clock.
    const browser = await launchBrowser();
    let applicationId = '';
    try {
      const page = await browser.newPage();
      // The whole suite runs its stacks and browsers side by side on two cores: a page may take
      // longer than Playwright's 30 s default to come back.
      page.setDefaultTimeout(90_000);
      // Should a page not come, the failure says which page the browser was on.
      const shown = (selector: string) =>
        page.waitForSelector(selector).catch(async (error: unknown) => {
          throw new Error(
            `${String(error)}\nthe browser was at ${page.url()}: ${((await page.textContent('body').catch(() => '')) ?? '').trim().slice(0, 500)}`,
          );
        });
      const start = await api('POST', '/api/applications/initiate', applicant());
      applicationId = start.body.applicationId;
      const widgetUrl: string = start.body.widgetUrl;
      await page.goto(widgetUrl);
      await page.selectOption('#bank', { index: 1 });
      await page.click('#continue');
      await page.fill('#username', 'user_good');
      await page.fill('#password', 'wrong-password');
      await page.click('#sign-in');
      await shown('#error');
      expect(await page.textContent('#error')).toBeTruthy();
      await page.fill('#username', 'user_good');
      await page.fill('#password', '123456');
      await page.click('#sign-in');
      await shown('#persona');
      await page.selectOption('#persona', 'salaried');
      await page.check('#consent');
      await page.click('#link-account');
      expect(await page.textContent('#result')).toBe('Account linked');
    } finally {
      await browser.close();
    }
    await waitFor(() => eventsOf(applicationId, 'account.enrichment_ready').length === 1, {
      timeoutMs: 60_000,
      what: 'account.enrichment_ready',
    });
    expect(eventsOf(applicationId).map((e) => e.event)).toEqual(['account.linked', 'account.enrichment_ready']);
  }, 240_000);

  it('when an applicant opens the widget, then it names the lender and the loan, and once the application takes no more accounts it refuses to link, saying why, at desktop and phone widths', async () => {
    // Pictures of each page at both widths, for a person to look at: <tmpdir>/widget/.
    const shots = path.join(tmpdir(), 'widget');
    mkdirSync(shots, { recursive: true });
    const lenderOfLoan = await createClient(gatewayUrl, { name: 'Kobo Credit Ltd' });
    const lenderCall = (method: string, pathname: string) => call(gatewayUrl, lenderOfLoan.apiKey, method, pathname);
    const browser = await launchBrowser();
    try {
      const widths = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
      const pages = Object.fromEntries(
        await Promise.all(
          Object.entries(widths).map(async ([name, viewport]) => {
            const page = await (await browser.newContext({ viewport })).newPage();
            page.setDefaultTimeout(90_000);
            return [name, page] as const;
          }),
        ),
      );
      const start = await call(
        gatewayUrl,
        lenderOfLoan.apiKey,
        'POST',
        '/api/applications/initiate',
        applicant({ amount: 425_000, tenor: 9 }),
      );
      expect(start.status).toBe(201);
      const { applicationId, widgetUrl } = start.body as { applicationId: string; widgetUrl: string };

      for (const [name, page] of Object.entries(pages)) {
        await page.goto(widgetUrl);
        expect(await page.textContent('#lender-name')).toBe('Kobo Credit Ltd');
        expect(await page.textContent('#loan-summary')).toBe('Your application for a loan of ₦425,000 over 9 months');
        // Nothing wider than the screen: the applicant never scrolls sideways.
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
        await page.screenshot({ path: path.join(shots, `widget-start-${name}.png`), fullPage: true });
      }
      const phone = pages.phone!;
      await phone.selectOption('#bank', { index: 1 });
      await phone.click('#continue');
      await phone.fill('#username', 'user_good');
      await phone.fill('#password', '123456');
      await phone.click('#sign-in');
      await phone.waitForSelector('#persona');
      expect(await phone.textContent('.consent')).toContain('I allow Kobo Credit Ltd to read this');
      await phone.screenshot({ path: path.join(shots, 'widget-account-phone.png'), fullPage: true });
      await phone.selectOption('#persona', 'salaried');
      await phone.check('#consent');
      await phone.click('#link-account');
      expect(await phone.textContent('#result')).toBe('Account linked');

      await waitFor(
        async () =>
          (await lenderCall('GET', `/api/applications/${applicationId}`)).body.accounts?.[0]?.enrichmentStatus ===
          'READY',
        { timeoutMs: 60_000, what: 'enrichment' },
      );
      expect((await lenderCall('POST', `/api/applications/${applicationId}/finalize-linking`)).status).toBe(200);
      // Finalized: new links are refused at the provider, with the reason.
      const refusal = await waitFor(
        async () => {
          const answer = await fetch(`${new URL(widgetUrl).origin}/sandbox/link`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ widgetUrl }),
          });
          return answer.status === 409 ? ((await answer.json()) as { message: string }) : null;
        },
        { what: 'the widget session closed at finalize-linking' },
      );
      expect(refusal.message).toContain('linking was completed');
      await waitFor(
        async () => (await lenderCall('POST', `/api/applications/${applicationId}/analyze`)).status === 200,
        {
          timeoutMs: 60_000,
          what: 'analyze accepted',
        },
      );
      await waitFor(
        async () => (await lenderCall('GET', `/api/applications/${applicationId}`)).body.status === 'COMPLETED',
        {
          timeoutMs: 90_000,
          what: 'the decision',
        },
      );

      // Decided: the widget's page says so at both widths, and nothing is linked.
      for (const [name, page] of Object.entries(pages)) {
        const shown = await waitFor(
          async () => {
            const response = await page.goto(widgetUrl);
            const detail = (await page.textContent('#problem-detail').catch(() => '')) ?? '';
            return response?.status() === 409 && detail.includes('already decided') ? detail : null;
          },
          { what: `the decided page (${name})` },
        );
        expect(shown).toBe(
          'Kobo Credit Ltd has already decided this loan application, so no more bank accounts can be linked to it.',
        );
        expect(await page.textContent('#problem')).toBe('This application takes no more bank accounts');
        expect(await page.textContent('#loan-summary')).toBe('Your application for a loan of ₦425,000 over 9 months');
        expect(await page.$('#bank')).toBeNull();
        await page.screenshot({ path: path.join(shots, `widget-decided-${name}.png`), fullPage: true });
      }
      const late = await fetch(`${new URL(widgetUrl).origin}/sandbox/link`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ widgetUrl, persona: 'gig' }),
      });
      expect(late.status).toBe(409);
      const view = await lenderCall('GET', `/api/applications/${applicationId}`);
      expect(view.body.status).toBe('COMPLETED');
      expect(view.body.accounts).toHaveLength(1);
    } finally {
      await browser.close();
    }
  }, 300_000);

  it("when an account's enrichment never completes, then account.enrichment_failed arrives, and a re-link restarts it", async () => {
    const start = await api('POST', '/api/applications/initiate', applicant());
    const { applicationId, widgetUrl } = start.body;
    await link(widgetUrl, 'never_completes');
    const failed = await waitFor(
      () =>
        receiver
          .events('account.enrichment_failed')
          .find((e) => eventsOf(applicationId, 'account.linked').some((l) => l.data.accountId === e.data.accountId)),
      {
        timeoutMs: 60_000,
        what: 'account.enrichment_failed',
      },
    );
    expect(failed.data).toMatchObject({
      accountId: expect.any(String),
      providerAccountId: expect.any(String),
      applicantId: start.body.applicantId,
      reason: 'enrichment_timeout',
      message: expect.any(String),
    });
    const view = await api('GET', `/api/applications/${applicationId}`);
    expect(view.body.accounts[0].enrichmentStatus).toBe('FAILED');
    const relink = await api('POST', `/api/applications/${applicationId}/link-account`, {
      accountId: failed.data.accountId,
    });
    expect(relink.status).toBe(200);
    expect(relink.body.widgetUrl).toEqual(expect.any(String));
    expect((await api('GET', `/api/applications/${applicationId}`)).body.accounts[0].enrichmentStatus).toBe('PENDING');
  });

  it('when nobody links an account in time, then application.abandoned arrives with reason no_link, and the same key resumes it with what the lender sends then', async () => {
    const body = applicant({ bvn: '22200000001' });
    const start = await api('POST', '/api/applications/initiate', body);
    const abandoned = await waitFor(() => eventsOf(start.body.applicationId, 'application.abandoned')[0], {
      timeoutMs: 60_000,
      what: 'application.abandoned',
    });
    expect(abandoned.data).toMatchObject({
      applicationId: start.body.applicationId,
      applicantId: start.body.applicantId,
      reason: 'no_link',
      message: expect.any(String),
    });
    expect((await api('GET', `/api/applications/${start.body.applicationId}`)).body.status).toBe('ABANDONED');
    // The expired widget address no longer links anything.
    const late = await fetch(`${new URL(start.body.widgetUrl).origin}/sandbox/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ widgetUrl: start.body.widgetUrl }),
    });
    expect(late.status).toBe(410);
    // Abandonment cleared the stored BVN; the resending request carries it again, and new terms.
    const resumed = await api('POST', '/api/applications/initiate', { ...body, amount: 180_000, tenor: 4 });
    expect(resumed.body).toMatchObject({
      applicationId: start.body.applicationId,
      resumed: true,
      status: 'PENDING_LINKING',
    });
    expect(resumed.body.widgetUrl).not.toBe(start.body.widgetUrl);
    const { applicationId } = resumed.body;
    expect((await api('GET', `/api/applications/${applicationId}`)).body.loan).toMatchObject({
      amount: 180_000,
      tenor: 4,
    });
    await link(resumed.body.widgetUrl, 'salaried', 'GTBank');
    await waitFor(() => eventsOf(applicationId, 'account.enrichment_ready')[0], {
      timeoutMs: 60_000,
      what: 'account.enrichment_ready',
    });
    expect((await api('POST', `/api/applications/${applicationId}/finalize-linking`)).status).toBe(200);
    await waitFor(() => eventsOf(applicationId, 'application.ready_for_analysis')[0], {
      timeoutMs: 30_000,
      what: 'ready_for_analysis',
    });
    expect((await api('POST', `/api/applications/${applicationId}/analyze`)).status).toBe(200);
    const decided = await waitFor(() => eventsOf(applicationId, 'application.decision')[0], {
      timeoutMs: 60_000,
      what: 'application.decision',
    });
    expect(decided.data.decision.regulatory_compliance.credit_bureau_checked).toBe(true);
  }, 120_000);

  it('when the bureau is down or no BVN is given, then the decision still completes, flagged or unchecked', async () => {
    const decide = async (patch: Record<string, unknown>) => {
      const start = await api('POST', '/api/applications/initiate', applicant(patch));
      const { applicationId } = start.body;
      await link(start.body.widgetUrl, 'salaried');
      await waitFor(() => eventsOf(applicationId, 'account.enrichment_ready')[0], {
        timeoutMs: 60_000,
        what: 'enrichment_ready',
      });
      await api('POST', `/api/applications/${applicationId}/finalize-linking`);
      await waitFor(() => eventsOf(applicationId, 'application.ready_for_analysis')[0], {
        timeoutMs: 30_000,
        what: 'ready',
      });
      await api('POST', `/api/applications/${applicationId}/analyze`);
      const event = await waitFor(() => eventsOf(applicationId, 'application.decision')[0], {
        timeoutMs: 60_000,
        what: 'decision',
      });
      return Decision.parse(event.data.decision);
    };
    const [bureauDown, noBvn] = await Promise.all([decide({ bvn: '22200000005' }), decide({})]);
    expect(bureauDown.decision).toBe('MANUAL_REVIEW');
    expect(bureauDown.manual_review_reasons.map((r) => r.code)).toContain('BUREAU_UNAVAILABLE');
    expect(bureauDown.regulatory_compliance.credit_bureau_checked).toBe(false);
    expect(noBvn.regulatory_compliance.credit_bureau_checked).toBe(false);
    expect(noBvn.manual_review_reasons.map((r) => r.code)).not.toContain('BUREAU_UNAVAILABLE');
  });

  it('when the enriched data is gone by the time the lender analyses, then application.failed arrives with a reason and the status is FAILED', async () => {
    const start = await api('POST', '/api/applications/initiate', applicant());
    const { applicationId, applicantId } = start.body;
    await link(start.body.widgetUrl, 'salaried');
    // As the spec asks of lenders: finalize once every account is enriched.
    await waitFor(() => eventsOf(applicationId, 'account.enrichment_ready')[0], {
      timeoutMs: 60_000,
      what: 'enrichment ready',
    });
    const finalized = await api('POST', `/api/applications/${applicationId}/finalize-linking`);
    expect(finalized.status).toBe(200);
    await waitFor(() => eventsOf(applicationId, 'application.ready_for_analysis')[0], {
      timeoutMs: 60_000,
      what: 'ready',
    });
    // Scoring's copy of the bank data is lost (its database restored from an older backup, say).
    const profiles = services.find((s) => s.name === 'scoring')!.runtime.db.model('Profile');
    await waitFor(() => profiles.exists({ applicationId }), { what: "scoring's profile" });
    await profiles.deleteMany({ applicationId });
    const analyze = await api('POST', `/api/applications/${applicationId}/analyze`);
    expect(analyze.body).toMatchObject({ applicationId, status: 'PROCESSING' });
    const failed = await waitFor(() => eventsOf(applicationId, 'application.failed')[0], {
      timeoutMs: 60_000,
      what: 'application.failed',
    });
    expect(failed.data).toEqual({
      applicationId,
      applicantId,
      status: 'FAILED',
      reason: expect.stringMatching(/enrich/),
    });
    expect(eventsOf(applicationId, 'application.decision')).toHaveLength(0);
    const view = await api('GET', `/api/applications/${applicationId}`);
    expect(view.body.status).toBe('FAILED');
  });
});

async function keyOf(applicationId: string): Promise<string> {
  const applications = services.find((s) => s.name === 'applications')!;
  const doc = await applications.runtime.db
    .model('Application')
    .findById(applicationId)
    .lean<{ idempotencyKey: string }>();
  return doc!.idempotencyKey;
}
