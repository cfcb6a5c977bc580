import { verifyWebhook } from '../../../sdk/src/webhooks';
import { waitFor } from '@testing/helpers';
import {
  applicant,
  call,
  captureLogs,
  createClient,
  isolatedRegistry,
  startApplications,
  startGateway,
  startNotifier,
  startReceiver,
  startSandbox,
  suiteNamespace,
  type Running,
} from '@testing/stack';

/**
 * The lender's own account over real HTTP (`/api/client`): settings, webhook URL, and the
 * rotation of its API key and webhook secret, with the notifier signing real webhooks.
 */
const ns = suiteNamespace();
const logs = captureLogs();
const services: Running[] = [];
let gateway: Running;
let applications: Running;
let registry: Awaited<ReturnType<typeof isolatedRegistry>>;
const sharedRegistry = process.env.SCHEMA_REGISTRY_URL;
let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  // The schemas of this branch, whatever other branches register on a shared registry meanwhile.
  registry = await isolatedRegistry(`test-${ns}`);
  process.env.SCHEMA_REGISTRY_URL = registry.url;
  receiver = await startReceiver();
  const notifier = await startNotifier(ns, { LOG_LEVEL: 'warn' });
  gateway = await startGateway(ns, {
    NOTIFIER_URL: notifier.url,
    LOG_LEVEL: 'info',
    RATE_LIMIT_INITIATE: '1000',
    RATE_LIMIT_GLOBAL: '1000',
    AUTH_FAILURE_LIMIT: '1000',
  });
  sandbox = await startSandbox(`${gateway.url}/provider/webhooks/mono`);
  applications = await startApplications(ns, { PROVIDER_BASE_URL: sandbox.url, LOG_LEVEL: 'warn' });
  services.push(notifier, gateway, applications);
});

afterAll(async () => {
  for (const s of services.reverse()) await s.stop();
  await sandbox?.stop();
  await receiver?.close();
  await registry?.close();
  process.env.SCHEMA_REGISTRY_URL = sharedRegistry;
});

const client = (key: string | null, method: string, path = '', body?: unknown) =>
  call(gateway.url, key, method, `/api/client${path}`, body);
const auditOf = (clientId: string) =>
  logs
    .lines()
    .filter((line) => line.includes('"audit"') && line.includes(clientId))
    .map((line) => JSON.parse(line).audit);

