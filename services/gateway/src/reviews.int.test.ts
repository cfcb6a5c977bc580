import { randomUUID } from 'node:crypto';
import { Topics, type ApplicationCommand, type Decision } from '@loan/contracts';
import { waitFor } from '@testing/helpers';
import {
  applicant,
  call,
  createClient,
  decidedApplication,
  startApplications,
  startGateway,
  startSandbox,
  suiteNamespace,
  testBus,
  type Running,
  consoleBrowser,
} from '@testing/stack';
import { Examples } from './entry-points/http/openapi/examples';

/**
 * Reviews of MANUAL_REVIEW decisions over real HTTP: `POST /api/applications/:id/review`, its
 * confirmation and `GET /api/reviews`, every refusal of each, and one lender never reaching
 * another's. The gateway asks the applications service by command, against the real broker,
 * registry and database; the decision comes in as scoring would report it.
 */
const ns = suiteNamespace();
let gateway: Running;
let applications: Running;
let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let lender: Awaited<ReturnType<typeof createClient>>;
let other: Awaited<ReturnType<typeof createClient>>;
const bus = testBus(ns, 'review-api-test');

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

const api = (method: string, path: string, body?: unknown, key: string | null = lender.apiKey) =>
  call(gateway.url, key, method, path, body);

async function initiate(key = lender.apiKey) {
  const res = await api('POST', '/api/applications/initiate', applicant(), key);
  expect(res.status).toBe(201);
  return res.body as { applicationId: string; applicantId: string; widgetUrl: string };
}

/**
 * An application of the lender scored MANUAL_REVIEW (the ask: ₦300,000 over 6 months at 5%,
 * ₦59,105.24 a month; ₦100,000 a month of repayment capacity).
 */
const referred = (key = lender.apiKey, clientId = lender.clientId) =>
  decidedApplication({ gatewayUrl: gateway.url, bus, applications }, { apiKey: key, clientId }, (applicantId) => ({
    decision: {
      ...(Examples.decision as unknown as Decision),
      decision: 'MANUAL_REVIEW',
      applicant_id: applicantId,
      manual_review_reasons: [{ code: 'BUREAU_UNAVAILABLE', description: 'The credit bureau could not be reached' }],
    },
    repaymentCapacity: 100_000,
  }));

const review = (id: string, body: unknown, key?: string | null) =>
  api('POST', `/api/applications/${id}/review`, body, key);
const confirm = (id: string, body: unknown, key?: string | null) =>
  api('POST', `/api/applications/${id}/review/confirm`, body, key);
const counterOffer = (reviewer: string) => ({
  outcome: 'COUNTER_OFFER',
  terms: { amount: 280_000, tenor: 6, interestRate: 5 },
  reasonCode: 'LOWER_AMOUNT',
  note: 'A smaller amount fits the verified salary',
  reviewer,
});
const errorOf = (statusCode: number, message: RegExp) => ({
  statusCode,
  message: expect.stringMatching(message),
  error: expect.any(String),
});

