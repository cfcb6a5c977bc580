// A lender's webhook receiver for the loan analysis service, with nothing but Node itself.
//
// It checks `x-signature` (hex HMAC-SHA256 of the raw body, keyed with the webhook secret) in
// constant time and answers 401 when it does not match; during a secret rotation it also accepts
// `x-signature-previous`. It answers 200 quickly (the service waits 10 s at most), ignores an
// event it has already handled (deliveries are at least once), and logs each event.
//
//   WEBHOOK_SECRET=whsec_... PORT=4000 node receiver.mjs
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const PORT = Number(process.env.PORT ?? 4000);
const HOST = process.env.HOST ?? '127.0.0.1';
const MAX_BODY_BYTES = 1024 * 1024;
/** The secret(s) this receiver trusts: the current one and, while rotating, the one before. */
const secrets = [process.env.WEBHOOK_SECRET, process.env.WEBHOOK_SECRET_PREVIOUS].filter(Boolean);
if (secrets.length === 0) {
  console.error('Set WEBHOOK_SECRET to the webhookSecret your client account was given.');
  process.exit(1);
}

/** Event ids already handled. In production keep these in your database, next to what the event changed. */
const seen = new Set();
const SEEN_LIMIT = 100_000;

function log(fields) {
  console.log(JSON.stringify({ at: new Date().toISOString(), ...fields }));
}

/** Compares a hex signature from a header with the HMAC of the raw body, in constant time. */
function matches(rawBody, header, secret) {
  if (typeof header !== 'string' || !/^[0-9a-f]{64}$/i.test(header)) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(header, 'hex'), expected);
}

function verified(rawBody, headers) {
  const given = [headers['x-signature'], headers['x-signature-previous']];
  return secrets.some((secret) => given.some((header) => matches(rawBody, header, secret)));
}

function reply(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    reply(res, 405, { error: 'POST only' });
    return;
  }
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      reply(res, 413, { error: 'body too large' });
      req.destroy();
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    // The signature covers the bytes as received: verify before parsing, never on re-serialised JSON.
    const rawBody = Buffer.concat(chunks);
    if (!verified(rawBody, req.headers)) {
      log({ outcome: 'rejected', reason: 'signature mismatch', eventId: req.headers['x-event-id'] ?? null });
      reply(res, 401, { error: 'invalid signature' });
      return;
    }
    let event;
    try {
      event = JSON.parse(rawBody.toString('utf8'));
    } catch {
      reply(res, 400, { error: 'body is not JSON' });
      return;
    }
    if (seen.has(event.id)) {
      log({ outcome: 'duplicate', eventId: event.id, event: event.event });
      reply(res, 200, { received: true, duplicate: true });
      return;
    }
    if (seen.size >= SEEN_LIMIT) seen.delete(seen.values().next().value);
    seen.add(event.id);
    log({ outcome: 'received', eventId: event.id, event: event.event, timestamp: event.timestamp, data: event.data });
    // Answer first; do slow work (updating your loan book, notifying staff) after, or in a queue.
    reply(res, 200, { received: true });
  });
});

server.listen(PORT, HOST, () => log({ outcome: 'listening', url: `http://${HOST}:${server.address().port}/` }));
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => server.close(() => process.exit(0)));