describe('GET and PATCH /api/client', () => {
  it('when a lender reads its account, then it sees its own settings and no key or secret', async () => {
    const lender = await createClient(gateway.url, { name: 'Acme Lending', webhookUrl: `${receiver.url}/a` });
    const other = await createClient(gateway.url, { providerSecretKey: undefined });
    const res = await client(lender.apiKey, 'GET');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      clientId: lender.clientId,
      name: 'Acme Lending',
      webhookUrl: `${receiver.url}/a`,
      webhookSecrets: [{ createdAt: expect.any(String), validUntil: null }],
      providerKeyConfigured: true,
      reviewConfirmationAbove: null,
      timeZone: 'Africa/Lagos',
      recordRetentionYears: 5,
    });
    expect(JSON.stringify(res.body)).not.toContain(lender.webhookSecret);
    expect(res.headers.get('x-ratelimit-limit')).toBe('1000');
    const theirs = await client(other.apiKey, 'GET');
    expect(theirs.body).toMatchObject({ clientId: other.clientId, webhookUrl: null });
  });

  it('when a lender sets its webhook URL, then events go there, and the change is audited as the client’s', async () => {
    const lender = await createClient(gateway.url);
    const res = await client(lender.apiKey, 'PATCH', '', { webhookUrl: `${receiver.url}/patched` });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ clientId: lender.clientId, webhookUrl: `${receiver.url}/patched` });
    expect((await client(lender.apiKey, 'GET')).body.webhookUrl).toBe(`${receiver.url}/patched`);
    expect(auditOf(lender.clientId)).toContainEqual({
      action: 'client.update',
      actor: 'client',
      clientId: lender.clientId,
      changed: ['webhookUrl'],
      ip: expect.any(String),
      correlationId: null,
    });
    // Events of its applications are delivered to the new URL.
    const started = await call(gateway.url, lender.apiKey, 'POST', '/api/applications/initiate', applicant());
    await fetch(`${sandbox.url}/sandbox/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ widgetUrl: started.body.widgetUrl, persona: 'salaried' }),
    });
    await waitFor(
      () =>
        receiver.received.find(
          (r) => r.body?.data?.applicationId === started.body.applicationId && r.body.event === 'account.linked',
        ),
      { what: 'account.linked at the patched URL', timeoutMs: 60_000 },
    );
    const cleared = await client(lender.apiKey, 'PATCH', '', { webhookUrl: null });
    expect(cleared.body.webhookUrl).toBeNull();
  });

  it.each([
    [{}, /^webhookUrl, reviewConfirmationAbove, timeZone or recordRetentionYears is required$/],
    [{ webhookUrl: 'not a url' }, /^webhookUrl must be a URL or null$/],
    [{ webhookUrl: 'ftp://lender.example/hooks' }, /^webhookUrl is refused: the webhook URL must use https, not ftp$/],
    [
      { webhookUrl: null, providerSecretKey: 'sk' },
      /^Unknown field providerSecretKey; only webhookUrl, reviewConfirmationAbove, timeZone and recordRetentionYears can be changed$/,
    ],
    ['[]', /./],
  ])('when the body is %j, then 400 naming the field', async (body, message) => {
    const lender = await createClient(gateway.url);
    const res = await client(lender.apiKey, 'PATCH', '', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, message: expect.stringMatching(message), error: 'Bad Request' });
  });

  it.each([
    [4, /^recordRetentionYears must be at least 5 \(FCCPC: records are kept 5 years\)$/],
    [0, /^recordRetentionYears must be at least 5/],
    [11, /^recordRetentionYears must be at most 10$/],
    [5.5, /^recordRetentionYears must be a whole number of years$/],
    ['7', /^recordRetentionYears must be a whole number of years or null$/],
    [true, /^recordRetentionYears must be a whole number of years or null$/],
  ])(
    'when recordRetentionYears is %j, then 400 in the error shape and the retention stays as it was',
    async (value, message) => {
      const lender = await createClient(gateway.url);
      const res = await client(lender.apiKey, 'PATCH', '', { recordRetentionYears: value });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ statusCode: 400, message: expect.stringMatching(message), error: 'Bad Request' });
      expect((await client(lender.apiKey, 'GET')).body.recordRetentionYears).toBe(5);
    },
  );

  it('when a lender sets its record retention, then its account shows it, the applications service holds it for the records of its applications, and null sets it back to 5 years', async () => {
    const lender = await createClient(gateway.url);
    expect((await client(lender.apiKey, 'GET')).body.recordRetentionYears).toBe(5);
    const set = await client(lender.apiKey, 'PATCH', '', { recordRetentionYears: 7 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ clientId: lender.clientId, recordRetentionYears: 7 });
    expect((await client(lender.apiKey, 'GET')).body.recordRetentionYears).toBe(7);
    expect(auditOf(lender.clientId)).toContainEqual(expect.objectContaining({ changed: ['recordRetentionYears'] }));
    const held = (years: number) =>
      applications.runtime.db
        .collection('client_settings')
        .findOne({ _id: lender.clientId as never, recordRetentionYears: years });
    await waitFor(() => held(7), { what: "the lender's retention at the applications service" });

    const reset = await client(lender.apiKey, 'PATCH', '', { recordRetentionYears: null });
    expect(reset.body.recordRetentionYears).toBe(5);
    await waitFor(() => held(5), { what: 'the default retention at the applications service' });
  });

  it('when the key is missing or wrong, then 401 on every route of the account', async () => {
    for (const [method, path] of [
      ['GET', ''],
      ['PATCH', ''],
      ['POST', '/rotate-key'],
      ['POST', '/rotate-webhook-secret'],
    ] as const) {
      const missing = await client(null, method, path, method === 'PATCH' ? { webhookUrl: null } : undefined);
      expect(missing.body).toEqual({ statusCode: 401, message: 'Missing x-api-key header', error: 'Unauthorized' });
      expect((await client('lk_not_a_key', method, path)).status).toBe(401);
    }
  });
});

describe('POST /api/client/rotate-key', () => {
  it('when a lender rotates its key, then the new key works and the old one is refused at once', async () => {
    const lender = await createClient(gateway.url);
    // The old key is in the gateway's cache of verified keys before the rotation.
    expect((await call(gateway.url, lender.apiKey, 'GET', '/api/applications')).status).toBe(200);
    const res = await client(lender.apiKey, 'POST', '/rotate-key');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ clientId: lender.clientId, apiKey: expect.stringMatching(/^lk_/) });
    expect(res.body.apiKey).not.toBe(lender.apiKey);
    const old = await call(gateway.url, lender.apiKey, 'GET', '/api/applications');
    expect(old.body).toEqual({ statusCode: 401, message: 'Invalid API key', error: 'Unauthorized' });
    expect((await client(lender.apiKey, 'POST', '/rotate-key')).status).toBe(401);
    const fresh = await call(gateway.url, res.body.apiKey, 'GET', '/api/client');
    expect(fresh.body.clientId).toBe(lender.clientId);
    expect(auditOf(lender.clientId)).toContainEqual(
      expect.objectContaining({ action: 'client.rotate-key', actor: 'client', changed: [] }),
    );
    expect(logs.lines().join('\n')).not.toContain(res.body.apiKey);
  });
});

describe('POST /api/client/rotate-webhook-secret', () => {
  it('when a lender rotates its webhook secret, then webhooks are signed with the new secret and, during the overlap, with the old one too', async () => {
    const lender = await createClient(gateway.url, { webhookUrl: `${receiver.url}/rotating` });
    const res = await client(lender.apiKey, 'POST', '/rotate-webhook-secret', { overlapSeconds: 3600 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      clientId: lender.clientId,
      webhookSecret: expect.stringMatching(/^whsec_/),
      previousSecretValidUntil: expect.any(String),
    });
    const overlapEnds = Date.parse(res.body.previousSecretValidUntil);
    expect(overlapEnds - Date.now()).toBeGreaterThan(3500_000);
    const settings = (await client(lender.apiKey, 'GET')).body;
    expect(settings.webhookSecrets).toEqual([
      { createdAt: expect.any(String), validUntil: null },
      { createdAt: expect.any(String), validUntil: res.body.previousSecretValidUntil },
    ]);
    expect(auditOf(lender.clientId)).toContainEqual(
      expect.objectContaining({ action: 'client.rotate-webhook-secret', actor: 'client' }),
    );

    const started = await call(gateway.url, lender.apiKey, 'POST', '/api/applications/initiate', applicant());
    await fetch(`${sandbox.url}/sandbox/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ widgetUrl: started.body.widgetUrl, persona: 'salaried' }),
    });
    const delivered = await waitFor(
      () => receiver.received.find((r) => r.body?.data?.applicationId === started.body.applicationId),
      { what: 'a webhook after the rotation', timeoutMs: 60_000 },
    );
    const raw = delivered.raw.toString('utf8');
    const header = (name: string) => String(delivered.headers[name]);
    // A receiver that knows only the new secret, and one still on the old secret, both accept it.
    expect(verifyWebhook(raw, header('x-signature'), res.body.webhookSecret).event).toBe('account.linked');
    expect(verifyWebhook(raw, header('x-signature-previous'), lender.webhookSecret).event).toBe('account.linked');
    expect(() => verifyWebhook(raw, header('x-signature'), lender.webhookSecret)).toThrow();
  });

  it('when the overlap is not a whole number of seconds within 7 days, then 400 naming it', async () => {
    const lender = await createClient(gateway.url);
    for (const overlapSeconds of [-1, 1.5, 7 * 86_400 + 1, 'soon']) {
      const res = await client(lender.apiKey, 'POST', '/rotate-webhook-secret', { overlapSeconds });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^overlapSeconds: /);
    }
    expect((await client(lender.apiKey, 'GET')).body.webhookSecrets).toHaveLength(1);
    const plain = await client(lender.apiKey, 'POST', '/rotate-webhook-secret');
    expect(plain.status).toBe(200);
  });
});
