import { createPublicKey, verify } from 'node:crypto';
import { CONSENT_WORDING_VERSION, DeletionReceiptClaims } from '@loan/contracts';
import { waitFor } from '../testing/helpers';
import { applicant, call, startWholeStack, suiteNamespace } from '../testing/stack';

/**
 * Consent that lives and ends (CBN open-banking rules), as a lender and its applicant see it:
 * through the gateway, every service, the sandbox provider and a webhook receiver. A consent is
 * recorded when the account links; withdrawn through the lender, or lapsed after a period
 * without use (shortened here to 2 minutes from the default 180 days, long enough for the other tests to decide and withdraw first on a busy machine), it stops the reading, the
 * account is unlinked at the provider and its bank data erased, and a signed deletion receipt
 * can be handed to the applicant.
 */
const ns = suiteNamespace();
let stack: Awaited<ReturnType<typeof startWholeStack>>;
const IDLE_LAPSE_MS = 120_000;

beforeAll(async () => {
  stack = await startWholeStack(ns, {
    ENRICHMENT_TIMEOUT: '2m',
    WEBHOOK_RETRY_BASE: '300ms',
    RATE_LIMITS_ENABLED: 'false',
    CONSENT_IDLE_LAPSE: `${IDLE_LAPSE_MS / 1000}s`,
    // An application linked and never analyzed is abandoned this long after its first link.
    NO_ANALYZE_TTL: '90s',
  });
});

afterAll(async () => {
  await stack?.stop();
});

const api = (method: string, path: string, body?: unknown) =>
  call(stack.gatewayUrl, stack.lender.apiKey, method, path, body);
const eventsOf = (applicationId: string, name: string) =>
  stack.receiver.received.map((r) => r.body).filter((b) => b.data?.applicationId === applicationId && b.event === name);
const consentPath = (applicationId: string, accountId: string, what: 'withdraw' | 'receipt') =>
  `/api/applications/${applicationId}/accounts/${accountId}/consent/${what}`;

