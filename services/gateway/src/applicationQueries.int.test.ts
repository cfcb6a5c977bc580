import { randomUUID } from 'node:crypto';
import { Decision, Topics, type DecisionOutcome, type EnrichmentResult, type MonthSummary } from '@loan/contracts';
import { waitFor } from '@testing/helpers';
import {
  accountEnriched,
  applicant,
  call,
  createClient,
  decidedApplication,
  linkedApplication,
  startApplications,
  startGateway,
  startSandbox,
  suiteNamespace,
  testBus,
  type Running,
} from '@testing/stack';
import { Examples } from './entry-points/http/openapi/examples';

/**
 * What a lender reads of its applications over real HTTP: the list (`GET /api/applications`)
 * and the monthly flows of `GET /api/applications/:id`. The gateway asks the applications
 * service by command, against the real broker, registry and database.
 */
const ns = suiteNamespace();
let gateway: Running;
let applications: Running;
let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let lender: Awaited<ReturnType<typeof createClient>>;
let other: Awaited<ReturnType<typeof createClient>>;
const bus = testBus(ns, 'list-test');

beforeAll(async () => {
  gateway = await startGateway(ns, {
    RATE_LIMIT_INITIATE: '1000',
    RATE_LIMIT_GLOBAL: '1000',
    RATE_LIMIT_ANALYZE: '1000',
  });
  sandbox = await startSandbox(`${gateway.url}/provider/webhooks/mono`);
  applications = await startApplications(ns, { PROVIDER_BASE_URL: sandbox.url });
  await bus.connect();
  lender = await createClient(gateway.url);
  other = await createClient(gateway.url);
});

afterAll(async () => {
  await bus.disconnect();
  for (const s of [applications, gateway]) await s?.stop();
  await sandbox?.stop();
});

interface Summary {
  applicationId: string;
  applicantId: string;
  status: string;
  createdAt: string;
}

const list = (query = '', key: string | null = lender.apiKey) =>
  call(gateway.url, key, 'GET', `/api/applications${query}`);

async function initiate(key = lender.apiKey, overrides: Record<string, unknown> = {}) {
  const res = await call(gateway.url, key, 'POST', '/api/applications/initiate', applicant(overrides));
  expect(res.status).toBe(201);
  return res.body as { applicationId: string; applicantId: string; widgetUrl: string };
}

const linked = () => linkedApplication(gateway.url, lender);

/** A linked application taken to COMPLETED with the example decision, its outcome set to `outcome`. */
const scoredApplication = (outcome: DecisionOutcome = 'APPROVED') =>
  decidedApplication({ gatewayUrl: gateway.url, bus, applications }, lender, (applicantId) => ({
    decision: Decision.parse({ ...Examples.decision, decision: outcome, applicant_id: applicantId }),
  }));

