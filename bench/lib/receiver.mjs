// A lender's webhook endpoint: verifies `x-signature` (hex HMAC-SHA256 of the raw body keyed
// with the webhook secret), answers 200 at once, and keeps the first arrival of every event.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { now } from './util.mjs';

export async function startReceiver() {
  let secret = null;
  const stats = { requests: 0, badSignature: 0, unparsable: 0, duplicateDeliveries: 0 };
  /** event id -> { event, app, at, deliveries } */
  const byId = new Map();
  /** `${app}|${event}` -> [{ id, at }] (distinct event ids, arrival order) */
  const byAppEvent = new Map();
  const waiters = new Map();
  const listeners = new Set();

  const verify = (raw, signature) => {
    if (typeof signature !== 'string' || secret === null) return false;
    const expected = createHmac('sha256', secret).update(raw).digest();
    const given = Buffer.from(signature, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  };

  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = now();
      const raw = Buffer.concat(chunks);
      res.statusCode = 200;
      res.end();
      stats.requests += 1;
      if (!verify(raw, req.headers['x-signature'])) stats.badSignature += 1;
      let body;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        stats.unparsable += 1;
        return;
      }
      const id = body?.id;
      const event = body?.event;
      const app = body?.data?.applicationId ?? null;
      const seen = byId.get(id);
      if (seen) {
        seen.deliveries += 1;
        stats.duplicateDeliveries += 1;
        return;
      }
      const record = { id, event, app, at, deliveries: 1, data: body?.data };
      byId.set(id, record);
      for (const listener of listeners) listener(record);
      if (!app) return;
      const key = `${app}|${event}`;
      const list = byAppEvent.get(key) ?? [];
      list.push({ id, at });
      byAppEvent.set(key, list);
      const w = waiters.get(key);
      if (w) {
        waiters.delete(key);
        for (const resolve of w) resolve(at);
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;

  return {
    url,
    stats,
    byId,
    byAppEvent,
    setSecret(value) {
      secret = value;
    },
    /** Every first arrival of an event, as it happens. */
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** Local time of the first arrival of `event` for an application. */
    waitFor(app, event, timeoutMs) {
      const have = byAppEvent.get(`${app}|${event}`);
      if (have) return Promise.resolve(have[0].at);
      return new Promise((resolve, reject) => {
        const key = `${app}|${event}`;
        const list = waiters.get(key) ?? [];
        waiters.set(key, list);
        const timer = setTimeout(
          () => reject(new Error(`${event} webhook not received within ${timeoutMs / 1000} s`)),
          timeoutMs,
        );
        list.push((t) => {
          clearTimeout(timer);
          resolve(t);
        });
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
