import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors';
import { EVENT_NAMES, type WebhookEvent } from './types';

/** `x-signature`: the hex HMAC-SHA256 of the raw body, keyed with your webhook secret. */
export const SIGNATURE_HEADER = 'x-signature';
/** The same keyed with your previous secret, sent during the overlap after a rotation. */
export const PREVIOUS_SIGNATURE_HEADER = 'x-signature-previous';

const HEX_SHA256 = /^[0-9a-f]{64}$/i;
const KNOWN_EVENTS = new Set<string>(EVENT_NAMES);

/** The hex HMAC-SHA256 of `rawBody` keyed with `secret`, as the service signs its webhooks. */
export function signWebhook(rawBody: string | Uint8Array, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

function matches(rawBody: string | Uint8Array, signature: string, secret: string): boolean {
  if (!HEX_SHA256.test(signature)) return false;
  const given = Buffer.from(signature, 'hex');
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  // Both are 32 bytes once the shape is checked; the length test keeps timingSafeEqual from throwing.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks a webhook delivery and returns its event, typed by `event`.
 *
 * - `rawBody`: the body exactly as received (a Buffer or string), never re-serialised JSON:
 *   the signature covers the bytes sent.
 * - `signature`: the `x-signature` header; or several, e.g. `[x-signature,
 *   x-signature-previous]`, of which one must match.
 * - `secrets`: the webhook secrets you trust; during a rotation both the new and the old one,
 *   so that deliveries signed with either pass.
 *
 * The comparison is in constant time. Throws `WebhookVerificationError`: `missing_signature`
 * or `signature_mismatch` (answer 401), `invalid_payload` (signed, but not an event envelope),
 * or `unknown_event` (signed, but an event this version of the package does not know: answer
 * 2xx and ignore it, or upgrade).
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  signature: string | readonly (string | null | undefined)[] | null | undefined,
  secrets: string | readonly string[],
): WebhookEvent {
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new TypeError('verifyWebhook needs the raw request body (a Buffer or string), not parsed JSON');
  }
  const keys = (typeof secrets === 'string' ? [secrets] : [...secrets]).filter(
    (s) => typeof s === 'string' && s.length > 0,
  );
  if (keys.length === 0) throw new TypeError('verifyWebhook needs at least one non-empty webhook secret');
  const given = (typeof signature === 'string' ? [signature] : [...(signature ?? [])]).filter(
    (s): s is string => typeof s === 'string' && s.length > 0,
  );
  if (given.length === 0) throw new WebhookVerificationError('missing_signature', 'The x-signature header is missing');
  if (!keys.some((key) => given.some((s) => matches(rawBody, s, key)))) {
    throw new WebhookVerificationError(
      'signature_mismatch',
      'The signature does not match the body with any of the secrets',
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The body is not JSON');
  }
  if (
    !isObject(body) ||
    typeof body.id !== 'string' ||
    typeof body.event !== 'string' ||
    !isObject(body.data) ||
    typeof body.timestamp !== 'string'
  ) {
    throw new WebhookVerificationError(
      'invalid_payload',
      'The body is not an event envelope {id, event, data, timestamp}',
    );
  }
  if (!KNOWN_EVENTS.has(body.event)) {
    throw new WebhookVerificationError('unknown_event', `Unknown event: ${body.event}`);
  }
  return body as WebhookEvent;
}
