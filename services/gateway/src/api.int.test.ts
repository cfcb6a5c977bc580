import { createHash, randomUUID } from 'node:crypto';
import net from 'node:net';
import { Topics, type ScoringResult, type DeadlinePassed } from '@loan/contracts';
import { waitFor, windowClock } from '@testing/helpers';
import {
  applicant,
  call,
  createClient,
  startApplications,
  startGateway,
  startSandbox,
  accountEnriched,
  captureLogs,
  suiteNamespace,
  testBus,
  type Running,
} from '@testing/stack';

/**
 * The lender API of spec sections 2-5, 7 and 8 over real HTTP: gateway and applications
 * service against the real broker, registry and database, with the sandbox provider.
 */
const ns = suiteNamespace();
let gateway: Running;
let gateway2: Running;
let applications: Running;
let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let lender: Awaited<ReturnType<typeof createClient>>;
let other: Awaited<ReturnType<typeof createClient>>;
const bus = testBus(ns, 'api-test');

const limits = {
  RATE_LIMIT_INITIATE: '1000',
  RATE_LIMIT_GLOBAL: '1000',
  RATE_LIMIT_ANALYZE: '1000',
  AUTH_FAILURE_LIMIT: '1000',
};

beforeAll(async () => {
  gateway = await startGateway(ns, limits);
  sandbox = await startSandbox(`${gateway.url}/provider/webhooks/mono`);
  applications = await startApplications(ns, { PROVIDER_BASE_URL: sandbox.url });
  // The second replica runs as production does: https webhooks to public hosts only.
  gateway2 = await startGateway(ns, { ...limits, ALLOW_PRIVATE_WEBHOOK_URLS: 'false' });
  await bus.connect();
  lender = await createClient(gateway.url);
  other = await createClient(gateway.url);
});

afterAll(async () => {
  await bus.disconnect();
  for (const s of [gateway2, applications, gateway]) await s?.stop();
  await sandbox?.stop();
});

const initiate = (body: unknown, key = lender.apiKey, url = gateway.url) =>
  call(url, key, 'POST', '/api/applications/initiate', body);
const action = (id: string, what: string, key = lender.apiKey, body?: unknown) =>
  call(gateway.url, key, 'POST', `/api/applications/${id}/${what}`, body);
const view = (id: string, key = lender.apiKey) => call(gateway.url, key, 'GET', `/api/applications/${id}`);

