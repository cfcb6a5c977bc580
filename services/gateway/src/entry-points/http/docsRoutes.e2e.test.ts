import path from 'node:path';
import type { Browser } from 'playwright-core';
import { call, startGateway, suiteNamespace, type Running } from '@testing/stack';
import { eventually } from '@testing/helpers';
import { launchBrowser } from '@testing/browser';

/**
 * The reference page as a lender's engineer opens it: a real browser on /api/docs of a running
 * gateway. Every operation of the document is on the page, the guides are beside them, nothing
 * is fetched from another host and the page's Content-Security-Policy refuses nothing it needs.
 *
 * `DOCS_SCREENSHOT=1` also writes docs/images/api-reference.png, the picture in README.md.
 */
const ROOT = path.resolve(__dirname, '../../../../..');
const ns = suiteNamespace();
let gateway: Running;
let browser: Browser;

beforeAll(async () => {
  gateway = await startGateway(ns);
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
});

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

it('when a lender opens /api/docs, then every operation and guide is rendered from this gateway alone, within its CSP', async () => {
  const document = (await call(gateway.url, null, 'GET', '/api/openapi.json')).body as {
    paths: Record<string, Record<string, { summary: string }>>;
    webhooks: Record<string, object>;
  };
  const operations = Object.entries(document.paths).flatMap(([p, item]) =>
    Object.entries(item).map(([method, op]) => ({ method, path: p, summary: op.summary })),
  );
  expect(operations.length).toBeGreaterThan(0);

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const elsewhere: string[] = [];
  const requested: string[] = [];
  // Every request the page makes passes here: one for another host is recorded and refused.
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    requested.push(url.href);
    if (url.protocol === 'data:' || LOOPBACK.has(url.hostname)) return route.continue();
    elsewhere.push(url.href);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));

  const response = await page.goto(`${gateway.url}/api/docs`);
  expect(response?.status()).toBe(200);
  expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
  await page.locator('.opblock').first().waitFor();

  await eventually(async () =>
    expect(await page.locator('.opblock').count()).toBeGreaterThanOrEqual(operations.length),
  );
  for (const op of operations) {
    const block = page.locator(`.opblock-${op.method}:has(.opblock-summary-path[data-path="${op.path}"])`);
    await eventually(async () => expect(await block.first().isVisible()).toBe(true));
    await expect(block.first().locator('.opblock-summary-method').textContent()).resolves.toBe(op.method.toUpperCase());
    await expect(block.first().locator('.opblock-summary-description').textContent()).resolves.toBe(op.summary);
  }
  // The events the lender receives, each with its body (the document's `webhooks`).
  for (const event of Object.keys(document.webhooks)) {
    await page
      .locator('.opblock-post .opblock-summary-path', { hasText: new RegExp(`^${event.replace('.', '\\.')}$`) })
      .first()
      .waitFor();
  }
  for (const guide of [
    'Quick start (sandbox)',
    'Verifying webhook signatures',
    'Sandbox personas and test BVNs',
    'Errors and retries',
    'Rate limits',
    'Events',
    'Your applications and your account',
  ]) {
    await eventually(async () =>
      expect(await page.getByRole('heading', { name: guide, exact: true }).first().isVisible()).toBe(true),
    );
  }
  for (const language of ['Node', 'Python', 'PHP', 'Java']) {
    await page
      .locator('.info strong', { hasText: new RegExp(`^${language}$`) })
      .first()
      .waitFor();
  }

  expect(requested.some((url) => url.endsWith('/api/openapi.json'))).toBe(true);
  expect(elsewhere).toEqual([]);
  expect(problems).toEqual([]);

  if (process.env.DOCS_SCREENSHOT === '1') {
    // The operations, where a reader lands after the guides.
    await page
      .locator('.opblock-tag-section')
      .first()
      .evaluate((el) => el.scrollIntoView());
    await page.screenshot({ path: path.join(ROOT, 'docs/images/api-reference.png') });
  }
  await context.close();
});