/** Initiates and links one salaried account through the sandbox; its account once enrichment is done. */
async function linked() {
  const start = await api('POST', '/api/applications/initiate', applicant({ bvn: '22200000001' }));
  expect(start.status).toBe(201);
  const { applicationId, widgetUrl } = start.body as { applicationId: string; widgetUrl: string };
  const link = await fetch(`${new URL(widgetUrl).origin}/sandbox/link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ widgetUrl, persona: 'salaried' }),
  });
  expect(link.status).toBe(200);
  const ready = await waitFor(() => eventsOf(applicationId, 'account.enrichment_ready')[0], {
    timeoutMs: 60_000,
    what: 'account.enrichment_ready',
  });
  return { applicationId, accountId: ready.data.accountId as string, providerAccountId: ready.data.providerAccountId };
}

/** A linked application taken through finalize and analyze to its decision. */
async function decided() {
  const app = await linked();
  expect((await api('POST', `/api/applications/${app.applicationId}/finalize-linking`)).status).toBe(200);
  await waitFor(() => eventsOf(app.applicationId, 'application.ready_for_analysis')[0], {
    timeoutMs: 30_000,
    what: 'ready_for_analysis',
  });
  expect((await api('POST', `/api/applications/${app.applicationId}/analyze`)).status).toBe(200);
  await waitFor(() => eventsOf(app.applicationId, 'application.decision')[0], {
    timeoutMs: 60_000,
    what: 'application.decision',
  });
  return app;
}

/** Verifies a compact JWS with Node's crypto (not the signing library) and the published key its header names. */
async function verified(jws: string) {
  const { keys } = (await (await fetch(`${stack.gatewayUrl}/.well-known/jwks.json`)).json()) as {
    keys: { kid: string; kty: string; crv: string; x: string }[];
  };
  const [header64, payload64, signature64] = jws.split('.');
  const header = JSON.parse(Buffer.from(header64!, 'base64url').toString('utf8'));
  const jwk = keys.find((k) => k.kid === header.kid)!;
  const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
  const ok = verify(null, Buffer.from(`${header64}.${payload64}`), key, Buffer.from(signature64!, 'base64url'));
  return ok ? { header, payload: JSON.parse(Buffer.from(payload64!, 'base64url').toString('utf8')) } : null;
}

/** The provider's answer for the account: 200 while it is linked, 404 once it is unlinked. */
const atProvider = async (providerAccountId: string) =>
  (await fetch(`${stack.sandbox.url}/v2/accounts/${providerAccountId}`, { headers: { 'mono-sec-key': 'test_sk' } }))
    .status;

describe('consent that lives and ends', () => {
  it('when the applicant withdraws consent after the decision, then reading stops, the account is unlinked and erased, a second withdrawal is refused, and the signed receipt verifies', async () => {
    const app = await decided();
    const before = (await api('GET', `/api/applications/${app.applicationId}`)).body.accounts[0];
    expect(before.consent).toMatchObject({
      status: 'ACTIVE',
      data: ['ACCOUNT_DETAILS', 'BALANCE', 'TRANSACTIONS'],
      purpose: 'CREDIT_ASSESSMENT',
      wordingVersion: CONSENT_WORDING_VERSION,
      endedAt: null,
      receipt: null,
    });
    expect(Date.parse(before.consent.expiresAt) - Date.parse(before.consent.givenAt)).toBe(365 * 86_400_000);
    // Its enrichment read the account after it linked: the lapse counts from that use.
    expect(Date.parse(before.consent.lastUsedAt)).toBeGreaterThan(Date.parse(before.consent.givenAt));
    expect(Date.parse(before.consent.lapsesAt) - Date.parse(before.consent.lastUsedAt)).toBe(IDLE_LAPSE_MS);
    expect(before.monthlyFlows.length).toBeGreaterThan(0);
    expect(await atProvider(app.providerAccountId)).toBe(200);

    const early = await api('GET', consentPath(app.applicationId, app.accountId, 'receipt'));
    expect([early.status, early.body.message]).toEqual([400, expect.stringMatching(/is still active/)]);

    const withdrawn = await api('POST', consentPath(app.applicationId, app.accountId, 'withdraw'));
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body.consent).toMatchObject({ status: 'WITHDRAWN', endReason: 'WITHDRAWN' });
    const again = await api('POST', consentPath(app.applicationId, app.accountId, 'withdraw'));
    expect([again.status, again.body.message]).toEqual([400, expect.stringMatching(/already ended \(WITHDRAWN\)/)]);

    const erased = await waitFor(() => eventsOf(app.applicationId, 'account.data_erased')[0], {
      timeoutMs: 60_000,
      what: 'account.data_erased',
    });
    const names = stack.receiver.received
      .map((r) => r.body)
      .filter((b) => b.data?.applicationId === app.applicationId && b.event.startsWith('account.'))
      .map((b) => b.event);
    expect(names.slice(-2)).toEqual(['account.consent_ended', 'account.data_erased']);
    expect(eventsOf(app.applicationId, 'account.consent_ended')).toHaveLength(1);
    expect(erased.data.receipt).toBe(consentPath(app.applicationId, app.accountId, 'receipt'));
    expect(await atProvider(app.providerAccountId)).toBe(404);

    const after = (await api('GET', `/api/applications/${app.applicationId}`)).body;
    expect(after.status).toBe('COMPLETED');
    expect(after.decision).toEqual(eventsOf(app.applicationId, 'application.decision')[0].data.decision);
    expect(after.accounts[0]).toMatchObject({
      accountNumber: `******${before.accountNumber.slice(-4)}`,
      monthlyFlows: [],
      consent: { status: 'WITHDRAWN', receipt: erased.data.receipt, unlinkedAt: erased.data.unlinkedAt },
    });

    const receipt = await api('GET', erased.data.receipt);
    expect(receipt.status).toBe(200);
    const checked = await verified(receipt.body.receipt);
    expect(checked?.header).toMatchObject({ alg: 'EdDSA', typ: 'loan-deletion-receipt+jws' });
    const claims = DeletionReceiptClaims.parse(checked!.payload);
    expect(claims.receipt).toMatchObject({
      applicationId: app.applicationId,
      accountId: app.accountId,
      consentId: before.consent.consentId,
      accountNumber: before.accountNumber.slice(-4),
      consent: { givenAt: before.consent.givenAt, endReason: 'WITHDRAWN', wordingVersion: CONSENT_WORDING_VERSION },
      unlinkedAt: erased.data.unlinkedAt,
      bankDataErasedAt: erased.data.bankDataErasedAt,
    });
    // The same receipt each time: its time is the erasure's.
    expect((await api('GET', erased.data.receipt)).body.receipt).toBe(receipt.body.receipt);
    const tampered = receipt.body.receipt.replace(/\.(.)/, (_m: string, c: string) => `.${c === 'A' ? 'B' : 'A'}`);
    expect(await verified(tampered)).toBeNull();
  });

  it('when consent is withdrawn while the application is still being assessed, or for an unknown account, or with a body, then it is refused and nothing changes', async () => {
    const app = await linked();
    const inProgress = await api('POST', consentPath(app.applicationId, app.accountId, 'withdraw'));
    expect([inProgress.status, inProgress.body.message]).toEqual([
      400,
      expect.stringMatching(/^Application is LINKED: consent can be withdrawn once it is decided or closed/),
    ]);
    const unknown = await api(
      'POST',
      consentPath(app.applicationId, '0b6a3c52-5d1e-5f7a-9c2d-7e4b1a9f3c60', 'withdraw'),
    );
    expect(unknown.status).toBe(404);
    expect((await api('POST', consentPath(app.applicationId, 'not-an-id', 'withdraw'))).status).toBe(404);
    const withBody = await api('POST', consentPath(app.applicationId, app.accountId, 'withdraw'), { reason: 'x' });
    expect(withBody.status).toBe(400);
    expect((await api('GET', `/api/applications/${app.applicationId}`)).body.accounts[0].consent.status).toBe('ACTIVE');
  });

  it('when a decided application’s link goes unused for the idle period, then its consent lapses, the account is unlinked and erased, and the receipt says LAPSED', async () => {
    const app = await decided();
    const ended = await waitFor(() => eventsOf(app.applicationId, 'account.consent_ended')[0], {
      timeoutMs: IDLE_LAPSE_MS + 60_000,
      what: 'account.consent_ended',
    });
    expect(ended.data).toMatchObject({ accountId: app.accountId, reason: 'LAPSED' });
    const erased = await waitFor(() => eventsOf(app.applicationId, 'account.data_erased')[0], {
      timeoutMs: 60_000,
      what: 'account.data_erased',
    });
    expect(await atProvider(app.providerAccountId)).toBe(404);
    const receipt = await api('GET', erased.data.receipt);
    expect(receipt.status).toBe(200);
    const claims = DeletionReceiptClaims.parse((await verified(receipt.body.receipt))!.payload);
    expect(claims.receipt.consent.endReason).toBe('LAPSED');
    const refused = await api('POST', consentPath(app.applicationId, app.accountId, 'withdraw'));
    expect([refused.status, refused.body.message]).toEqual([400, expect.stringMatching(/already ended \(LAPSED\)/)]);
  }, 360_000);

  it('when an application is abandoned without analysis, then its bank data is scrubbed and its account unlinked at the provider', async () => {
    const app = await linked();
    expect(await atProvider(app.providerAccountId)).toBe(200);
    const abandoned = await waitFor(() => eventsOf(app.applicationId, 'application.abandoned')[0], {
      timeoutMs: 200_000,
      what: 'application.abandoned',
    });
    expect(abandoned.data.reason).toBe('no_analyze');
    await waitFor(async () => (await atProvider(app.providerAccountId)) === 404, {
      timeoutMs: 30_000,
      what: 'the account to be unlinked at the provider',
    });
  }, 300_000);
});
