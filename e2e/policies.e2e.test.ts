import { BUILTIN_POLICY, Decision, type CreditPolicy } from '@loan/contracts';
import { waitFor } from '../testing/helpers';
import { applicant, call, createClient, startWholeStack, suiteNamespace } from '../testing/stack';

/**
 * A lender's own credit policy, as the lender sees it through the gateway with the whole stack:
 * a draft replayed on its past applications, shadow-tested as the challenger, then activated;
 * another lender's decisions and policies are untouched and out of its sight.
 */
const ns = suiteNamespace();
let stack: Awaited<ReturnType<typeof startWholeStack>>;
let other: { clientId: string; apiKey: string };

beforeAll(async () => {
  stack = await startWholeStack(ns, {
    ENRICHMENT_TIMEOUT: '2m',
    ANALYSIS_TIMEOUT: '30s',
    WEBHOOK_RETRY_BASE: '300ms',
    RATE_LIMITS_ENABLED: 'false',
  });
  other = await createClient(stack.gatewayUrl, { webhookUrl: `${stack.receiver.url}/other` });
});

afterAll(async () => {
  await stack?.stop();
});

const asLender = (method: string, path: string, body?: unknown) =>
  call(stack.gatewayUrl, stack.lender.apiKey, method, path, body);
const asOther = (method: string, path: string, body?: unknown) =>
  call(stack.gatewayUrl, other.apiKey, method, path, body);

const eventsOf = (applicationId: string, name: string) =>
  stack.receiver.received.map((r) => r.body).filter((b) => b.data?.applicationId === applicationId && b.event === name);

/**
 * The same sandbox applicant and ask for every lender: a senior salary (₦1.1-1.3m a month, the
 * persona's range), a clean bureau file, and an ask whose instalment (about ₦203,000) takes
 * 15-23% of any income in that range: within the built-in third, never within a tenth, whatever
 * the account's seed.
 */
const PERSONA = 'salaried_high';
const ASK = { bvn: '22200000001', amount: 1_800_000, tenor: 12, interestRate: 5 };

