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
 * The signature headers of one attempt. Secrets come newest first: the newest signs
 * `x-signature`; during a rotation overlap the newest older secret still valid signs
 * `x-signature-previous`, so a receiver that has not switched yet keeps verifying.
 * Null when the client has no secret to sign with.
 */
export function signatureHeaders(body: string, secrets: SigningSecret[], now: Date): Record<string, string> | null {
  const [current, ...older] = secrets;
  if (!current) return null;
  const headers: Record<string, string> = { 'x-signature': sign(body, current.secret) };
  const previous = older.find((s) => s.validUntil === null || s.validUntil.getTime() > now.getTime());
  if (previous && previous.secret !== current.secret) headers['x-signature-previous'] = sign(body, previous.secret);
  return headers;
}