/** Every page from the first, `limit` at a time; `between` runs after each page. */
async function everyPage(query: string, between: () => Promise<unknown> = async () => undefined) {
  const seen: Summary[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await list(`?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status).toBe(200);
    seen.push(...(res.body.items as Summary[]));
    cursor = res.body.nextCursor;
    pages++;
    await between();
  } while (cursor);
  return { seen, pages };
}

const newestFirst = (a: Summary, b: Summary) =>
  b.createdAt.localeCompare(a.createdAt) || b.applicationId.localeCompare(a.applicationId);

describe('GET /api/applications', () => {
  it('when a lender pages through its applications while new ones are opened, then every one appears once, newest first, and none of another lender', async () => {
    await initiate(other.apiKey);
    const before = new Set<string>();
    for (let i = 0; i < 7; i++) before.add((await initiate()).applicationId);
    const { seen, pages } = await everyPage('limit=3', () => initiate());
    const ids = seen.map((s) => s.applicationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...seen].sort(newestFirst)).toEqual(seen);
    // Opened before the first page: each on one page. Opened during the walk: on none (they are newer).
    expect(ids.filter((id) => before.has(id))).toHaveLength(7);
    expect(pages).toBeGreaterThanOrEqual(3);
    const all = await everyPage('limit=100');
    expect(all.seen.map((s) => s.applicationId)).toEqual(expect.arrayContaining(ids));
    expect(all.seen).toHaveLength(ids.length + pages);
    // Every page counts the whole list, not what is left of it.
    const first = await list('?limit=3');
    expect({ total: first.body.total, totalCapped: first.body.totalCapped }).toEqual({
      total: all.seen.length,
      totalCapped: false,
    });
    const second = await list(`?limit=3&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body.total).toBe(all.seen.length);
    expect((await list('?limit=1&status=COMPLETED,FAILED')).body.total).toBe(
      all.seen.filter((s) => s.status === 'COMPLETED' || s.status === 'FAILED').length,
    );
    const others = await list('?limit=100', other.apiKey);
    expect(others.body.items.map((s: Summary) => s.applicationId).filter((id: string) => ids.includes(id))).toEqual([]);
  });

  it('when an application is listed, then its row shows the applicant, the loan, the accounts and, once scored, the score and decision', async () => {
    const app = await scoredApplication();
    const row = (await list(`?q=${app.applicationId}`)).body.items[0];
    expect(row).toEqual({
      applicationId: app.applicationId,
      applicantId: app.applicantId,
      status: 'COMPLETED',
      applicantName: 'Chinedu Okonkwo',
      amount: 300_000,
      tenor: 6,
      accountCount: 1,
      score: Examples.decision.score,
      decision: Examples.decision.decision,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const fresh = await initiate();
    const pending = (await list(`?q=${fresh.applicationId}`)).body.items[0];
    expect(pending).toMatchObject({ status: 'PENDING_LINKING', accountCount: 0, score: null, decision: null });
  });

  it('when a decision filter or a day range in Lagos is given, then only applications decided that way, or created on those days, are listed, with the other filters', async () => {
    const approved = await scoredApplication('APPROVED');
    const declined = await scoredApplication('DECLINED');
    const pending = await initiate();
    const ids = async (query: string) => (await everyPage(`limit=100&${query}`)).seen.map((s) => s.applicationId);
    const mine = [approved.applicationId, declined.applicationId, pending.applicationId];
    const onlyMine = (found: string[]) => found.filter((id) => mine.includes(id));
    expect(onlyMine(await ids('decision=DECLINED'))).toEqual([declined.applicationId]);
    expect(onlyMine(await ids('decision=DECLINED,APPROVED'))).toEqual([declined.applicationId, approved.applicationId]);
    expect(onlyMine(await ids('decision=APPROVED&decision=DECLINED&status=PENDING_LINKING'))).toEqual([]);
    // The Lagos days they were created on (WAT is UTC+1 all year; a run may cross midnight).
    const createdAt = async (id: string) => Date.parse((await list(`?q=${id}`)).body.items[0].createdAt as string);
    const lagosDay = (ms: number, offsetDays = 0) =>
      new Date(ms + 3_600_000 + offsetDays * 86_400_000).toISOString().slice(0, 10);
    const first = await createdAt(approved.applicationId);
    const last = await createdAt(pending.applicationId);
    expect(onlyMine(await ids(`from=${lagosDay(first)}&to=${lagosDay(last)}`))).toEqual([
      pending.applicationId,
      declined.applicationId,
      approved.applicationId,
    ]);
    expect(onlyMine(await ids(`to=${lagosDay(first, -1)}`))).toEqual([]);
    expect(onlyMine(await ids(`from=${lagosDay(last, 1)}`))).toEqual([]);
    expect(onlyMine(await ids(`from=${lagosDay(first)}&decision=APPROVED`))).toEqual([approved.applicationId]);
    // The CSV export takes the same filter.
    const csv = await fetch(`${gateway.url}/api/applications/export.csv?decision=DECLINED&from=${lagosDay(first)}`, {
      headers: { 'x-api-key': lender.apiKey },
    });
    expect(csv.status).toBe(200);
    const rows = (await csv.text())
      .split('\r\n')
      .filter(Boolean)
      .slice(1)
      .map((r) => r.slice(0, 36));
    expect(onlyMine(rows)).toEqual([declined.applicationId]);
  });

  it('when a status filter is given, repeated or comma-separated, then only applications in those states are listed', async () => {
    const app = await linked();
    const pending = await initiate();
    const only = async (query: string) => {
      const { seen } = await everyPage(`limit=100&${query}`);
      return seen;
    };
    const linkedOnly = await only('status=LINKED');
    expect(linkedOnly.map((s) => s.applicationId)).toContain(app.applicationId);
    expect(linkedOnly.every((s) => s.status === 'LINKED')).toBe(true);
    for (const query of ['status=LINKED,PENDING_LINKING', 'status=LINKED&status=PENDING_LINKING']) {
      const both = await only(query);
      expect(both.map((s) => s.applicationId)).toEqual(
        expect.arrayContaining([app.applicationId, pending.applicationId]),
      );
      expect(both.every((s) => ['LINKED', 'PENDING_LINKING'].includes(s.status))).toBe(true);
    }
    expect(await only('status=ABANDONED')).toEqual([]);
  });

  it('when q is an applicationId or an applicantId, then exactly that application is listed; of another lender, none', async () => {
    const app = await initiate();
    await initiate();
    for (const q of [app.applicationId, app.applicantId, app.applicantId.toUpperCase()]) {
      const res = await list(`?q=${q}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        items: [expect.objectContaining({ applicationId: app.applicationId })],
        nextCursor: null,
        total: 1,
        totalCapped: false,
      });
    }
    expect((await list(`?q=${app.applicationId}`, other.apiKey)).body).toEqual({
      items: [],
      nextCursor: null,
      total: 0,
      totalCapped: false,
    });
    expect((await list(`?q=${randomUUID()}`)).body).toEqual({
      items: [],
      nextCursor: null,
      total: 0,
      totalCapped: false,
    });
  });

  it("when q is who applied (words of the names in any order and case, the e-mail, a phone number in any of its forms, the BVN), then that lender's applications of that person are listed, and another lender's of the same person are not", async () => {
    const tag = randomUUID().slice(0, 6);
    const who = {
      firstName: `Ọlá${tag}`,
      lastName: `Adébáyọ̀-Okafor`,
      email: `ola.${tag}@Example.ng`,
      phone: `0803${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`,
      bvn: `222${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`,
    };
    const mine = await initiate(lender.apiKey, who);
    await initiate(lender.apiKey, {
      ...who,
      firstName: `Someone${tag}`,
      email: `someone.${tag}@example.ng`,
      phone: undefined,
      bvn: undefined,
    });
    const theirs = await initiate(other.apiKey, who);
    const found = async (q: string, key = lender.apiKey) => {
      const res = await list(`?q=${encodeURIComponent(q)}`, key);
      expect({ q, status: res.status }).toEqual({ q, status: 200 });
      return (res.body.items as Summary[]).map((s) => s.applicationId);
    };
    for (const q of [
      `ola${tag}`,
      `OKAFOR ola${tag}`,
      `adebayo okafor Ọlá${tag}`,
      `ola.${tag}@example.ng`,
      who.phone,
      `+234 ${who.phone.slice(1)}`,
      who.bvn,
    ]) {
      expect({ q, found: await found(q) }).toEqual({ q, found: [mine.applicationId] });
    }
    // Both of this lender's Adébáyọ̀-Okafors, newest first; a word of no name finds nothing.
    expect(await found('adebayo-okafor')).toEqual([expect.any(String), mine.applicationId]);
    expect(await found(`okafor ola${tag} nobody`)).toEqual([]);
    expect(await found(`ola.${tag}@example.com`)).toEqual([]);
    // A text no applicant could be found by (four digits, punctuation) finds none, and is no error.
    expect(await found('0042')).toEqual([]);
    expect(await found('!!!')).toEqual([]);
    expect(await found(who.bvn, other.apiKey)).toEqual([theirs.applicationId]);
    // Searching goes with the other filters.
    expect(await found(`ola${tag}`)).toEqual(
      (await list(`?status=PENDING_LINKING&q=ola${tag}`)).body.items.map((s: Summary) => s.applicationId),
    );
    expect((await list(`?status=COMPLETED&q=ola${tag}`)).body.items).toEqual([]);
  });

  it.each([
    ['status=NOPE', /^status must be one of: PENDING_LINKING, LINKED, PROCESSING, COMPLETED, FAILED, ABANDONED$/],
    ['status=LINKED,', /^status must be one of/],
    ['limit=0', /^limit must be an integer between 1 and 100$/],
    ['limit=101', /^limit must be an integer between 1 and 100$/],
    ['limit=two', /^limit must be a number$/],
    [`q=${'a'.repeat(101)}`, /^q must be at most 100 characters$/],
    ['q=a&q=b', /^q must be a string$/],
    ['cursor=not-a-cursor', /^cursor is not valid/],
    ['page=2', /^Unknown query parameter page; allowed: status, decision, from, to, q, limit, cursor$/],
    ['decision=YES', /^decision must be one of: APPROVED, COUNTER_OFFER, MANUAL_REVIEW, DECLINED$/],
    ['from=2026-13-01', /^from must be a date \(YYYY-MM-DD\)$/],
    ['to=yesterday', /^to must be a date \(YYYY-MM-DD\)$/],
  ])('when the query is %s, then 400 naming the parameter', async (query, message) => {
    const res = await list(`?${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, message: expect.stringMatching(message), error: 'Bad Request' });
  });

  it('when the key is missing or wrong, then 401; another method on the list, 405', async () => {
    expect((await list('', null)).body).toEqual({
      statusCode: 401,
      message: 'Missing x-api-key header',
      error: 'Unauthorized',
    });
    expect((await list('', 'lk_wrong')).status).toBe(401);
    const posted = await call(gateway.url, lender.apiKey, 'DELETE', '/api/applications');
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET, HEAD');
  });

  it('when the list is asked, then it counts against the rate limit of the other calls', async () => {
    const res = await list('?limit=1');
    expect(res.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeLessThan(1000);
  });
});

describe('GET /api/applications/:id, monthly flows', () => {
  const month = (m: string, credits: number, debits: number): MonthSummary => ({
    month: m,
    credits,
    debits,
    salaryCredits: 0,
    otherIncomeCredits: 0,
    bettingDebits: 0,
    bettingCredits: 0,
    loanRepayments: 0,
    loanDisbursements: 0,
    ownTransfersIn: 0,
    ownTransfersOut: 0,
    bouncedDebits: 0,
    overdraftDays: 0,
    openingBalance: 0,
    closingBalance: 0,
    minBalance: 0,
    averageBalance: 0,
    transactionCount: 1,
  });
  const accountsOf = async (applicationId: string) =>
    (await call(gateway.url, lender.apiKey, 'GET', `/api/applications/${applicationId}`)).body.accounts as {
      enrichmentStatus: string;
      monthlyFlows: unknown[];
    }[];

  it('when an account’s statement is analyzed, then its inflows and outflows by month are shown, oldest first, until its bank data is scrubbed', async () => {
    const app = await linked();
    expect(await accountsOf(app.applicationId)).toEqual([
      expect.objectContaining({ enrichmentStatus: 'PENDING', monthlyFlows: [] }),
    ]);
    const ids = { clientId: lender.clientId, applicationId: app.applicationId, applicantId: app.applicantId };
    const result = accountEnriched({ ...ids, accountId: app.accountId });
    if (result.type !== 'AccountEnriched') throw new Error('not an enrichment');
    result.profile.months = [month('2026-10', 398_000, 402_750.5), month('2026-09', 412_500, 371_200)];
    await bus.publish(Topics.enrichmentResults, [{ key: app.applicationId, value: result }]);
    const [account] = await waitFor(
      async () => {
        const accounts = await accountsOf(app.applicationId);
        return accounts[0]?.enrichmentStatus === 'READY' ? accounts : null;
      },
      { what: 'the account to be READY' },
    );
    // The statement runs from 1 January to 30 June: no month of it is partial.
    expect(account!.monthlyFlows).toEqual([
      { month: '2026-09', inflow: 412_500, outflow: 371_200, partial: false },
      { month: '2026-10', inflow: 398_000, outflow: 402_750.5, partial: false },
    ]);
    // Another lender cannot read them.
    expect((await call(gateway.url, other.apiKey, 'GET', `/api/applications/${app.applicationId}`)).status).toBe(404);

    const scrubbed: EnrichmentResult = {
      ...ids,
      factId: randomUUID(),
      at: new Date().toISOString(),
      type: 'BankDataScrubbed',
      accountIds: [app.accountId],
    };
    await bus.publish(Topics.enrichmentResults, [{ key: app.applicationId, value: scrubbed }]);
    await waitFor(async () => (await accountsOf(app.applicationId))[0]?.monthlyFlows.length === 0, {
      what: 'the flows to be scrubbed',
    });
  });
});
