import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { generateSync } from 'otplib';
import { verifyWebhook } from '@loan/client';
import { eventually, waitFor } from '@testing/helpers';
import { applicant, call, createClient, startReceiver, startWholeStack, suiteNamespace } from '@testing/stack';
import { servedRoutes } from './support';
import { launchBrowser } from '@testing/browser';

/**
 * The lender console as a lender's operations staff use it: Chromium on /console of the whole
 * stack with the sandbox provider and bureau. Sign in, find an application the sandbox took to
 * a decision, read its charts, redeliver a webhook, review an application the scorecard referred
 * (a maker, then a second reviewer confirming), rotate the webhook secret and the API key;
 * and, over plain HTTP, the console answers as the API does (401, 404), refuses forged changes
 * (403) and keeps the key out of reach of scripts.
 *
 * `CONSOLE_SCREENSHOT=1` also writes docs/images/console-applications.png,
 * console-decision.png, console-reviews.png, console-review-form.png and console-review.png, the
 * pictures in README.md, console-policy.png (desktop) and console-policy-390.png (a phone's
 * width) of the credit policy page, and the review pages at a phone's width into
 * <tmpdir>/console-390/.
 */
const ROOT = path.resolve(__dirname, '../../../../..');
const ns = suiteNamespace();
let stack: Awaited<ReturnType<typeof startWholeStack>>;
let browser: Browser;
let decided: { applicationId: string; applicantId: string };
/** An application the scorecard referred for review: the bureau answers 503 for its BVN. */
let referred: { applicationId: string; applicantId: string };
let otherTenantsApplication: string;

const timings = {
  ENRICHMENT_TIMEOUT: '2m',
  WEBHOOK_RETRY_BASE: '300ms',
  // The limits stay on, high enough for the suite's own calls from one address.
  RATE_LIMIT_GLOBAL: '1000',
  RATE_LIMIT_INITIATE: '1000',
  // The proxy in front of the gateway says whether the browser used https.
  TRUST_PROXY: '1',
  // A trace UI the application page links to (only the link is checked; nothing listens there).
  TRACE_UI_URL: 'http://traces.lender.test:16686',
};

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

const lenderApi = (method: string, pathname: string, body?: unknown) =>
  call(stack.gatewayUrl, stack.lender.apiKey, method, pathname, body);
const eventsOf = (applicationId: string, name: string) =>
  stack.receiver.received
    .map((r) => r.body)
    .filter((b) => b?.data?.applicationId === applicationId && b.event === name);

/** Initiates, links an account of the persona (salaried) through the sandbox, finalizes, analyzes and waits for the decision (the lender's, unless another's key is given). */
async function decidedApplication(
  who: Record<string, unknown> = {
    firstName: 'Adaeze',
    lastName: 'Nwosu',
    bvn: '22200000001',
    amount: 450_000,
    tenor: 6,
  },
  options: { persona?: string; apiKey?: string } = {},
) {
  const lenderApi = (method: string, pathname: string, body?: unknown) =>
    call(stack.gatewayUrl, options.apiKey ?? stack.lender.apiKey, method, pathname, body);
  const start = await lenderApi('POST', '/api/applications/initiate', applicant(who));
  expect(start.status).toBe(201);
  const { applicationId, applicantId, widgetUrl } = start.body;
  const linked = await fetch(`${new URL(widgetUrl).origin}/sandbox/link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ widgetUrl, persona: options.persona ?? 'salaried' }),
  });
  expect(linked.status).toBe(200);
  await waitFor(() => eventsOf(applicationId, 'account.enrichment_ready')[0], {
    timeoutMs: 60_000,
    what: 'account.enrichment_ready',
  });
  expect((await lenderApi('POST', `/api/applications/${applicationId}/finalize-linking`)).status).toBe(200);
  await waitFor(() => eventsOf(applicationId, 'application.ready_for_analysis')[0], {
    timeoutMs: 30_000,
    what: 'ready_for_analysis',
  });
  expect((await lenderApi('POST', `/api/applications/${applicationId}/analyze`)).status).toBe(200);
  await waitFor(() => eventsOf(applicationId, 'application.decision')[0], {
    timeoutMs: 60_000,
    what: 'application.decision',
  });
  return { applicationId: applicationId as string, applicantId: applicantId as string };
}

/** What axe-core finds against WCAG 2 A and AA on a page as it is now. */
async function violationsOf(page: Page) {
  await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(
            context: unknown,
            options: unknown,
          ): Promise<{ violations: { id: string; nodes: { target: unknown }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return result.violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  });
  return found;
}

beforeAll(async () => {
  stack = await startWholeStack(ns, timings);
  browser = await launchBrowser();
  // A few more of the lender's applications, still waiting for their applicants, for the list.
  for (const [firstName, lastName, amount] of [
    ['Tunde', 'Bakare', 150_000],
    ['Ngozi', 'Eze', 800_000],
  ] as const) {
    expect(
      (await lenderApi('POST', '/api/applications/initiate', applicant({ firstName, lastName, amount }))).status,
    ).toBe(201);
  }
  decided = await decidedApplication();
  referred = await decidedApplication({
    firstName: 'Chidi',
    lastName: 'Okafor',
    bvn: '22200000005',
    amount: 500_000,
    tenor: 12,
    interestRate: 5,
  });
  expect((await lenderApi('GET', `/api/applications/${referred.applicationId}`)).body.decision.decision).toBe(
    'MANUAL_REVIEW',
  );
  const other = await createClient(stack.gatewayUrl);
  const opened = await call(stack.gatewayUrl, other.apiKey, 'POST', '/api/applications/initiate', applicant());
  expect(opened.status).toBe(201);
  otherTenantsApplication = opened.body.applicationId;
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** Signs in over HTTP as a browser page of this console would: the sign-in token, then the key. */
async function signInOverHttp(apiKey: string, extra: Record<string, string> = {}) {
  // A browser on https (behind the proxy) names the https origin.
  const origin =
    extra['x-forwarded-proto'] === 'https' ? stack.gatewayUrl.replace(/^http:/, 'https:') : stack.gatewayUrl;
  const first = await fetch(`${stack.gatewayUrl}/console/session`, { headers: extra });
  const state = (await first.json()) as { signedIn: boolean; csrfToken: string };
  expect(state.signedIn).toBe(false);
  const signInCookie = first.headers.getSetCookie().find((c) => c.startsWith('console_signin='))!;
  const res = await fetch(`${stack.gatewayUrl}/console/session`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      origin,
      'x-csrf-token': state.csrfToken,
      cookie: signInCookie.split(';')[0]!,
      ...extra,
    },
    body: JSON.stringify({ apiKey }),
  });
  const body = await res.json();
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('console_session=')) ?? null;
  return { status: res.status, body, setCookie, cookie: setCookie ? setCookie.split(';')[0]! : '' };
}

async function consoleCall(method: string, pathname: string, headers: Record<string, string>) {
  const res = await fetch(`${stack.gatewayUrl}${pathname}`, { method, headers });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

describe('the console over HTTP', () => {
  it('when a request carries no session cookie, then it gets the same 401 as the API without a key, x-api-key or not', async () => {
    const withoutKey = await call(stack.gatewayUrl, null, 'GET', `/api/applications/${decided.applicationId}`);
    expect(withoutKey.status).toBe(401);
    const console = await consoleCall('GET', `/console/api/applications/${decided.applicationId}`, {});
    expect(console).toEqual({ status: 401, body: withoutKey.body });
    // The API's header is not a way into the console's API.
    const header = await consoleCall('GET', `/console/api/applications/${decided.applicationId}`, {
      'x-api-key': stack.lender.apiKey,
    });
    expect(header).toEqual({ status: 401, body: withoutKey.body });
  });

  it("when a wrong key is given at sign-in, then it gets the API's 401 and no session", async () => {
    const api = await call(stack.gatewayUrl, 'lk_not-a-key', 'GET', `/api/applications/${decided.applicationId}`);
    const signIn = await signInOverHttp('lk_not-a-key');
    expect({ status: signIn.status, body: signIn.body }).toEqual({ status: 401, body: api.body });
    expect(signIn.setCookie).toBeNull();
  });

  it('when a lender signs in, then the session cookie is HttpOnly, SameSite=Strict, for /console only, Secure over https, and holds no key in clear', async () => {
    const plain = await signInOverHttp(stack.lender.apiKey);
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual(expect.objectContaining({ signedIn: true, clientId: stack.lender.clientId }));
    expect(JSON.stringify(plain.body)).not.toContain(stack.lender.apiKey);
    const flags = plain.setCookie!.split(';').map((part) => part.trim().toLowerCase());
    expect(flags).toEqual(expect.arrayContaining(['httponly', 'samesite=strict', 'path=/console']));
    expect(flags.some((f) => f.startsWith('max-age=') || f.startsWith('expires='))).toBe(true);
    expect(flags).not.toContain('secure');
    expect(plain.setCookie).not.toContain(stack.lender.apiKey);
    expect(decodeURIComponent(plain.setCookie!)).not.toContain(stack.lender.apiKey);

    const tls = await signInOverHttp(stack.lender.apiKey, { 'x-forwarded-proto': 'https' });
    expect(tls.status).toBe(200);
    expect(tls.setCookie!.split(';').map((part) => part.trim().toLowerCase())).toContain('secure');
  });

  it("when the session asks for another lender's application, then it gets the same 404 as the API", async () => {
    const { cookie } = await signInOverHttp(stack.lender.apiKey);
    const api = await lenderApi('GET', `/api/applications/${otherTenantsApplication}`);
    expect(api.status).toBe(404);
    expect(await consoleCall('GET', `/console/api/applications/${otherTenantsApplication}`, { cookie })).toEqual({
      status: 404,
      body: api.body,
    });
    // Its own application it sees, as through the API.
    const own = await consoleCall('GET', `/console/api/applications/${decided.applicationId}`, { cookie });
    expect(own.status).toBe(200);
    expect(own.body).toEqual((await lenderApi('GET', `/api/applications/${decided.applicationId}`)).body);
  });

  it('when the session cookie is sent to /api, then the API does not take it', async () => {
    const { cookie } = await signInOverHttp(stack.lender.apiKey);
    const res = await fetch(`${stack.gatewayUrl}/api/applications/${decided.applicationId}`, { headers: { cookie } });
    expect(res.status).toBe(401);
  });

  it('when a change comes without the CSRF token, with a wrong one or from another origin, then it is refused with 403 in the error shape', async () => {
    const signIn = await signInOverHttp(stack.lender.apiKey);
    const { cookie } = signIn;
    const token = signIn.body.csrfToken as string;
    const deliveries = await lenderApi('GET', `/api/webhooks/deliveries?applicationId=${decided.applicationId}`);
    const delivery = deliveries.body.data[0].id as string;
    const target = `/console/api/webhooks/deliveries/${delivery}/redeliver`;
    const origin = stack.gatewayUrl;
    const refused = [
      await consoleCall('POST', target, { cookie, origin }),
      await consoleCall('POST', target, { cookie, origin, 'x-csrf-token': 'forged' }),
      await consoleCall('POST', target, { cookie, origin: 'https://evil.example', 'x-csrf-token': token }),
      await consoleCall('POST', target, { cookie, origin, 'sec-fetch-site': 'cross-site', 'x-csrf-token': token }),
      await consoleCall('POST', target, { cookie, 'x-csrf-token': token }),
      // Sign-in too: a page elsewhere cannot sign the browser in to its own account.
      await consoleCall('POST', '/console/session', {
        origin: 'https://evil.example',
        'content-type': 'application/json',
      }),
      await consoleCall('POST', '/console/session', { origin, 'content-type': 'application/json' }),
    ];
    for (const answer of refused) {
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual({ statusCode: 403, message: expect.any(String), error: 'Forbidden' });
    }
    const before = stack.receiver.received.length;
    const accepted = await consoleCall('POST', target, { cookie, origin, 'x-csrf-token': token });
    expect(accepted.status).toBe(202);
    await waitFor(() => stack.receiver.received.length > before, { what: 'the redelivery' });
  });

  it('when the console page is served, then it has its own strict CSP and the assets are cached for long under hashed names', async () => {
    const res = await fetch(`${stack.gatewayUrl}/console`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    for (const directive of [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      "frame-ancestors 'none'",
    ]) {
      expect(csp).toContain(directive);
    }
    const html = await res.text();
    const assets = [...html.matchAll(/\/console\/assets\/(console-[A-Z0-9]+\.(?:js|css))/g)].map((m) => m[1]);
    expect(assets).toHaveLength(2);
    for (const asset of assets) {
      const file = await fetch(`${stack.gatewayUrl}/console/assets/${asset}`);
      expect(file.status).toBe(200);
      expect(file.headers.get('cache-control')).toContain('max-age=31536000');
      expect(file.headers.get('cache-control')).toContain('immutable');
    }
    expect((await fetch(`${stack.gatewayUrl}/console/assets/console-NOPE.js`)).status).toBe(404);
  });
});

/**
 * An authenticator's code for the 30-second step `stepsAhead` after the current one. The gateway
 * takes a code one step either side of its clock, so a code of this step stays good if a step
 * ends while it is typed and sent (a code of the previous step would not), and the next step's
 * code is good for a sign-in right after an enrolment used this one.
 */
const totpCode = (secret: string, stepsAhead: 0 | 1) =>
  generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + 30 * stepsAhead });

/** Whether the page scrolls sideways; if it does, its width and the innermost elements that stick out. */
const sidewaysOverflowOf = (page: Page) =>
  page.evaluate(() => {
    const root = document.documentElement;
    if (root.scrollWidth <= root.clientWidth) return [];
    const out = (el: Element) => el.getBoundingClientRect().right > root.clientWidth + 0.5;
    const culprits = [...document.querySelectorAll('body *')]
      .filter((el) => out(el) && ![...el.children].some(out))
      .map(
        (el) =>
          `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(' ').join('.')}` : ''}: ${(el.textContent ?? '').slice(0, 40)}`,
      );
    return [`the page is ${root.scrollWidth} px wide in ${root.clientWidth}`, ...culprits];
  });

/** Cells of a list shown as cards whose column name is taller than the cell, so it runs into the next line. */
const crampedLabelsOf = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('td[data-label]')]
      .filter(
        (td) =>
          getComputedStyle(td, '::before').display !== 'none' && getComputedStyle(td, '::before').content !== 'none',
      )
      .filter((td) => parseFloat(getComputedStyle(td, '::before').height) > td.getBoundingClientRect().height + 0.5)
      .map((td) => `${td.getAttribute('data-label')}: ${(td.textContent ?? '').slice(0, 40)}`),
  );

/**
 * The share of an A4 page (12 mm margins) the printed page leaves free: laid out at the paper's
 * text width in print media, its height against the page's. Leaves the viewport at that width.
 */
async function freeOfPrintedPage(page: Page) {
  const mm = 96 / 25.4;
  await page.emulateMedia({ media: 'print' });
  await page.setViewportSize({ width: Math.floor(186 * mm), height: 200 });
  const used = await page.evaluate(() => document.documentElement.scrollHeight);
  return Math.round((1 - used / (273 * mm)) * 100) / 100;
}

/** The pages of an A4 print of the page as it is now. */
async function printedPagesOf(page: Page) {
  await page.emulateMedia({ media: 'print' });
  const pdf = (await page.pdf({ format: 'A4', printBackground: true })).toString('latin1');
  return pdf.match(/\/Type\s*\/Page\b/g)?.length ?? 0;
}

