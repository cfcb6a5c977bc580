import { execFile, spawnSync } from 'node:child_process';
import { createPublicKey, randomUUID, verify } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';

// The gateway runs in this process: the examples run beside it, never blocking its event loop.
const run = promisify(execFile);
import type { Decision } from '@loan/contracts';
import { applicant, call, decidedApplication, startGateway, startLenderApi, suiteNamespace } from '@testing/stack';
import { Examples } from './entry-points/http/openapi/examples';

/**
 * Decision records over real HTTP: `GET /api/applications/:id/decision-record` signs the
 * decision as a compact JWS and `/.well-known/jwks.json` publishes the key. The records are
 * verified here with Node's own crypto (Ed25519 over the JWS signing input, RFC 7515 and
 * RFC 8037), not with the library that signed them, against the real broker and database.
 */
const ns = suiteNamespace();
let stack: Awaited<ReturnType<typeof startLenderApi>>;

beforeAll(async () => {
  stack = await startLenderApi(ns, 'decision-record-test');
});

afterAll(async () => {
  await stack?.stop();
});

const api = (method: string, path: string, key: string = stack.lender.apiKey) =>
  call(stack.gateway.url, key, method, path);

/** An application of the lender decided APPROVED, as scoring would report it. */
const approved = () =>
  decidedApplication(
    { gatewayUrl: stack.gateway.url, bus: stack.bus, applications: stack.applications },
    stack.lender,
    (applicantId) => ({
      decision: { ...(Examples.decision as unknown as Decision), applicant_id: applicantId },
      repaymentCapacity: 100_000,
    }),
  );

interface Jwk {
  kty: string;
  crv: string;
  x: string;
  kid: string;
  alg: string;
}

async function keySet(url = stack.gateway.url): Promise<{ keys: Jwk[]; contentType: string | null }> {
  const res = await fetch(`${url}/.well-known/jwks.json`);
  expect(res.status).toBe(200);
  return { ...((await res.json()) as { keys: Jwk[] }), contentType: res.headers.get('content-type') };
}

/** Verifies a compact JWS with Node's crypto and the published key its header names: its header and payload, or null. */
function verified(jws: string, keys: Jwk[]) {
  const [header64, payload64, signature64] = jws.split('.');
  const header = JSON.parse(Buffer.from(header64!, 'base64url').toString('utf8'));
  const jwk = keys.find((k) => k.kid === header.kid);
  if (!jwk || header.alg !== 'EdDSA') return null;
  const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
  const ok = verify(null, Buffer.from(`${header64}.${payload64}`), key, Buffer.from(signature64!, 'base64url'));
  return ok ? { header, payload: JSON.parse(Buffer.from(payload64!, 'base64url').toString('utf8')) } : null;
}