async function linkAccount(widgetUrl: string, persona = 'salaried') {
  const res = await fetch(`${new URL(widgetUrl).origin}/sandbox/link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ widgetUrl, persona }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { providerAccountId: string };
}

async function linkedApplication() {
  const res = await initiate(applicant());
  expect(res.status).toBe(201);
  await linkAccount(res.body.widgetUrl);
  const linked = await waitFor(
    async () => {
      const v = await view(res.body.applicationId);
      return v.body.status === 'LINKED' && v.body.accounts.length === 1 ? v.body : null;
    },
    { what: 'the application to be LINKED' },
  );
  return { ...res.body, accounts: linked.accounts as { accountId: string; providerAccountId: string }[] };
}

/** What the enrichment service would report once an account's data is analyzed. */
async function reportEnriched(app: { applicationId: string; applicantId: string }, accountId: string) {
  const result = accountEnriched({ clientId: lender.clientId, ...app, accountId });
  await bus.publish(Topics.enrichmentResults, [{ key: app.applicationId, value: result }]);
}

async function readyApplication() {
  const app = await linkedApplication();
  expect((await action(app.applicationId, 'finalize-linking')).status).toBe(200);
  await reportEnriched(app, app.accounts[0]!.accountId);
  await waitFor(async () => (await view(app.applicationId)).body.accounts[0].enrichmentStatus === 'READY', {
    what: 'READY',
  });
  return app;
}

describe('POST /api/applications/initiate', () => {
  it('when a lender initiates, then it gets ids, a widget address from the provider, PENDING_LINKING and resumed false', async () => {
    const res = await initiate(applicant());
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      applicationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      applicantId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      widgetUrl: expect.stringContaining(new URL(sandbox.url).origin),
      status: 'PENDING_LINKING',
      resumed: false,
    });
    const page = await fetch(res.body.widgetUrl);
    expect(page.status).toBe(200);
  });

  it('when the same key is sent again while PENDING_LINKING, then the same application is resumed with a fresh widget address and what the lender sent this time', async () => {
    const body = applicant({ purpose: 'School fees' });
    const first = await initiate(body);
    const again = await initiate({ ...body, lastName: 'Okonkwo-Eze', amount: 450_000, tenor: 9, purpose: null });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      applicationId: first.body.applicationId,
      applicantId: first.body.applicantId,
      resumed: true,
      status: 'PENDING_LINKING',
    });
    expect(again.body.widgetUrl).not.toBe(first.body.widgetUrl);
    const resumed = (await view(first.body.applicationId)).body;
    expect(resumed.applicant).toMatchObject({ firstName: body.firstName, lastName: 'Okonkwo-Eze' });
    expect(resumed.loan).toEqual({ amount: 450_000, tenor: 9, interestRate: body.interestRate, purpose: null });
  });

  it('when ten identical requests arrive at once, across two gateway replicas, then exactly one application exists', async () => {
    const body = applicant();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => initiate(body, lender.apiKey, i % 2 ? gateway2.url : gateway.url)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.applicationId)).size).toBe(1);
    const model = applications.runtime.db.model('Application');
    expect(await model.countDocuments({ idempotencyKey: body.idempotencyKey })).toBe(1);
  });

  it('when the key belongs to another lender, then 403, and the audit names the lender that sent it with a digest of the key, never the key', async () => {
    const body = applicant();
    await initiate(body);
    const res = await initiate(body, other.apiKey);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      statusCode: 403,
      message: expect.stringMatching(/another account/),
      error: 'Forbidden',
    });

    const keyDigest = createHash('sha256').update(body.idempotencyKey).digest('hex').slice(0, 32);
    const audit = await fetch(`${gateway.url}/admin/audit?limit=100`, {
      headers: { 'x-admin-token': 'local-admin-token' },
    });
    const { items } = (await audit.json()) as {
      items: { action: string; actor: string; clientId: string; details: Record<string, unknown> }[];
    };
    const probes = items.filter(
      (e) => e.action === 'application.key-of-another-account' && e.details.keyDigest === keyDigest,
    );
    expect(probes).toEqual([
      expect.objectContaining({ actor: 'client', clientId: other.clientId, details: { keyDigest } }),
    ]);
    expect(JSON.stringify(items)).not.toContain(body.idempotencyKey);
  });

  it('when the key belongs to a LINKED application, then 409', async () => {
    const app = await linkedApplication();
    const model = applications.runtime.db.model('Application');
    const doc = await model.findById(app.applicationId).lean<{ idempotencyKey: string }>();
    const res = await initiate(applicant({ idempotencyKey: doc!.idempotencyKey }));
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ statusCode: 409, error: 'Conflict' });
  });

  it.each(['firstName', 'lastName', 'email', 'amount', 'tenor', 'interestRate', 'idempotencyKey'])(
    'when %s is missing, then 400 naming it',
    async (field) => {
      const body: Record<string, unknown> = applicant();
      delete body[field];
      const res = await initiate(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ statusCode: 400, message: expect.stringContaining(field), error: 'Bad Request' });
    },
  );

  it.each([
    ['an invalid e-mail', { email: 'not-an-email' }, 'email'],
    ['an e-mail with 65 characters before the @', { email: `${'a'.repeat(65)}@example.com` }, 'email'],
    [
      'an e-mail over 254 characters',
      { email: `chinedu@${['a', 'b', 'c', 'd'].map((c) => c.repeat(60)).join('.')}.com` },
      'email',
    ],
    ['a fractional tenor', { tenor: 1.5 }, 'tenor'],
    ['a zero tenor', { tenor: 0 }, 'tenor'],
    ['a negative amount', { amount: -5 }, 'amount'],
    ['a string amount', { amount: '300000' }, 'amount'],
    ['a one-letter first name', { firstName: 'A' }, 'firstName'],
    ['a 101-letter last name', { lastName: 'x'.repeat(101) }, 'lastName'],
    ['a 9-character phone', { phone: '080312345' }, 'phone'],
    ['a 16-character phone', { phone: '0803123456789012' }, 'phone'],
    ['a 10-digit BVN', { bvn: '2220000000' }, 'bvn'],
    ['a BVN with letters', { bvn: '2220000000A' }, 'bvn'],
    ['a negative interest rate', { interestRate: -1 }, 'interestRate'],
  ])('when the body has %s, then 400 naming the field', async (_what, patch, field) => {
    const res = await initiate(applicant(patch));
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(field);
    expect(res.body.error).toBe('Bad Request');
  });

  it.each([
    ['null optional fields', { bvn: null, phone: null, purpose: null }],
    ['empty optional strings', { bvn: '', phone: '', purpose: '' }],
    ['a 0% interest rate', { interestRate: 0 }],
  ])('when the body has %s, then the application is opened (absent fields stay absent)', async (_what, patch) => {
    const res = await initiate(applicant(patch));
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('PENDING_LINKING');
    const view = await call(gateway.url, lender.apiKey, 'GET', `/api/applications/${res.body.applicationId}`);
    expect(view.status).toBe(200);
    if ('interestRate' in patch) expect(view.body.loan.interestRate).toBe(0);
    else expect(view.body.loan.purpose ?? null).toBeNull();
  });

  it('when the lender has no provider key configured, then 500 saying so', async () => {
    const bare = await createClient(gateway.url, { providerSecretKey: undefined });
    const res = await initiate(applicant(), bare.apiKey);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      statusCode: 500,
      message: expect.stringMatching(/provider API key is not configured/),
      error: 'Internal Server Error',
    });
  });
});

describe('errors at the edge', () => {
  it('when anyone sends requests to made-up paths, with or without a key, then /metrics gains no series per path', async () => {
    const marks = Array.from({ length: 20 }, () => randomUUID());
    for (const mark of marks) {
      await call(gateway.url, null, 'GET', `/api/applications/${mark}/nothing-here`);
      await call(gateway.url, 'wrong-key', 'POST', `/api/applications/${mark}`, '{"broken json');
      await call(gateway.url, null, 'GET', `/${mark}`);
    }
    const metrics = await (await fetch(`${gateway.opsUrl}/metrics`)).text();
    expect(marks.filter((mark) => metrics.includes(mark))).toEqual([]);
    expect(metrics).toMatch(/route="unmatched",status="401"/);
  });

  it('when /metrics or health is asked on the public port, then 404; the internal port serves them', async () => {
    expect(new URL(gateway.opsUrl).port).not.toBe(new URL(gateway.url).port);
    for (const path of ['/metrics', '/healthz', '/readyz']) {
      const outside = await call(gateway.url, null, 'GET', path);
      expect(outside.status).toBe(404);
      expect(outside.body).toMatchObject({ statusCode: 404, error: 'Not Found' });
    }
    expect((await fetch(`${gateway.opsUrl}/healthz`)).status).toBe(200);
    const ready = await fetch(`${gateway.opsUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: 'ready',
      checks: { kafka: true, database: true, replies: true },
    });
    expect(await (await fetch(`${gateway.opsUrl}/metrics`)).text()).toMatch(
      /http_request_duration_seconds_count\{[^}]*route="\/api\/applications\/initiate"/,
    );
    // The internal port serves nothing else.
    expect((await call(gateway.opsUrl, lender.apiKey, 'POST', '/api/applications/initiate', applicant())).status).toBe(
      404,
    );
  });

  it('when any answer is sent, then it says nosniff, and answers with personal data or secrets are not to be stored', async () => {
    const started = await initiate(applicant());
    for (const res of [
      started,
      await view(started.body.applicationId),
      await call(gateway.url, null, 'GET', '/nowhere'),
    ]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    const created = await fetch(`${gateway.url}/admin/clients`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-admin-token': 'local-admin-token' },
      body: JSON.stringify({ name: 'Headers' }),
    });
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('when x-api-key is missing or wrong, then 401 in the error shape', async () => {
    expect((await initiate(applicant(), null as unknown as string)).body).toEqual({
      statusCode: 401,
      message: 'Missing x-api-key header',
      error: 'Unauthorized',
    });
    const wrong = await call(gateway.url, 'lk_wrong', 'GET', `/api/applications/${randomUUID()}`);
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('Unauthorized');
  });

  it('when the body is malformed JSON, then 400; the wrong content type, 415; too large, 413', async () => {
    const bad = await call(gateway.url, lender.apiKey, 'POST', '/api/applications/initiate', '{"firstName": ');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    const res = await fetch(`${gateway.url}/api/applications/initiate`, {
      method: 'POST',
      headers: { 'x-api-key': lender.apiKey, 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ statusCode: 415, error: 'Unsupported Media Type' });
    const big = await initiate(applicant({ purpose: 'x'.repeat(40_000) }));
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
  });

  it.each([
    ['DELETE', '/api/applications/00000000-0000-4000-8000-000000000000', 'GET, HEAD'],
    ['PUT', '/api/applications/initiate', 'POST'],
    ['GET', '/api/applications/initiate', 'POST'],
    ['POST', '/api/applications/00000000-0000-4000-8000-000000000000', 'GET, HEAD'],
    ['POST', '/api/openapi.json', 'GET, HEAD'],
    ['GET', '/api/applications/00000000-0000-4000-8000-000000000000/analyze', 'POST'],
    ['DELETE', '/api/webhooks/deliveries', 'GET, HEAD'],
    ['GET', '/provider/webhooks/mono', 'POST'],
  ])('when %s %s is asked of a route that exists, then 405 with Allow: %s', async (method, path, allow) => {
    const res = await call(gateway.url, lender.apiKey, method, path);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    expect(res.body).toEqual({
      statusCode: 405,
      message: expect.stringContaining(`allowed: ${allow}`),
      error: 'Method Not Allowed',
    });
  });

  it('when an admin route is asked with another method, then 405 with Allow', async () => {
    const res = await fetch(`${gateway.url}/admin/clients/${lender.clientId}`, {
      method: 'DELETE',
      headers: { 'x-admin-token': 'local-admin-token' },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, PATCH');
  });

  it('when a route does not exist, then 404 in the error shape', async () => {
    const res = await call(gateway.url, lender.apiKey, 'GET', '/api/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ statusCode: 404, error: 'Not Found' });
  });

  it('when the OpenAPI document is asked for, then it describes every endpoint', async () => {
    const res = await call(gateway.url, null, 'GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/applications/initiate',
        '/api/applications/{id}/finalize-linking',
        '/api/applications/{id}/analyze',
        '/api/applications/{id}/link-account',
      ]),
    );
    expect((await fetch(`${gateway.url}/api/docs`)).status).toBe(200);
  });

  it('when the operator document is asked for, then only the admin token gets it', async () => {
    expect((await fetch(`${gateway.url}/admin/openapi.json`)).status).toBe(401);
    expect((await fetch(`${gateway.url}/admin/openapi.json`, { headers: { 'x-api-key': lender.apiKey } })).status).toBe(
      401,
    );
    const res = await fetch(`${gateway.url}/admin/openapi.json`, { headers: { 'x-admin-token': 'local-admin-token' } });
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/admin/clients', '/admin/clients/{id}', '/provider/webhooks/mono']),
    );
  });
});

describe('finalize-linking, analyze, link-account and GET', () => {
  it.each(['finalize-linking', 'analyze', 'link-account'])(
    "when %s names an unknown, malformed or another lender's application, then 404",
    async (what) => {
      expect((await action(randomUUID(), what)).status).toBe(404);
      expect((await action('not-a-uuid', what)).status).toBe(404);
      const mine = await initiate(applicant());
      const theirs = await action(mine.body.applicationId, what, other.apiKey);
      expect(theirs.status).toBe(404);
      expect(theirs.body).toEqual({ statusCode: 404, message: 'Application not found', error: 'Not Found' });
    },
  );

  it('when finalize comes before any account is linked, then 400 with the spec message', async () => {
    const res = await initiate(applicant());
    const fin = await action(res.body.applicationId, 'finalize-linking');
    expect(fin.status).toBe(400);
    expect(fin.body).toEqual({
      statusCode: 400,
      message: 'Cannot finalize linking for application with status: PENDING_LINKING',
      error: 'Bad Request',
    });
  });

  it('when analyze comes before any account or before ready_for_analysis, then 400', async () => {
    const res = await initiate(applicant());
    expect((await action(res.body.applicationId, 'analyze')).status).toBe(400);
    const linked = await linkedApplication();
    const early = await action(linked.applicationId, 'analyze');
    expect(early.status).toBe(400);
    expect(early.body.message).toMatch(/ready_for_analysis/);
  });

  it('when an account links, then GET shows LINKED with the account, and finalize answers LINKED', async () => {
    const app = await linkedApplication();
    const v = await view(app.applicationId);
    expect(v.body).toMatchObject({
      status: 'LINKED',
      applicant: { firstName: 'Chinedu' },
      accounts: [{ enrichmentStatus: 'PENDING' }],
    });
    const fin = await action(app.applicationId, 'finalize-linking');
    expect(fin.status).toBe(200);
    expect(fin.body).toEqual({ applicationId: app.applicationId, status: 'LINKED', message: expect.any(String) });
  });

  it('when the application is ready, then analyze answers PROCESSING and a second analyze is harmless', async () => {
    const app = await readyApplication();
    const res = await action(app.applicationId, 'analyze');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ applicationId: app.applicationId, status: 'PROCESSING', message: expect.any(String) });
    expect((await action(app.applicationId, 'analyze')).body.status).toBe('PROCESSING');
    expect((await view(app.applicationId)).body.status).toBe('PROCESSING');
    const fin = await action(app.applicationId, 'finalize-linking');
    expect(fin.body.message).toBe('Cannot finalize linking for application with status: PROCESSING');
  });

  it('when link-account is called, then a fresh widget address comes back and the named account restarts enrichment', async () => {
    const app = await linkedApplication();
    const res = await action(app.applicationId, 'link-account', lender.apiKey, {
      accountId: app.accounts[0]!.accountId,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      applicationId: app.applicationId,
      accountId: app.accounts[0]!.accountId,
      widgetUrl: expect.any(String),
      status: 'LINKED',
    });
    const none = await action(app.applicationId, 'link-account');
    expect(none.status).toBe(200);
    expect(none.body.widgetUrl).not.toBe(res.body.widgetUrl);
    const unknownAccount = await action(app.applicationId, 'link-account', lender.apiKey, { accountId: randomUUID() });
    expect(unknownAccount.status).toBe(404);
    // A body that is not an object is refused, not read as "no account named".
    for (const body of ['[]', '[{"accountId":null}]', '7']) {
      const refused = await action(app.applicationId, 'link-account', lender.apiKey, body);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe('Bad Request');
    }
    // accountId is optional: one of the wrong type is refused as such, not as missing.
    for (const accountId of [null, 0, {}]) {
      const refused = await action(app.applicationId, 'link-account', lender.apiKey, { accountId });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(/^accountId: /);
    }
  });

  it('when link-account is called on FAILED or ABANDONED applications, then 400 (COMPLETED: see the end-to-end suite)', async () => {
    const failed = await readyApplication();
    await action(failed.applicationId, 'analyze');
    const analysisOf = async (id: string) =>
      (await applications.runtime.db.model('Application').findById(id).lean<{ analysis: { analysisId: string } }>())!
        .analysis.analysisId;
    const base = (app: { applicationId: string; applicantId: string }) => ({
      factId: randomUUID(),
      clientId: lender.clientId,
      applicationId: app.applicationId,
      applicantId: app.applicantId,
      at: new Date().toISOString(),
    });
    const scored: ScoringResult = {
      ...base(failed),
      type: 'ScoringFailed',
      analysisId: await analysisOf(failed.applicationId),
      reason: 'no enriched accounts',
    };
    await bus.publish(Topics.scoringResults, [{ key: failed.applicationId, value: scored }]);
    const abandoned = await initiate(applicant());
    const model = applications.runtime.db.model('Application');
    const doc = await model.findById(abandoned.body.applicationId).lean<{ linkWindowStart: Date }>();
    const deadline: DeadlinePassed = {
      deadlineId: randomUUID(),
      kind: 'no_link',
      clientId: lender.clientId,
      applicationId: abandoned.body.applicationId,
      accountId: null,
      attempt: null,
      since: new Date(doc!.linkWindowStart).toISOString(),
      dueAt: new Date().toISOString(),
      firedAt: new Date().toISOString(),
    };
    await bus.publish(Topics.deadlines, [{ key: abandoned.body.applicationId, value: deadline }]);
    await waitFor(async () => (await view(failed.applicationId)).body.status === 'FAILED', { what: 'FAILED' });
    await waitFor(async () => (await view(abandoned.body.applicationId)).body.status === 'ABANDONED', {
      what: 'ABANDONED',
    });
    for (const id of [failed.applicationId, abandoned.body.applicationId]) {
      const res = await action(id, 'link-account');
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Bad Request');
    }
    const fin = await action(failed.applicationId, 'finalize-linking');
    expect(fin.body.message).toBe('Cannot finalize linking for application with status: FAILED');
  });

  it('when an analysis has no outcome by its deadline, then the application is FAILED with reason analysis_timeout and a late result changes nothing', async () => {
    const app = await readyApplication();
    expect((await action(app.applicationId, 'analyze')).body.status).toBe('PROCESSING');
    const requested = (await applications.runtime.db
      .model('Application')
      .findById(app.applicationId)
      .lean<{ analysis: { requestedAt: Date } }>())!.analysis.requestedAt;
    const passed = (since: string): DeadlinePassed => ({
      deadlineId: randomUUID(),
      kind: 'analysis_timeout',
      clientId: lender.clientId,
      applicationId: app.applicationId,
      accountId: null,
      attempt: null,
      since,
      dueAt: new Date().toISOString(),
      firedAt: new Date().toISOString(),
    });
    await bus.publish(Topics.deadlines, [{ key: app.applicationId, value: passed(new Date(requested).toISOString()) }]);
    const failed = await waitFor(
      async () => {
        const v = await view(app.applicationId);
        return v.body.status === 'FAILED' ? v.body : null;
      },
      { what: 'FAILED' },
    );
    expect(failed.failureReason).toBe('analysis_timeout');
    // A scoring result arriving after that changes nothing.
    const late: ScoringResult = {
      factId: randomUUID(),
      clientId: lender.clientId,
      applicationId: app.applicationId,
      applicantId: app.applicantId,
      at: new Date().toISOString(),
      type: 'ScoringFailed',
      analysisId: randomUUID(),
      reason: 'late',
    };
    await bus.publish(Topics.scoringResults, [{ key: app.applicationId, value: late }]);
    expect((await view(app.applicationId)).body.failureReason).toBe('analysis_timeout');
  });

  it('when an account is re-linked after ready_for_analysis, then analyze waits until it is enriched again', async () => {
    const app = await readyApplication();
    const { accountId } = app.accounts[0]!;
    expect((await action(app.applicationId, 'link-account', lender.apiKey, { accountId })).status).toBe(200);
    const early = await action(app.applicationId, 'analyze');
    expect(early.status).toBe(400);
    expect(early.body.message).toMatch(/ready_for_analysis/);
    await reportEnriched(app, accountId);
    await waitFor(async () => (await action(app.applicationId, 'analyze')).body.status === 'PROCESSING', {
      what: 'analyze accepted again',
    });
  });

  it('when link-account is called while PROCESSING, then 400 and the analysis in flight keeps the accounts as they were enriched', async () => {
    const app = await readyApplication();
    expect((await action(app.applicationId, 'analyze')).body.status).toBe('PROCESSING');
    const { accountId } = app.accounts[0]!;
    for (const body of [{ accountId }, undefined]) {
      const res = await action(app.applicationId, 'link-account', lender.apiKey, body);
      expect(res.body).toEqual({
        statusCode: 400,
        message: 'Cannot link accounts for application with status: PROCESSING',
        error: 'Bad Request',
      });
    }
    const v = await view(app.applicationId);
    expect(v.body).toMatchObject({ status: 'PROCESSING', accounts: [{ accountId, enrichmentStatus: 'READY' }] });
  });

  it('when a client without a provider key calls link-account, then the application is checked first: 404 unknown, 400 terminal, then 500 for the key', async () => {
    const keyless = await createClient(gateway.url);
    const pending = await initiate(applicant(), keyless.apiKey);
    const abandoned = await initiate(applicant(), keyless.apiKey);
    const doc = await applications.runtime.db
      .model('Application')
      .findById(abandoned.body.applicationId)
      .lean<{ linkWindowStart: Date }>();
    const deadline: DeadlinePassed = {
      deadlineId: randomUUID(),
      kind: 'no_link',
      clientId: keyless.clientId,
      applicationId: abandoned.body.applicationId,
      accountId: null,
      attempt: null,
      since: new Date(doc!.linkWindowStart).toISOString(),
      dueAt: new Date().toISOString(),
      firedAt: new Date().toISOString(),
    };
    await bus.publish(Topics.deadlines, [{ key: abandoned.body.applicationId, value: deadline }]);
    await waitFor(async () => (await view(abandoned.body.applicationId, keyless.apiKey)).body.status === 'ABANDONED', {
      what: 'ABANDONED',
    });
    const removed = await fetch(`${gateway.url}/admin/clients/${keyless.clientId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', 'x-admin-token': 'local-admin-token' },
      body: JSON.stringify({ providerSecretKey: null }),
    });
    expect(removed.status).toBe(200);
    expect((await action(randomUUID(), 'link-account', keyless.apiKey)).status).toBe(404);
    expect((await action(pending.body.applicationId, 'link-account', other.apiKey)).status).toBe(404);
    const terminal = await action(abandoned.body.applicationId, 'link-account', keyless.apiKey);
    expect(terminal.body).toEqual({
      statusCode: 400,
      message: 'Cannot link accounts for application with status: ABANDONED',
      error: 'Bad Request',
    });
    const open = await action(pending.body.applicationId, 'link-account', keyless.apiKey);
    expect(open.body).toEqual({
      statusCode: 500,
      message: expect.stringMatching(/provider API key is not configured/),
      error: 'Internal Server Error',
    });
  });

  it('when an ABANDONED application is initiated again with its key, then it is PENDING_LINKING again with resumed true', async () => {
    const body = applicant();
    const first = await initiate(body);
    const doc = await applications.runtime.db
      .model('Application')
      .findById(first.body.applicationId)
      .lean<{ linkWindowStart: Date }>();
    const deadline: DeadlinePassed = {
      deadlineId: randomUUID(),
      kind: 'no_link',
      clientId: lender.clientId,
      applicationId: first.body.applicationId,
      accountId: null,
      attempt: null,
      since: new Date(doc!.linkWindowStart).toISOString(),
      dueAt: new Date().toISOString(),
      firedAt: new Date().toISOString(),
    };
    await bus.publish(Topics.deadlines, [{ key: first.body.applicationId, value: deadline }]);
    await waitFor(async () => (await view(first.body.applicationId)).body.status === 'ABANDONED', {
      what: 'ABANDONED',
    });
    const again = await initiate(body);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      applicationId: first.body.applicationId,
      status: 'PENDING_LINKING',
      resumed: true,
    });
    expect((await view(first.body.applicationId)).body.status).toBe('PENDING_LINKING');
  });

  it('when another replica changed an application after this one last wrote it, then the next decisions here start from that change', async () => {
    const body = applicant();
    const first = await initiate(body);
    const { applicationId } = first.body;
    const model = applications.runtime.db.model('Application');
    const other = async (rev: number, fields: Record<string, unknown>) =>
      expect(
        (await model.updateOne({ _id: applicationId, rev }, { $set: { ...fields, rev: rev + 1 } })).modifiedCount,
      ).toBe(1);
    // Another replica abandoned it: finalize is refused for what the application is now, not for what this process wrote.
    await other(1, { status: 'ABANDONED', abandonReason: 'no_link' });
    const finalize = await action(applicationId, 'finalize-linking');
    expect(finalize.status).toBe(400);
    expect(finalize.body.message).toBe('Cannot finalize linking for application with status: ABANDONED');
    // Back to PENDING_LINKING here (resume), then another replica gives it a new widget address.
    const resumed = await initiate(body);
    expect(resumed.body).toMatchObject({ applicationId, status: 'PENDING_LINKING', resumed: true });
    const doc = await model.findById(applicationId).lean<{ rev: number; linkWindowStart: Date }>();
    await other(doc!.rev, { widgetUrl: 'https://link.example/other-replica' });
    const deadline: DeadlinePassed = {
      deadlineId: randomUUID(),
      kind: 'no_link',
      clientId: lender.clientId,
      applicationId,
      accountId: null,
      attempt: null,
      since: new Date(doc!.linkWindowStart).toISOString(),
      dueAt: new Date().toISOString(),
      firedAt: new Date().toISOString(),
    };
    await bus.publish(Topics.deadlines, [{ key: applicationId, value: deadline }]);
    await waitFor(async () => (await view(applicationId)).body.status === 'ABANDONED', { what: 'ABANDONED' });
    // The abandonment was written on top of the other replica's change, not over it.
    const after = await model.findById(applicationId).lean<{ rev: number; widgetUrl: string }>();
    expect(after).toMatchObject({ rev: doc!.rev + 2, widgetUrl: 'https://link.example/other-replica' });
  });
});

describe('limits and timeouts shared by replicas', () => {
  it('when a lender exceeds the initiate limit across two gateway replicas, then the next request is 429 with Retry-After', async () => {
    // An hour-long window keeps a window boundary from falling between the requests.
    const settings = { RATE_LIMIT_INITIATE: '3', RATE_LIMIT_GLOBAL: '4', RATE_LIMIT_WINDOW: '1h' };
    const a = await startGateway(ns, settings);
    const b = await startGateway(ns, settings);
    try {
      const limited = await createClient(a.url);
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await initiate(applicant(), limited.apiKey, i % 2 ? b.url : a.url)).status);
      const over = await initiate(applicant(), limited.apiKey, b.url);
      expect(over.status).toBe(429);
      expect(statuses).toEqual([201, 201, 201]);
      expect(over.body).toEqual({
        statusCode: 429,
        message: expect.stringMatching(/Rate limit/),
        error: 'Too Many Requests',
      });
      const retryAfter = Number(over.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      // analyze has a limit of its own, so it is not refused by the initiate window
      expect((await call(a.url, limited.apiKey, 'POST', `/api/applications/${randomUUID()}/analyze`)).status).toBe(404);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('when the reply does not come in time, then 500, and the retry with the same key finds the one application', async () => {
    const impatient = await startGateway(ns, { ...limits, REPLY_TIMEOUT: '1ms' });
    try {
      const body = applicant();
      const first = await initiate(body, lender.apiKey, impatient.url);
      expect(first.status).toBe(500);
      expect(first.body).toMatchObject({
        statusCode: 500,
        error: 'Internal Server Error',
        message: expect.stringMatching(/retry/),
      });
      const model = applications.runtime.db.model('Application');
      await waitFor(async () => (await model.countDocuments({ idempotencyKey: body.idempotencyKey })) === 1, {
        what: 'the command to be processed',
      });
      const retry = await initiate(body);
      expect(retry.status).toBe(200);
      expect(retry.body.resumed).toBe(true);
      expect(await model.countDocuments({ idempotencyKey: body.idempotencyKey })).toBe(1);
    } finally {
      await impatient.stop();
    }
  });
});

describe('provider webhooks', () => {
  it('when a webhook comes without the right mono-webhook-secret, then it is refused with 401 and nothing is linked', async () => {
    const res = await initiate(applicant());
    const body = {
      event: 'mono.events.account_connected',
      event_id: randomUUID(),
      data: { id: 'forged-account', meta: { ref: res.body.applicationId } },
    };
    for (const secret of [undefined, 'guessed-secret']) {
      const forged = await fetch(`${gateway.url}/provider/webhooks/mono`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(secret ? { 'mono-webhook-secret': secret } : {}) },
        body: JSON.stringify(body),
      });
      expect(forged.status).toBe(401);
      expect(await forged.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
    }
    const metrics = await (await fetch(`${gateway.opsUrl}/metrics`)).text();
    expect(metrics).toMatch(/gateway_provider_webhooks_total\{[^}]*outcome="rejected"[^}]*\} 2/);
    // A real link afterwards still works, and the forged account never appeared.
    await linkAccount(res.body.widgetUrl);
    const v = await waitFor(
      async () => {
        const r = await view(res.body.applicationId);
        return r.body.accounts.length === 1 ? r.body : null;
      },
      { what: 'the real link' },
    );
    expect(v.accounts[0].providerAccountId).not.toBe('forged-account');
  });

  it('when a lender has a provider app of its own, then its webhooks are verified with its secret and touch only its applications', async () => {
    const secretA = `whsec-a-${randomUUID()}`;
    const secretB = `whsec-b-${randomUUID()}`;
    const a = await createClient(gateway.url, { providerWebhookSecret: secretA });
    const b = await createClient(gateway.url, { providerWebhookSecret: secretB });
    const keyless = await createClient(gateway.url);
    const shown = await fetch(`${gateway.url}/admin/clients/${a.clientId}`, {
      headers: { 'x-admin-token': 'local-admin-token' },
    });
    const described = await shown.json();
    expect(described).toMatchObject({ providerWebhookSecretConfigured: true });
    expect(JSON.stringify(described)).not.toContain(secretA);
    // A real provider account, linked to one of A's applications the usual way.
    const first = await initiate(applicant(), a.apiKey);
    const { providerAccountId } = await linkAccount(first.body.widgetUrl);
    await waitFor(async () => (await view(first.body.applicationId, a.apiKey)).body.accounts.length === 1, {
      what: 'the first link',
    });
    const second = await initiate(applicant(), a.apiKey);
    const theirs = await initiate(applicant(), b.apiKey);
    const connected = (ref: string) => ({
      event: 'mono.events.account_connected',
      event_id: randomUUID(),
      data: { id: providerAccountId, meta: { ref } },
    });
    const send = (clientId: string, secret: string, body: unknown) =>
      fetch(`${gateway.url}/provider/webhooks/mono/${clientId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'mono-webhook-secret': secret },
        body: JSON.stringify(body),
      });
    // Another client's secret, the shared secret, or a client without a secret of its own: 401.
    for (const [clientId, secret] of [
      [a.clientId, secretB],
      [a.clientId, 'sandbox-webhook-secret'],
      [keyless.clientId, secretA],
      [randomUUID(), secretA],
      ['not-an-id', secretA],
    ] as const) {
      const refused = await send(clientId, secret, connected(second.body.applicationId));
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({
        statusCode: 401,
        message: 'Invalid webhook secret',
        error: 'Unauthorized',
      });
    }
    // A's own secret, about B's application: accepted by the edge, ignored by the owner.
    expect((await send(a.clientId, secretA, connected(theirs.body.applicationId))).status).toBe(200);
    // A's own secret, about A's application: linked (same account, same partition, so after the one above).
    expect((await send(a.clientId, secretA, connected(second.body.applicationId))).status).toBe(200);
    await waitFor(async () => (await view(second.body.applicationId, a.apiKey)).body.accounts.length === 1, {
      what: "A's callback to link A's application",
    });
    const untouched = await view(theirs.body.applicationId, b.apiKey);
    expect(untouched.body).toMatchObject({ status: 'PENDING_LINKING', accounts: [] });
  });

  it('when a webhook is accepted, then its callback names its kind in a header, so consumers pass over kinds they ignore undecoded', async () => {
    const seen: { kind: string; header: string | undefined }[] = [];
    await bus.consume({
      groupId: `kinds-${randomUUID()}`,
      topics: [Topics.providerCallbacks],
      fromBeginning: true,
      handle: async (m) =>
        void seen.push({ kind: (m.value as { kind: string }).kind, header: m.headers['x-fact-type'] }),
    });
    const res = await initiate(applicant());
    const income = {
      event: 'mono.events.account_income',
      event_id: randomUUID(),
      data: { account: { id: `acct-${randomUUID()}` } },
    };
    const sent = await fetch(`${gateway.url}/provider/webhooks/mono`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mono-webhook-secret': 'sandbox-webhook-secret' },
      body: JSON.stringify(income),
    });
    expect(sent.status).toBe(200);
    await linkAccount(res.body.widgetUrl);
    await waitFor(
      () => seen.some((s) => s.kind === 'account_connected') && seen.some((s) => s.kind === 'income_ready'),
      {
        what: 'both callbacks on the topic',
      },
    );
    expect(seen.every((s) => s.header === s.kind)).toBe(true);
  });

  it('when the provider sends the same webhook twice, then the account is linked once', async () => {
    const res = await initiate(applicant());
    await linkAccount(res.body.widgetUrl);
    const v = await waitFor(
      async () => {
        const r = await view(res.body.applicationId);
        return r.body.accounts.length === 1 ? r.body : null;
      },
      { what: 'the link' },
    );
    const again = {
      event: 'mono.events.account_connected',
      event_id: randomUUID(),
      data: { id: v.accounts[0].providerAccountId, meta: { ref: res.body.applicationId, data_status: 'AVAILABLE' } },
    };
    const replay = await fetch(`${gateway.url}/provider/webhooks/mono`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mono-webhook-secret': 'sandbox-webhook-secret' },
      body: JSON.stringify(again),
    });
    expect(replay.status).toBe(200);
    const marker = await initiate(applicant({ idempotencyKey: `marker-${randomUUID()}` }));
    await linkAccount(marker.body.widgetUrl);
    await waitFor(async () => (await view(marker.body.applicationId)).body.accounts.length === 1, {
      what: 'a later link to be handled',
    });
    expect((await view(res.body.applicationId)).body.accounts).toHaveLength(1);
  });
});

