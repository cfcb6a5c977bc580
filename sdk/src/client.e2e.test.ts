import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { PROVIDER_KEY_MISSING_MESSAGE } from '@loan/contracts';
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  createLoanClient,
  LoanClientError,
  LoanConnectionError,
  LoanServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  verifyWebhook,
  type LoanClient,
  type RetryInfo,
  type WebhookEvent,
} from '@loan/client';
import { waitFor, windowClock as newWindowClock } from '../../testing/helpers';
import {
  applicant,
  createClient,
  startGateway,
  startWholeStack,
  suiteNamespace,
  type Running,
} from '../../testing/stack';

/**
 * The client against the whole stack: every service, the sandbox, the real broker, registry and
 * database. Where a fault is needed (an answer lost after the gateway acted, a hung connection)
 * a proxy between the client and the real gateway injects it.
 */
const ns = suiteNamespace();
let stack: Awaited<ReturnType<typeof startWholeStack>>;
let client: LoanClient;
const fast = { baseDelayMs: 20, maxDelayMs: 100 };

beforeAll(async () => {
  stack = await startWholeStack(ns, { WEBHOOK_RETRY_BASE: '200ms', RATE_LIMITS_ENABLED: 'false' });
  client = createLoanClient({ apiKey: stack.lender.apiKey, baseUrl: stack.gatewayUrl, retry: fast });
});

afterAll(async () => {
  await stack?.stop();
});

