import { createHmac } from 'node:crypto';

/** A webhook secret in plain text, with the end of its validity when it has been rotated out. */
export interface SigningSecret {
  secret: string;
  validUntil: Date | null;
}

/** Hex HMAC-SHA256 of the exact body bytes: what `x-signature` carries (spec section 5). */
export function sign(body: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * Standard Webhooks' signature (standardwebhooks.com): `v1,` and the base64 HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<body>`. Its key is the bytes of our webhook secret as issued
 * (`whsec_...` whole, UTF-8), the key of `x-signature` too: our secrets are base64url, which
 * Standard Webhooks' base64 decoding does not take, and one secret gives one key. A receiver
 * using a Standard Webhooks library passes `whsec_` + base64(secret), or the secret as raw bytes.
 */
export function standardSignature(id: string, timestamp: number, body: string, secret: string): string {
  return `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * The signature headers of one attempt. Secrets come newest first: the newest signs
 * `x-signature`; during a rotation overlap the newest older secret still valid signs
 * `x-signature-previous`, so a receiver that has not switched yet keeps verifying.
 * Beside them, Standard Webhooks' `webhook-id` (the delivery's id: the same on every attempt),
 * `webhook-timestamp` (this attempt's time in seconds, which a receiver holds to a tolerance so
 * a captured delivery cannot be replayed later) and `webhook-signature` (one `v1,` signature per
 * secret, space-separated during an overlap).
 * Null when the client has no secret to sign with.
 */
export function signatureHeaders(
  body: string,
  secrets: SigningSecret[],
  now: Date,
  webhookId: string,
): Record<string, string> | null {
  const [current, ...older] = secrets;
  if (!current) return null;
  const headers: Record<string, string> = { 'x-signature': sign(body, current.secret) };
  const previous = older.find((s) => s.validUntil === null || s.validUntil.getTime() > now.getTime());
  const signing = [current];
  if (previous && previous.secret !== current.secret) {
    headers['x-signature-previous'] = sign(body, previous.secret);
    signing.push(previous);
  }
  const timestamp = Math.floor(now.getTime() / 1000);
  headers['webhook-id'] = webhookId;
  headers['webhook-timestamp'] = String(timestamp);
  headers['webhook-signature'] = signing.map((s) => standardSignature(webhookId, timestamp, body, s.secret)).join(' ');
  return headers;
}