describe('webhook URLs at registration', () => {
  const admin = (url: string, method: string, path: string, body: unknown) =>
    fetch(`${url}/admin${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-admin-token': 'local-admin-token' },
      body: JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }));

  it.each([
    ['plain http', 'http://hooks.lender.ng/events', /must use https/],
    ['a loopback address', 'https://127.0.0.1/events', /127\.0\.0\.1 is not a public address/],
    ['an IPv4-compatible loopback', 'https://[::127.0.0.1]/events', /is not a public address/],
    ['cloud metadata', 'https://169.254.169.254/latest', /is not a public address/],
    ['an internal name', 'https://notifier.internal/hook', /is not a public name/],
    ['another scheme', 'ftp://hooks.lender.ng/events', /must use https, not ftp/],
  ])(
    'when a client is created with %s as its webhook URL in production mode, then 400 says why and no client exists',
    async (_what, webhookUrl, why) => {
      const res = await admin(gateway2.url, 'POST', '/clients', {
        name: `Refused ${randomUUID().slice(0, 4)}`,
        webhookUrl,
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ statusCode: 400, message: expect.stringMatching(why), error: 'Bad Request' });
      expect(String(res.body.message)).toMatch(/^webhookUrl is refused: /);
    },
  );

  it('when a client changes its webhook URL to a private one, then 400 and the URL it had stays', async () => {
    const created = await admin(gateway2.url, 'POST', '/clients', {
      name: 'Public hooks',
      webhookUrl: 'https://hooks.lender.ng/events',
    });
    expect(created.status).toBe(201);
    const changed = await admin(gateway2.url, 'PATCH', `/clients/${String(created.body.clientId)}`, {
      webhookUrl: 'https://10.0.0.8/hook',
    });
    expect(changed.status).toBe(400);
    expect(changed.body.message).toMatch(/10\.0\.0\.8 is not a public address/);
    const now = await fetch(`${gateway2.url}/admin/clients/${String(created.body.clientId)}`, {
      headers: { 'x-admin-token': 'local-admin-token' },
    });
    expect(((await now.json()) as { webhookUrl: string }).webhookUrl).toBe('https://hooks.lender.ng/events');
  });

  it('when private targets are allowed (a local stack), then an http loopback receiver is accepted, but never another scheme', async () => {
    expect(
      (await admin(gateway.url, 'POST', '/clients', { name: 'Local hooks', webhookUrl: 'http://127.0.0.1:9000/hooks' }))
        .status,
    ).toBe(201);
    expect(
      (await admin(gateway.url, 'POST', '/clients', { name: 'Files', webhookUrl: 'file:///etc/passwd' })).status,
    ).toBe(400);
  });
});

describe('guessing keys and admin tokens', () => {
  /** A gateway behind one trusted proxy, so each test speaks from addresses of its own. */
  const from = (address: string) => ({ 'x-forwarded-for': address });
  const get = (url: string, headers: Record<string, string>) =>
    fetch(`${url}/api/applications/${randomUUID()}`, { headers });
  /** A malformed id: once authenticated, the gateway answers 404 itself, without a command. */
  const read = (url: string, headers: Record<string, string>) =>
    fetch(`${url}/api/applications/not-an-application-id`, { headers });
  const listClients = (url: string, token: string, address: string) =>
    fetch(`${url}/admin/clients/${lender.clientId}`, { headers: { 'x-admin-token': token, ...from(address) } });

  it('when an address sends many requests without any credential, then it is not throttled: its valid admin token and API key still pass', async () => {
    const guarded = await startGateway(ns, { AUTH_FAILURE_LIMIT: '3', AUTH_FAILURE_WINDOW: '10m', TRUST_PROXY: '1' });
    try {
      for (let i = 0; i < 10; i++) {
        expect((await get(guarded.url, from('203.0.113.40'))).status).toBe(401);
        expect((await listClients(guarded.url, '', '203.0.113.40')).status).toBe(401);
      }
      expect((await listClients(guarded.url, 'local-admin-token', '203.0.113.40')).status).toBe(200);
      expect((await read(guarded.url, { 'x-api-key': lender.apiKey, ...from('203.0.113.40') })).status).toBe(404);
    } finally {
      await guarded.stop();
    }
  });

  it('when an address is throttled for wrong keys, then a valid API key from it still passes, wrong keys get 429, and the admin token is refused until the window ends', async () => {
    const guarded = await startGateway(
      ns,
      { AUTH_FAILURE_LIMIT: '3', AUTH_FAILURE_WINDOW: '10m', TRUST_PROXY: '1' },
      windowClock(10 * 60_000),
    );
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await get(guarded.url, { 'x-api-key': `guess-${i}`, ...from('203.0.113.41') })).status);
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      expect((await read(guarded.url, { 'x-api-key': lender.apiKey, ...from('203.0.113.41') })).status).toBe(404);
      // A wrong key is still refused with 429 after its check, a right admin token before its check (docs/security.md says why).
      expect((await get(guarded.url, { 'x-api-key': 'guess-again', ...from('203.0.113.41') })).status).toBe(429);
      expect((await listClients(guarded.url, 'local-admin-token', '203.0.113.41')).status).toBe(429);
    } finally {
      await guarded.stop();
    }
  });

  it('when a lender is answered 403 for idempotency keys again and again, then its address is not throttled: business answers are no failed authentication', async () => {
    const guarded = await startGateway(ns, {
      ...limits,
      AUTH_FAILURE_LIMIT: '2',
      AUTH_FAILURE_WINDOW: '10m',
      TRUST_PROXY: '1',
      REPLY_TIMEOUT: '1m',
    });
    try {
      const body = applicant();
      const headers = (key: string) => ({
        'x-api-key': key,
        'content-type': 'application/json',
        ...from('203.0.113.42'),
      });
      const post = (key: string) =>
        fetch(`${guarded.url}/api/applications/initiate`, {
          method: 'POST',
          headers: headers(key),
          body: JSON.stringify(body),
        });
      expect((await post(other.apiKey)).status).toBe(201);
      for (let i = 0; i < 4; i++) expect((await post(lender.apiKey)).status).toBe(403);
      expect((await listClients(guarded.url, 'local-admin-token', '203.0.113.42')).status).toBe(200);
      expect((await read(guarded.url, { 'x-api-key': lender.apiKey, ...from('203.0.113.42') })).status).toBe(404);
    } finally {
      await guarded.stop();
    }
  });

  it('when a burst of wrong keys and admin tokens arrives at once at two replicas, then no more than the limit of them are answered 401', async () => {
    const settings = { AUTH_FAILURE_LIMIT: '4', AUTH_FAILURE_WINDOW: '10m', TRUST_PROXY: '1' };
    // One clock for both replicas: the burst falls in one window of theirs.
    const clock = windowClock(10 * 60_000);
    const [one, two] = [await startGateway(ns, settings, clock), await startGateway(ns, settings, clock)];
    try {
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => {
          const url = i % 2 ? one.url : two.url;
          return (
            i % 3
              ? get(url, { 'x-api-key': `burst-${i}`, ...from('203.0.113.43') })
              : listClients(url, `burst-${i}`, '203.0.113.43')
          ).then((r) => r.status);
        }),
      );
      expect(answers.filter((s) => s === 401)).toHaveLength(4);
      expect(answers.filter((s) => s === 429)).toHaveLength(26);
    } finally {
      await one.stop();
      await two.stop();
    }
  });

  it('when wrong keys come from many IPv6 addresses of one /64, then they are counted as one address; another /64 is not held back', async () => {
    const guarded = await startGateway(
      ns,
      { AUTH_FAILURE_LIMIT: '3', AUTH_FAILURE_WINDOW: '10m', TRUST_PROXY: '1' },
      windowClock(10 * 60_000),
    );
    try {
      const statuses: number[] = [];
      for (let i = 1; i <= 5; i++)
        statuses.push((await get(guarded.url, { 'x-api-key': `v6-${i}`, ...from(`2001:db8:44:7:${i}::${i}`) })).status);
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      expect((await get(guarded.url, { 'x-api-key': 'v6-other', ...from('2001:db8:44:8::1') })).status).toBe(401);
    } finally {
      await guarded.stop();
    }
  });

  it('when the same wrong key is sent again and again, then the database is asked once per cache period, and every answer is 401', async () => {
    // The clients created so far have had their outboxes emptied: the new gateway's start-up
    // sweep has nothing to publish again, and every lookup counted below is a key's.
    await waitFor(
      async () => (await gateway.runtime.db.collection('clients').countDocuments({ outboxPending: true })) === 0,
      {
        what: 'the outboxes of the clients emptied',
      },
    );
    const lookups = await startGateway(ns, { ...limits, API_KEY_CACHE_TTL: '1m' });
    try {
      const finds = async () =>
        (await lookups.runtime.metrics.databaseCommands.get()).values
          .filter((v) => v.labels.collection === 'clients' && v.labels.command === 'find')
          .reduce((sum, v) => sum + v.value, 0);
      const before = await finds();
      for (let i = 0; i < 10; i++) {
        const res = await call(lookups.url, 'lk_not-a-key-of-anyone', 'GET', `/api/applications/${randomUUID()}`);
        expect(res.body).toEqual({ statusCode: 401, message: 'Invalid API key', error: 'Unauthorized' });
      }
      expect((await finds()) - before).toBe(1);
      // A real key still passes through the same gateway (to the body check, here).
      expect((await call(lookups.url, lender.apiKey, 'POST', '/api/applications/initiate', {})).status).toBe(400);
    } finally {
      await lookups.stop();
    }
  });

  it('when a lender gives up on requests before their answers, then its address is not throttled as if it had failed authentication', async () => {
    const guarded = await startGateway(ns, { ...limits, AUTH_FAILURE_LIMIT: '3', AUTH_FAILURE_WINDOW: '10m' });
    try {
      const { hostname: host, port } = new URL(guarded.url);
      // Ten reads with a good key, each cut off by the client once sent (a client-side timeout).
      for (let i = 0; i < 10; i++) {
        await new Promise<void>((resolve, reject) => {
          const socket = net.connect(Number(port), host, () => {
            socket.write(
              `GET /api/applications/${randomUUID()} HTTP/1.1\r\nHost: ${host}\r\nx-api-key: ${lender.apiKey}\r\n\r\n`,
              () =>
                setTimeout(() => {
                  socket.destroy();
                  resolve();
                }, 2),
            );
          });
          socket.on('error', reject);
        });
      }
      // A malformed id is answered 404 by the gateway itself, without asking the service behind.
      const answered = await call(guarded.url, lender.apiKey, 'GET', '/api/applications/not-an-application-id');
      expect(answered.status).toBe(404);
    } finally {
      await guarded.stop();
    }
  });

  it('when one address keeps failing authentication, then it gets 429 before any lookup, also when it rotates X-Forwarded-For; admin changes leave an audit line without secrets', async () => {
    const logs = captureLogs();
    const guarded = await startGateway(
      ns,
      { AUTH_FAILURE_LIMIT: '5', AUTH_FAILURE_WINDOW: '10m', TRUST_PROXY: '1', LOG_LEVEL: 'info' },
      windowClock(10 * 60_000),
    );
    try {
      // One trusted hop: only the address the proxy appended counts, whatever the client put first.
      const from = (i: number) => ({ 'x-forwarded-for': `203.0.113.${i}, 198.51.100.7` });
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        const res = await fetch(`${guarded.url}/api/applications/${randomUUID()}`, {
          headers: { 'x-api-key': `guess-${i}`, ...from(i) },
        });
        statuses.push(res.status);
        if (res.status === 429) {
          expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
          expect(await res.json()).toEqual({
            statusCode: 429,
            message: expect.stringContaining('failed authentications'),
            error: 'Too Many Requests',
          });
        }
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
      const admin = await fetch(`${guarded.url}/admin/clients`, {
        method: 'POST',
        headers: { 'x-admin-token': 'guess', 'content-type': 'application/json', ...from(99) },
        body: '{}',
      });
      expect(admin.status).toBe(429);
      // Another address is not held back.
      const created = await fetch(`${guarded.url}/admin/clients`, {
        method: 'POST',
        headers: {
          'x-admin-token': 'local-admin-token',
          'content-type': 'application/json',
          'x-forwarded-for': '198.51.100.8',
        },
        body: JSON.stringify({ name: 'Audited', providerSecretKey: 'test_sk_audit_secret' }),
      });
      expect(created.status).toBe(201);
      const { clientId, apiKey, webhookSecret } = (await created.json()) as {
        clientId: string;
        apiKey: string;
        webhookSecret: string;
      };
      const auditLines = logs.lines().filter((line) => line.includes('"audit"'));
      expect(auditLines.map((line) => JSON.parse(line).audit)).toEqual([
        {
          action: 'client.create',
          actor: 'admin',
          adminName: 'admin',
          clientId,
          changed: ['name', 'providerSecretKey'],
          ip: '198.51.100.8',
          correlationId: null,
        },
      ]);
      for (const secret of [apiKey, webhookSecret, 'test_sk_audit_secret'])
        expect(auditLines.join('\n')).not.toContain(secret);
    } finally {
      await guarded.stop();
    }
  });
});