describe('the console as a credit officer reads it, on a desktop and on a phone', () => {
  const WIDTHS = [
    ['desktop', { width: 1280, height: 900 }],
    ['390', { width: 390, height: 844 }],
  ] as const;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  /** Applications the scorecard declined and counter-offered. */
  let declined: { applicationId: string; applicantId: string };
  let countered: { applicationId: string; applicantId: string };

  /** With CONSOLE_SCREENSHOT_DIR, a full-page picture of the page as it is now. */
  async function picture(name: string) {
    const dir = process.env.CONSOLE_SCREENSHOT_DIR;
    if (!dir) return;
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
  }

  /** Opens a page of the console by its address and waits for its heading and for what it loads. */
  async function open(hash: string, heading: string | RegExp) {
    await page.goto(`${stack.gatewayUrl}/console#${hash}`);
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
    await eventually(async () => expect(await page.locator('.loading').count()).toBe(0));
  }

  beforeAll(async () => {
    declined = await decidedApplication(
      { firstName: 'Emeka', lastName: 'Obi', bvn: '22200000002', amount: 100_000, tenor: 3, interestRate: 6 },
      { persona: 'debt_stressed' },
    );
    countered = await decidedApplication(
      { firstName: 'Funke', lastName: 'Adeyemi', bvn: '22200000001', amount: 5_000_000, tenor: 12, interestRate: 4 },
      { persona: 'salaried_high' },
    );
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    await page.goto(`${stack.gatewayUrl}/console`);
    await page.getByText('Sign in with the API key').click();
    await page.getByLabel('API key').fill(stack.lender.apiKey);
    await page.getByRole('button', { name: 'Sign in with the key' }).click();
    await page.getByRole('heading', { name: 'Portfolio', level: 1 }).waitFor();
  });

  afterAll(async () => {
    await context?.close();
  });

  it('when every page is opened on a desktop and at 390 px, then none scrolls sideways and axe finds nothing', async () => {
    const pages: [string, string, string | RegExp][] = [
      ['portfolio', '/portfolio', 'Portfolio'],
      ['performance', '/performance', 'Performance'],
      ['applications', '/applications', 'Applications'],
      ['application', `/applications/${decided.applicationId}`, /Adaeze Nwosu/],
      ['application-declined', `/applications/${declined.applicationId}`, /Emeka Obi/],
      ['application-counter-offer', `/applications/${countered.applicationId}`, /Funke Adeyemi/],
      ['reviews', '/reviews', 'Reviews'],
      ['webhooks', '/webhooks', 'Webhooks'],
      ['keys', '/keys', 'Keys'],
      ['policy', '/policy', 'Credit policy'],
      ['users', '/users', 'Users'],
    ];
    for (const [width, viewport] of WIDTHS) {
      await page.setViewportSize(viewport);
      for (const [name, hash, heading] of pages) {
        await open(hash, heading);
        // A chart follows a new width when it next draws: the check retries until it has.
        await eventually(async () =>
          expect({ [`${name} at ${width}`]: await sidewaysOverflowOf(page) }).toEqual({ [`${name} at ${width}`]: [] }),
        );
        expect({ [`${name} at ${width}`]: await violationsOf(page) }).toEqual({ [`${name} at ${width}`]: [] });
        expect({ [`${name} at ${width}`]: await crampedLabelsOf(page) }).toEqual({ [`${name} at ${width}`]: [] });
        await picture(`${name}-${width}`);
      }
    }
    // The lists are cards at 390 px: each value named by its column, the page no wider than the screen.
    await open('/applications', 'Applications');
    await page.setViewportSize({ width: 390, height: 844 });
    const card = page.getByRole('row', { name: /Adaeze Nwosu/ });
    await eventually(async () =>
      expect(
        await card
          .locator('td[data-label]')
          .evaluateAll((cells) => cells.map((c) => getComputedStyle(c, '::before').content)),
      ).toContain('"Applicant"'),
    );
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('when the portfolio is opened, then its figures are the API’s, each chart has its table, and a preset period moves it', async () => {
    const report = (await call(stack.gatewayUrl, stack.lender.apiKey, 'GET', '/api/portfolio')).body;
    await open('/portfolio', 'Portfolio');
    const headline = page.locator('.portfolio-headline');
    await eventually(async () =>
      expect(await headline.locator('dd').first().textContent()).toBe(report.applications.toLocaleString('en-NG')),
    );
    expect(report.applications).toBeGreaterThanOrEqual(3);
    // Every chart is an image with its words, and a table says the same numbers.
    for (const heading of ['Where they stand', 'Decisions', 'Time from initiate to decision', 'Webhook deliveries']) {
      const figure = page.getByRole('region', { name: heading });
      await figure.getByRole('img').waitFor();
      await eventually(async () => expect(await figure.getByRole('table').count()).toBe(1));
    }
    const decisions = page.getByRole('table', { name: 'Decisions by outcome' });
    const declinedCell = decisions.getByRole('row', { name: /Declined/ }).getByRole('cell');
    await eventually(async () => expect(await declinedCell.textContent()).toBe(String(report.byDecision.DECLINED)));
    // The day table opens from its summary; today's row counts what was created today.
    await page.getByText('The numbers by day').click();
    const today = report.days.at(-1);
    const createdToday = page
      .getByRole('table', { name: 'Applications created each day, by decision' })
      .getByRole('row', { name: new RegExp(today.day) })
      .locator('td')
      .first();
    await eventually(async () => expect(await createdToday.textContent()).toBe(String(today.created)));
    await page.getByRole('link', { name: 'Last 7 days' }).click();
    await eventually(async () =>
      expect(await page.locator('.period').textContent()).toContain(`to ${report.to} (days in Africa/Lagos)`),
    );
    await eventually(async () =>
      expect(await page.locator('.period strong').first().textContent()).not.toBe(report.from),
    );
    await page.setViewportSize({ width: 390, height: 844 });
    await eventually(async () => expect(await sidewaysOverflowOf(page)).toEqual([]));
    expect(await violationsOf(page)).toEqual([]);
    await picture('portfolio-days-390');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('when the lender sets its time zone, then every time is shown in it, UTC still on hover, and empty goes back to Lagos', async () => {
    await open('/keys', 'Keys');
    await page.getByLabel('Time zone (empty: Africa/Lagos)').fill('Pacific/Kiritimati');
    await page.getByRole('button', { name: 'Save time zone' }).click();
    await page.getByText('Days and times are now in Pacific/Kiritimati.').waitFor();
    await open(`/applications/${decided.applicationId}`, /Adaeze Nwosu/);
    const created = page.locator('time').first();
    await eventually(async () => expect(await created.textContent()).toMatch(/ GMT\+14$/));
    await eventually(async () => expect(await created.getAttribute('title')).toMatch(/ UTC$/));
    // A zone no one has is refused by name, and what was typed stays. The refusal is the page's
    // business (it shows the reason): the browser's log of that 400 is not a fault of the page.
    await open('/keys', 'Keys');
    const logged = problems.length;
    await page.getByLabel('Time zone (empty: Africa/Lagos)').fill('Lagos');
    await page.getByRole('button', { name: 'Save time zone' }).click();
    await page.getByText('timeZone must be an IANA time zone name, such as Africa/Lagos').waitFor();
    await eventually(async () =>
      expect(await page.getByLabel('Time zone (empty: Africa/Lagos)').inputValue()).toBe('Lagos'),
    );
    problems.push(...problems.splice(logged).filter((p) => !p.includes('status of 400 (Bad Request)')));
    await page.getByLabel('Time zone (empty: Africa/Lagos)').fill('');
    await page.getByRole('button', { name: 'Save time zone' }).click();
    await page.getByText('Days and times are now in Africa/Lagos.').waitFor();
    await open(`/applications/${decided.applicationId}`, /Adaeze Nwosu/);
    await eventually(async () => expect(await page.locator('time').first().textContent()).toMatch(/ WAT$/));
  });

  it('when the list is narrowed to declined decisions and to days, then it shows only declined applications of those days, says so, and the CSV link carries the same filter', async () => {
    await open('/applications', 'Applications');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('checkbox', { name: 'Declined' }).check();
    const today = new Date(Date.now() + 3_600_000).toISOString().slice(0, 10);
    await page.getByLabel('Created up to').fill(today);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText(`Applications decided Declined created up to ${today}`).waitFor();
    const rows = page.locator('table.data tbody tr');
    await eventually(async () => expect(await rows.filter({ hasText: 'Emeka Obi' }).count()).toBeGreaterThanOrEqual(1));
    await eventually(async () => expect(await rows.filter({ hasNotText: 'Declined' }).count()).toBe(0));
    expect(await page.getByRole('link', { name: 'Export these applications as CSV' }).getAttribute('href')).toBe(
      `/console/api/applications/export.csv?decision=DECLINED&to=${today}`,
    );
    await eventually(async () => expect(await sidewaysOverflowOf(page)).toEqual([]));
    expect(await violationsOf(page)).toEqual([]);
    await picture('applications-filtered-390');
    // Nothing was created before 2020.
    await page.getByLabel('Created up to').fill('2019-12-31');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No application matches.').waitFor();
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('when the declined, the counter-offered and the referred applications are printed, then each summary is one A4 page with room to spare', async () => {
    for (const [name, id, heading] of [
      ['declined', declined.applicationId, /Emeka Obi/],
      ['counter-offer', countered.applicationId, /Funke Adeyemi/],
      ['approved', decided.applicationId, /Adaeze Nwosu/],
    ] as const) {
      await page.setViewportSize({ width: 390, height: 844 });
      await open(`/applications/${id}`, heading);
      await page.getByRole('button', { name: 'Print decision summary' }).waitFor();
      const free = await freeOfPrintedPage(page);
      await picture(`print-${name}`);
      const pages = await printedPagesOf(page);
      await page.emulateMedia({ media: 'screen' });
      expect({ name, pages, free, enough: free >= 0.1 }).toEqual({ name, pages: 1, free, enough: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("when each outcome's page is opened, then its terms are shown once under a heading that says what they are (none for a decline), the score parts against their maxima and the partial months marked", async () => {
    const headingOf: Record<string, string | null> = {
      APPROVED: 'Approved terms',
      COUNTER_OFFER: 'Offered instead',
      MANUAL_REVIEW: 'An analyst could grant',
      DECLINED: null,
    };
    const naira = new Intl.NumberFormat('en-NG', { style: 'currency', currency: 'NGN', maximumFractionDigits: 0 });
    const outcomes: string[] = [];
    for (const { applicationId } of [decided, countered, referred, declined]) {
      const view = (await lenderApi('GET', `/api/applications/${applicationId}`)).body;
      const decision = view.decision;
      outcomes.push(decision.decision);
      const heading = headingOf[decision.decision]!;
      for (const [width, viewport] of WIDTHS) {
        await page.setViewportSize(viewport);
        await open(
          `/applications/${applicationId}`,
          new RegExp(`${view.applicant.firstName} ${view.applicant.lastName}`),
        );
        const section = page.getByRole('region', { name: 'Decision', exact: true });
        const termHeadings = section.getByRole('heading', {
          name: /^(Approved terms|Offered instead|An analyst could grant|Approval details|Counter-offer|Eligible tenors)$/,
        });
        await eventually(async () => expect(await termHeadings.allTextContents()).toEqual(heading ? [heading] : []));
        // The terms once: one amount, one tenor; no "None" and no zeros for a decline.
        await eventually(async () =>
          expect(await section.locator('dt', { hasText: /^Amount$/ }).count()).toBe(heading ? 1 : 0),
        );
        await eventually(async () =>
          expect(await section.getByText(/Eligible tenors|^None\.$|^0 months$/).count()).toBe(0),
        );
        if (heading) {
          const terms = section.getByRole('region', { name: heading });
          const amount =
            decision.decision === 'COUNTER_OFFER'
              ? decision.counter_offer.amount
              : decision.approval_details.approved_amount;
          await expect(terms.locator('dt:text-is("Amount") + dd').textContent()).resolves.toBe(naira.format(amount));
        }
        // Each part against its own maximum, the total out of 100.
        const breakdown = section.locator('table[aria-labelledby="breakdown-heading"]');
        await eventually(async () =>
          expect(await breakdown.getByRole('rowheader').allTextContents()).toEqual([
            'Cash-flow health (of 20)',
            'Income stability (of 20)',
            'Debt-service capacity (of 25)',
            'Account behaviour (of 20)',
            'Credit history (of 15)',
            'Total (of 100)',
          ]),
        );
        await expect(
          section.locator('.facts.headline dd', { has: page.locator('.score') }).textContent(),
        ).resolves.toBe(`${decision.score} of 100`);
        await expect(
          section.getByRole('img', { name: /^Score breakdown/ }).getAttribute('aria-label'),
        ).resolves.toContain(`Cash-flow health ${decision.score_breakdown.cash_flow_health} of 20`);
        // The months the statement starts or ends within are marked partial, as the API says; whole months are not.
        const flows = view.accounts[0].monthlyFlows as { month: string; partial?: boolean }[];
        expect(flows.slice(1, -1).some((f) => f.partial)).toBe(false);
        const partialMonths = flows.filter((f) => f.partial).length;
        await eventually(async () =>
          expect(
            (await section.locator('table[aria-labelledby="flows-heading"] tbody th').allTextContents()).filter((t) =>
              t.endsWith('(partial)'),
            ),
          ).toHaveLength(partialMonths),
        );
        await eventually(async () => expect({ [width]: await sidewaysOverflowOf(page) }).toEqual({ [width]: [] }));
        expect({ [width]: await violationsOf(page) }).toEqual({ [width]: [] });
        await picture(`terms-${decision.decision.toLowerCase()}-${width}`);
      }
    }
    expect(outcomes.slice(1)).toEqual(['COUNTER_OFFER', 'MANUAL_REVIEW', 'DECLINED']);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('when codes are shown, then people read words (the code in the tooltip), the decision is coloured by outcome with its words and a declined application wears no green', async () => {
    /** The text a reader sees in the page's main part, and any code of the API left in it. */
    const codesShown = () =>
      page
        .locator('main')
        .evaluate(
          (main) =>
            (main as HTMLElement).innerText.match(
              /\b[A-Z]{2,}(?:_[A-Z]+)+\b|\b(?:account|application)\.[a-z_]+\b|\b[a-z]+_[a-z_]+\b/g,
            ) ?? [],
        );
    /** Each badge of a locator as [words, tone, code]. */
    const badgesOf = (where: ReturnType<Page['locator']>) =>
      where
        .locator('.badge')
        .evaluateAll((badges) =>
          badges.map((b) => [b.textContent, b.className.replace(/^badge badge-/, ''), b.getAttribute('title')]),
        );
    for (const [width, viewport] of WIDTHS) {
      await page.setViewportSize(viewport);
      await open('/applications', 'Applications');
      const row = (name: string) => page.getByRole('row', { name: new RegExp(name) });
      await eventually(async () =>
        expect(await badgesOf(row('Emeka Obi'))).toEqual([
          ['Completed', 'neutral', 'COMPLETED'],
          ['Declined', 'bad', 'DECLINED'],
        ]),
      );
      await eventually(async () =>
        expect(await badgesOf(row('Funke Adeyemi'))).toContainEqual(['Counter-offer', 'warn', 'COUNTER_OFFER']),
      );
      await eventually(async () =>
        expect(await badgesOf(row('Chidi Okafor'))).toContainEqual(['Manual review', 'warn', 'MANUAL_REVIEW']),
      );
      await eventually(async () =>
        expect(await badgesOf(row('Tunde Bakare'))).toEqual([['Waiting for bank link', 'neutral', 'PENDING_LINKING']]),
      );
      await eventually(async () => expect({ [width]: await codesShown() }).toEqual({ [width]: [] }));

      // The declined application: no green on its status or outcome; bands, severities and statuses in words.
      const view = (await lenderApi('GET', `/api/applications/${declined.applicationId}`)).body;
      await open(`/applications/${declined.applicationId}`, /Emeka Obi/);
      await eventually(async () =>
        expect(await badgesOf(page.getByRole('heading', { level: 1 }))).toEqual([
          ['Completed', 'neutral', 'COMPLETED'],
        ]),
      );
      const headline = page.locator('.facts.headline');
      await eventually(async () =>
        expect(await badgesOf(headline)).toEqual([
          ['Declined', 'bad', 'DECLINED'],
          [expect.stringMatching(/^(Low|Medium|High|Very high) risk$/), expect.any(String), view.decision.score_band],
        ]),
      );
      await eventually(async () =>
        expect(await badgesOf(page.getByRole('region', { name: 'Accounts' }))).toEqual(
          // Each account's statement, then the applicant's consent to read it.
          view.accounts.flatMap(() => [
            ['Statement read', 'good', 'READY'],
            ['Consent given', 'good', 'ACTIVE'],
          ]),
        ),
      );
      // Each risk factor: its severity in words and a tone of its own, its code as the description's tooltip.
      const tones = { HIGH: ['High', 'bad'], MEDIUM: ['Medium', 'warn'], LOW: ['Low', 'neutral'] } as Record<
        string,
        string[]
      >;
      const risks = view.decision.risk_factors as { code: string; severity: string; description: string }[];
      expect(risks.length).toBeGreaterThan(0);
      await eventually(async () =>
        expect(await badgesOf(page.locator('ul.risks'))).toEqual(risks.map((r) => [...tones[r.severity]!, r.severity])),
      );
      for (const risk of risks) {
        await expect(
          page.locator('ul.risks').getByText(risk.description, { exact: true }).getAttribute('title'),
        ).resolves.toBe(risk.code);
      }
      await eventually(async () => expect({ [width]: await codesShown() }).toEqual({ [width]: [] }));
      expect({ [width]: await violationsOf(page) }).toEqual({ [width]: [] });
      await picture(`words-declined-${width}`);

      // The delivery log: statuses and events in words, codes in tooltips.
      await open(`/webhooks?applicationId=${declined.applicationId}`, 'Webhooks');
      const log = page.getByRole('region', { name: 'Delivery log' });
      await eventually(async () =>
        expect(await log.locator('td span[title="application.decision"]').allTextContents()).toEqual(['Decision']),
      );
      await eventually(async () => expect(await badgesOf(log)).toContainEqual(['Delivered', 'good', 'DELIVERED']));
      await eventually(async () => expect({ [width]: await codesShown() }).toEqual({ [width]: [] }));
      expect({ [width]: await violationsOf(page) }).toEqual({ [width]: [] });
      await picture(`words-webhooks-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("when an application's page is read, then its timeline tells the story in order with each webhook delivery under the step it announced, and times read in Lagos to the second with UTC on hover", async () => {
    const view = (await lenderApi('GET', `/api/applications/${decided.applicationId}`)).body;
    const sent = (await lenderApi('GET', `/api/webhooks/deliveries?applicationId=${decided.applicationId}&limit=100`))
      .body.data as { event: string }[];
    const account = `${view.accounts[0].institution} ${view.accounts[0].accountNumber}`;
    const lagos = (iso: string) => {
      const parts = Object.fromEntries(
        new Intl.DateTimeFormat('en-NG', {
          timeZone: 'Africa/Lagos',
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          hour: '2-digit',
          minute: '2-digit',
          second: '2-digit',
          hourCycle: 'h23',
          timeZoneName: 'short',
        })
          .formatToParts(new Date(iso))
          .map((p) => [p.type, p.value]),
      );
      return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} ${parts.timeZoneName}`;
    };
    for (const [width, viewport] of WIDTHS) {
      await page.setViewportSize(viewport);
      await open(`/applications/${decided.applicationId}`, /Adaeze Nwosu/);
      const timeline = page.locator('ol.timeline > li');
      await eventually(async () =>
        expect(await timeline.locator(':scope > div > strong').allTextContents()).toEqual([
          'Application created',
          `Bank account linked: ${account}`,
          `Statement read: ${account}`,
          'Linking finished',
          'Ready for analysis',
          'Analysis asked for',
          `Decided: ${view.decision.decision === 'APPROVED' ? 'Approved' : 'Counter-offer'}`,
          // An approval or counter-offer is an offer the applicant has to answer.
          'Offer made',
        ]),
      );
      // Each delivery under the step it announced, none on its own.
      const folded = async (step: RegExp) =>
        page
          .getByRole('list', { name: step })
          .locator(':scope > li > span.delivery-event')
          .evaluateAll((events) => events.map((e) => e.getAttribute('title')));
      await eventually(async () =>
        expect(await folded(/^Webhooks of: Bank account linked/)).toEqual(['account.linked']),
      );
      await eventually(async () =>
        expect(await folded(/^Webhooks of: Statement read/)).toEqual(['account.enrichment_ready']),
      );
      await eventually(async () =>
        expect(await folded(/^Webhooks of: Ready for analysis/)).toEqual(['application.ready_for_analysis']),
      );
      await eventually(async () => expect(await folded(/^Webhooks of: Decided/)).toEqual(['application.decision']));
      await eventually(async () => expect(await page.locator('ul.deliveries > li').count()).toBe(sent.length));
      // Times: in Lagos to the second, UTC on hover, the instant in dateTime.
      const times = await timeline
        .locator(':scope > time')
        .evaluateAll((all) => all.map((t) => [t.getAttribute('datetime'), t.textContent, t.getAttribute('title')]));
      // One per step: the seven to the decision, then the offer it made.
      expect(times).toHaveLength(8);
      for (const [iso, shown, hover] of times as [string, string, string][]) {
        expect(shown).toBe(lagos(iso));
        expect(shown).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} WAT$/);
        expect(hover).toBe(`${new Date(iso).toISOString().slice(0, 19).replace('T', ' ')} UTC`);
      }
      await eventually(async () => expect({ [width]: await sidewaysOverflowOf(page) }).toEqual({ [width]: [] }));
      expect({ [width]: await violationsOf(page) }).toEqual({ [width]: [] });
      await page.getByRole('heading', { name: 'Timeline' }).scrollIntoViewIfNeeded();
      await picture(`timeline-${width}`);
    }
    // The list's times as well.
    await open('/applications', 'Applications');
    const created = page.getByRole('row', { name: /Adaeze Nwosu/ }).locator('time');
    await expect(created.textContent()).resolves.toBe(lagos(view.createdAt));
    await expect(created.getAttribute('title')).resolves.toBe(
      `${new Date(view.createdAt).toISOString().slice(0, 19).replace('T', ' ')} UTC`,
    );
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('when the pages were read, then the console logged no error', () => {
    expect(problems).toEqual([]);
  });
});

describe('the console follows an application as it moves on, and a redelivery never unsays a delivery', () => {
  let context: BrowserContext;
  const problems: string[] = [];
  /** What the lender's receiver answers now. */
  let answer = 200;
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  let lender: Awaited<ReturnType<typeof createClient>>;
  /** The application taken to its decision by the first test. */
  let bisi: string;

  const theirApi = (method: string, pathname: string, body?: unknown) =>
    call(stack.gatewayUrl, lender.apiKey, method, pathname, body);
  const heard = (applicationId: string, name: string) =>
    hook.events(name).filter((b) => b?.data?.applicationId === applicationId);

  async function picture(page: Page, name: string) {
    const dir = process.env.CONSOLE_SCREENSHOT_DIR;
    if (!dir) return;
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
  }

  beforeAll(async () => {
    hook = await startReceiver(() => answer);
    // A long name in the header, beside the Sign out button.
    lender = await createClient(stack.gatewayUrl, {
      webhookUrl: `${hook.url}/hooks`,
      name: `Ogunlesi-Adebayo Cooperative Microfinance Bank of Lagos ${ns.slice(-6)}`,
    });
    context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const page = await context.newPage();
    await page.goto(`${stack.gatewayUrl}/console`);
    await page.getByText('Sign in with the API key').click();
    await page.getByLabel('API key').fill(lender.apiKey);
    await page.getByRole('button', { name: 'Sign in with the key' }).click();
    await page.getByRole('heading', { name: 'Portfolio', level: 1 }).waitFor();
    await page.close();
  });

  afterAll(async () => {
    await context?.close();
    await hook?.close();
  });

  async function pageOf(viewport: { width: number; height: number }) {
    const page = await context.newPage();
    await page.setViewportSize(viewport);
    page.on('console', (message) => {
      // A 400 answered to a refused URL is the page's business (it shows the reason), not a fault.
      if (message.type() === 'error' && !/status of 400/.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    return page;
  }

  it('when an application is taken to its decision over the API while its page and the list are open, then both show the decision without a reload and say when they last updated', async () => {
    const start = await theirApi(
      'POST',
      '/api/applications/initiate',
      applicant({ firstName: 'Bisi', lastName: 'Lawal', bvn: '22200000001', amount: 300_000, tenor: 6 }),
    );
    expect(start.status).toBe(201);
    const { applicationId, widgetUrl } = start.body;
    bisi = applicationId;
    const linked = await fetch(`${new URL(widgetUrl).origin}/sandbox/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ widgetUrl, persona: 'salaried' }),
    });
    expect(linked.status).toBe(200);
    await waitFor(() => heard(applicationId, 'account.enrichment_ready')[0], {
      timeoutMs: 60_000,
      what: 'enrichment_ready',
    });

    const desk = await pageOf({ width: 1280, height: 900 });
    await desk.goto(`${stack.gatewayUrl}/console#/applications/${applicationId}`);
    await desk.getByRole('heading', { name: /Bisi Lawal/, level: 1 }).waitFor();
    await eventually(async () => expect(await desk.getByText('No decision yet').count()).toBe(1));
    const phone = await pageOf({ width: 390, height: 844 });
    await phone.goto(`${stack.gatewayUrl}/console#/applications`);
    const row = phone.getByRole('row', { name: /Bisi Lawal/ });
    await eventually(async () => expect(await row.locator('td[data-label="Decision"]').textContent()).toBe('—'));
    for (const page of [desk, phone]) {
      await eventually(async () =>
        expect(await page.locator('p.updated').textContent()).toMatch(
          /^Updated \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} WAT; the page follows changes\.$/,
        ),
      );
    }
    const loadedOnce = await desk.evaluate(() => performance.getEntriesByType('navigation').length);

    expect((await theirApi('POST', `/api/applications/${applicationId}/finalize-linking`)).status).toBe(200);
    await waitFor(() => heard(applicationId, 'application.ready_for_analysis')[0], {
      timeoutMs: 30_000,
      what: 'ready',
    });
    expect((await theirApi('POST', `/api/applications/${applicationId}/analyze`)).status).toBe(200);
    await waitFor(() => heard(applicationId, 'application.decision')[0], { timeoutMs: 60_000, what: 'decision' });
    const decision = (await theirApi('GET', `/api/applications/${applicationId}`)).body.decision;

    await eventually(
      async () => expect(await desk.locator('.facts.headline .score').textContent()).toBe(String(decision.score)),
      {
        timeoutMs: 60_000,
      },
    );
    await eventually(
      async () => expect(await desk.getByRole('list', { name: /^Webhooks of: Decided: / }).count()).toBe(1),
      {
        timeoutMs: 60_000,
      },
    );
    await eventually(
      async () => expect(await row.locator('td[data-label="Score"]').textContent()).toBe(String(decision.score)),
      {
        timeoutMs: 60_000,
      },
    );
    await eventually(async () => expect(await row.locator('td[data-label="Status"]').textContent()).toBe('Completed'));
    // The same document all along: no reload.
    expect(await desk.evaluate(() => performance.getEntriesByType('navigation').length)).toBe(loadedOnce);
    expect(await desk.evaluate(() => location.hash)).toBe(`#/applications/${applicationId}`);
    await eventually(async () => expect(await sidewaysOverflowOf(phone)).toEqual([]));
    expect(await violationsOf(desk)).toEqual([]);
    expect(await violationsOf(phone)).toEqual([]);
    await picture(desk, 'live-application-desktop');
    await picture(phone, 'live-list-390');
    await phone.close();

    // Redelivered while the receiver fails: still delivered, the redelivery shown as its own attempt.
    answer = 500;
    await desk.getByRole('button', { name: /^Redeliver account\.linked/ }).click();
    await desk.getByText('Redelivery queued').waitFor();
    const linkedDelivery = desk.getByRole('list', { name: /^Webhooks of: Bank account linked/ }).locator(':scope > li');
    await eventually(
      async () =>
        expect(await linkedDelivery.locator('.detail').first().textContent()).toBe(
          'after 1 attempt (200); redelivered once (500)',
        ),
      { timeoutMs: 30_000 },
    );
    await eventually(async () =>
      expect(await linkedDelivery.locator('.badge').first().textContent()).toBe('Delivered'),
    );
    await linkedDelivery.getByText('Attempts').click();
    await eventually(async () =>
      expect(await linkedDelivery.locator('ul.attempts > li').allTextContents()).toEqual([
        expect.stringMatching(/^Attempt 1 at .*: HTTP 200 in \d+ ms$/),
        expect.stringMatching(/^Redelivery 2 at .*: HTTP 500 in \d+ ms$/),
      ]),
    );
    const log = (await theirApi('GET', `/api/webhooks/deliveries?applicationId=${applicationId}&event=account.linked`))
      .body.data[0];
    expect(log.status).toBe('DELIVERED');
    expect(log.attempts.map((a: { statusCode: number; manual: boolean }) => [a.statusCode, a.manual])).toEqual([
      [200, false],
      [500, true],
    ]);
    await picture(desk, 'redelivered-desktop');
    // The delivery log says the same, at a phone's width too.
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ]) {
      await desk.setViewportSize(viewport);
      await desk.goto(`${stack.gatewayUrl}/console#/webhooks`);
      const entry = desk.getByRole('row', { name: /Account linked/ });
      await eventually(async () =>
        expect(await entry.locator('td[data-label="Attempts"]').textContent()).toBe(
          'Delivered after 1 attempt (200); redelivered once (500)',
        ),
      );
      await eventually(async () => expect(await sidewaysOverflowOf(desk)).toEqual([]));
      await picture(desk, `redelivered-log-${viewport.width}`);
    }
    expect(problems).toEqual([]);
  });

  it('when ids, secrets, a refused webhook URL and a filter that is not an id are shown, then ids are short with the whole id on hover and a copy button, a secret has one, the URL typed stays with the reason beside it, the filter says it is not an id, and Sign out stays on one line', async () => {
    const page = await pageOf({ width: 1280, height: 900 });
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(viewport);
      await page.goto(`${stack.gatewayUrl}/console#/applications`);
      const link = page.getByRole('row', { name: /Bisi Lawal/ }).getByRole('link');
      await eventually(async () => expect(await link.textContent()).toMatch(/^[0-9a-f]{8}$/));
      const id = (await link.getAttribute('title'))!;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(id.startsWith((await link.textContent())!)).toBe(true);
      await page.getByRole('button', { name: `Copy the application id ${id}` }).click();
      await eventually(async () => expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(id));
      // Sign out on one line, beside a long lender name.
      const lines = await page.getByRole('button', { name: 'Sign out' }).evaluate((button) => {
        const range = document.createRange();
        range.selectNodeContents(button);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
      });
      expect({ [viewport.width]: lines }).toEqual({ [viewport.width]: 1 });
      await eventually(async () => expect(await sidewaysOverflowOf(page)).toEqual([]));
      expect(await violationsOf(page)).toEqual([]);
      await picture(page, `short-ids-${viewport.width}`);

      // A delivery filter that is not an id says so.
      await page.goto(`${stack.gatewayUrl}/console#/webhooks?applicationId=Bisi%20Lawal`);
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      await eventually(async () =>
        expect(await page.locator('#delivery-application-error').textContent()).toMatch(
          /^“Bisi Lawal” is not an application id/,
        ),
      );
      await eventually(async () => expect(await page.getByText('No delivery matches.').count()).toBe(0));
      await expect(page.getByLabel('Application id').getAttribute('aria-invalid')).resolves.toBe('true');

      // A refused webhook URL stays as typed, with the reason beside it.
      const field = page.getByLabel('Webhook URL');
      await field.fill('ftp://hooks.lender.example/events');
      await page.getByRole('button', { name: 'Save URL' }).click();
      await eventually(async () =>
        expect(await page.locator('#webhook-url-error').textContent()).toMatch(/^Not saved: /),
      );
      await expect(field.inputValue()).resolves.toBe('ftp://hooks.lender.example/events');
      await expect(field.getAttribute('aria-invalid')).resolves.toBe('true');
      expect((await theirApi('GET', '/api/client')).body.webhookUrl).toBe(`${hook.url}/hooks`);
      // Typing goes on while the page reloads its parts.
      await field.fill('ftp://hooks.lender.example/event');
      await page.getByRole('button', { name: 'Filter' }).click();
      await expect(field.inputValue()).resolves.toBe('ftp://hooks.lender.example/event');
      await eventually(async () => expect(await sidewaysOverflowOf(page)).toEqual([]));
      expect(await violationsOf(page)).toEqual([]);
      await picture(page, `webhook-form-${viewport.width}`);
    }
    // A secret shown once has a copy button.
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${stack.gatewayUrl}/console#/webhooks`);
    await page.getByRole('button', { name: 'Rotate webhook secret' }).click();
    await page.getByRole('button', { name: 'Rotate the secret now' }).click();
    const secret = (await page.getByTestId('shown-once').textContent())!.trim();
    await page.getByRole('button', { name: 'Copy the new webhook secret' }).click();
    await eventually(async () => expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret));
    await picture(page, 'secret-copy-desktop');
    expect(problems).toEqual([]);
  });

  it('when the list is exported, then the CSV holds every application the filter matches with its decision and terms, by name only, and a name that looks like a formula stays text', async () => {
    const formula = await theirApi(
      'POST',
      '/api/applications/initiate',
      applicant({ firstName: '=HYPERLINK("http://x.example")', lastName: '+Cmd' }),
    );
    expect(formula.status).toBe(201);
    const view = (await theirApi('GET', `/api/applications/${bisi}`)).body;
    const terms = view.decision.decision === 'APPROVED' ? view.decision.approval_details : null;
    const page = await pageOf({ width: 1280, height: 900 });
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(viewport);
      await page.goto(`${stack.gatewayUrl}/console#/applications`);
      const link = page.getByRole('link', { name: 'Export these applications as CSV' });
      await link.waitFor();
      await eventually(async () => expect(await sidewaysOverflowOf(page)).toEqual([]));
      expect(await violationsOf(page)).toEqual([]);
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      expect(download.suggestedFilename()).toMatch(/^applications-\d{4}-\d{2}-\d{2}\.csv$/);
      const csv = readFileSync((await download.path())!, 'utf8');
      const lines = csv.split('\r\n').filter(Boolean);
      expect(lines[0]).toBe(
        'application_id,applicant_id,applicant_name,status,created_at,amount_requested,tenor_requested_months,linked_accounts,score,score_band,decision,decided_at,terms,terms_amount,terms_tenor_months,terms_interest_percent_monthly,terms_monthly_payment,review_status,review_outcome',
      );
      expect(lines).toHaveLength(3);
      const decided = lines.find((l) => l.startsWith(bisi))!.split(',');
      expect(decided.slice(2, 4)).toEqual(['Bisi Lawal', 'COMPLETED']);
      expect(decided.slice(8, 11)).toEqual([
        String(view.decision.score),
        view.decision.score_band,
        view.decision.decision,
      ]);
      if (terms) {
        expect(decided.slice(12, 17)).toEqual([
          'approved',
          ...[terms.approved_amount, terms.approved_tenor, terms.approved_interest, terms.monthly_payment].map(String),
        ]);
      } else {
        expect(decided[12]).toBe('counter_offer');
      }
      expect(lines.find((l) => l.startsWith(formula.body.applicationId))).toContain(
        `,"'=HYPERLINK(""http://x.example"") +Cmd",PENDING_LINKING,`,
      );
      expect(csv).not.toContain(view.applicant.email);
    }
    // The filter is the list's: only the completed one.
    await page.goto(`${stack.gatewayUrl}/console#/applications?status=COMPLETED`);
    const [filtered] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export these applications as CSV' }).click(),
    ]);
    const rows = readFileSync((await filtered.path())!, 'utf8')
      .split('\r\n')
      .filter(Boolean);
    expect(rows.slice(1).map((r) => r.slice(0, 36))).toEqual([bisi]);
    // The same file over the API with the key.
    const res = await fetch(`${stack.gatewayUrl}/api/applications/export.csv?status=COMPLETED`, {
      headers: { 'x-api-key': lender.apiKey },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect((await res.text()).split('\r\n').filter(Boolean)).toEqual(rows);
    const bad = await fetch(`${stack.gatewayUrl}/api/applications/export.csv?status=DONE`, {
      headers: { 'x-api-key': lender.apiKey },
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toBe('Bad Request');
    expect(problems).toEqual([]);
  });

  it("when the lender searches by the applicant's name in another order and case, or by the BVN, while the list refreshes itself, then what was typed and ticked stays and the list shows that application and no other", async () => {
    const page = await pageOf({ width: 390, height: 844 });
    for (const words of ['lawal BISI', '22200000001']) {
      await page.goto(`${stack.gatewayUrl}/console#/applications`);
      const updated = page.locator('p.updated');
      await updated.waitFor();
      const before = await updated.textContent();
      await page.getByLabel('Name, e-mail, phone, BVN or id').fill(words);
      await page.getByRole('checkbox', { name: 'Completed' }).check();
      // The list looks again by itself; the form keeps what the lender did meanwhile.
      await eventually(async () => expect(await updated.textContent()).not.toBe(before), { timeoutMs: 40_000 });
      expect(await page.getByLabel('Name, e-mail, phone, BVN or id').inputValue()).toBe(words);
      expect(await page.getByRole('checkbox', { name: 'Completed' }).isChecked()).toBe(true);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText(`Applications with status Completed matching ${words}`).waitFor();
      const rows = page.locator('table.data tbody tr');
      await eventually(async () => expect({ words, rows: await rows.count() }).toEqual({ words, rows: 1 }));
      await eventually(async () =>
        expect(await rows.first().getByRole('cell', { name: 'Bisi Lawal' }).count()).toBe(1),
      );
      await eventually(async () => expect(await sidewaysOverflowOf(page)).toEqual([]));
    }
    expect(problems).toEqual([]);
  });

  it('when a decided application is printed, then the summary is one page with the ask, the decision, its reasons, terms and accounts, ids in full, and nothing that only works on a screen', async () => {
    const page = await pageOf({ width: 390, height: 844 });
    await page.goto(`${stack.gatewayUrl}/console#/applications/${bisi}`);
    await page.getByRole('heading', { name: /Bisi Lawal/, level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Print decision summary' }).waitFor();
    await eventually(async () => expect(await sidewaysOverflowOf(page)).toEqual([]));
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ media: 'print' });
    for (const gone of ['header.top', 'ol.timeline', '#flows-heading', 'button', 'p.updated']) {
      await eventually(async () =>
        expect({ [gone]: await page.locator(gone).first().isVisible() }).toEqual({ [gone]: false }),
      );
    }
    for (const kept of [
      'table[aria-labelledby="breakdown-heading"]',
      '#terms-heading',
      '#risk-heading',
      '#accounts-heading',
      '.primary-reason',
    ]) {
      await eventually(async () =>
        expect({ [kept]: await page.locator(kept).first().isVisible() }).toEqual({ [kept]: true }),
      );
    }
    await eventually(async () => expect(await page.locator('.print-only.id').first().textContent()).toBe(bisi));
    expect(await printedPagesOf(page)).toBe(1);
    // A decision with more reasons, risks or accounts than this one must still fit: a tenth of
    // the page is left for them.
    expect(await freeOfPrintedPage(page)).toBeGreaterThanOrEqual(0.1);
    await picture(page, 'print-summary');
    await page.emulateMedia({ media: 'screen' });
    await eventually(async () => expect(await page.locator('header.top').isVisible()).toBe(true));
    expect(problems).toEqual([]);
  });

  it('when the lender pages on to page 2 and reloads it, then it is still page 2 with its Previous page, which leads back to page 1', async () => {
    // More applications than a page holds (20): the list has a second page.
    for (let i = 0; i < 21; i++) {
      const opened = await theirApi(
        'POST',
        '/api/applications/initiate',
        applicant({ firstName: 'Pager', lastName: `Okafor${'ABCDEFGHIJKLMNOPQRSTUVWXYZ'[i]}` }),
      );
      expect(opened.status).toBe(201);
    }
    const page = await pageOf({ width: 390, height: 844 });
    await page.goto(`${stack.gatewayUrl}/console#/applications`);
    const pager = page.getByRole('navigation', { name: 'Pages of applications' });
    await pager.getByText('Page 1').waitFor();
    const rows = page.locator('table.data tbody tr');
    await eventually(async () => expect(await rows.count()).toBe(20));
    const firstOfPage1 = await rows.first().locator('td.name').textContent();

    await pager.getByRole('button', { name: 'Next page' }).click();
    await pager.getByText('Page 2').waitFor();
    expect(page.url()).toContain('cursor=');
    await page.reload();
    await pager.getByText('Page 2').waitFor();
    const previous = pager.getByRole('button', { name: 'Previous page' });
    await eventually(async () => expect(await previous.isEnabled()).toBe(true));
    await eventually(async () => expect(await rows.count()).toBeGreaterThan(0));
    expect(await rows.first().locator('td.name').textContent()).not.toBe(firstOfPage1);
    await picture(page, 'applications-page-2-390');

    await previous.click();
    await pager.getByText('Page 1').waitFor();
    expect(page.url()).not.toContain('cursor=');
    await eventually(async () => expect(await rows.first().locator('td.name').textContent()).toBe(firstOfPage1));
    expect(await previous.isEnabled()).toBe(false);
    expect(problems).toEqual([]);
  });
});

describe('the console in a browser', () => {
  let context: BrowserContext;
  let page: Page;
  const elsewhere: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    // Every request the page makes passes here: one for another host is recorded and refused.
    await context.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      if (url.protocol === 'data:' || LOOPBACK.has(url.hostname)) return route.continue();
      elsewhere.push(url.href);
      return route.abort('blockedbyclient');
    });
    page = await context.newPage();
    page.on('console', (message) => {
      // A 4xx answered to a call (a refused draft or review, an ended session) is the console's business (it shows the message), not a fault of the page.
      if (message.type() === 'error' && !/status of 40[01349]/.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
  });

  afterAll(async () => {
    await context?.close();
  });

  /** What axe-core finds against WCAG 2 A and AA on the page as it is now. */
  const accessibilityViolations = () => violationsOf(page);

  /** Whether a canvas has anything drawn on it. */
  const drawn = (name: RegExp) =>
    page.getByRole('img', { name }).evaluate((canvas) => {
      const c = canvas as HTMLCanvasElement;
      const pixels = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let painted = 0;
      for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) painted++;
      return c.width > 0 && painted > 100;
    });

  const shots = process.env.CONSOLE_SCREENSHOT === '1';

  /** Where an element ends on the page, with a margin: a picture's height from the top. */
  const bottomOf = (selector: string) =>
    page.locator(selector).evaluate((el) => Math.ceil(el.getBoundingClientRect().bottom + window.scrollY + 24));

  /** The elements wider than a 390 px screen (none may be), with a full-page picture when asked. */
  async function overflowAtPhoneWidth(name: string) {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      // The charts follow the new width when they next draw: give them the time to.
      await page
        .waitForFunction(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth, null, {
          timeout: 5_000,
        })
        .catch(() => undefined);
      const wide = await page.evaluate(() => {
        const width = document.documentElement.clientWidth;
        if (document.documentElement.scrollWidth <= width) return [];
        // The page scrolls sideways: name what sticks out, for the message.
        const found = [...document.querySelectorAll('body *')]
          .filter((el) => el.getBoundingClientRect().right > width + 1)
          .map(
            (el) =>
              `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className ? `.${String(el.className).split(' ').join('.')}` : ''}`,
          );
        return [`the page is ${document.documentElement.scrollWidth} px wide`, ...found];
      });
      if (shots) {
        mkdirSync(path.join(tmpdir(), 'console-390'), { recursive: true });
        await page.screenshot({ path: path.join(tmpdir(), 'console-390', `console-${name}.png`), fullPage: true });
      }
      return wide;
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  }

  const keyIsNowhere = async (key: string) => {
    expect(await page.content()).not.toContain(key);
    const stored = await page.evaluate(() =>
      JSON.stringify([document.cookie, { ...localStorage }, { ...sessionStorage }]),
    );
    expect(stored).not.toContain(key);
    expect(await page.evaluate(() => document.cookie)).toBe('');
  };

  it('when a lender whose owner has no account yet signs in with the API key by keyboard, then the portfolio opens, the applications list is a click away, and the key is nowhere a script can read', async () => {
    const response = await page.goto(`${stack.gatewayUrl}/console`);
    expect(response?.status()).toBe(200);
    await page.getByRole('heading', { name: 'Sign in to the lender console' }).waitFor();
    expect(await accessibilityViolations()).toEqual([]);
    // By keyboard alone: the page's heading has the focus, the staff form's e-mail field is the next stop.
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('email');
    await page.getByText('Sign in with the API key').focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('api-key');
    await page.keyboard.type(stack.lender.apiKey);
    await page.keyboard.press('Enter');
    // The console opens on the portfolio; the list is a click away.
    await page.getByRole('heading', { name: 'Portfolio', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Applications', exact: true }).click();
    await page.getByRole('heading', { name: 'Applications', level: 1 }).waitFor();
    await page.getByRole('link', { name: decided.applicationId }).waitFor();
    await eventually(async () => expect(await page.getByRole('cell', { name: 'Tunde Bakare' }).count()).toBe(1));
    await keyIsNowhere(stack.lender.apiKey);
    expect(await accessibilityViolations()).toEqual([]);
    if (process.env.CONSOLE_SCREENSHOT === '1') {
      await page.screenshot({ path: path.join(ROOT, 'docs/images/console-applications.png') });
    }
  });

  it('when the lender searches for the decided application and opens it, then its decision is explained with both charts', async () => {
    await page.getByRole('checkbox', { name: 'Completed' }).check();
    await page.getByLabel('Name, e-mail, phone, BVN or id').fill(decided.applicantId);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('Applications with status Completed').waitFor();
    await eventually(async () => expect(await page.getByRole('link', { name: /^[0-9a-f-]{36}$/ }).count()).toBe(1));
    await page.getByRole('link', { name: decided.applicationId }).click();

    const view = (await lenderApi('GET', `/api/applications/${decided.applicationId}`)).body;
    const decision = view.decision;
    await page.getByRole('heading', { name: 'Decision', level: 2 }).waitFor();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toContain('Adaeze Nwosu');
    await expect(page.locator('.facts.headline .score').textContent()).resolves.toBe(String(decision.score));
    await eventually(async () =>
      expect(await page.getByText(decision.explainability.primary_reason).count()).toBeGreaterThan(0),
    );
    // The breakdown: a chart, and the same numbers in its table.
    expect(await drawn(/^Score breakdown/)).toBe(true);
    const breakdown = page.locator('table[aria-labelledby="breakdown-heading"]');
    await expect(
      breakdown
        .getByRole('row', { name: /Cash-flow health/ })
        .locator('td')
        .textContent(),
    ).resolves.toBe(String(decision.score_breakdown.cash_flow_health));
    await expect(breakdown.getByRole('row', { name: /Total/ }).locator('td').textContent()).resolves.toBe(
      String(decision.score_breakdown.total),
    );
    // The monthly flows of the linked account: a chart and its table, one row a month.
    const months = view.accounts[0].monthlyFlows as { month: string }[];
    expect(months.length).toBeGreaterThan(0);
    expect(await drawn(/^Monthly inflows and outflows/)).toBe(true);
    await eventually(async () =>
      expect(await page.locator('table[aria-labelledby="flows-heading"] tbody tr').count()).toBe(months.length),
    );
    for (const heading of [
      decision.decision === 'APPROVED' ? 'Approved terms' : 'Offered instead',
      'Risk factors',
      'Explanation',
      'Accounts',
      'Timeline',
    ]) {
      await eventually(async () => expect(await page.getByRole('heading', { name: heading }).isVisible()).toBe(true));
    }
    await eventually(async () =>
      expect(await page.getByRole('cell', { name: 'Statement read' }).count()).toBe(view.accounts.length),
    );
    // The Key Facts Statement: the APR and totals to the kobo, and the schedule, one row an instalment.
    const facts = decision.key_facts;
    const keyFacts = page.getByRole('region', { name: 'Key facts' });
    await keyFacts.waitFor();
    const factsText = (await keyFacts.textContent())!;
    expect(factsText).toContain(`${facts.apr_percent.toFixed(2)}%`);
    const kobo = (n: number) =>
      new Intl.NumberFormat('en-NG', { style: 'currency', currency: 'NGN', minimumFractionDigits: 2 }).format(n);
    expect(factsText).toContain(kobo(facts.total_repayable));
    expect(factsText).toContain(facts.schedule_basis.reason);
    // The offer stands open until the applicant answers it through the lender's API.
    expect(view.offer.status).toBe('OPEN');
    await eventually(async () =>
      expect(await page.locator('#offer-status').textContent()).toMatch(/^Open: the applicant has until /),
    );
    const schedule = keyFacts.getByRole('table', { name: 'Repayment schedule' });
    await eventually(async () => expect(await schedule.locator('tbody tr').count()).toBe(facts.schedule.length));
    await expect(schedule.locator('tfoot td').last().textContent()).resolves.toBe(kobo(facts.total_repayable));
    // The timeline shows each webhook with the receiver's answers.
    await eventually(async () =>
      expect(await page.getByRole('list', { name: /^Webhooks of: Decided: / }).isVisible()).toBe(true),
    );
    await eventually(async () => expect(await page.getByText(/Attempt 1 at .*: HTTP 200/).count()).toBeGreaterThan(0));
    // The application's traces, in the trace UI the gateway names, opened beside the console.
    const traces = page.getByRole('link', { name: 'Traces of this application' });
    const href = new URL((await traces.getAttribute('href'))!);
    expect(href.origin + href.pathname).toBe('http://traces.lender.test:16686/search');
    expect(JSON.parse(href.searchParams.get('tags')!)).toEqual({ 'loan.application_id': decided.applicationId });
    expect(await traces.getAttribute('target')).toBe('_blank');
    expect(await accessibilityViolations()).toEqual([]);
    if (process.env.CONSOLE_SCREENSHOT === '1') {
      // From the top of the page to the end of the monthly flows.
      const flows = (await page.locator('table[aria-labelledby="flows-heading"]').boundingBox())!;
      await page.screenshot({
        path: path.join(ROOT, 'docs/images/console-decision.png'),
        fullPage: true,
        clip: { x: 0, y: 0, width: 1280, height: Math.ceil(flows.y + flows.height + 24) },
      });
    }
    if (shots) {
      await keyFacts.screenshot({ path: path.join(tmpdir(), 'console-key-facts.png') });
      await page.setViewportSize({ width: 390, height: 844 });
      await keyFacts.screenshot({ path: path.join(tmpdir(), 'console-key-facts-390.png') });
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('when the lender redelivers the decision webhook, then the receiver gets it again', async () => {
    const before = eventsOf(decided.applicationId, 'application.decision').length;
    await page.getByRole('button', { name: /^Redeliver application\.decision/ }).click();
    await page.getByText('Redelivery queued').waitFor();
    await waitFor(() => eventsOf(decided.applicationId, 'application.decision').length > before, {
      what: 'the redelivered decision',
    });
  });

  it('when a reviewer opens the Reviews page, then the referred application waits in the open queue with its age, reasons, score, ask and the terms scoring would grant', async () => {
    // Reviews granting more than this wait for a second reviewer.
    expect((await lenderApi('PATCH', '/api/client', { reviewConfirmationAbove: 250_000 })).status).toBe(200);
    const item = (await lenderApi('GET', '/api/reviews?status=OPEN&limit=100')).body.items.find(
      (i: { applicationId: string }) => i.applicationId === referred.applicationId,
    );
    await page.getByRole('link', { name: 'Reviews' }).click();
    await page.getByRole('heading', { name: 'Reviews', level: 1 }).waitFor();
    const row = page.getByRole('row', { name: /Chidi Okafor/ });
    await row.waitFor();
    const text = (await row.textContent())!;
    expect(text).toMatch(/less than a minute|\d+ minutes?/);
    for (const reason of item.manual_review_reasons) expect(text).toContain(reason.description);
    expect(text).toContain(String(item.score));
    expect(text).toMatch(/500,000, 12 months at 5%/);
    expect(text).toContain(
      `${item.approval_details.approved_tenor} months at ${item.approval_details.approved_interest}%`,
    );
    expect(text).toContain('Not reviewed yet');
    expect(await accessibilityViolations()).toEqual([]);
    if (shots) await page.screenshot({ path: path.join(ROOT, 'docs/images/console-reviews.png') });
    expect(await overflowAtPhoneWidth('reviews')).toEqual([]);
  });

  it("when an officer reviews it on its page, then a refused review shows the API's message, an accepted one awaits a second reviewer, another officer's review is refused as overtaken and the maker is told why they cannot confirm it", async () => {
    const view = (await lenderApi('GET', `/api/applications/${referred.applicationId}`)).body;
    await page.getByRole('link', { name: 'Chidi Okafor' }).click();
    await page.getByRole('heading', { name: /^Review/, level: 2 }).waitFor();
    // The evidence beside the form: why it was referred, the breakdown, the flows, what scoring would grant.
    const evidence = page.getByRole('region', { name: 'Evidence' });
    for (const reason of view.decision.manual_review_reasons)
      await eventually(async () => expect(await evidence.getByText(reason.description).count()).toBe(1));
    await expect(evidence.getByRole('row', { name: /Total/ }).locator('td').textContent()).resolves.toBe(
      String(view.decision.score_breakdown.total),
    );
    await eventually(async () =>
      expect(await evidence.locator('table[aria-labelledby="evidence-flows"] tbody tr').count()).toBe(
        view.accounts[0].monthlyFlows.length,
      ),
    );
    // The terms are prefilled with what scoring would grant.
    await expect(page.getByLabel('Amount (Naira)').inputValue()).resolves.toBe(
      String(view.decision.approval_details.approved_amount),
    );
    await expect(page.getByLabel('Tenor (months)').inputValue()).resolves.toBe(
      String(view.decision.approval_details.approved_tenor),
    );

    await page.getByLabel('Your staff id').fill('officer-1042');
    await page.getByRole('radio', { name: 'Approve' }).check();
    await page.getByLabel('Amount (Naira)').fill('500000');
    await page.getByLabel('Tenor (months)').fill('12');
    await page.getByLabel('Interest (% a month)').fill('5');
    // A reason code the API refuses: its 400 message is shown at the form.
    await page.getByLabel('Reason code').fill('income verified');
    await page.getByRole('button', { name: 'Submit review' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'reasonCode must be letters, digits, dots, dashes or underscores' })
      .waitFor();
    expect(await accessibilityViolations()).toEqual([]);
    if (shots) {
      await page.screenshot({
        path: path.join(ROOT, 'docs/images/console-review-form.png'),
        fullPage: true,
        clip: { x: 0, y: 0, width: 1280, height: await bottomOf('section.review') },
      });
    }
    expect(await overflowAtPhoneWidth('review-form')).toEqual([]);
    // Another officer has the same application open, in another tab (which keeps its own staff id).
    const other = await context.newPage();
    await other.goto(`${stack.gatewayUrl}/console#/applications/${referred.applicationId}`);
    await other.getByLabel('Your staff id').fill('officer-2001');
    await other.getByRole('radio', { name: 'Decline' }).check();
    await other.getByLabel('Reason code').fill('INCOME_UNVERIFIED');
    // That tab goes to the background: a hidden page stops following changes, so its form stays as filled.
    await other.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'));
    });

    await page.getByLabel('Reason code').fill('INCOME_VERIFIED');
    await page.getByLabel(/^Note/).fill('Salary and employer confirmed by phone; the bureau was down');
    await page.getByRole('button', { name: 'Submit review' }).click();
    await page.getByRole('region', { name: 'Awaiting a second reviewer' }).waitFor();

    // The other officer's review comes second: the API's 409 is shown, with the review as it now is.
    await other.getByRole('button', { name: 'Submit review' }).click();
    await other
      .getByRole('alert')
      .filter({ hasText: 'A review of this application by officer-1042 awaits confirmation' })
      .waitFor();
    await other.getByRole('region', { name: 'Awaiting a second reviewer' }).getByText('officer-1042').first().waitFor();
    await other.close();

    const confirmation = page.getByRole('region', { name: 'Awaiting a second reviewer' });
    await confirmation.waitFor();
    await expect(confirmation.textContent()).resolves.toContain('officer-1042');
    await expect(confirmation.getByRole('button', { name: 'Confirm review' }).isDisabled()).resolves.toBe(true);
    await confirmation.getByText('You (officer-1042) made this review').waitFor();
    expect((await lenderApi('GET', `/api/applications/${referred.applicationId}`)).body.review).toMatchObject({
      status: 'PENDING_CONFIRMATION',
      reviewer: 'officer-1042',
      approval_details: { approved_amount: 500_000, approved_tenor: 12, approved_interest: 5 },
    });
    expect(await accessibilityViolations()).toEqual([]);
    if (shots) {
      await page.screenshot({
        path: path.join(ROOT, 'docs/images/console-review.png'),
        fullPage: true,
        clip: { x: 0, y: 0, width: 1280, height: await bottomOf('section.review') },
      });
    }
    expect(await overflowAtPhoneWidth('review-pending')).toEqual([]);
  });

  it('when a second reviewer confirms it, then the review is final on the page, named both reviewers, and done in the queue', async () => {
    // The staff id is kept for the tab: it is still the maker's after a reload.
    await page.reload();
    await expect(page.getByLabel('Your staff id').inputValue()).resolves.toBe('officer-1042');
    await page.getByLabel('Your staff id').fill('manager-0007');
    await page.getByRole('button', { name: 'Confirm review' }).click();
    const final = page.getByRole('region', { name: 'Final review' });
    await final.waitFor();
    const text = (await final.textContent())!;
    for (const shown of [
      'Approved',
      'officer-1042',
      'manager-0007',
      'INCOME_VERIFIED',
      'Salary and employer confirmed by phone',
      '12 months',
    ]) {
      expect(text).toContain(shown);
    }
    await eventually(async () => expect(await page.getByRole('button', { name: 'Submit review' }).count()).toBe(0));
    const review = (await lenderApi('GET', `/api/applications/${referred.applicationId}`)).body.review;
    expect(review).toMatchObject({ status: 'FINAL', reviewer: 'officer-1042', confirmedBy: 'manager-0007' });
    expect(await accessibilityViolations()).toEqual([]);
    expect(await overflowAtPhoneWidth('review-final')).toEqual([]);

    await page.getByRole('link', { name: 'Reviews' }).click();
    await page.getByRole('heading', { name: 'Reviews', level: 1 }).waitFor();
    await page.getByRole('radio', { name: /^Done/ }).check();
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('Applications reviewed').waitFor();
    await expect(page.getByRole('row', { name: /Chidi Okafor/ }).textContent()).resolves.toContain(
      'by officer-1042, confirmed by manager-0007',
    );
    expect(await accessibilityViolations()).toEqual([]);
    expect((await lenderApi('PATCH', '/api/client', { reviewConfirmationAbove: null })).status).toBe(200);
  });

  it('when the applicant contests a DECLINED decision, then it is back in the queue as contested, its page shows the statement beside the review form, and the review awaits a second reviewer', async () => {
    const declined = await decidedApplication(
      { firstName: 'Emeka', lastName: 'Obi', bvn: '22200000001', amount: 500_000, tenor: 12, interestRate: 5 },
      { persona: 'overdrawn' },
    );
    // Declined by the scorecard, or referred and declined by a reviewer: either way the decision stands DECLINED.
    const outcome = (await lenderApi('GET', `/api/applications/${declined.applicationId}`)).body.decision.decision;
    expect(['DECLINED', 'MANUAL_REVIEW']).toContain(outcome);
    if (outcome === 'MANUAL_REVIEW') {
      const reviewed = await lenderApi('POST', `/api/applications/${declined.applicationId}/review`, {
        outcome: 'DECLINED',
        reasonCode: 'OVERDRAFT_PERSISTENT',
        reviewer: 'officer-2001',
      });
      expect(reviewed.body.review).toMatchObject({ status: 'FINAL', outcome: 'DECLINED' });
    }
    const statement = 'The overdraft was my business float in October; it is cleared now and the statement shows it.';
    // The officer takes the applicant's statement on the application's page.
    await page.goto(`${stack.gatewayUrl}/console#/applications/${declined.applicationId}`);
    await page.getByRole('heading', { name: 'Contest', level: 2 }).waitFor();
    expect(await accessibilityViolations()).toEqual([]);
    await page.getByLabel("The applicant's statement").fill(statement);
    await page.getByRole('button', { name: 'Open contest' }).click();
    await page.getByRole('region', { name: 'Evidence' }).getByText(statement).waitFor();
    await eventually(async () =>
      expect(await page.getByRole('heading', { name: 'Contest', level: 2 }).count()).toBe(0),
    );
    expect((await lenderApi('GET', `/api/applications/${declined.applicationId}`)).body.contest).toMatchObject({
      status: 'OPEN',
      statement,
    });
    await page.getByRole('link', { name: 'Reviews' }).click();
    await page.getByRole('heading', { name: 'Reviews', level: 1 }).waitFor();
    await page.getByRole('radio', { name: /^Open/ }).check();
    await page.getByRole('button', { name: 'Show' }).click();
    const row = page.getByRole('row', { name: /Emeka Obi/ });
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('Contested by the applicant (Declined)');

    await page.goto(`${stack.gatewayUrl}/console#/applications/${declined.applicationId}`);
    const evidence = page.getByRole('region', { name: 'Evidence' });
    await evidence.getByRole('heading', { name: /Contested by the applicant/ }).waitFor();
    await evidence.getByText(statement).waitFor();
    expect(await accessibilityViolations()).toEqual([]);
    if (shots) {
      await page.screenshot({
        path: path.join(tmpdir(), 'console-contest.png'),
        fullPage: true,
      });
    }
    expect(await overflowAtPhoneWidth('contest')).toEqual([]);

    await page.getByLabel('Your staff id').fill('officer-1042');
    await page.getByRole('radio', { name: 'Decline' }).check();
    await page.getByLabel('Reason code').fill('OVERDRAFT_PERSISTENT');
    await page.getByRole('button', { name: 'Submit review' }).click();
    await page.getByRole('region', { name: 'Awaiting a second reviewer' }).waitFor();
    const contested = (await lenderApi('GET', `/api/applications/${declined.applicationId}`)).body;
    expect(contested.review).toMatchObject({
      status: 'PENDING_CONFIRMATION',
      outcome: 'DECLINED',
      contestId: contested.contest.contestId,
    });
  });

  it('when the lender rotates the webhook secret, then the new secret is shown once with the end of the overlap, and not again; the endpoint is edited and failed deliveries replayed', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await expect(page.getByLabel('Webhook URL').inputValue()).resolves.toBe(`${stack.receiver.url}/hooks`);
    await page.getByRole('cell', { name: decided.applicationId }).first().waitFor();
    expect(await accessibilityViolations()).toEqual([]);
    // The endpoint: edited here, read back through the API.
    await page.getByLabel('Webhook URL').fill(`${stack.receiver.url}/console-hooks`);
    await page.getByRole('button', { name: 'Save URL' }).click();
    await page.getByText('Webhook URL saved').waitFor();
    expect((await lenderApi('GET', '/api/client')).body.webhookUrl).toBe(`${stack.receiver.url}/console-hooks`);
    // Replay of failed deliveries since a time (none failed here).
    await page.getByLabel('Replay failed deliveries since (UTC)').fill('2026-01-01T00:00');
    await page.getByRole('button', { name: 'Replay failed deliveries' }).click();
    await page.getByText('0 deliveries queued again.').waitFor();
    await page.getByLabel(/^Overlap of the previous secret/).fill('2');
    await page.getByRole('button', { name: 'Rotate webhook secret' }).click();
    await page.getByRole('button', { name: 'Rotate the secret now' }).click();
    const secret = (await page.getByTestId('shown-once').textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    await expect(page.getByTestId('overlap-end').textContent()).resolves.toMatch(
      /keeps signing until \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} WAT/,
    );
    // Shown once: after a reload it is gone, and the page says how long the previous one signs.
    await page.reload();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByText(/Previous secrets still sign deliveries/).waitFor();
    expect(await page.content()).not.toContain(secret);
  });

  it('when the lender drafts a policy with a lower debt-service cap, then a bad value is named at its field, the simulation shows the outcomes in a chart and a table, and the draft is activated after a confirmation', async () => {
    await page.getByRole('link', { name: 'Policy' }).click();
    await page.getByRole('heading', { name: 'Credit policy', level: 1 }).waitFor();
    // The active policy in words: the built-in one until the lender activates its own.
    await page.getByRole('heading', { name: 'Active: version 0 (built-in), Built-in policy', level: 2 }).waitFor();
    const activeRules = page.getByRole('region', { name: /^Active:/ });
    await activeRules.getByText('Low risk, a score of 85 or more: approve.').waitFor();
    await activeRules.getByText(/may take at most 33\.33% of verified monthly income/).waitFor();
    expect(await accessibilityViolations()).toEqual([]);

    // A cap out of range: the API's 400 is shown at the field it names, and tied to it.
    const cap = page.getByLabel('Maximum debt-service ratio (% of income)');
    await expect(cap.inputValue()).resolves.toBe('33.33');
    await cap.fill('90');
    await page.getByLabel('Name', { exact: true }).fill('Tight affordability');
    await page.getByRole('button', { name: 'Save as a new draft' }).click();
    await page.getByText(/The draft was not saved: 1 problem/).waitFor();
    await expect(cap.getAttribute('aria-invalid')).resolves.toBe('true');
    const errorId = (await cap.getAttribute('aria-describedby'))!.split(' ').find((one) => one.endsWith('-error'))!;
    await expect(page.locator(`#${errorId}`).textContent()).resolves.toContain(
      'maxDebtServiceRatio must be between 0.05 and 0.80',
    );
    expect(await accessibilityViolations()).toEqual([]);

    await cap.fill('10');
    // A knock-out rule, made of fields.
    await page.getByRole('button', { name: 'Add a knock-out rule' }).click();
    await page.getByLabel('Code', { exact: true }).fill('HIGH_BETTING');
    await page
      .getByLabel('When', { exact: true })
      .selectOption({ label: 'betting debits as a share of monthly income' });
    await page.getByLabel('Comparison', { exact: true }).selectOption({ label: 'is more than' });
    await page.getByLabel('Value', { exact: true }).fill('0.25');
    await page.getByLabel('Reason shown', { exact: true }).fill('Betting takes over a quarter of income');
    await page.getByRole('button', { name: 'Save as a new draft' }).click();
    await page.getByText(/^Draft version 1 saved/).waitFor();
    const stored = (await lenderApi('GET', '/api/policies/1')).body;
    expect(stored).toEqual(expect.objectContaining({ version: 1, status: 'DRAFT' }));
    expect(stored.policy.affordability.maxDebtServiceRatio).toBe(0.1);
    expect(stored.policy.knockOuts).toEqual([
      {
        code: 'HIGH_BETTING',
        feature: 'bettingShareOfIncome',
        operator: '>',
        value: 0.25,
        action: 'DECLINE',
        description: 'Betting takes over a quarter of income',
      },
    ]);
    // The history says what changed from the version before, field by field.
    const diff = page.getByRole('table', { name: 'Changes from version 0 to version 1' });
    await eventually(async () =>
      expect(
        await diff
          .getByRole('row', { name: /Maximum debt-service ratio/ })
          .locator('td')
          .allTextContents(),
      ).toEqual(['33.33%', '10%']),
    );
    await eventually(async () =>
      expect(await diff.getByRole('row', { name: /^Name/ }).locator('td').allTextContents()).toEqual([
        'Built-in policy',
        'Tight affordability',
      ]),
    );
    const sentence =
      'HIGH_BETTING: decline when betting debits as a share of monthly income is more than 0.25 (Betting takes over a quarter of income).';
    await eventually(async () =>
      expect(
        await diff
          .getByRole('row', { name: /Knock-out rule HIGH_BETTING/ })
          .locator('td')
          .allTextContents(),
      ).toEqual(['none', sentence]),
    );

    // Simulate: the outcome counts of both versions in a chart and in a table, as the API gives them.
    await page.getByRole('button', { name: 'Simulate', exact: true }).click();
    const table = page.getByTestId('simulation-table');
    await table.waitFor();
    const expected = (await lenderApi('POST', '/api/policies/1/simulate', {})).body;
    expect(expected.evaluated).toBeGreaterThan(0);
    expect(await drawn(/^Outcomes of \d+ applications/)).toBe(true);
    for (const [key, label] of [
      ['APPROVED', 'Approved'],
      ['COUNTER_OFFER', 'Counter-offer'],
      ['MANUAL_REVIEW', 'Manual review'],
      ['DECLINED', 'Declined'],
    ] as const) {
      await eventually(async () =>
        expect(
          await table
            .getByRole('row', { name: new RegExp(`^${label}`) })
            .locator('td')
            .allTextContents(),
        ).toEqual([String(expected.current[key]), String(expected.draft[key])]),
      );
    }
    // Each application the draft decides differently links to its page.
    for (const change of expected.changed as { applicationId: string }[]) {
      await expect(page.getByRole('link', { name: change.applicationId }).getAttribute('href')).resolves.toBe(
        `#/applications/${change.applicationId}`,
      );
    }
    expect(await accessibilityViolations()).toEqual([]);
    if (process.env.CONSOLE_SCREENSHOT === '1') {
      await page.getByRole('heading', { name: 'Credit policy', level: 1 }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(ROOT, 'docs/images/console-policy.png'), fullPage: true });
    }
    // On a phone's width nothing is wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    // The chart redraws at the new width when its container has resized.
    await waitFor(() => page.evaluate(() => document.documentElement.scrollWidth <= 390), {
      what: 'the page at 390 px',
    });
    const overflowing = await page.evaluate(() =>
      [...document.querySelectorAll('body *')]
        .filter((el) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
        .filter(
          (el) =>
            ![...el.children].some(
              (child) => child.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5,
            ),
        )
        .map(
          (el) =>
            `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className ? `.${String(el.className).split(' ').join('.')}` : ''}: ${(el.textContent ?? '').slice(0, 40)}`,
        ),
    );
    expect(overflowing).toEqual([]);
    if (process.env.CONSOLE_SCREENSHOT === '1') {
      await page.screenshot({ path: path.join(ROOT, 'docs/images/console-policy-390.png'), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    // The challenger: set after a confirmation, its (empty) report shown, cleared after another.
    await page.getByRole('button', { name: 'Make version 1 the challenger', exact: true }).click();
    await page.getByRole('button', { name: 'Make version 1 the challenger now' }).click();
    await page.getByText('Version 1 is the challenger.').waitFor();
    await page.getByText(/: 0 of 0 decision\(s\) agreed\./).waitFor();
    expect((await lenderApi('GET', '/api/policies')).body.challenger.version).toBe(1);
    expect(await accessibilityViolations()).toEqual([]);
    await page.getByRole('button', { name: 'Clear the challenger', exact: true }).click();
    await page.getByRole('button', { name: 'Clear the challenger now' }).click();
    await page.getByText('The challenger was cleared.').waitFor();
    expect((await lenderApi('GET', '/api/policies')).body.challenger).toBeNull();

    // Activation asks first; cancelled, nothing changes.
    await page.getByRole('button', { name: 'Activate version 1', exact: true }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect((await lenderApi('GET', '/api/policies')).body.active.version).toBe(0);
    await page.getByRole('button', { name: 'Activate version 1', exact: true }).click();
    await page.getByText(/Every analysis asked for from now on is decided by version 1/).waitFor();
    await page.getByRole('button', { name: 'Activate version 1 now' }).click();
    await page.getByText('Version 1 is active.').waitFor();
    await page.getByRole('heading', { name: 'Active: version 1, Tight affordability', level: 2 }).waitFor();
    expect((await lenderApi('GET', '/api/policies')).body.active.version).toBe(1);
    await activeRules.getByText(/may take at most 10% of verified monthly income/).waitFor();
    await activeRules.getByText(sentence).waitFor();
    expect(await accessibilityViolations()).toEqual([]);
  });

  it('when the lender rotates the API key, then the new key is shown once, the old one gets 401 from the API and the console session goes on with the new one', async () => {
    const oldKey = stack.lender.apiKey;
    const elsewhereSignedIn = await signInOverHttp(oldKey);
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('heading', { name: 'Keys', level: 1 }).waitFor();
    expect(await accessibilityViolations()).toEqual([]);
    await page.getByRole('button', { name: 'Rotate API key' }).click();
    await page.getByRole('button', { name: 'Rotate the key now' }).click();
    const newKey = (await page.getByTestId('shown-once').textContent())!.trim();
    expect(newKey).toMatch(/^lk_/);
    expect(newKey).not.toBe(oldKey);

    await waitFor(
      async () =>
        (await call(stack.gatewayUrl, oldKey, 'GET', `/api/applications/${decided.applicationId}`)).status === 401,
      { what: 'the old key refused' },
    );
    expect((await call(stack.gatewayUrl, newKey, 'GET', `/api/applications/${decided.applicationId}`)).status).toBe(
      200,
    );
    stack.lender.apiKey = newKey;
    // Another session of the old key has ended: its sealed key no longer authenticates.
    expect(
      (
        await consoleCall('GET', `/console/api/applications/${decided.applicationId}`, {
          cookie: elsewhereSignedIn.cookie,
        })
      ).status,
    ).toBe(401);

    await page.getByRole('button', { name: 'I have stored the new key' }).click();
    await page.goto(`${stack.gatewayUrl}/console#/applications/${decided.applicationId}`);
    await page.getByRole('heading', { name: 'Decision', level: 2 }).waitFor();
    await keyIsNowhere(newKey);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the lender console' }).waitFor();
    expect((await context.cookies()).map((c) => c.name)).not.toContain('console_session');
  });

  /** Screenshots for the README (desktop) and, with CONSOLE_SCREENSHOT_DIR, at 390 px for a look on a phone's width. */
  async function shoot(name: string) {
    if (process.env.CONSOLE_SCREENSHOT === '1')
      await page.screenshot({ path: path.join(ROOT, `docs/images/${name}.png`), fullPage: true });
    const dir = process.env.CONSOLE_SCREENSHOT_DIR;
    if (dir) {
      await page.screenshot({ path: path.join(dir, `${name}-desktop.png`), fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: path.join(dir, `${name}-390.png`), fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  }

  it("when the operator invites the lender's first owner, then the owner accepts in the browser, enrols an authenticator, signs in with it and manages the staff on the Users page", async () => {
    const email = `owner.${ns.replace(/\W/g, '').slice(-8)}@lender.example`;
    const invited = await fetch(`${stack.gatewayUrl}/admin/clients/${stack.lender.clientId}/owner`, {
      method: 'POST',
      headers: { 'x-admin-token': 'local-admin-token', 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    expect(invited.status).toBe(201);
    const { invitationUrl } = (await invited.json()) as { invitationUrl: string };

    // A fresh visit, as from the link in an e-mail, with no session of this browser.
    await context.clearCookies();
    await page.goto('about:blank');
    await page.goto(invitationUrl);
    await page.getByRole('heading', { name: 'Accept your invitation' }).waitFor();
    await page.getByText(email).waitFor();
    const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
    expect(await accessibilityViolations()).toEqual([]);
    await shoot('console-invitation');
    const password = 'the owner chose this password';
    await page.getByLabel('Password (at least 12 characters)').fill(password);
    await page.getByLabel('Password again').fill(password);
    // This step's code; the sign-in gives the next step's, so it is a code not used before.
    await page.getByLabel('Code from the app').fill(totpCode(secret, 0));
    await page.getByRole('button', { name: 'Set password and finish' }).click();
    await page.getByText('Your account is ready').waitFor();

    // The API key no longer opens the console.
    expect((await signInOverHttp(stack.lender.apiKey)).status).toBe(403);

    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByLabel(/^Authenticator code/).fill(totpCode(secret, 1));
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Applications', level: 1 }).waitFor();
    await page.getByText(`${email}`).first().waitFor();

    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    await page.getByRole('rowheader', { name: email }).waitFor();
    const invitee = `viewer.${ns.replace(/\W/g, '').slice(-8)}@lender.example`;
    await page.getByLabel('E-mail address').fill(invitee);
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = (await page.getByTestId('shown-once').textContent())!.trim();
    expect(link).toMatch(/\/console#\/invitation\/[\w-]{43}$/);
    await page.getByRole('rowheader', { name: invitee }).waitFor();
    expect(await accessibilityViolations()).toEqual([]);
    await shoot('console-users');

    await page.getByLabel(`Role of ${invitee}`).selectOption('developer');
    await page.getByRole('button', { name: `Change role of ${invitee}` }).click();
    await page.getByText(`${invitee} is now Developer`).waitFor();
    const users = (await lenderApi('GET', '/api/users')).body.items as { email: string; role: string }[];
    expect(users.find((u) => u.email === invitee)?.role).toBe('developer');
    await page.getByRole('button', { name: `Remove ${invitee}` }).click();
    await page.getByRole('button', { name: 'Remove now' }).click();
    await page.getByText(`${invitee} was removed.`).waitFor();
    expect(((await lenderApi('GET', '/api/users')).body.items as { email: string }[]).map((u) => u.email)).toEqual([
      email,
    ]);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the lender console' }).waitFor();
    await shoot('console-sign-in');
  });

  it('when the pages were used, then nothing was fetched from another host and the console logged no error or CSP violation', () => {
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
  });
});

/**
 * A lender's staff from their first owner on, each in a browser of their own: the operator
 * creates the owner, who enrols an authenticator, sets the maker-checker threshold and invites a
 * credit officer, a credit manager and a viewer from the Users page; each accepts the link and
 * signs in with a password and an authenticator code. The officer reviews a referred application
 * above the threshold as themselves and cannot confirm it, the manager confirms it, and the
 * lender's receiver gets a signed application.review_completed naming the officer after the
 * decision; the viewer is offered no change and refused every one; the API key no longer opens
 * the console.
 */
describe("the lender's staff in a browser", () => {
  let staffed: Awaited<ReturnType<typeof createClient>>;
  let application: { applicationId: string; applicantId: string };
  const contexts: BrowserContext[] = [];
  const tag = ns.replace(/\W/g, '').slice(-8);
  const emailOf = (who: string) => `${who}.${tag}@staff.example`;
  const passwordOf = (who: string) => `${who} chose a long password`;
  const links = new Map<string, string>();
  const pages = new Map<string, Page>();
  const shots = process.env.CONSOLE_SCREENSHOT_DIR;
  const problems: string[] = [];

  beforeAll(async () => {
    staffed = await createClient(stack.gatewayUrl, { webhookUrl: `${stack.receiver.url}/hooks` });
    // The bureau answers 503 for this BVN: the scorecard refers the application for review.
    application = await decidedApplication(
      { firstName: 'Emeka', lastName: 'Obi', bvn: '22200000005', amount: 500_000, tenor: 12, interestRate: 5 },
      { apiKey: staffed.apiKey },
    );
    expect(
      (await call(stack.gatewayUrl, staffed.apiKey, 'GET', `/api/applications/${application.applicationId}`)).body
        .decision.decision,
    ).toBe('MANUAL_REVIEW');
  });

  afterAll(async () => {
    for (const context of contexts) await context.close();
  });

  /** A browser of one's own (cookies and all), with the console open at a link. */
  async function browse(url: string) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(String(error)));
    await page.goto(url);
    return page;
  }

  /** Accepts an invitation link: a password and an authenticator enrolled; then signs in with both. */
  async function acceptAndSignIn(who: string, link: string) {
    const page = await browse(link);
    await page.getByRole('heading', { name: 'Accept your invitation' }).waitFor();
    await page.getByText(emailOf(who)).first().waitFor();
    const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
    await page.getByLabel('Password (at least 12 characters)').fill(passwordOf(who));
    await page.getByLabel('Password again').fill(passwordOf(who));
    // This step's code; the sign-in gives the next step's, so it is a code not used before.
    await page.getByLabel('Code from the app').fill(totpCode(secret, 0));
    await page.getByRole('button', { name: 'Set password and finish' }).click();
    await page.getByText('Your account is ready').waitFor();
    await page.getByLabel('E-mail address').fill(emailOf(who));
    await page.getByLabel('Password', { exact: true }).fill(passwordOf(who));
    await page.getByLabel(/^Authenticator code/).fill(totpCode(secret, 1));
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Applications', level: 1 }).waitFor();
    await page.locator('.who').getByText(emailOf(who)).waitFor();
    pages.set(who, page);
    return page;
  }

  /** A change over the console's API from a signed-in page's browser: its cookie, its CSRF token and its origin. */
  async function changeFrom(page: Page, method: string, pathname: string, body: unknown = {}) {
    const request = page.context().request;
    const session = (await (await request.get(`${stack.gatewayUrl}/console/session`)).json()) as { csrfToken: string };
    const res = await request.fetch(`${stack.gatewayUrl}${pathname}`, {
      method,
      headers: { origin: stack.gatewayUrl, 'x-csrf-token': session.csrfToken, 'content-type': 'application/json' },
      data: JSON.stringify(body),
    });
    return { status: res.status(), body: (await res.json().catch(() => null)) as { message?: string } | null };
  }

  it("when the operator creates the lender's owner, then the owner accepts in the browser, enrols an authenticator, signs in with it, sets the threshold below the referred terms and invites a credit officer, a credit manager and a viewer from the Users page; the API key no longer opens the console", async () => {
    const created = await fetch(`${stack.gatewayUrl}/admin/clients/${staffed.clientId}/owner`, {
      method: 'POST',
      headers: { 'x-admin-token': 'local-admin-token', 'content-type': 'application/json' },
      body: JSON.stringify({ email: emailOf('owner') }),
    });
    expect(created.status).toBe(201);
    const owner = await acceptAndSignIn('owner', ((await created.json()) as { invitationUrl: string }).invitationUrl);
    // The API key no longer opens the console, now that the lender has an owner.
    expect((await signInOverHttp(staffed.apiKey)).status).toBe(403);

    await owner.getByRole('link', { name: 'Reviews' }).click();
    await owner.getByRole('heading', { name: 'Reviews', level: 1 }).waitFor();
    await owner.getByLabel(/^Second reviewer above/).fill('250000');
    await owner.getByRole('button', { name: 'Save threshold' }).click();
    await owner.getByText('Reviews granting more than ₦250,000 now wait for a second reviewer.').waitFor();
    expect((await call(stack.gatewayUrl, staffed.apiKey, 'GET', '/api/client')).body.reviewConfirmationAbove).toBe(
      250_000,
    );

    await owner.getByRole('link', { name: 'Users' }).click();
    await owner.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    for (const [who, role] of [
      ['officer', 'credit_officer'],
      ['manager', 'credit_manager'],
      ['viewer', 'viewer'],
    ] as const) {
      await owner.getByLabel('E-mail address').fill(emailOf(who));
      await owner.getByLabel('Role', { exact: true }).selectOption(role);
      await owner.getByRole('button', { name: 'Invite' }).click();
      const shown = owner.locator('.shown-once').filter({ hasText: `Invitation link for ${emailOf(who)}` });
      await shown.waitFor();
      links.set(who, (await shown.getByTestId('shown-once').textContent())!.trim());
      await owner.getByRole('rowheader', { name: emailOf(who) }).waitFor();
    }
    const users = (await call(stack.gatewayUrl, staffed.apiKey, 'GET', '/api/users')).body.items as {
      email: string;
      role: string;
    }[];
    expect(users.map((u) => [u.email, u.role]).sort()).toEqual(
      [
        [emailOf('owner'), 'owner'],
        [emailOf('officer'), 'credit_officer'],
        [emailOf('manager'), 'credit_manager'],
        [emailOf('viewer'), 'viewer'],
      ].sort(),
    );
  });

  it('when the viewer accepts the invitation and signs in, then no page offers a change and every change over the console’s API answers 403 naming the role', async () => {
    const viewer = await acceptAndSignIn('viewer', links.get('viewer')!);
    // Only the pages a viewer may read: no Keys, no Users.
    await eventually(async () =>
      expect(await viewer.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents()).toEqual([
        'Portfolio',
        'Performance',
        'Applications',
        'Reviews',
        'Webhooks',
        'Policy',
      ]),
    );
    // Every page as the viewer sees it: the buttons left are those that only read (search, filter, page).
    const reading = new Set([
      'Search',
      'Filter',
      'Show',
      'Previous page',
      'Next page',
      'Clear',
      'Copy',
      'Print decision summary',
    ]);
    for (const [hash, heading, note] of [
      [
        `#/applications/${application.applicationId}`,
        /^Review/,
        'Your role (viewer) does not allow you to review applications',
      ],
      ['#/reviews', 'Reviews', 'Your role (viewer) does not allow you to change the threshold'],
      ['#/webhooks', 'Webhooks', 'Your role (viewer) does not allow you to change the webhook endpoint'],
      [
        '#/policy',
        'Credit policy',
        'Your role (viewer) does not allow you to draft, simulate or activate a credit policy',
      ],
      ['#/keys', 'Keys', 'Your role (viewer) does not allow you to rotate the API key'],
      ['#/users', 'Users', "Your role (viewer) does not allow you to see or manage the lender's users"],
    ] as const) {
      await viewer.goto(`${stack.gatewayUrl}/console${hash}`);
      await viewer.getByRole('heading', { name: heading }).first().waitFor();
      await viewer.getByText(note).waitFor();
      await eventually(async () => {
        const offered = await viewer.locator('main button:not([disabled])').allTextContents();
        expect([hash, offered.map((t) => t.trim()).filter((t) => !reading.has(t))]).toEqual([hash, []]);
      });
      await eventually(async () =>
        expect(
          await viewer.locator('main textarea, main input[type="radio"], main input[type="checkbox"]').count(),
        ).toBe(hash === '#/reviews' ? 2 : 0),
      );
      expect([hash, await violationsOf(viewer)]).toEqual([hash, []]);
    }
    // Every change the console's API serves, read from the gateway's own routers: 403 for each.
    const gateway = stack.services.find((s) => s.name === 'gateway') as unknown as {
      app: { router: { stack: unknown[] } };
    };
    const changes = servedRoutes(gateway.app.router.stack).filter(
      (r) => r.path.startsWith('/console/api/') && !['get', 'head'].includes(r.method),
    );
    expect(changes.length).toBeGreaterThan(10);
    const answers: string[] = [];
    for (const r of changes) {
      const res = await changeFrom(
        viewer,
        r.method.toUpperCase(),
        r.path.replace(/\{\w+\}/g, application.applicationId),
      );
      answers.push(`${r.method} ${r.path} ${res.status} ${res.body?.message}`);
    }
    expect(answers).toEqual(changes.map((r) => `${r.method} ${r.path} 403 Your role (viewer) does not allow this`));
    expect(
      (await call(stack.gatewayUrl, staffed.apiKey, 'GET', `/api/applications/${application.applicationId}`)).body
        .review,
    ).toBeNull();
  });

  it('when the credit officer accepts the invitation and signs in with a password and a code, then the officer reviews the referred application above the threshold as themselves, it awaits confirmation, and the officer cannot confirm it', async () => {
    const officer = await acceptAndSignIn('officer', links.get('officer')!);
    await officer.goto(`${stack.gatewayUrl}/console#/applications/${application.applicationId}`);
    await officer.getByRole('heading', { name: /^Review/, level: 2 }).waitFor();
    await officer.getByText(`Reviewing as ${emailOf('officer')}`).waitFor();
    await eventually(async () => expect(await officer.getByLabel('Your staff id').count()).toBe(0));
    await officer.getByRole('radio', { name: 'Approve' }).check();
    await officer.getByLabel('Amount (Naira)').fill('500000');
    await officer.getByLabel('Tenor (months)').fill('12');
    await officer.getByLabel('Interest (% a month)').fill('5');
    await officer.getByLabel('Reason code').fill('INCOME_VERIFIED');
    await officer.getByLabel(/^Note/).fill('Salary confirmed with the employer; the bureau was down');
    expect(await violationsOf(officer)).toEqual([]);
    if (shots) {
      await officer.screenshot({ path: path.join(shots, 'console-staff-review-form-desktop.png'), fullPage: true });
      await officer.setViewportSize({ width: 390, height: 844 });
      await officer.screenshot({ path: path.join(shots, 'console-staff-review-form-390.png'), fullPage: true });
      await officer.setViewportSize({ width: 1280, height: 900 });
    }
    await officer.getByRole('button', { name: 'Submit review' }).click();
    const confirmation = officer.getByRole('region', { name: 'Awaiting a second reviewer' });
    await confirmation.waitFor();
    await expect(confirmation.textContent()).resolves.toContain(emailOf('officer'));
    await expect(confirmation.getByRole('button', { name: 'Confirm review' }).isDisabled()).resolves.toBe(true);
    await confirmation.getByText('Your role (credit officer) does not allow you to confirm a review').waitFor();
    if (shots)
      await officer.screenshot({ path: path.join(shots, 'console-staff-review-pending-desktop.png'), fullPage: true });
    // Nor over the API: confirming is a credit manager's.
    const refused = await changeFrom(
      officer,
      'POST',
      `/console/api/applications/${application.applicationId}/review/confirm`,
    );
    expect(refused).toEqual({
      status: 403,
      body: { statusCode: 403, message: 'Your role (credit_officer) does not allow this', error: 'Forbidden' },
    });
    expect(
      (await call(stack.gatewayUrl, staffed.apiKey, 'GET', `/api/applications/${application.applicationId}`)).body
        .review,
    ).toMatchObject({
      status: 'PENDING_CONFIRMATION',
      reviewer: emailOf('officer'),
      approval_details: { approved_amount: 500_000, approved_tenor: 12, approved_interest: 5 },
    });
    expect(eventsOf(application.applicationId, 'application.review_completed')).toEqual([]);
  });

  it('when the credit manager accepts the invitation, signs in and confirms the review, then it is final naming both, and the receiver gets a signed application.review_completed naming the officer, after the application.decision', async () => {
    const manager = await acceptAndSignIn('manager', links.get('manager')!);
    await manager.goto(`${stack.gatewayUrl}/console#/applications/${application.applicationId}`);
    const confirmation = manager.getByRole('region', { name: 'Awaiting a second reviewer' });
    await confirmation.waitFor();
    await manager.getByText(`Reviewing as ${emailOf('manager')}`).waitFor();
    await confirmation.getByRole('button', { name: 'Confirm review' }).click();
    const final = manager.getByRole('region', { name: 'Final review' });
    await final.waitFor();
    const text = (await final.textContent())!;
    for (const shown of [emailOf('officer'), emailOf('manager'), 'INCOME_VERIFIED']) expect(text).toContain(shown);
    expect(await violationsOf(manager)).toEqual([]);

    const delivered = await waitFor(
      () =>
        stack.receiver.received.find(
          (r) =>
            r.body?.event === 'application.review_completed' &&
            r.body?.data?.applicationId === application.applicationId,
        ),
      { timeoutMs: 30_000, what: 'application.review_completed' },
    );
    const event = verifyWebhook(delivered.raw, delivered.headers['x-signature'] as string, staffed.webhookSecret);
    expect(event.event).toBe('application.review_completed');
    expect(event.data).toMatchObject({
      applicationId: application.applicationId,
      applicantId: application.applicantId,
      outcome: 'APPROVED',
      reviewer: emailOf('officer'),
      reasonCode: 'INCOME_VERIFIED',
      approval_details: { approved_amount: 500_000, approved_tenor: 12 },
    });
    // After the application's decision, in the order the receiver got them.
    const order = stack.receiver.received
      .filter((r) => r.body?.data?.applicationId === application.applicationId)
      .map((r) => r.body.event as string);
    expect(order.indexOf('application.decision')).toBeGreaterThanOrEqual(0);
    expect(order.indexOf('application.decision')).toBeLessThan(order.indexOf('application.review_completed'));
  });

  it('when the viewer changes the password and sets up a new authenticator on the Account page, then only the new password and the new codes sign in', async () => {
    const viewer = pages.get('viewer')!;
    await viewer.getByRole('link', { name: 'Your account' }).click();
    await viewer.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
    const password = viewer.getByRole('region', { name: 'Password' });
    await password.getByLabel('Current password').fill(passwordOf('viewer'));
    await password.getByLabel('New password (at least 12 characters)').fill('the viewer has a new password');
    await password.getByLabel('New password again').fill('the viewer has a new password');
    await password.getByRole('button', { name: 'Change password' }).click();
    await viewer.getByText('Your password is changed').waitFor();

    const authenticator = viewer.getByRole('region', { name: 'Authenticator app' });
    await authenticator.getByLabel('Current password').fill('the viewer has a new password');
    await authenticator.getByRole('button', { name: 'Set up a new authenticator' }).click();
    const secret = (await authenticator.getByTestId('new-totp-secret').textContent())!.trim();
    // The code field starts empty: nothing typed in the step before (the password) is carried into it.
    await expect(authenticator.getByLabel('Code from the new app').inputValue()).resolves.toBe('');
    expect(await violationsOf(viewer)).toEqual([]);
    if (shots) {
      await viewer.screenshot({ path: path.join(shots, 'console-account-desktop.png'), fullPage: true });
      await viewer.setViewportSize({ width: 390, height: 844 });
      await viewer.screenshot({ path: path.join(shots, 'console-account-390.png'), fullPage: true });
      await viewer.setViewportSize({ width: 1280, height: 900 });
    }
    // This step's code; the sign-in gives the next step's, so it is a code not used before.
    await authenticator.getByLabel('Code from the new app').fill(totpCode(secret, 0));
    await authenticator.getByRole('button', { name: 'Confirm the new authenticator' }).click();
    await viewer.getByText('The new authenticator is set up').waitFor();

    await viewer.getByRole('button', { name: 'Sign out' }).click();
    await viewer.getByRole('heading', { name: 'Sign in to the lender console' }).waitFor();
    await viewer.getByLabel('E-mail address').fill(emailOf('viewer'));
    await viewer.getByLabel('Password', { exact: true }).fill('the viewer has a new password');
    await viewer.getByLabel(/^Authenticator code/).fill(totpCode(secret, 1));
    await viewer.getByRole('button', { name: 'Sign in', exact: true }).click();
    // Signed in again, on the page it was on.
    await viewer.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
    await viewer.locator('.who').getByText(emailOf('viewer')).waitFor();
    expect(problems).toEqual([]);
  });
});

describe("a lender's loan performance in a browser", () => {
  let lender: Awaited<ReturnType<typeof createClient>>;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  /** Two loans of the lender's own, granted and accepted: one that will run 45 days late, one repaid. */
  let late: { applicationId: string; granted: number };
  let repaid: { applicationId: string; granted: number };
  /** The lender's day (Lagos): an outcome dated after it is refused. */
  const today = () => new Date(Date.now() + 3_600_000).toISOString().slice(0, 10);
  const lenderCall = (method: string, pathname: string, body?: unknown) =>
    call(stack.gatewayUrl, lender.apiKey, method, pathname, body);

  /** A decided application of the lender's, approved by a review if the scorecard referred it, its offer accepted. */
  async function acceptedLoan(who: Record<string, unknown>) {
    const { applicationId } = await decidedApplication(who, { apiKey: lender.apiKey });
    const decision = (await lenderCall('GET', `/api/applications/${applicationId}`)).body.decision;
    let granted: number = decision.approval_details.approved_amount;
    if (decision.decision === 'MANUAL_REVIEW') {
      const reviewed = await lenderCall('POST', `/api/applications/${applicationId}/review`, {
        outcome: 'APPROVED',
        reasonCode: 'INCOME_VERIFIED',
        reviewer: 'officer-1',
        override: true,
        note: 'Salary confirmed by payslip',
      });
      expect(reviewed.status).toBe(200);
      granted = reviewed.body.review.approval_details.approved_amount;
    } else expect(['APPROVED', 'COUNTER_OFFER']).toContain(decision.decision);
    const accepted = await lenderCall('POST', `/api/applications/${applicationId}/offer`, { response: 'ACCEPTED' });
    expect(accepted.status).toBe(200);
    // Scoring learns of the acceptance from applications, later: until it has, a disbursement is
    // refused for the offer; after, one above the approved amount is refused for its amount (and
    // nothing is taken), which says it knows.
    let probe = 0;
    await waitFor(
      async () => {
        const answer = await fetch(`${stack.gatewayUrl}/api/applications/${applicationId}/outcomes`, {
          method: 'POST',
          headers: {
            'x-api-key': lender.apiKey,
            'content-type': 'application/json',
            'idempotency-key': `probe-${++probe}`,
          },
          body: JSON.stringify({ type: 'DISBURSED', amount: granted + 1, date: today(), tenor: 6 }),
        });
        const body = (await answer.json()) as { message?: string };
        return /above the approved/.test(body.message ?? '');
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'scoring to learn that the offer was accepted' },
    );
    return { applicationId, granted };
  }

  /** The headline figure named `term`. */
  const headline = (term: string) =>
    page.locator('.performance-headline > div').filter({ hasText: term }).locator('dd');

  /** No sideways scroll and nothing for axe at a phone's width and on a desktop. */
  async function readableOnPhoneAndDesktop(name: string) {
    for (const viewport of [
      { width: 390, height: 844 },
      { width: 1280, height: 900 },
    ]) {
      await page.setViewportSize(viewport);
      await eventually(async () =>
        expect({ [`${name} at ${viewport.width}`]: await sidewaysOverflowOf(page) }).toEqual({
          [`${name} at ${viewport.width}`]: [],
        }),
      );
      expect({ [`${name} at ${viewport.width}`]: await violationsOf(page) }).toEqual({
        [`${name} at ${viewport.width}`]: [],
      });
      expect({ [`${name} at ${viewport.width}`]: await crampedLabelsOf(page) }).toEqual({
        [`${name} at ${viewport.width}`]: [],
      });
      const dir = process.env.CONSOLE_SCREENSHOT_DIR;
      if (dir) {
        mkdirSync(dir, { recursive: true });
        await page.screenshot({ path: path.join(dir, `${name}-${viewport.width}.png`), fullPage: true });
      }
    }
  }

  beforeAll(async () => {
    lender = await createClient(stack.gatewayUrl, { webhookUrl: `${stack.receiver.url}/hooks` });
    late = await acceptedLoan({
      firstName: 'Adaeze',
      lastName: 'Nwosu',
      bvn: '22200000001',
      amount: 450_000,
      tenor: 6,
    });
    repaid = await acceptedLoan({
      firstName: 'Bola',
      lastName: 'Adeyemi',
      bvn: '22200000001',
      amount: 300_000,
      tenor: 6,
    });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    await page.goto(`${stack.gatewayUrl}/console`);
    await page.getByText('Sign in with the API key').click();
    await page.getByLabel('API key').fill(lender.apiKey);
    await page.getByRole('button', { name: 'Sign in with the key' }).click();
    await page.getByRole('heading', { name: 'Portfolio', level: 1 }).waitFor();
  });

  afterAll(async () => {
    await context?.close();
  });

  it('when no loan has an outcome yet, then the Performance page says so, and where too few loans would make a figure meaningless it says why instead of a number', async () => {
    await page.getByRole('link', { name: 'Performance', exact: true }).click();
    await page.getByRole('heading', { name: 'Performance', level: 1 }).waitFor();
    await eventually(async () => expect(await headline('Loans with outcomes').textContent()).toBe('0'));
    await eventually(async () => expect(await headline('Bad rate').textContent()).toMatch(/^None yet/));
    await page.getByText('No loan outcomes have been reported yet').waitFor();
    await eventually(async () =>
      expect(await headline('Bad means').textContent()).toBe(
        '90 or more days past due at any time, written off or declared defaulted',
      ),
    );
    const discrimination = page.getByRole('region', { name: 'How well the score tells bad loans from good' });
    await eventually(async () =>
      expect(await discrimination.textContent()).toContain('Gini, AUC and KS need at least 200 loans'),
    );
    // Its two decisions are counted for the drift, far too few for a PSI.
    const drift = page.getByRole('region', { name: 'Drift of the score' });
    await eventually(async () => expect(await drift.textContent()).toContain('the PSI needs at least 100 in each'));
    await eventually(async () => expect(await drift.getByRole('table').count()).toBe(0));
    expect(await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href')).toBe(
      '/console/api/performance?format=csv',
    );
    await eventually(async () => expect(await page.locator('body').textContent()).not.toMatch(/NaN/));
    await readableOnPhoneAndDesktop('performance-none');
  });

  it("when the officer uploads outcomes with the page's CSV form, then it says how many rows were taken and refused, names the refused row by its line and reason, and the figures count the loans uploaded", async () => {
    const csv = [
      'applicationId,idempotencyKey,type,date,amount,tenor,number,daysPastDue,outstanding,early',
      `${late.applicationId},late-1,DISBURSED,${today()},${late.granted},6,,,,`,
      `${late.applicationId},late-2,INSTALMENT_MISSED,${today()},,,1,45,,`,
      `${repaid.applicationId},repaid-1,DISBURSED,${today()},${repaid.granted},6,,,,`,
      `${repaid.applicationId},repaid-2,REPAID,${today()},,,,,,true`,
      `${late.applicationId},late-3,INSTALMENT_PAID,2099-01-01,1000,,2,,,`,
    ].join('\r\n');
    await page
      .getByLabel('CSV file of outcomes')
      .setInputFiles({ name: 'outcomes.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Upload outcomes' }).click();
    await page.getByText('5 rows: 4 taken, 0 taken before, 1 refused.').waitFor();
    const refused = page.getByRole('table', { name: /Rows refused/ });
    await eventually(async () => expect(await refused.getByRole('row').count()).toBe(2));
    const row = refused.getByRole('row', { name: /Line 6/ });
    await eventually(async () => expect(await row.textContent()).toMatch(/date 2099-01-01 is after today/));

    // The figures follow the upload: two loans, none bad by 90+ days (the late one is 45 days late).
    await eventually(async () => expect(await headline('Loans with outcomes').textContent()).toBe('2'));
    await eventually(async () => expect(await headline('Bad loans').textContent()).toBe('0'));
    await eventually(async () => expect(await headline('Bad rate').textContent()).toBe('0% of 2 loans'));
    const byBand = page.getByRole('table', { name: /by the score band of their decision/ });
    await eventually(async () =>
      expect(await byBand.locator('td.figure-note').first().textContent()).toBe(
        '2 loans with outcomes: at least 30 are needed before a bad rate means anything',
      ),
    );
    // One vintage, this month's, of both loans, at its first month on book.
    const vintages = page.getByRole('table', { name: /ever 30\+ and ever 90\+ days past due/ });
    await eventually(async () => expect(await vintages.locator('tbody tr').count()).toBe(1));
    await eventually(async () =>
      expect(await vintages.locator('tbody td').allTextContents()).toEqual(['0', '2', expect.any(String), '0%']),
    );
    await eventually(async () => expect(await page.locator('body').textContent()).not.toMatch(/NaN/));

    // The same file again is taken once: every row answers as the first time.
    await page.getByRole('button', { name: 'Upload outcomes' }).click();
    await page.getByText('5 rows: 0 taken, 4 taken before, 1 refused.').waitFor();
    await eventually(async () => expect(await headline('Loans with outcomes').textContent()).toBe('2'));
  });

  it('when the bad definition is changed to 30 days past due, then the loan 45 days late counts bad on the page and in its CSV download, and its own page says so with its outcomes in order', async () => {
    const days = page.getByLabel('Days past due, at any time');
    await eventually(async () => expect(await days.inputValue()).toBe('90'));
    await days.selectOption('30');
    await page.getByRole('button', { name: 'Save the definition' }).click();
    await page.getByText('Saved: a loan is now bad when 30 or more days past due at any time').waitFor();
    // The form shows the definition saved, as the figures count by it.
    await eventually(async () => expect(await days.inputValue()).toBe('30'));
    await eventually(async () => expect(await page.getByLabel('or written off').isChecked()).toBe(true));
    await eventually(async () => expect(await headline('Bad loans').textContent()).toBe('1'));
    await eventually(async () => expect(await headline('Bad rate').textContent()).toBe('50% of 2 loans'));
    await eventually(async () =>
      expect(await headline('Bad means').textContent()).toBe(
        '30 or more days past due at any time, written off or declared defaulted',
      ),
    );
    // The download is the same figures as a CSV, by the same definition.
    const href = (await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href'))!;
    const download = await page.context().request.get(`${stack.gatewayUrl}${href}`);
    expect(download.headers()['content-type']).toMatch(/^text\/csv/);
    expect((await download.text()).split('\r\n')).toContain('overall,all,bad_rate,0.5,2,');
    await readableOnPhoneAndDesktop('performance-outcomes');
    if (process.env.CONSOLE_SCREENSHOT === '1') {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.screenshot({ path: path.join(ROOT, 'docs/images/console-performance.png'), fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await eventually(async () => expect(await sidewaysOverflowOf(page)).toEqual([]));
      await page.screenshot({ path: path.join(ROOT, 'docs/images/console-performance-phone.png'), fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });
    }

    await page.goto(`${stack.gatewayUrl}/console#/applications/${late.applicationId}`);
    await page.getByRole('heading', { name: /Adaeze Nwosu/, level: 1 }).waitFor();
    const outcomes = page.getByRole('region', { name: 'Loan outcomes' });
    await eventually(async () =>
      expect(await outcomes.locator('dd').allTextContents()).toEqual([
        'Open',
        expect.stringMatching(new RegExp(`^₦[\\d,]+ on ${today()}, 6 months$`)),
        '45 now, 45 at most',
        'Bad',
      ]),
    );
    await eventually(async () =>
      expect(await outcomes.getByRole('listitem').allTextContents()).toEqual([
        expect.stringMatching(/Disbursed ₦[\d,]+ over 6 months$/),
        expect.stringMatching(/Instalment 1 missed, 45 days past due$/),
      ]),
    );
    await readableOnPhoneAndDesktop('application-outcomes');
    // The repaid loan is not bad by either definition.
    await page.goto(`${stack.gatewayUrl}/console#/applications/${repaid.applicationId}`);
    await page.getByRole('heading', { name: /Bola Adeyemi/, level: 1 }).waitFor();
    await eventually(async () =>
      expect(await page.getByRole('region', { name: 'Loan outcomes' }).locator('dd').allTextContents()).toEqual([
        'Repaid',
        expect.any(String),
        '0 now, 0 at most',
        'Not bad',
      ]),
    );
  });

  it('when the performance pages were used, then the console logged no error', () => {
    expect(problems).toEqual([]);
  });
});