describe('decision records', () => {
  it('when a decided application’s record is asked for, then it is a JWS that verifies with the published key, carries the decision and no personal data, and a changed byte breaks it', async () => {
    const app = await approved();
    const res = await api('GET', `/api/applications/${app.applicationId}/decision-record`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ applicationId: app.applicationId, jwks: '/.well-known/jwks.json' });
    const { keys, contentType } = await keySet();
    expect(contentType).toMatch(/^application\/jwk-set\+json/);
    expect(keys).toEqual([
      { kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid: res.body.kid, alg: 'EdDSA', use: 'sig' },
    ]);

    const record = verified(res.body.record, keys);
    expect(record).not.toBeNull();
    expect(record!.header).toEqual({ alg: 'EdDSA', kid: res.body.kid, typ: 'loan-decision-record+jws' });
    const view = (await api('GET', `/api/applications/${app.applicationId}`)).body;
    expect(record!.payload).toMatchObject({
      iss: 'loan-application-service',
      iat: expect.any(Number),
      sub: app.applicationId,
      applicantId: app.applicantId,
      lender: { clientId: stack.lender.clientId },
      ask: { amount: view.loan.amount, tenor: view.loan.tenor, interestRate: view.loan.interestRate },
      decision: {
        outcome: 'APPROVED',
        decidedAt: view.decision.timestamp,
        score: view.decision.score,
        score_breakdown: view.decision.score_breakdown,
        risk_factors: view.decision.risk_factors,
        approval_details: view.decision.approval_details,
        scorecard_version: view.decision.scorecard_version,
      },
      review: null,
      contest: null,
      standingOutcome: 'APPROVED',
    });
    expect(record!.payload.inputs.accounts).toEqual([
      expect.objectContaining({
        institution: view.accounts[0].institution,
        accountNumberLast4: view.accounts[0].accountNumber.slice(-4),
      }),
    ]);
    // No one is named in it: not the applicant, their e-mail, their phone, nor the whole account number.
    const text = Buffer.from(res.body.record.split('.')[1], 'base64url').toString('utf8');
    for (const personal of [
      applicant().firstName,
      applicant().lastName,
      applicant().email,
      applicant().phone,
      view.accounts[0].accountNumber,
    ])
      expect(text).not.toContain(personal);

    // One changed character of the payload, or of the signature, and it no longer verifies.
    const [h, p, s] = res.body.record.split('.') as [string, string, string];
    const altered = Buffer.from(p, 'base64url').toString('utf8').replace('"APPROVED"', '"DECLINED"');
    expect(verified(`${h}.${Buffer.from(altered).toString('base64url')}.${s}`, keys)).toBeNull();
    const flipped = s.slice(0, -2) + (s.at(-2) === 'A' ? 'B' : 'A') + s.at(-1);
    expect(verified(`${h}.${p}.${flipped}`, keys)).toBeNull();
  });

  const EXAMPLES = path.join(__dirname, '../../../examples/decision-record');
  /** A Python with PyJWT and its crypto extra, for the Python example; without one that test is skipped (and says so). */
  const python = ['python3', 'python'].find(
    (bin) => spawnSync(bin, ['-c', 'import jwt, cryptography'], { stdio: 'ignore' }).status === 0,
  );

  async function decidedRecord() {
    const app = await approved();
    const res = await api('GET', `/api/applications/${app.applicationId}/decision-record`);
    expect(res.status).toBe(200);
    return { applicationId: app.applicationId, record: res.body.record as string };
  }

  it('when the documented JavaScript example verifies a record with jose, then it prints the record, and refuses one signed by another key', async () => {
    const { applicationId, record } = await decidedRecord();
    const { stdout: out } = await run(
      process.execPath,
      [path.join(EXAMPLES, 'verify.mjs'), record, `${stack.gateway.url}/.well-known/jwks.json`],
      {
        encoding: 'utf8',
      },
    );
    expect(JSON.parse(out)).toMatchObject({
      verified: true,
      record: { sub: applicationId, standingOutcome: 'APPROVED' },
    });
    // Signed by a gateway with another data key: the published keys do not verify it.
    const stranger = await startGateway(ns, {
      RATE_LIMITS_ENABLED: 'false',
      DATA_KEY: 'another-data-key-for-this-test',
    });
    try {
      const refused = await run(
        process.execPath,
        [path.join(EXAMPLES, 'verify.mjs'), record, `${stranger.url}/.well-known/jwks.json`],
        { encoding: 'utf8' },
      ).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => error,
      );
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.stderr)).toMatchObject({ verified: false });
    } finally {
      await stranger.stop();
    }
  });

  (python ? it : it.skip)(
    'when the documented Python example verifies a record with PyJWT, then it prints the record',
    async () => {
      const { applicationId, record } = await decidedRecord();
      const { stdout: out } = await run(
        python!,
        [path.join(EXAMPLES, 'verify.py'), record, `${stack.gateway.url}/.well-known/jwks.json`],
        {
          encoding: 'utf8',
        },
      );
      expect(JSON.parse(out)).toMatchObject({
        verified: true,
        record: { sub: applicationId, iss: 'loan-application-service' },
      });
    },
  );

  it('when another gateway starts with the same data key, then it publishes the same key, so that records signed before a restart still verify', async () => {
    const second = await startGateway(ns, { RATE_LIMITS_ENABLED: 'false' });
    try {
      expect((await keySet(second.url)).keys).toEqual((await keySet()).keys);
    } finally {
      await second.stop();
    }
  });

  it('when the application is not decided, unknown or another lender’s, then 400 or 404 says so', async () => {
    const opened = await call(
      stack.gateway.url,
      stack.lender.apiKey,
      'POST',
      '/api/applications/initiate',
      applicant(),
    );
    expect(opened.status).toBe(201);
    const early = await api('GET', `/api/applications/${opened.body.applicationId}/decision-record`);
    expect([early.status, early.body.message]).toEqual([
      400,
      'Application has no decision yet (status: PENDING_LINKING)',
    ]);
    for (const [id, key] of [
      [randomUUID(), stack.lender.apiKey],
      ['not-a-uuid', stack.lender.apiKey],
      [opened.body.applicationId, stack.other.apiKey],
    ] as const) {
      const res = await api('GET', `/api/applications/${id}/decision-record`, key);
      expect([res.status, res.body.message]).toEqual([404, 'Application not found']);
    }
    expect(
      (await fetch(`${stack.gateway.url}/api/applications/${opened.body.applicationId}/decision-record`)).status,
    ).toBe(401);
  });
});
