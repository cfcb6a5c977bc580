import { createLoanClient } from './client';
import { LoanServerError } from './errors';

/** A client whose fetch answers from `answer` and records every request it was asked to send. */
function fakeClient(answer: (url: URL, init: RequestInit) => { status: number; body: unknown }) {
  const sent: { method: string; url: URL; key: string | null }[] = [];
  const client = createLoanClient({
    apiKey: 'lk_first',
    baseUrl: 'http://127.0.0.1:9',
    retry: { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 1 },
    fetch: async (input, init = {}) => {
      const url = new URL(String(input));
      sent.push({ method: String(init.method), url, key: new Headers(init.headers).get('x-api-key') });
      const { status, body } = answer(url, init);
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    },
  });
  return { client, sent };
}

describe('the application list and the account methods', () => {
  it('when several statuses are asked for, then the parameter is repeated, and pages are followed to the last', async () => {
    const pages: Record<string, unknown> = {
      '': { items: [{ applicationId: 'a' }], nextCursor: 'c1' },
      c1: { items: [{ applicationId: 'b' }], nextCursor: null },
    };
    const { client, sent } = fakeClient((url) => ({ status: 200, body: pages[url.searchParams.get('cursor') ?? ''] }));
    const seen: string[] = [];
    for await (const row of client.applications({ status: ['LINKED', 'PROCESSING'], limit: 1 }))
      seen.push(row.applicationId);
    expect(seen).toEqual(['a', 'b']);
    expect(sent.map((s) => s.url.searchParams.getAll('status'))).toEqual([
      ['LINKED', 'PROCESSING'],
      ['LINKED', 'PROCESSING'],
    ]);
    expect(sent[1]!.url.searchParams.get('cursor')).toBe('c1');
  });

  it('when the API key is rotated, then the next calls carry the new key', async () => {
    const { client, sent } = fakeClient((url) =>
      url.pathname === '/api/client/rotate-key'
        ? { status: 200, body: { clientId: 'c', apiKey: 'lk_second' } }
        : { status: 200, body: { clientId: 'c' } },
    );
    expect(await client.rotateApiKey()).toEqual({ clientId: 'c', apiKey: 'lk_second' });
    await client.getClientSettings();
    expect(sent.map((s) => [s.method, s.url.pathname, s.key])).toEqual([
      ['POST', '/api/client/rotate-key', 'lk_first'],
      ['GET', '/api/client', 'lk_second'],
    ]);
  });

  it('when a rotation fails, then it is not retried (a retry would rotate again), unlike a read', async () => {
    const { client, sent } = fakeClient(() => ({
      status: 500,
      body: { statusCode: 500, message: 'down', error: 'Internal Server Error' },
    }));
    await expect(client.rotateApiKey()).rejects.toThrow(LoanServerError);
    await expect(client.rotateWebhookSecret({ overlapSeconds: 60 })).rejects.toThrow(LoanServerError);
    expect(sent).toHaveLength(2);
    await expect(client.getClientSettings()).rejects.toThrow(LoanServerError);
    expect(sent).toHaveLength(6);
  });
});
