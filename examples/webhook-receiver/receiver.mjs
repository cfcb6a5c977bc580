// A lender's webhook receiver for the loan analysis service, on Node's own HTTP server and the
// service's client package, @loan/client.
//
// verifyWebhook checks `x-signature` (hex HMAC-SHA256 of the raw body, keyed with the webhook
// secret) in constant time, against every secret you trust and, during a secret rotation, also
// `x-signature-previous`; a mismatch is answered 401. The receiver answers 200 quickly (the
// service waits 10 s at most), ignores an event it has already handled (deliveries are at least
// once), and logs each event.
//
//   WEBHOOK_SECRET=whsec_... PORT=4000 node receiver.mjs
import { createServer } from 'node:http';
import { PREVIOUS_SIGNATURE_HEADER, SIGNATURE_HEADER, verifyWebhook, WebhookVerificationError } from '@loan/client';

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

function reply(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** What to do with each event: here, log it. Put your loan book's updates here (or on a queue). */
function handle(event) {
  switch (event.event) {
    case 'application.decision':
      log({
        outcome: 'received',
        eventId: event.id,
        event: event.event,
        applicationId: event.data.applicationId,
        decision: event.data.decision.decision,
        score: event.data.score,
      });
      break;
    case 'application.review_completed':
      // Your reviewer's final word on a MANUAL_REVIEW decision: lend on approval_details, or not.
      log({
        outcome: 'received',
        eventId: event.id,
        event: event.event,
        applicationId: event.data.applicationId,
        review: event.data.outcome,
        reviewer: event.data.reviewer,
      });
      break;
    default:
      log({ outcome: 'received', eventId: event.id, event: event.event, timestamp: event.timestamp, data: event.data });
  }
}

const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    res.setHeader('allow', 'POST');
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
    // The signature covers the bytes as received: verify them before parsing, never re-serialised JSON.
    let event;
    try {
      event = verifyWebhook(
        Buffer.concat(chunks),
        [req.headers[SIGNATURE_HEADER], req.headers[PREVIOUS_SIGNATURE_HEADER]],
        secrets,
      );
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      if (error.reason === 'unknown_event') {
        // Signed by the service, but newer than this receiver: take it, so it is not retried.
        log({ outcome: 'ignored', reason: error.message, eventId: req.headers['x-event-id'] ?? null });
        reply(res, 200, { received: true, ignored: true });
      } else if (error.reason === 'invalid_payload') {
        reply(res, 400, { error: error.message });
      } else {
        log({ outcome: 'rejected', reason: error.reason, eventId: req.headers['x-event-id'] ?? null });
        reply(res, 401, { error: 'invalid signature' });
      }
      return;
    }
    if (seen.has(event.id)) {
      log({ outcome: 'duplicate', eventId: event.id, event: event.event });
      reply(res, 200, { received: true, duplicate: true });
      return;
    }
    if (seen.size >= SEEN_LIMIT) seen.delete(seen.values().next().value);
    seen.add(event.id);
    // Answer first; do slow work (updating your loan book, notifying staff) after, or in a queue.
    reply(res, 200, { received: true });
    handle(event);
  });
});

server.listen(PORT, HOST, () => log({ outcome: 'listening', url: `http://${HOST}:${server.address().port}/` }));
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => server.close(() => process.exit(0)));
