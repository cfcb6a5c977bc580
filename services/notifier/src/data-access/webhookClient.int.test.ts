import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '../../../../testing/helpers';
import { createWebhookClient, type WebhookClient } from './webhookClient';

/** A plain HTTP server on loopback that answers as told and counts what it got. */
async function serve(handler: http.RequestListener) {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits++;
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    hits: () => hits,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const request = (url: string, timeoutMs = 1_000) => ({
  url: new URL(url),
  body: '{"id":"e1"}',
  headers: { 'content-type': 'application/json' },
  timeoutMs,
});

describe('the webhook HTTP client against real sockets', () => {
  const clients: WebhookClient[] = [];
  const client = (allowPrivate: boolean) => {
    const c = createWebhookClient({ allowPrivate, maxSockets: 4 });
    clients.push(c);
    return c;
  };
  afterAll(() => clients.forEach((c) => c.close()));

  it('when private targets are not allowed and the host name resolves to loopback, then nothing is sent', async () => {
    const server = await serve((_req, res) => res.end());
    try {
      const result = await client(false).post(request(`https://localhost:${server.port}/hook`));
      expect(result).toEqual({
        kind: 'refused',
        reason: expect.stringMatching(/localhost resolves to .*not a public address/),
      });
      const literal = await client(false).post(request(`https://127.0.0.1:${server.port}/hook`));
      expect(literal).toEqual({ kind: 'refused', reason: 'the webhook host 127.0.0.1 is not a public address' });
      expect(server.hits()).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('when the receiver redirects, then the redirect is not followed and the 3xx is the answer', async () => {
    const target = await serve((_req, res) => res.end());
    const redirecting = await serve((_req, res) => {
      res.writeHead(307, { location: `http://127.0.0.1:${target.port}/elsewhere` }).end();
    });
    try {
      const result = await client(true).post(request(`http://127.0.0.1:${redirecting.port}/hook`));
      expect(result).toMatchObject({ kind: 'answered', statusCode: 307 });
      expect(target.hits()).toBe(0);
    } finally {
      await Promise.all([target.close(), redirecting.close()]);
    }
  });

  it('when the receiver answers after the timeout, then the attempt is a timeout', async () => {
    const slow = await serve((_req, res) => setTimeout(() => res.end(), 700));
    try {
      const result = await client(true).post(request(`http://127.0.0.1:${slow.port}/hook`, 300));
      expect(result).toMatchObject({ kind: 'timeout', error: 'no answer within 300 ms' });
      expect((result as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(295);
    } finally {
      await slow.close();
    }
  });

  it('when the receiver answers at once but drips its body without end, then the connection is cut at the attempt\'s total deadline', async () => {
    let closed = false;
    const drips: NodeJS.Timeout[] = [];
    const target = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      drips.push(setInterval(() => res.write('.'), 20));
      req.socket.on('close', () => {
        closed = true;
      });
    });
    try {
      const result = await client(true).post(request(`http://127.0.0.1:${target.port}/hook`, 300));
      expect(result).toMatchObject({ kind: 'answered', statusCode: 200 });
      await waitFor(() => closed, { what: 'the dripping connection cut' });
    } finally {
      drips.forEach(clearInterval);
      await target.close();
    }
  });

  it('when nothing listens at the target, then the attempt is unreachable with the cause', async () => {
    const gone = await serve((_req, res) => res.end());
    await gone.close();
    const result = await client(true).post(request(`http://127.0.0.1:${gone.port}/hook`));
    expect(result).toMatchObject({ kind: 'unreachable', error: expect.stringMatching(/ECONNREFUSED/) });
  });

  it('when the receiver answers 2xx, then the body and headers arrive as given', async () => {
    let got = '';
    let contentType = '';
    const server = await serve((req, res) => {
      contentType = String(req.headers['content-type']);
      req.on('data', (c: Buffer) => (got += c.toString()));
      req.on('end', () => res.writeHead(202).end());
    });
    try {
      const result = await client(true).post(request(`http://127.0.0.1:${server.port}/hook`));
      expect(result).toMatchObject({ kind: 'answered', statusCode: 202 });
      expect(got).toBe('{"id":"e1"}');
      expect(contentType).toBe('application/json');
    } finally {
      await server.close();
    }
  });
});