describe('the review API', () => {
  it('when a lender sets its threshold, then its account shows it; an invalid one is a 400', async () => {
    const set = await api('PATCH', '/api/client', { reviewConfirmationAbove: 250_000 });
    expect(set.status).toBe(200);
    expect(set.body.reviewConfirmationAbove).toBe(250_000);
    expect((await api('GET', '/api/client')).body.reviewConfirmationAbove).toBe(250_000);
    const byOperator = await fetch(`${gateway.url}/admin/clients/${other.clientId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', 'x-admin-token': 'local-admin-token' },
      body: JSON.stringify({ reviewConfirmationAbove: 1_000_000 }),
    });
    expect(byOperator.status).toBe(200);
    expect(((await byOperator.json()) as { reviewConfirmationAbove: number }).reviewConfirmationAbove).toBe(1_000_000);
    expect((await api('GET', '/api/client', undefined, other.apiKey)).body.reviewConfirmationAbove).toBe(1_000_000);
    for (const [body, message] of [
      [{ reviewConfirmationAbove: -1 }, /^reviewConfirmationAbove must be 0 or more Naira$/],
      [{ reviewConfirmationAbove: 'lots' }, /^reviewConfirmationAbove must be a number of Naira or null$/],
      [{}, /^webhookUrl, reviewConfirmationAbove, timeZone or recordRetentionYears is required$/],
    ] as const) {
      const res = await api('PATCH', '/api/client', body);
      expect([res.status, res.body]).toEqual([400, errorOf(400, message)]);
    }
  });

  it('when a review above the threshold is made and confirmed by another reviewer, then it is final, shown in the detail and the queue, and every out-of-turn call is refused', async () => {
    await api('PATCH', '/api/client', { reviewConfirmationAbove: 250_000 });
    const app = await referred();
    const queued = await api('GET', '/api/reviews?status=OPEN&limit=100');
    expect(queued.status).toBe(200);
    const item = queued.body.items.find((i: { applicationId: string }) => i.applicationId === app.applicationId);
    expect(item).toMatchObject({
      applicantName: 'Chinedu Okonkwo',
      loan: { amount: 300_000, tenor: 6, interestRate: 5 },
      score: Examples.decision.score,
      manual_review_reasons: [{ code: 'BUREAU_UNAVAILABLE' }],
      approval_details: Examples.decision.approval_details,
      review: null,
    });
    expect(item.ageSeconds).toBeGreaterThanOrEqual(0);

    const made = await review(app.applicationId, counterOffer('officer-1'));
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({
      applicationId: app.applicationId,
      status: 'COMPLETED',
      review: {
        status: 'PENDING_CONFIRMATION',
        confirmationRequired: true,
        reviewer: 'officer-1',
        approval_details: { approved_amount: 280_000, approved_tenor: 6 },
      },
    });
    // The same review sent again (a retry) is answered as the first.
    expect((await review(app.applicationId, counterOffer('officer-1'))).body).toEqual(made.body);

    const second = await review(app.applicationId, {
      outcome: 'DECLINED',
      reasonCode: 'FRAUD_SUSPECTED',
      reviewer: 'officer-2',
    });
    expect([second.status, second.body]).toEqual([409, errorOf(409, /awaits confirmation/)]);
    const own = await confirm(app.applicationId, { reviewer: 'OFFICER-1' });
    expect([own.status, own.body]).toEqual([409, errorOf(409, /cannot confirm it/)]);

    const confirmed = await confirm(app.applicationId, { reviewer: 'manager-1' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.review).toMatchObject({
      status: 'FINAL',
      reviewer: 'officer-1',
      confirmedBy: 'manager-1',
      reviewedAt: expect.any(String),
    });

    const detail = await api('GET', `/api/applications/${app.applicationId}`);
    expect(detail.body).toMatchObject({
      status: 'COMPLETED',
      decision: { decision: 'MANUAL_REVIEW' },
      review: { status: 'FINAL', confirmedBy: 'manager-1' },
    });

    // Who reviewed and the note may name people: on the command topic they are sealed.
    const commands: ApplicationCommand[] = [];
    await bus.consume({
      groupId: `commands-${randomUUID()}`,
      topics: [Topics.applicationCommands],
      handle: async (m) => void commands.push(m.value as ApplicationCommand),
    });
    const reviewCommands = await waitFor(
      () => {
        const mine = commands.filter(
          (c) => 'applicationId' in c && c.applicationId === app.applicationId && /Review/.test(c.type),
        );
        return mine.length >= 5 ? mine : null;
      },
      { what: 'the review commands' },
    );
    const raw = JSON.stringify(reviewCommands);
    for (const text of ['officer-1', 'OFFICER-1', 'manager-1', 'verified salary']) expect(raw).not.toContain(text);

    const again = await review(app.applicationId, { outcome: 'APPROVED', reasonCode: 'X', reviewer: 'officer-3' });
    expect([again.status, again.body]).toEqual([400, errorOf(400, /already been reviewed/)]);
    const reconfirm = await confirm(app.applicationId, { reviewer: 'manager-2' });
    expect([reconfirm.status, reconfirm.body]).toEqual([400, errorOf(400, /already final/)]);

    const done = await api('GET', '/api/reviews?status=DONE&limit=100');
    expect(done.body.items.map((i: { applicationId: string }) => i.applicationId)).toContain(app.applicationId);
    const open = await api('GET', '/api/reviews?limit=100');
    expect(open.body.items.map((i: { applicationId: string }) => i.applicationId)).not.toContain(app.applicationId);
  });

  it('when a review breaks a rule or its body is invalid, then 400 names the problem and nothing is recorded', async () => {
    await api('PATCH', '/api/client', { reviewConfirmationAbove: null });
    const app = await referred();
    const cases: [unknown, RegExp][] = [
      [{}, /^outcome is required; reasonCode is required; reviewer is required$/],
      [
        { outcome: 'MAYBE', reasonCode: 'X', reviewer: 'o' },
        /^outcome must be one of: APPROVED, COUNTER_OFFER, DECLINED$/,
      ],
      [{ outcome: 'APPROVED', reasonCode: 'X' }, /^reviewer is required$/],
      [{ outcome: 'APPROVED', reasonCode: 'X', reviewer: '  ' }, /^reviewer must not be empty/],
      [{ outcome: 'APPROVED', reasonCode: 'not a code', reviewer: 'o' }, /reasonCode must be letters/],
      [{ outcome: 'APPROVED', reasonCode: 'X', reviewer: 'o', score: 900 }, /^Unknown field score; allowed/],
      [
        { outcome: 'APPROVED', reasonCode: 'X', reviewer: 'o', terms: { amount: 1, tenor: 0, interestRate: 5 } },
        /terms.tenor must be a positive integer/,
      ],
      [
        { outcome: 'APPROVED', reasonCode: 'X', reviewer: 'o', terms: { amount: 1e12, tenor: 6, interestRate: 5 } },
        /terms.amount must not exceed/,
      ],
      [{ outcome: 'APPROVED', reasonCode: 'X', reviewer: 'o', override: 'yes' }, /override must be true or false/],
      [
        { outcome: 'DECLINED', reasonCode: 'X', reviewer: 'o', terms: { amount: 1000, tenor: 6, interestRate: 5 } },
        /^A DECLINED review grants no terms/,
      ],
      [{ outcome: 'COUNTER_OFFER', reasonCode: 'X', reviewer: 'o' }, /^A COUNTER_OFFER review needs terms/],
      [
        {
          outcome: 'COUNTER_OFFER',
          reasonCode: 'X',
          reviewer: 'o',
          terms: { amount: 300_000, tenor: 6, interestRate: 5 },
        },
        /is the ask itself/,
      ],
      [
        {
          outcome: 'APPROVED',
          reasonCode: 'X',
          reviewer: 'o',
          terms: { amount: 1_000_000, tenor: 6, interestRate: 5 },
        },
        /^The terms need override: true and a note: the monthly payment of ₦197,017.47 is beyond/,
      ],
      [
        {
          outcome: 'APPROVED',
          reasonCode: 'X',
          reviewer: 'o',
          override: true,
          terms: { amount: 1_000_000, tenor: 6, interestRate: 5 },
        },
        /^An override needs a note/,
      ],
      [
        {
          outcome: 'APPROVED',
          reasonCode: 'X',
          reviewer: 'o',
          override: true,
          note: '',
          terms: { amount: 1_000_000, tenor: 6, interestRate: 5 },
        },
        /^An override needs a note/,
      ],
      [
        {
          outcome: 'APPROVED',
          reasonCode: 'X',
          reviewer: 'o',
          override: true,
          note: '  ',
          terms: { amount: 1_000_000, tenor: 6, interestRate: 5 },
        },
        /^An override needs a note/,
      ],
      ['[]', /./],
      ['{"outcome":', /./],
    ];
    for (const [body, message] of cases) {
      const res = await review(app.applicationId, body);
      expect([JSON.stringify(body), res.status, res.body]).toEqual([JSON.stringify(body), 400, errorOf(400, message)]);
    }
    const noReviewer = await confirm(app.applicationId, {});
    expect([noReviewer.status, noReviewer.body]).toEqual([400, errorOf(400, /^reviewer is required$/)]);
    const nothingToConfirm = await confirm(app.applicationId, { reviewer: 'manager-1' });
    expect([nothingToConfirm.status, nothingToConfirm.body]).toEqual([
      400,
      errorOf(400, /^Application has no review to confirm$/),
    ]);
    expect((await api('GET', `/api/applications/${app.applicationId}`)).body.review).toBeNull();

    // Beyond the capacity with override and a note, under no threshold: final at once.
    const overridden = await review(app.applicationId, {
      outcome: 'APPROVED',
      reasonCode: 'GUARANTOR',
      reviewer: 'o',
      override: true,
      note: 'A guarantor signed',
      terms: { amount: 1_000_000, tenor: 6, interestRate: 5 },
    });
    expect(overridden.status).toBe(200);
    expect(overridden.body.review).toMatchObject({ status: 'FINAL', override: true, confirmationRequired: false });
  });

  it('when the application is not a COMPLETED MANUAL_REVIEW one, then 400; when it is unknown, malformed or another lender\u2019s, then 404 and the other lender\u2019s queue never shows it', async () => {
    const pending = await initiate();
    const wrong = await review(pending.applicationId, counterOffer('o'));
    expect([wrong.status, wrong.body]).toEqual([
      400,
      errorOf(400, /^Cannot review application with status: PENDING_LINKING$/),
    ]);
    const wrongConfirm = await confirm(pending.applicationId, { reviewer: 'm' });
    expect([wrongConfirm.status, wrongConfirm.body]).toEqual([
      400,
      errorOf(400, /^Cannot review application with status: PENDING_LINKING$/),
    ]);

    const app = await referred();
    for (const [id, key] of [
      [randomUUID(), lender.apiKey],
      ['not-a-uuid', lender.apiKey],
      [app.applicationId, other.apiKey],
    ] as const) {
      for (const res of [await review(id, counterOffer('o'), key), await confirm(id, { reviewer: 'm' }, key)]) {
        expect([res.status, res.body]).toEqual([404, errorOf(404, /^Application not found$/)]);
      }
    }
    for (const status of ['OPEN', 'DONE']) {
      const theirs = await api('GET', `/api/reviews?status=${status}&limit=100`, undefined, other.apiKey);
      expect(theirs.status).toBe(200);
      expect(theirs.body.items.map((i: { applicationId: string }) => i.applicationId)).not.toContain(app.applicationId);
    }
    expect((await api('GET', `/api/applications/${app.applicationId}`)).body.review).toBeNull();
    for (const res of [
      await review(app.applicationId, counterOffer('o'), null),
      await api('GET', '/api/reviews', undefined, null),
    ]) {
      expect(res.status).toBe(401);
    }
  });

  it('when the queue is read page by page, then every open review comes once, oldest first; a bad query is a 400', async () => {
    const apps = [await referred(), await referred(), await referred()];
    const seen: { applicationId: string; decidedAt: string }[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { items: typeof seen; nextCursor: string | null } } = await api(
        'GET',
        `/api/reviews?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.items);
      cursor = page.body.nextCursor;
    } while (cursor);
    const ids = seen.map((i) => i.applicationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(apps.map((a) => a.applicationId)));
    expect(seen.map((i) => i.decidedAt)).toEqual([...seen.map((i) => i.decidedAt)].sort());
    for (const [query, message] of [
      ['status=LATER', /^status must be one of: OPEN, DONE$/],
      ['limit=0', /limit must be an integer between 1 and 100/],
      ['cursor=nonsense', /^cursor is not valid/],
      ['q=x', /^Unknown query parameter q; allowed: status, limit, cursor$/],
    ] as const) {
      const res = await api('GET', `/api/reviews?${query}`);
      expect([query, res.status, res.body]).toEqual([query, 400, errorOf(400, message)]);
    }
  });

  it('when a lender signed in to the console reads and makes reviews under /console/api, then the same queue and review answer as under /api', async () => {
    const app = await referred();
    const first = await fetch(`${gateway.url}/console/session`);
    const { csrfToken: signInToken } = (await first.json()) as { csrfToken: string };
    const signIn = await fetch(`${gateway.url}/console/session`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        origin: gateway.url,
        'x-csrf-token': signInToken,
        cookie: first.headers.getSetCookie()[0]!.split(';')[0]!,
      },
      body: JSON.stringify({ apiKey: lender.apiKey }),
    });
    expect(signIn.status).toBe(200);
    const { csrfToken } = (await signIn.json()) as { csrfToken: string };
    const cookie = signIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('console_session='))!
      .split(';')[0]!;

    const queue = await fetch(`${gateway.url}/console/api/reviews?limit=100`, { headers: { cookie } });
    expect(queue.status).toBe(200);
    expect(
      ((await queue.json()) as { items: { applicationId: string }[] }).items.map((i) => i.applicationId),
    ).toContain(app.applicationId);
    const made = await fetch(`${gateway.url}/console/api/applications/${app.applicationId}/review`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: gateway.url, 'x-csrf-token': csrfToken, cookie },
      body: JSON.stringify({ outcome: 'DECLINED', reasonCode: 'FRAUD_SUSPECTED', reviewer: 'officer-9' }),
    });
    expect(made.status).toBe(200);
    expect(((await made.json()) as { review: { status: string } }).review.status).toBe('FINAL');
    const withoutToken = await fetch(`${gateway.url}/console/api/applications/${app.applicationId}/review/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: gateway.url, cookie },
      body: JSON.stringify({ reviewer: 'manager-9' }),
    });
    expect(withoutToken.status).toBe(403);
  });
});

/** A browser of the console for one member of staff: its cookies and the page's CSRF token. */
const staffBrowser = () => consoleBrowser(() => gateway.url);

describe('reviews from the console by signed-in staff', () => {
  let staffed: Awaited<ReturnType<typeof createClient>>;
  const staff = new Map<string, ReturnType<typeof staffBrowser>>();
  const emailOf = (who: string) => `${who}.${ns.replace(/\W/g, '').slice(-8)}@reviews.example`;

  beforeAll(async () => {
    staffed = await createClient(gateway.url);
    const owner = await fetch(`${gateway.url}/admin/clients/${staffed.clientId}/owner`, {
      method: 'POST',
      headers: { 'x-admin-token': 'local-admin-token', 'content-type': 'application/json' },
      body: JSON.stringify({ email: emailOf('owner') }),
    });
    expect(owner.status).toBe(201);
    const links: [string, string][] = [['owner', ((await owner.json()) as { invitationUrl: string }).invitationUrl]];
    for (const [who, role] of [
      ['officer', 'credit_officer'],
      ['manager', 'credit_manager'],
      ['other-manager', 'credit_manager'],
    ] as const) {
      const invited = await api('POST', '/api/users', { email: emailOf(who), role }, staffed.apiKey);
      expect(invited.status).toBe(201);
      links.push([who, invited.body.invitationUrl]);
    }
    for (const [who, link] of links) {
      const page = staffBrowser();
      await page.send('GET', '/console/session');
      const password = `${who} chose a password`;
      expect(
        (await page.send('POST', '/console/invitation/accept', { token: link.split('#/invitation/')[1], password }))
          .status,
      ).toBe(200);
      expect((await page.send('POST', '/console/session', { email: emailOf(who), password })).status).toBe(200);
      staff.set(who, page);
    }
    expect((await api('PATCH', '/api/client', { reviewConfirmationAbove: 250_000 }, staffed.apiKey)).status).toBe(200);
  });

  const consoleReview = (who: string, id: string, body: unknown) =>
    staff.get(who)!.send('POST', `/console/api/applications/${id}/review`, body);
  const consoleConfirm = (who: string, id: string, body: unknown) =>
    staff.get(who)!.send('POST', `/console/api/applications/${id}/review/confirm`, body);

  it('when a signed-in officer reviews without naming a reviewer, then the review names the officer by e-mail address, the officer cannot confirm it and a manager, also unnamed, does', async () => {
    const app = await referred(staffed.apiKey, staffed.clientId);
    const { reviewer: _none, ...body } = counterOffer('unused');
    const made = await consoleReview('officer', app.applicationId, body);
    expect([made.status, made.body.review]).toEqual([
      200,
      expect.objectContaining({ status: 'PENDING_CONFIRMATION', reviewer: emailOf('officer') }),
    ]);
    // The maker, signed in, cannot check: neither unnamed nor naming themselves.
    for (const confirmBody of [{}, { reviewer: emailOf('officer') }]) {
      const own = await consoleConfirm('officer', app.applicationId, confirmBody);
      expect(own.status).toBe(403);
    }
    const confirmed = await consoleConfirm('manager', app.applicationId, {});
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.review).toMatchObject({
      status: 'FINAL',
      reviewer: emailOf('officer'),
      confirmedBy: emailOf('manager'),
    });
  });

  it('when a signed-in user names a reviewer other than themselves, then 400 says the console records the signed-in user, and nothing is recorded', async () => {
    const app = await referred(staffed.apiKey, staffed.clientId);
    const made = await consoleReview('officer', app.applicationId, counterOffer('officer-1'));
    expect([made.status, made.body]).toEqual([400, errorOf(400, /^reviewer: the console records the signed-in user/)]);
    expect(
      (await api('GET', `/api/applications/${app.applicationId}`, undefined, staffed.apiKey)).body.review,
    ).toBeNull();
    // Their own address, in any case, is no conflict.
    const own = await consoleReview('manager', app.applicationId, counterOffer(emailOf('manager').toUpperCase()));
    expect([own.status, own.body.review?.reviewer]).toEqual([200, emailOf('manager')]);
    const other = await consoleConfirm('other-manager', app.applicationId, { reviewer: 'manager-9' });
    expect([other.status, other.body]).toEqual([
      400,
      errorOf(400, /^reviewer: the console records the signed-in user/),
    ]);
    // The same manager cannot confirm their own review; another manager can.
    const self = await consoleConfirm('manager', app.applicationId, {});
    expect([self.status, self.body]).toEqual([409, errorOf(409, /cannot confirm it/)]);
    const checked = await consoleConfirm('other-manager', app.applicationId, {});
    expect([checked.status, checked.body.review?.confirmedBy]).toEqual([200, emailOf('other-manager')]);
  });

  it('when the API key reviews, then it still names its reviewer in the body, required as before', async () => {
    const app = await referred(staffed.apiKey, staffed.clientId);
    const { reviewer: _none, ...body } = counterOffer('unused');
    const missing = await review(app.applicationId, body, staffed.apiKey);
    expect([missing.status, missing.body]).toEqual([400, errorOf(400, /^reviewer is required$/)]);
    const made = await review(app.applicationId, counterOffer('officer-7'), staffed.apiKey);
    expect([made.status, made.body.review.reviewer]).toEqual([200, 'officer-7']);
  });
});
