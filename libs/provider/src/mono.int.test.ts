import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@loan/runtime';
import { waitFor } from '@testing/helpers';
import { ProviderError, createMonoClient } from './mono';

/**
 * Contract of the Mono client against a local server answering with the shapes of Mono's
 * documentation (envelope, snake_case REST, kobo), including failures.
 */
type Handler = (req: IncomingMessage, body: string) => { status: number; json: unknown };

async function monoServer(handler: Handler) {
  const seen: { method: string; url: string; key: string | undefined; body: string }[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, key: req.headers['mono-sec-key'] as string | undefined, body });
      const { status, json } = handler(req, body);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const ok = (data: unknown) => ({
  status: 200,
  json: {
    status: 'successful',
    message: 'Request was succesfully completed',
    timestamp: '2026-11-21T10:00:00.000Z',
    data,
  },
});
const logger = createLogger('mono-contract', 'silent');

const ACCOUNT = {
  account: {
    id: '6617b6b2c1c1e0a0f0c0ffee',
    name: 'CHINEDU OKONKWO',
    currency: 'NGN',
    type: 'SAVINGS_ACCOUNT',
    account_number: '0123456785',
    balance: 15_000_050,
    bvn: '0001',
    institution: { name: 'GTBank', bank_code: '058', type: 'PERSONAL_BANKING' },
  },
  customer: { id: '65f0c0ffee' },
  meta: { data_status: 'AVAILABLE', auth_method: 'internet_banking', retrieved_data: ['transactions'], ref: 'app-1' },
};