/** Initiates, links an account of the persona, finalizes, analyzes and waits for the decision webhook. */
async function decided(as: typeof asLender): Promise<{ applicationId: string; decision: Decision }> {
  const start = await as('POST', '/api/applications/initiate', applicant(ASK));
  expect(start.status).toBe(201);
  const { applicationId, widgetUrl } = start.body;
  const linked = await fetch(`${new URL(widgetUrl).origin}/sandbox/link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ widgetUrl, persona: PERSONA }),
  });
  expect(linked.status).toBe(200);
  await waitFor(() => eventsOf(applicationId, 'account.enrichment_ready')[0], {
    timeoutMs: 60_000,
    what: 'account.enrichment_ready',
  });
  expect((await as('POST', `/api/applications/${applicationId}/finalize-linking`)).status).toBe(200);
  await waitFor(() => eventsOf(applicationId, 'application.ready_for_analysis')[0], {
    timeoutMs: 30_000,
    what: 'ready_for_analysis',
  });
  expect((await as('POST', `/api/applications/${applicationId}/analyze`)).status).toBe(200);
  const event = await waitFor(() => eventsOf(applicationId, 'application.decision')[0], {
    timeoutMs: 60_000,
    what: 'application.decision',
  });
  return { applicationId, decision: Decision.parse(event.data.decision) };
}

/** A lender that lets repayments take at most a tenth of income. */
const tenPercent = (): CreditPolicy => ({
  ...structuredClone(BUILTIN_POLICY),
  name: 'Repayments within 10% of income',
  affordability: { ...structuredClone(BUILTIN_POLICY.affordability), maxDebtServiceRatio: 0.1 },
});

describe('a lender\u2019s own credit policy', () => {
  it('when a lender caps the debt-service ratio at 10%, then simulate shows the change on its past applications, the challenger disagrees in its report and in no webhook, activation changes its decisions only, and the other lender sees none of it', async () => {
    // Under the built-in policy: approved.
    const past = await decided(asLender);
    expect(past.decision).toMatchObject({ decision: 'APPROVED', policy_version: 0 });
    expect((await asLender('GET', '/api/policies')).body).toMatchObject({
      active: { version: 0, builtin: true, status: 'ACTIVE' },
      challenger: null,
    });

    // A bad draft is refused, naming the fields.
    const bad = await asLender('POST', '/api/policies', {
      ...tenPercent(),
      affordability: { ...tenPercent().affordability, maxDebtServiceRatio: 0.9, tenors: [] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/affordability\.maxDebtServiceRatio.*affordability\.tenors/);

    const created = await asLender('POST', '/api/policies', tenPercent());
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'DRAFT', policy: { affordability: { maxDebtServiceRatio: 0.1 } } });
    const version: number = created.body.version;

    // Simulate: the past application would be decided otherwise.
    const simulated = await asLender('POST', `/api/policies/${version}/simulate`, { limit: 100 });
    expect(simulated.status).toBe(200);
    expect(simulated.body.evaluated).toBe(1);
    expect(simulated.body.current.APPROVED).toBe(1);
    const change = simulated.body.changed.find(
      (c: { applicationId: string }) => c.applicationId === past.applicationId,
    );
    expect(change).toMatchObject({ from: 'APPROVED' });
    expect(change.to).not.toBe('APPROVED');

    // The other lender sees none of it.
    expect((await asOther('GET', `/api/policies/${version}`)).status).toBe(404);
    expect((await asOther('POST', `/api/policies/${version}/simulate`, {})).status).toBe(404);
    expect((await asOther('POST', `/api/policies/${version}/activate`)).status).toBe(404);
    expect((await asOther('POST', `/api/policies/${version}/challenger`)).status).toBe(404);
    expect((await asOther('GET', '/api/policies')).body.versions).toHaveLength(1);

    // The challenger decides in the shadow: its disagreement is in the report, not in a webhook.
    expect((await asLender('POST', `/api/policies/${version}/challenger`)).status).toBe(200);
    const shadowed = await decided(asLender);
    expect(shadowed.decision).toMatchObject({ decision: 'APPROVED', policy_version: 0 });
    const report = await asLender('GET', '/api/policies/challenger/report');
    expect(report.status).toBe(200);
    expect(report.body.disagreements).toEqual([
      expect.objectContaining({
        applicationId: shadowed.applicationId,
        active: { version: 0, decision: 'APPROVED' },
        challenger: expect.objectContaining({ version, decision: change.to }),
      }),
    ]);
    const hooks = stack.receiver.received.filter((r) => r.body?.data?.applicationId === shadowed.applicationId);
    expect(hooks.length).toBeGreaterThan(0);
    for (const hook of hooks) expect(hook.raw.toString('utf8')).not.toMatch(/challenger/i);
    expect((await asOther('GET', '/api/policies/challenger/report')).status).toBe(404);

    // Activated: the lender's next decision for the same applicant and ask differs, naming the version.
    const activated = await asLender('POST', `/api/policies/${version}/activate`);
    expect(activated.status).toBe(200);
    expect(activated.body).toMatchObject({ version, status: 'ACTIVE' });
    const mine = await decided(asLender);
    expect(mine.decision).toMatchObject({ decision: change.to, policy_version: version });
    const theirs = await decided(asOther);
    expect(theirs.decision).toMatchObject({ decision: 'APPROVED', policy_version: 0 });

    // The decisions made before stay as they were; a retired version cannot come back.
    expect((await asLender('GET', `/api/applications/${past.applicationId}`)).body.decision).toMatchObject({
      decision: 'APPROVED',
      policy_version: 0,
    });
    expect((await asLender('POST', '/api/policies/0/activate')).status).toBe(400);
    expect((await asLender('GET', '/api/policies/12345')).status).toBe(404);

    // The console serves the same API with its session, and the audit names who acted.
    const session = await consoleSignIn(stack.lender.apiKey);
    const listed = await fetch(`${stack.gatewayUrl}/console/api/policies`, { headers: { cookie: session.cookie } });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { active: { version: number } }).active.version).toBe(version);
    const drafted = await fetch(`${stack.gatewayUrl}/console/api/policies`, {
      method: 'POST',
      headers: {
        cookie: session.cookie,
        'content-type': 'application/json',
        origin: stack.gatewayUrl,
        'x-csrf-token': session.csrfToken,
      },
      body: JSON.stringify(BUILTIN_POLICY),
    });
    expect(drafted.status).toBe(201);
    const scoring = stack.services.find((s) => s.name === 'scoring')!;
    const changes = await scoring.runtime.db
      .collection('policy_changes')
      .find({ clientId: stack.lender.clientId })
      .sort({ at: 1 })
      .toArray();
    expect(changes.map(({ version: v, action, actor }) => ({ version: v, action, actor }))).toEqual([
      { version, action: 'create', actor: `api-key:${stack.lender.clientId}` },
      { version, action: 'set_challenger', actor: `api-key:${stack.lender.clientId}` },
      { version, action: 'activate', actor: `api-key:${stack.lender.clientId}` },
      { version: version + 1, action: 'create', actor: `console:${stack.lender.clientId}` },
    ]);
  });
});

/** Signs in to the console with an API key: the session cookie and its CSRF token. */
async function consoleSignIn(apiKey: string) {
  const url = stack.gatewayUrl;
  const first = await fetch(`${url}/console/session`);
  const { csrfToken: signInToken } = (await first.json()) as { csrfToken: string };
  const signInCookie = first.headers.getSetCookie()[0]!.split(';')[0]!;
  const res = await fetch(`${url}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url, 'x-csrf-token': signInToken, cookie: signInCookie },
    body: JSON.stringify({ apiKey }),
  });
  expect(res.status).toBe(200);
  const { csrfToken } = (await res.json()) as { csrfToken: string };
  const cookie = res.headers
    .getSetCookie()
    .find((c) => c.startsWith('console_session='))!
    .split(';')[0]!;
  return { cookie, csrfToken };
}