async function link(widgetUrl: string, persona = 'salaried') {
  const res = await fetch(`${new URL(widgetUrl).origin}/sandbox/link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ widgetUrl, persona }),
  });
  expect(res.status).toBe(200);
}

/** Events the lender's receiver got for one application, each verified with the SDK. */
function verifiedEvents(applicationId: string): WebhookEvent[] {
  return stack.receiver.received
    .map((r) => verifyWebhook(r.raw, r.headers['x-signature'] as string, [stack.lender.webhookSecret]))
    .filter((e) => 'applicationId' in e.data && e.data.applicationId === applicationId);
}

/** An applicant for initiate without an idempotencyKey: the client makes one. */
const newApplicant = (overrides: Record<string, unknown> = {}) => {
  const { idempotencyKey: _key, ...rest } = applicant(overrides);
  return rest;
};

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('@loan/client against the running service', () => {
  it('when a lender drives an application from initiate to decision, then every call answers typed and the webhooks verify', async () => {
    const started = await client.initiate(newApplicant({ bvn: '22200000001' }));
    expect(started).toMatchObject({ status: 'PENDING_LINKING', resumed: false });
    expect(started.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    const resumed = await client.initiate({
      ...newApplicant({ bvn: '22200000001' }),
      idempotencyKey: started.idempotencyKey,
    });
    expect(resumed).toMatchObject({
      applicationId: started.applicationId,
      applicantId: started.applicantId,
      resumed: true,
    });
    const { applicationId } = started;

    expect(await client.getApplication(applicationId)).toMatchObject({
      applicationId,
      status: 'PENDING_LINKING',
      accounts: [],
    });

    await link(resumed.widgetUrl);
    await waitFor(() => verifiedEvents(applicationId).some((e) => e.event === 'account.enrichment_ready'), {
      timeoutMs: 60_000,
      what: 'account.enrichment_ready',
    });
    const relinked = await client.linkAccount(applicationId);
    expect(relinked).toMatchObject({
      applicationId,
      accountId: null,
      widgetUrl: expect.stringMatching(/^http/),
      status: 'LINKED',
    });

    expect(await client.finalizeLinking(applicationId)).toMatchObject({ applicationId, status: 'LINKED' });
    const ready = await waitFor(
      () => verifiedEvents(applicationId).find((e) => e.event === 'application.ready_for_analysis'),
      {
        timeoutMs: 60_000,
        what: 'application.ready_for_analysis',
      },
    );
    expect(ready.event === 'application.ready_for_analysis' && ready.data.accountCount).toBe(1);

    expect(await client.analyze(applicationId)).toMatchObject({ applicationId, status: 'PROCESSING' });
    const decided = await waitFor(
      () =>
        verifiedEvents(applicationId).find(
          (e): e is Extract<WebhookEvent, { event: 'application.decision' }> => e.event === 'application.decision',
        ),
      { timeoutMs: 60_000, what: 'application.decision' },
    );
    const view = await client.getApplication(applicationId);
    expect(view).toMatchObject({ status: 'COMPLETED', linkingLocked: true });
    expect(view.decision).toEqual(decided.data.decision);
    expect(view.accounts).toEqual([expect.objectContaining({ enrichmentStatus: 'READY' })]);

    // The delivery log: a page, every page through the iterator, one delivery, a redelivery.
    const page = await client.listDeliveries({ applicationId, limit: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.nextCursor).toEqual(expect.any(String));
    const all = [];
    for await (const d of client.deliveries({ applicationId, limit: 2 })) all.push(d);
    const names = all.map((d) => d.event).sort();
    expect(names).toEqual(
      verifiedEvents(applicationId)
        .map((e) => e.event)
        .filter((e, i, a) => a.indexOf(e) === i)
        .sort(),
    );
    expect(all.every((d) => d.status === 'DELIVERED')).toBe(true);
    const decisionDelivery = all.find((d) => d.event === 'application.decision')!;
    expect(await client.getDelivery(decisionDelivery.id)).toMatchObject({
      id: decisionDelivery.id,
      eventId: decided.id,
      status: 'DELIVERED',
    });

    const sent = stack.receiver.received.length;
    expect(await client.redeliver(decisionDelivery.id)).toMatchObject({ id: decisionDelivery.id, status: 'PENDING' });
    await waitFor(() => stack.receiver.received.slice(sent).some((r) => r.body.id === decided.id), {
      what: 'the redelivered decision',
    });
    const again = await waitFor(async () => {
      const d = await client.getDelivery(decisionDelivery.id);
      return d.status === 'DELIVERED' && d;
    });
    expect(again.attempts.length).toBeGreaterThan(decisionDelivery.attempts.length);
  });

  it('when deliveries failed, then replayDeliveries re-queues them', async () => {
    const since = new Date().toISOString();
    // A lender whose receiver is down: nothing listens on port 9 of loopback.
    const down = await createClient(stack.gatewayUrl, { webhookUrl: 'http://127.0.0.1:9/hooks' });
    const downClient = createLoanClient({ apiKey: down.apiKey, baseUrl: stack.gatewayUrl, retry: fast });
    const started = await downClient.initiate(newApplicant());
    await link(started.widgetUrl);
    const failed = await waitFor(
      async () =>
        (
          await downClient.listDeliveries({
            applicationId: started.applicationId,
            event: 'account.linked',
            status: 'FAILED',
          })
        ).data[0],
      { timeoutMs: 60_000, what: 'a FAILED account.linked delivery' },
    );
    expect(failed.attempts.length).toBeGreaterThan(1);

    const replayed = await downClient.replayDeliveries({ since, event: 'account.linked' });
    expect(replayed).toEqual({ count: 1, more: false });
    // A replay starts a full round of attempts again.
    await waitFor(async () => (await downClient.getDelivery(failed.id)).attempts.length > failed.attempts.length, {
      what: 'a new attempt of the replayed delivery',
    });
    // The key of one lender never reaches another's log.
    await expect(client.getDelivery(failed.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('when the API refuses a call, then the error is of the status’s class and carries the spec’s error shape', async () => {
    const invalid = (await rejection(client.initiate(newApplicant({ email: 'not-an-email' })))) as BadRequestError;
    expect(invalid).toBeInstanceOf(BadRequestError);
    expect(invalid.toJSON()).toEqual({
      statusCode: 400,
      message: expect.stringContaining('email'),
      error: 'Bad Request',
    });
    expect(invalid.retriable).toBe(false);
    expect(invalid.requestId).toEqual(expect.any(String));

    const missing = (await rejection(client.getApplication(randomUUID()))) as NotFoundError;
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ statusCode: 404, message: 'Application not found', error: 'Not Found' });

    const started = await client.initiate(newApplicant());
    const early = (await rejection(client.finalizeLinking(started.applicationId))) as BadRequestError;
    expect(early).toBeInstanceOf(BadRequestError);
    expect(early.message).toBe('Cannot finalize linking for application with status: PENDING_LINKING');
    await expect(client.analyze(started.applicationId)).rejects.toBeInstanceOf(BadRequestError);

    const stranger = await createClient(stack.gatewayUrl);
    const strangerClient = createLoanClient({ apiKey: stranger.apiKey, baseUrl: stack.gatewayUrl, retry: fast });
    const taken = (await rejection(
      strangerClient.initiate({ ...newApplicant(), idempotencyKey: started.idempotencyKey }),
    )) as PermissionDeniedError;
    expect(taken).toBeInstanceOf(PermissionDeniedError);
    expect(taken.statusCode).toBe(403);
    await expect(strangerClient.getApplication(started.applicationId)).rejects.toBeInstanceOf(NotFoundError);

    await link(started.widgetUrl);
    await waitFor(async () => (await client.getApplication(started.applicationId)).status === 'LINKED', {
      timeoutMs: 30_000,
    });
    const conflict = (await rejection(
      client.initiate({ ...newApplicant(), idempotencyKey: started.idempotencyKey }),
    )) as ConflictError;
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict.statusCode).toBe(409);

    // Re-linking one account names it back, with a fresh widget address.
    const [account] = (await client.getApplication(started.applicationId)).accounts;
    const relinked = await client.linkAccount(started.applicationId, { accountId: account!.accountId });
    expect(relinked).toMatchObject({
      applicationId: started.applicationId,
      accountId: account!.accountId,
      widgetUrl: expect.stringMatching(/^http/),
    });
    await expect(client.linkAccount(started.applicationId, { accountId: randomUUID() })).rejects.toBeInstanceOf(
      LoanClientError,
    );

    const anonymous = createLoanClient({ apiKey: 'lk_not_a_key', baseUrl: stack.gatewayUrl, retry: fast });
    const unauthenticated = (await rejection(anonymous.listDeliveries())) as AuthenticationError;
    expect(unauthenticated).toBeInstanceOf(AuthenticationError);
    expect(unauthenticated.message).toBe('Invalid API key');
  });

  it('when the service answers 500 every time, then the call is retried up to the limit and throws LoanServerError', async () => {
    const keyless = await createClient(stack.gatewayUrl, { providerSecretKey: undefined });
    const retries: RetryInfo[] = [];
    const keylessClient = createLoanClient({
      apiKey: keyless.apiKey,
      baseUrl: stack.gatewayUrl,
      retry: { ...fast, maxRetries: 2 },
      onRetry: (r) => retries.push(r),
    });
    const error = (await rejection(keylessClient.initiate(newApplicant()))) as LoanServerError;
    expect(error).toBeInstanceOf(LoanServerError);
    expect(error).toMatchObject({
      statusCode: 500,
      message: PROVIDER_KEY_MISSING_MESSAGE,
      error: 'Internal Server Error',
      retriable: true,
    });
    expect(retries.map((r) => [r.retry, r.statusCode])).toEqual([
      [1, 500],
      [2, 500],
    ]);
    expect(new Set(retries.map((r) => r.requestId)).size).toBe(1);
  });
});

/** What the proxy saw of one request. */
interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A proxy to the real gateway that can spoil one answer: `fault(seen)` returns `'500'` to
 * forward the request and answer 500 instead of the gateway's answer, `'drop'` to forward it
 * and cut the connection without an answer, `'hang'` to never answer, or nothing to pass it on.
 */
async function faultyProxy(target: string, fault: (seen: Seen, index: number) => '500' | 'drop' | 'hang' | undefined) {
  const seen: Seen[] = [];
  const upstreamAnswers: { status: number; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry: Seen = {
        method: req.method!,
        path: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const index = seen.push(entry) - 1;
      const mode = fault(entry, index);
      if (mode === 'hang') return;
      const upstream = httpRequest(
        new URL(req.url!, target),
        { method: req.method, headers: { ...req.headers, host: new URL(target).host } },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            const body = Buffer.concat(parts).toString('utf8');
            upstreamAnswers.push({ status: answer.statusCode!, body });
            if (mode === 'drop') {
              req.socket.destroy();
            } else if (mode === '500') {
              res
                .writeHead(500, { 'content-type': 'application/json' })
                .end(
                  JSON.stringify({ statusCode: 500, message: 'Internal server error', error: 'Internal Server Error' }),
                );
            } else {
              res
                .writeHead(answer.statusCode!, { 'content-type': answer.headers['content-type'] ?? 'application/json' })
                .end(body);
            }
          });
        },
      );
      upstream.end(entry.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    upstreamAnswers,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('@loan/client retries', () => {
  it('when initiate got a 500 after the service had opened the application, then the retry carries the same key and no second application is opened', async () => {
    const proxy = await faultyProxy(stack.gatewayUrl, (s, i) =>
      s.path.endsWith('/initiate') && i === 0 ? '500' : undefined,
    );
    const retries: RetryInfo[] = [];
    const viaProxy = createLoanClient({
      apiKey: stack.lender.apiKey,
      baseUrl: proxy.url,
      retry: fast,
      onRetry: (r) => retries.push(r),
    });
    try {
      const result = await viaProxy.initiate(newApplicant());
      expect(retries).toEqual([expect.objectContaining({ retry: 1, statusCode: 500 })]);
      expect(proxy.seen).toHaveLength(2);
      const [first, second] = proxy.seen.map((s) => JSON.parse(s.body) as { idempotencyKey: string });
      expect(first!.idempotencyKey).toBe(result.idempotencyKey);
      expect(second!.idempotencyKey).toBe(result.idempotencyKey);
      expect(proxy.seen[0]!.headers['x-correlation-id']).toBe(proxy.seen[1]!.headers['x-correlation-id']);
      // The first attempt opened the application (201); the retry found it and resumed it (200).
      expect(proxy.upstreamAnswers.map((a) => a.status)).toEqual([201, 200]);
      const opened = JSON.parse(proxy.upstreamAnswers[0]!.body) as { applicationId: string };
      expect(result).toMatchObject({ applicationId: opened.applicationId, resumed: true });
      expect(await client.getApplication(result.applicationId)).toMatchObject({ status: 'PENDING_LINKING' });
    } finally {
      await proxy.close();
    }
  });

  it('when the connection drops before the answer, then the call is retried and answers as if nothing happened', async () => {
    const proxy = await faultyProxy(stack.gatewayUrl, (s, i) => (i === 0 ? 'drop' : undefined));
    const retries: RetryInfo[] = [];
    const viaProxy = createLoanClient({
      apiKey: stack.lender.apiKey,
      baseUrl: proxy.url,
      retry: fast,
      onRetry: (r) => retries.push(r),
    });
    try {
      const result = await viaProxy.initiate(newApplicant());
      expect(retries).toEqual([expect.objectContaining({ retry: 1, statusCode: null })]);
      const opened = JSON.parse(proxy.upstreamAnswers[0]!.body) as { applicationId: string };
      expect(result.applicationId).toBe(opened.applicationId);
    } finally {
      await proxy.close();
    }
  });

  it('when the service never answers, then each attempt times out and the call throws LoanConnectionError; a cancelled call is not retried', async () => {
    const proxy = await faultyProxy(stack.gatewayUrl, () => 'hang');
    const viaProxy = createLoanClient({
      apiKey: stack.lender.apiKey,
      baseUrl: proxy.url,
      timeoutMs: 300,
      retry: { ...fast, maxRetries: 1 },
    });
    try {
      const error = (await rejection(viaProxy.getApplication(randomUUID()))) as LoanConnectionError;
      expect(error).toBeInstanceOf(LoanConnectionError);
      expect(error.retriable).toBe(true);
      expect(error.message).toContain('after 2 attempt(s)');
      expect(proxy.seen).toHaveLength(2);

      const controller = new AbortController();
      const pending = viaProxy.getApplication(randomUUID(), { signal: controller.signal, timeoutMs: 60_000 });
      await waitFor(() => proxy.seen.length === 3);
      controller.abort();
      const aborted = (await rejection(pending)) as Error;
      expect(aborted.name).toBe('AbortError');
      expect(proxy.seen).toHaveLength(3);
    } finally {
      await proxy.close();
    }
  });

  describe('with the rate limits on', () => {
    let limited: Running;
    const windowClock = newWindowClock(8_000);

    beforeAll(async () => {
      // A second gateway replica of the same stack with one initiate a client per 8-second
      // window, on a clock the test moves to a window's start before it counts.
      limited = await startGateway(
        ns,
        {
          RATE_LIMITS_ENABLED: 'true',
          RATE_LIMIT_INITIATE: '1',
          RATE_LIMIT_WINDOW: '8s',
        },
        windowClock,
      );
    });

    afterAll(async () => {
      await limited?.stop();
    });

    it('when over the limit, then the client waits the Retry-After the gateway sent and the call succeeds; with no wait allowed it throws RateLimitError', async () => {
      const lender = await createClient(limited.url);
      const retries: RetryInfo[] = [];
      const patient = createLoanClient({
        apiKey: lender.apiKey,
        baseUrl: limited.url,
        retry: fast,
        onRetry: (r) => retries.push(r),
      });
      // Both initiates fall in one window, however near its end the test got here.
      windowClock.toWindowStart();
      const first = await patient.initiate(newApplicant());
      const second = await patient.initiate(newApplicant());
      expect(second.applicationId).not.toBe(first.applicationId);
      expect(retries.some((r) => r.statusCode === 429)).toBe(true);
      const waited = retries.find((r) => r.statusCode === 429)!;
      expect(waited.delayMs).toBeGreaterThanOrEqual(1_000);
      expect(waited.delayMs).toBeLessThanOrEqual(9_000);

      const impatient = createLoanClient({
        apiKey: lender.apiKey,
        baseUrl: limited.url,
        retry: { ...fast, maxRateLimitWaitMs: 0 },
      });
      let error: unknown;
      for (let i = 0; i < 5 && !error; i++)
        error = await impatient.initiate(newApplicant()).then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({ statusCode: 429, error: 'Too Many Requests', retriable: true });
      expect((error as RateLimitError).retryAfterMs).toBeGreaterThan(0);
      expect((error as RateLimitError).retryAfterMs).toBeLessThanOrEqual(8_000);
    });
  });
});