describe('Mono client contract', () => {
  it('when a hosted link is initiated, then the documented body is sent with the key and mono_url is the widget address', async () => {
    const server = await monoServer(() =>
      ok({
        mono_url: 'https://link.mono.co/ABC',
        customer: 'c1',
        meta: { ref: 'app-1' },
        scope: 'auth',
        redirect_url: 'https://x',
        created_at: '2026-11-21',
      }),
    );
    try {
      const client = createMonoClient({ baseUrl: server.url, logger });
      const link = await client.initiateLink('test_sk_abc', {
        ref: 'app-1',
        customerName: 'Chinedu Okonkwo',
        customerEmail: 'c@example.com',
        customerBvn: '22200000001',
        redirectUrl: 'https://lender.example/done',
      });
      expect(link.widgetUrl).toBe('https://link.mono.co/ABC');
      expect(server.seen[0]).toMatchObject({ method: 'POST', url: '/v2/accounts/initiate', key: 'test_sk_abc' });
      expect(JSON.parse(server.seen[0]!.body)).toEqual({
        customer: { name: 'Chinedu Okonkwo', email: 'c@example.com', identity: { type: 'bvn', number: '22200000001' } },
        meta: { ref: 'app-1' },
        scope: 'auth',
        redirect_url: 'https://lender.example/done',
      });
      await client.initiateLink('test_sk_abc', {
        ref: 'app-1',
        customerName: 'A B',
        customerEmail: 'c@example.com',
        redirectUrl: 'https://x',
        reauthAccountId: 'acc-9',
      });
      expect(JSON.parse(server.seen[1]!.body)).toMatchObject({ scope: 'reauth', account: 'acc-9' });
    } finally {
      await server.close();
    }
  });

  it('when account details come back, then they are read from the snake_case REST shape', async () => {
    const server = await monoServer(() => ok(ACCOUNT));
    try {
      const account = await createMonoClient({ baseUrl: server.url, logger }).getAccount('k', ACCOUNT.account.id);
      expect(account).toEqual({
        id: ACCOUNT.account.id,
        holderName: 'CHINEDU OKONKWO',
        accountNumber: '0123456785',
        currency: 'NGN',
        type: 'SAVINGS_ACCOUNT',
        balanceKobo: 15_000_050,
        bvnLast4: '0001',
        institution: { name: 'GTBank', bankCode: '058', type: 'PERSONAL_BANKING' },
      });
    } finally {
      await server.close();
    }
  });

  it.each([
    ['a widget address that is not a URL', () => ok({ mono_url: 42 }), 'initiate', /data\.mono_url/],
    [
      'statement lines of the wrong shape',
      () => ok([{ id: 't1', narration: 'POS', amount: '500', type: 'debit', date: '2026-01-01' }]),
      'transactions',
      /data\.0\.amount/,
    ],
    ['an account without its envelope', () => ({ status: 200, json: ACCOUNT.account }), 'account', /data/],
    [
      'an answer larger than allowed',
      () => ok([{ id: 't1', narration: 'x'.repeat(5_000), amount: 1, type: 'credit', date: '2026-01-01' }]),
      'transactions',
      /maxContentLength|exceeded|unexpected body/,
    ],
  ])(
    'when the provider answers with %s, then the call fails as a provider error naming what was wrong, never a crash further on',
    async (_what, answer, call, why) => {
      const server = await monoServer(answer);
      try {
        const client = createMonoClient({ baseUrl: server.url, logger, retries: 0, maxResponseBytes: 4_000 });
        const run = {
          initiate: () =>
            client.initiateLink('k', {
              ref: 'r',
              customerName: 'A B',
              customerEmail: 'a@b.ng',
              redirectUrl: 'http://x/linked',
            }),
          transactions: () => client.getTransactions('k', 'acc-1'),
          account: () => client.getAccount('k', 'acc-1'),
        }[call as 'initiate' | 'transactions' | 'account'];
        const error = await run().then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ProviderError);
        expect((error as Error).message).toMatch(why);
      } finally {
        await server.close();
      }
    },
  );

  it('when the statement insights job starts and finishes, then the job id and the record are read', async () => {
    const server = await monoServer((req) =>
      req.url!.includes('/statement/insights')
        ? {
            status: 200,
            json: { status: 'processing', message: 'Job started', data: { jobId: 'job-1', jobStatus: 'processing' } },
          }
        : req.url!.includes('/income-records')
          ? ok([{ total_income: 1 }, { total_income: 2 }])
          : ok({ transaction_count: 12, average_balance: 100 }),
    );
    try {
      const client = createMonoClient({ baseUrl: server.url, logger });
      expect(await client.startStatementInsights('k', 'acc')).toEqual({ jobId: 'job-1' });
      expect(await client.getInsightsRecord('k', 'job-1')).toEqual({
        status: 'finished',
        result: { transaction_count: 12, average_balance: 100 },
      });
      expect(await client.getLatestIncome('k', 'acc')).toEqual({ total_income: 2 });
    } finally {
      await server.close();
    }
  });

  it('when the provider answers 5xx, then the call is retried; a 4xx is not', async () => {
    let calls = 0;
    const server = await monoServer((req) => {
      calls++;
      if (req.url!.startsWith('/v2/accounts/missing'))
        return { status: 404, json: { status: 'failed', message: 'Account not found' } };
      return calls < 3 ? { status: 503, json: { status: 'failed', message: 'busy' } } : ok(ACCOUNT);
    });
    try {
      const client = createMonoClient({ baseUrl: server.url, logger, retries: 3, retryBaseMs: 10 });
      await expect(client.getAccount('k', 'acc')).resolves.toMatchObject({ accountNumber: '0123456785' });
      expect(calls).toBe(3);
      calls = 0;
      const error = await client.getAccount('k', 'missing').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).status).toBe(404);
      expect((error as ProviderError).retriable).toBe(false);
      expect(calls).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('when the provider keeps failing, then the breaker opens and calls fail fast as retriable, and it closes once the provider recovers', async () => {
    let healthy = false;
    const states: string[] = [];
    const server = await monoServer(() =>
      healthy ? ok(ACCOUNT) : { status: 500, json: { status: 'failed', message: 'down' } },
    );
    try {
      const client = createMonoClient({
        baseUrl: server.url,
        logger,
        retries: 0,
        breaker: { volumeThreshold: 3, errorThresholdPercentage: 50, resetTimeoutMs: 200 },
        onBreakerState: (s) => states.push(s),
      });
      for (let i = 0; i < 4; i++) await client.getAccount('k', 'acc').catch(() => undefined);
      expect(states).toContain('open');
      const before = server.seen.length;
      const fast = (await client.getAccount('k', 'acc').catch((e: unknown) => e)) as ProviderError;
      expect(fast.retriable).toBe(true);
      expect(server.seen.length).toBe(before);
      healthy = true;
      // After its reset timeout the breaker lets one call through to try the provider again.
      await waitFor(() => states.includes('half_open'), { what: 'the breaker to half-open', timeoutMs: 5_000 });
      await expect(client.getAccount('k', 'acc')).resolves.toMatchObject({ id: ACCOUNT.account.id });
      expect(states).toContain('closed');
    } finally {
      await server.close();
    }
  });
});
