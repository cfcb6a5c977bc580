import { startTestSandbox, type TestSandbox } from '../testing/testSandbox';

describe('bureau sandbox over HTTP', () => {
  let t: TestSandbox;

  beforeEach(async () => {
    t = await startTestSandbox({ SANDBOX_BUREAU_SLOW_DELAY: '2s' });
  });

  afterEach(async () => {
    await t.stop();
  });

  const report = (
    body: unknown,
    headers: Record<string, string> = { 'x-api-key': 'bureau-key' },
    signal?: AbortSignal,
  ) =>
    fetch(`${t.url}/bureau/v1/consumer/report`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });

  it('when the clean test BVN is looked up, then a hit with a score of about 760 comes back', async () => {
    const response = await report({ bvn: '22200000001' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      ConsumerHitResponse: { BODY: { CREDIT_SCORE_DETAILS: { CREDIT_SCORE_SUMMARY: { CREDIT_SCORE: string } } } };
    };
    expect(
      Number(body.ConsumerHitResponse.BODY.CREDIT_SCORE_DETAILS.CREDIT_SCORE_SUMMARY.CREDIT_SCORE),
    ).toBeGreaterThanOrEqual(740);
  });

  it('when the delinquent test BVN is looked up, then the score is poor', async () => {
    const body = (await (await report({ bvn: '22200000002' })).json()) as {
      ConsumerHitResponse: { BODY: { CREDIT_SCORE_DETAILS: { CREDIT_SCORE_SUMMARY: { CREDIT_RATING: string } } } };
    };
    expect(body.ConsumerHitResponse.BODY.CREDIT_SCORE_DETAILS.CREDIT_SCORE_SUMMARY.CREDIT_RATING).toBe('POOR');
  });

  it('when the no-record test BVN is looked up, then HTTP 200 carries a no-hit response', async () => {
    const response = await report({ bvn: '22200000003' });
    expect(response.status).toBe(200);
    expect(await response.json()).toHaveProperty('ConsumerNoHitResponse.HEADER.RESPONSETYPE.CODE', '2');
  });

  it('when the error test BVN is looked up, then the bureau answers 503', async () => {
    const response = await report({ bvn: '22200000005' });
    expect(response.status).toBe(503);
    expect(await response.json()).toHaveProperty('ErrorResponse');
  });

  it('when the timeout test BVN is looked up, then nothing comes back before the client gives up', async () => {
    const started = Date.now();
    await expect(report({ bvn: '22200000004' }, undefined, AbortSignal.timeout(300))).rejects.toThrow(/abort|timeout/i);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('when the timeout test BVN is looked up and the client waits long enough, then the answer eventually comes', async () => {
    const response = await report({ bvn: '22200000004' });
    expect(response.status).toBe(200);
    expect(await response.json()).toHaveProperty('ConsumerHitResponse');
  });

  it('when the API key is missing or the BVN is malformed, then it answers 401 or 400', async () => {
    expect((await report({ bvn: '22200000001' }, {})).status).toBe(401);
    expect((await report({ bvn: '2220000000' })).status).toBe(400);
    expect((await report({ bvn: 'abcdefghijk' })).status).toBe(400);
    expect((await report({})).status).toBe(400);
  });

  it('when bureau faults are armed, then bureau calls fail and provider calls do not', async () => {
    await fetch(`${t.url}/sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 502, count: 1, target: 'bureau' }),
    });
    expect((await t.api('/v2/accounts/000000000000000000000000')).status).toBe(404);
    expect((await report({ bvn: '22200000001' })).status).toBe(502);
    expect((await report({ bvn: '22200000001' })).status).toBe(200);
  });
});
