import dgram from 'node:dgram';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@testing/helpers';
import { addressesOf, createWebhookClient, type WebhookClient } from './webhookClient';

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

/**
 * A name server on loopback (UDP): answers A queries for the names in `answers`, answers the
 * other queries of those names with no record, and never answers anything else, as a lender's
 * broken name server would not.
 */
async function nameServer(answers: Record<string, string>) {
  const socket = dgram.createSocket('udp4');
  const asked: string[] = [];
  socket.on('message', (query, from) => {
    // Header (12 bytes), then the question: length-prefixed labels, a zero, type and class.
    const labels: string[] = [];
    let at = 12;
    while (query[at] !== 0) {
      labels.push(query.subarray(at + 1, at + 1 + query[at]!).toString('latin1'));
      at += query[at]! + 1;
    }
    const questionEnd = at + 5;
    const name = labels.join('.').toLowerCase();
    const type = query.readUInt16BE(at + 1);
    asked.push(name);
    const address = answers[name];
    if (address === undefined) return; // silence
    const withRecord = type === 1;
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    header.writeUInt16BE(0x8180, 2); // a response, recursion available, no error
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(withRecord ? 1 : 0, 6);
    const record = Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, ...address.split('.').map(Number)]);
    socket.send(
      Buffer.concat([header, query.subarray(12, questionEnd), ...(withRecord ? [record] : [])]),
      from.port,
      from.address,
    );
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    asked,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
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

  it("when a lender's name server never answers, then its attempt ends as unreachable saying so, and nothing is sent", async () => {
    const names = await nameServer({});
    const c = createWebhookClient({ allowPrivate: false, maxSockets: 4, nameServers: [names.server] });
    clients.push(c);
    try {
      const result = await c.post(request('https://hooks.silent.test/hook', 1_500));
      expect(result).toEqual({
        kind: 'unreachable',
        durationMs: expect.any(Number),
        error: 'cannot resolve hooks.silent.test: its name server did not answer in time',
      });
      expect(names.asked).toContain('hooks.silent.test');
    } finally {
      await names.close();
    }
  });

  it("when many lookups wait on a name server that never answers, then another lender's host is still resolved first", async () => {
    const names = await nameServer({ 'hooks.answering.test': '203.0.113.7' });
    try {
      const settled: string[] = [];
      // More stalled lookups than libuv has threads (4): getaddrinfo would queue the next one behind them.
      const stalled = Array.from({ length: 8 }, (_, i) =>
        addressesOf(`hooks-${i}.silent.test`, 10_000, [names.server]).then(
          () => settled.push(`silent ${i} resolved`),
          () => settled.push(`silent ${i} failed`),
        ),
      );
      await waitFor(() => names.asked.filter((name) => name.endsWith('.silent.test')).length >= 8, {
        what: 'the stalled lookups to be asked',
      });
      const answered = await addressesOf('hooks.answering.test', 3_000, [names.server]);
      settled.push('answering resolved');
      expect(answered).toEqual([{ address: '203.0.113.7', family: 4 }]);
      await Promise.all(stalled);
      expect(settled[0]).toBe('answering resolved');
      expect(settled.slice(1).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `silent ${i} failed`).sort());
    } finally {
      await names.close();
    }
  });

  it('when the name server gives a private address for the host, then nothing is sent', async () => {
    const names = await nameServer({ 'hooks.inside.test': '10.1.2.3' });
    const c = createWebhookClient({ allowPrivate: false, maxSockets: 4, nameServers: [names.server] });
    clients.push(c);
    try {
      expect(await c.post(request('https://hooks.inside.test/hook'))).toEqual({
        kind: 'refused',
        reason: 'the webhook host hooks.inside.test resolves to 10.1.2.3, which is not a public address',
      });
    } finally {
      await names.close();
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

  it("when the receiver answers at once but drips its body without end, then the connection is cut at the attempt's total deadline", async () => {
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
