import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { call, createClient, startGateway, suiteNamespace, type Running } from '@testing/stack';

/**
 * The gateway's credit policy API forwards to scoring's internal port: the caller named and
 * authenticated, the answer passed through, scoring's trouble an error of the gateway's own.
 * Scoring is stood in for by a loopback server that records what it is asked.
 */
const ns = suiteNamespace();
const TOKEN = 'a-gateway-test-internal-token';
let gateway: Running;
let scoring: Server;
let answer: { status: number; body: string } = { status: 200, body: '{}' };
const asked: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];

beforeAll(async () => {
  scoring = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      asked.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => scoring.listen(0, '127.0.0.1', resolve));
  const scoringUrl = `http://127.0.0.1:${(scoring.address() as AddressInfo).port}`;
  gateway = await startGateway(ns, { SCORING_URL: scoringUrl, INTERNAL_TOKEN: TOKEN, RATE_LIMITS_ENABLED: 'false' });
});

afterAll(async () => {
  await gateway?.stop();
  await new Promise((resolve) => scoring.close(resolve));
});

describe('the credit policy API of the gateway', () => {
  it('when a lender calls it, then scoring is asked with the internal token, the lender and the actor, and its answer passes through', async () => {
    const lender = await createClient(gateway.url);
    answer = { status: 201, body: JSON.stringify({ version: 4, status: 'DRAFT', policy: { name: 'x' } }) };
    const created = await call(gateway.url, lender.apiKey, 'POST', '/api/policies', { name: 'x' });
    expect(created).toMatchObject({ status: 201, body: { version: 4, status: 'DRAFT' } });
    const request = asked[asked.length - 1]!;
    expect(request).toMatchObject({ method: 'POST', url: '/internal/policies', body: JSON.stringify({ name: 'x' }) });
    expect(request.headers).toMatchObject({
      'x-internal-token': TOKEN,
      'x-client-id': lender.clientId,
      'x-actor': `api-key:${lender.clientId}`,
    });

    answer = {
      status: 404,
      body: JSON.stringify({ statusCode: 404, message: 'Policy version 9 not found', error: 'Not Found' }),
    };
    const missing = await call(gateway.url, lender.apiKey, 'POST', '/api/policies/9/activate');
    expect(missing).toMatchObject({ status: 404, body: { message: 'Policy version 9 not found' } });
    expect(asked[asked.length - 1]).toMatchObject({ method: 'POST', url: '/internal/policies/9/activate' });
  });

  it('when scoring fails or refuses the gateway, then the lender gets 500 in the error shape and nothing of scoring\u2019s message', async () => {
    const lender = await createClient(gateway.url);
    for (const status of [500, 401]) {
      answer = { status, body: JSON.stringify({ statusCode: status, message: 'internal detail', error: 'x' }) };
      const res = await call(gateway.url, lender.apiKey, 'GET', '/api/policies');
      expect(res).toMatchObject({
        status: 500,
        body: {
          statusCode: 500,
          message: 'Credit policies are unavailable right now; retry the request',
          error: 'Internal Server Error',
        },
      });
    }
  });

  it('when the caller has no API key, then scoring is not asked', async () => {
    const before = asked.length;
    expect((await call(gateway.url, null, 'GET', '/api/policies')).status).toBe(401);
    expect(asked.length).toBe(before);
  });
});
