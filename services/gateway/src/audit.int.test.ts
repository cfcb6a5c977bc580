import { createClient, startGateway, suiteNamespace, type Running } from '@testing/stack';

/**
 * The durable audit against the real database and gateway: account changes by named admin
 * callers and by the lender, and refused admin tokens, land in `audit_log` and page back newest
 * first on `GET /admin/audit`; the repository has no way to change or remove an entry early.
 */
const ns = suiteNamespace();
const opsToken = 'ops-token-of-adaeze-0123456789';
const ciToken = 'ci-token-of-the-pipeline-98765';
let gateway: Running;

beforeAll(async () => {
  gateway = await startGateway(ns, {
    ADMIN_TOKENS: `ops-adaeze:${opsToken}, ci:${ciToken}`,
    AUTH_FAILURE_LIMIT: '1000',
    RATE_LIMIT_GLOBAL: '1000',
  });
});

afterAll(async () => {
  await gateway?.stop();
});

type Entry = {
  id: string;
  at: string;
  action: string;
  actor: string;
  adminName: string | null;
  userId: string | null;
  clientId: string | null;
  details: Record<string, unknown>;
  ip: string | null;
};

async function admin(token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: {
      'x-admin-token': token,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      'x-correlation-id': `audit-${method}`,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Every entry, newest first, following the cursors a page at a time. */
async function everyEntry(limit: number): Promise<Entry[]> {
  const entries: Entry[] = [];
  let cursor: string | null = null;
  do {
    const page = await admin(
      opsToken,
      'GET',
      `/admin/audit?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(page.status).toBe(200);
    entries.push(...(page.body.items as Entry[]));
    cursor = page.body.nextCursor as string | null;
  } while (cursor);
  return entries;
}

describe('the audit of account changes and admin attempts', () => {
  it('when named admin callers and the lender change an account and a wrong admin token is tried, then the audit names each, newest first, a page at a time', async () => {
    const created = await admin(opsToken, 'POST', '/admin/clients', {
      name: 'Audited Lending',
      providerSecretKey: 'test_sk_audit',
    });
    expect(created.status).toBe(201);
    const clientId = created.body.clientId as string;
    expect((await admin(ciToken, 'POST', `/admin/clients/${clientId}/rotate-key`)).status).toBe(200);
    expect(
      (
        await admin('local-admin-token', 'PATCH', `/admin/clients/${clientId}`, {
          webhookUrl: 'http://127.0.0.1:9/hook',
        })
      ).status,
    ).toBe(200);
    expect((await admin('not-a-token-of-ours-at-all', 'GET', `/admin/clients/${clientId}`)).status).toBe(401);
    const rotated = await admin(opsToken, 'POST', `/admin/clients/${clientId}/rotate-key`);
    const lenderRotation = await fetch(`${gateway.url}/api/client/rotate-webhook-secret`, {
      method: 'POST',
      headers: { 'x-api-key': rotated.body.apiKey },
    });
    expect(lenderRotation.status).toBe(200);

    const entries = await everyEntry(2);
    const mine = entries.filter((e) => e.clientId === clientId || e.action === 'admin.denied');
    expect(mine.map((e) => [e.action, e.actor, e.adminName])).toEqual([
      ['client.rotate-webhook-secret', 'client', null],
      ['client.rotate-key', 'admin', 'ops-adaeze'],
      ['admin.denied', 'admin', null],
      ['client.update', 'admin', 'admin'],
      ['client.rotate-key', 'admin', 'ci'],
      ['client.create', 'admin', 'ops-adaeze'],
    ]);
    const times = entries.map((e) => Date.parse(e.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
    const denied = mine.find((e) => e.action === 'admin.denied')!;
    expect(denied.details).toEqual({
      method: 'GET',
      path: `/admin/clients/${clientId}`,
      reason: 'invalid admin token',
    });
    expect(mine.find((e) => e.action === 'client.update')!.details).toEqual({ changed: ['webhookUrl'] });
    // No key, secret or token is ever written to it.
    const text = JSON.stringify(entries);
    for (const secret of [
      opsToken,
      ciToken,
      'not-a-token-of-ours-at-all',
      'test_sk_audit',
      rotated.body.apiKey as string,
    ])
      expect(text).not.toContain(secret);
  });

  it('when the audit is read with a cursor it did not make, an unknown parameter or a limit out of range, then 400 in the error shape', async () => {
    for (const query of ['cursor=bm90LWEtY3Vyc29y', 'page=2', 'limit=0', 'limit=101']) {
      const res = await admin(opsToken, 'GET', `/admin/audit?${query}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ statusCode: 400, message: expect.any(String), error: 'Bad Request' });
    }
  });

  it('when the audit is asked for without an admin token, or with a lender key, then 401 and nothing is written', async () => {
    const lender = await createClient(gateway.url);
    const before = (await everyEntry(100)).length;
    expect((await fetch(`${gateway.url}/admin/audit`)).status).toBe(401);
    expect((await fetch(`${gateway.url}/admin/audit`, { headers: { 'x-api-key': lender.apiKey } })).status).toBe(401);
    expect((await everyEntry(100)).length).toBe(before);
  });

  it('when the audit repository is used, then it offers appending, paging and removing expired entries only', async () => {
    const { createAuditLog, auditModel } = await import('./data-access/auditLog');
    const log = createAuditLog({ model: auditModel(gateway.runtime.db), retentionMs: 30 * 86_400_000 });
    expect(Object.keys(log).sort()).toEqual(['append', 'expire', 'page']);
    const entry = await log.append(
      { action: 'client.update', actor: 'admin', adminName: 'ci', clientId: 'c-expire' },
      new Date(),
    );
    await log.expire(new Date(Date.now() + 29 * 86_400_000));
    expect((await everyEntry(100)).some((e) => e.id === entry.id)).toBe(true);
    await log.expire(new Date(Date.now() + 31 * 86_400_000));
    expect((await everyEntry(100)).some((e) => e.id === entry.id)).toBe(false);
  });
});
