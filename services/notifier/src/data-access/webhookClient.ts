import { Resolver } from 'node:dns/promises';
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

/** How long one query to a name server may take before it is asked again (twice at most). */
const QUERY_TIMEOUT_MS = 2_000;

/**
 * Every address a host name has, asked of the name servers directly (c-ares, Node's own
 * resolver) rather than through the system's getaddrinfo, which runs on libuv's four shared
 * threads: a lender whose name server never answers would hold those threads and stall every
 * other lender's lookups. Each lookup has its own resolver and is cancelled at `deadlineMs`.
 * Names under `localhost` are loopback (RFC 6761) without asking anyone.
 */
export async function addressesOf(
  host: string,
  deadlineMs: number,
  servers: string[] | undefined,
): Promise<{ address: string; family: number }[]> {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return [{ address: '127.0.0.1', family: 4 }];
  const resolver = new Resolver({ timeout: Math.max(1, Math.min(QUERY_TIMEOUT_MS, deadlineMs)), tries: 2 });
  if (servers) resolver.setServers(servers);
  const cancel = setTimeout(() => resolver.cancel(), Math.max(1, deadlineMs));
  try {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
    const found = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (found.length > 0) return found;
    const failure = [v4, v6].find((one): one is PromiseRejectedResult => one.status === 'rejected');
    const code = (failure?.reason as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ECANCELLED' || code === 'ETIMEOUT') throw new Error(`its name server did not answer in time`);
    if (failure) throw failure.reason as Error;
    return found;
  } finally {
    clearTimeout(cancel);
  }
}

/**
 * POSTs webhooks over kept-alive connections. Redirects are never followed (a 3xx is just an
 * answer). Unless private targets are allowed, the host name is resolved first (within the
 * attempt's deadline, see `addressesOf`), every address it resolves to must be public, and the
 * connection is pinned to the checked address so that a second resolution cannot swap in
 * another (DNS rebinding).
 */
export function createWebhookClient(options: {
  allowPrivate: boolean;
  maxSockets: number;
  /** The name servers to ask (`host:port`); the system's (/etc/resolv.conf) when absent. */
  nameServers?: string[];
}): WebhookClient {
  const agentOptions = {
    keepAlive: true,
    maxSockets: options.maxSockets,
    maxFreeSockets: options.maxSockets,
    timeout: 4_000,
  };
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  const underWay = new Set<http.ClientRequest>();
  let closed = false;

  async function resolve(url: URL, started: number, timeoutMs: number): Promise<Resolution> {
    if (options.allowPrivate) return { ok: true };
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      return isForbiddenAddress(host)
        ? { ok: false, result: { kind: 'refused', reason: `the webhook host ${host} is not a public address` } }
        : { ok: true };
    }
    let addresses: { address: string; family: number }[];
    try {
      // The lookup is part of the attempt: it takes from the same deadline as the answer.
      addresses = await addressesOf(host, timeoutMs, options.nameServers);
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
      const resolution = await resolve(request.url, started, request.timeoutMs);
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
