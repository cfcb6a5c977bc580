import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { isForbiddenAddress } from '@loan/contracts';

/** What came of one POST. */
export type WebhookResult =
  | { kind: 'answered'; statusCode: number; durationMs: number }
  | { kind: 'timeout'; durationMs: number; error: string }
  | { kind: 'unreachable'; durationMs: number; error: string }
  /** Nothing was sent: the host resolves to an address the rules refuse. */
  | { kind: 'refused'; reason: string };

export interface WebhookRequest {
  url: URL;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

export interface WebhookClient {
  post(request: WebhookRequest): Promise<WebhookResult>;
  /** Drops every connection, aborting requests under way. */
  close(): void;
}

type Resolution = { ok: true; lookup?: LookupFunction } | { ok: false; result: WebhookResult };

/**
 * POSTs webhooks over kept-alive connections. Redirects are never followed (a 3xx is just an
 * answer). Unless private targets are allowed, the host name is resolved first, every address
 * it resolves to must be public, and the connection is pinned to the checked address so that
 * a second resolution cannot swap in another (DNS rebinding).
 */
export function createWebhookClient(options: { allowPrivate: boolean; maxSockets: number }): WebhookClient {
  const agentOptions = {
    keepAlive: true,
    maxSockets: options.maxSockets,
    maxFreeSockets: options.maxSockets,
    timeout: 4_000,
  };
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  const underWay = new Set<http.ClientRequest>();
  let closed = false;

  async function resolve(url: URL, started: number): Promise<Resolution> {
    if (options.allowPrivate) return { ok: true };
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      return isForbiddenAddress(host)
        ? { ok: false, result: { kind: 'refused', reason: `the webhook host ${host} is not a public address` } }
        : { ok: true };
    }
    let addresses: { address: string; family: number }[];
    try {
      addresses = await dnsLookup(host, { all: true, verbatim: true });
    } catch (error) {
      const durationMs = Math.round(performance.now() - started);
      return {
        ok: false,
        result: { kind: 'unreachable', durationMs, error: `cannot resolve ${host}: ${(error as Error).message}` },
      };
    }
    const bad = addresses.find((a) => isForbiddenAddress(a.address));
    if (bad || addresses.length === 0) {
      const why = bad ? `resolves to ${bad.address}, which is not a public address` : 'resolves to no address';
      return { ok: false, result: { kind: 'refused', reason: `the webhook host ${host} ${why}` } };
    }
    const pinned = addresses[0]!;
    const lookup = ((_hostname: string, lookupOptions: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      if (lookupOptions?.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
      else callback(null, pinned.address, pinned.family);
    }) as unknown as LookupFunction;
    return { ok: true, lookup };
  }

  function send(
    request: WebhookRequest,
    lookup: LookupFunction | undefined,
    started: number,
    retried: boolean,
  ): Promise<WebhookResult> {
    const elapsed = () => Math.round(performance.now() - started);
    const remaining = Math.max(1, request.timeoutMs - elapsed());
    const isHttps = request.url.protocol === 'https:';
    return new Promise((settle) => {
      let done = false;
      const finish = (result: WebhookResult | 'retry') => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (result === 'retry') settle(send(request, lookup, started, true));
        else settle(result);
      };
      const req = (isHttps ? https : http).request(
        request.url,
        {
          method: 'POST',
          agent: isHttps ? agents.https : agents.http,
          headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
          lookup,
        },
        (res) => {
          finish({ kind: 'answered', statusCode: res.statusCode ?? 0, durationMs: elapsed() });
          // The answer is its status; the body is read and dropped (within bounds) to reuse the
          // connection, but only until the attempt's total deadline: a body that drips without end
          // would otherwise hold one of the connections every lender's deliveries share.
          const cut = setTimeout(() => res.destroy(), Math.max(1, request.timeoutMs - elapsed()));
          res.on('close', () => clearTimeout(cut));
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > 64 * 1024) res.destroy();
          });
          res.on('error', () => undefined);
        },
      );
      underWay.add(req);
      req.on('close', () => underWay.delete(req));
      const timer = setTimeout(() => {
        finish({ kind: 'timeout', durationMs: elapsed(), error: `no answer within ${request.timeoutMs} ms` });
        req.destroy();
      }, remaining);
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the receiver closed just as we reused it: the request never
        // reached it, so it is sent once more on a fresh connection.
        if (req.reusedSocket && error.code === 'ECONNRESET' && !retried) finish('retry');
        else finish({ kind: 'unreachable', durationMs: elapsed(), error: error.message || String(error.code) });
      });
      req.end(request.body);
    });
  }

  return {
    async post(request) {
      if (closed) return { kind: 'unreachable', durationMs: 0, error: 'the notifier is shutting down' };
      const started = performance.now();
      const resolution = await resolve(request.url, started);
      if (!resolution.ok) return resolution.result;
      return send(request, resolution.lookup, started, false);
    },
    close() {
      closed = true;
      for (const req of underWay) req.destroy();
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
