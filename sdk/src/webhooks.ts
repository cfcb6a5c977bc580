import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors';
import { EVENT_NAMES, type WebhookEvent } from './types';

/** `x-signature`: the hex HMAC-SHA256 of the raw body, keyed with your webhook secret. */
export const SIGNATURE_HEADER = 'x-signature';
/** The same keyed with your previous secret, sent during the overlap after a rotation. */
export const PREVIOUS_SIGNATURE_HEADER = 'x-signature-previous';

/** Standard Webhooks (standardwebhooks.com): the delivery's id, its time in Unix seconds, and `v1,<base64>` signatures. */
export const STANDARD_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;
/** How far a `webhook-timestamp` may be from now, in seconds: a captured delivery is worth no more. */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;

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

/**
 * The request's headers: Node's `req.headers` (names in lower case) or a Fetch `Headers`.
 */
export type WebhookHeaders = Record<string, string | string[] | undefined> | { get(name: string): string | null };

function header(headers: WebhookHeaders, name: string): string | undefined {
  const value =
    typeof headers.get === 'function'
      ? (headers as { get(n: string): string | null }).get(name)
      : (headers as Record<string, unknown>)[name];
  const one = Array.isArray(value) ? value[0] : value;
  return typeof one === 'string' && one.length > 0 ? one : undefined;
}

/**
 * The Standard Webhooks signature: HMAC-SHA256 of `<id>.<timestamp>.<body>`, keyed with the
 * bytes of the webhook secret as issued (`whsec_...` whole), the key of `x-signature` too.
 */
export function signStandardWebhook(
  id: string,
  timestamp: number,
  rawBody: string | Uint8Array,
  secret: string,
): string {
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  return `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

function standardMatches(rawBody: string | Uint8Array, headers: WebhookHeaders, keys: string[], now: Date): void {
  const id = header(headers, STANDARD_HEADERS.id);
  const stamp = header(headers, STANDARD_HEADERS.timestamp);
  const given = header(headers, STANDARD_HEADERS.signature);
  if (!id || !stamp || !given) {
    throw new WebhookVerificationError(
      'missing_signature',
      'The webhook-id, webhook-timestamp or webhook-signature header is missing',
    );
  }
  const timestamp = /^\d{1,12}$/.test(stamp) ? Number(stamp) : NaN;
  if (!Number.isFinite(timestamp) || Math.abs(now.getTime() / 1000 - timestamp) > TIMESTAMP_TOLERANCE_SECONDS) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      'The webhook-timestamp is more than 5 minutes off',
    );
  }
  const candidates = given
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3), 'base64'));
  const ok = keys.some((key) => {
    const expected = Buffer.from(signStandardWebhook(id, timestamp, rawBody, key).slice(3), 'base64');
    return candidates.some((c) => c.length === expected.length && timingSafeEqual(c, expected));
  });
  if (!ok)
    throw new WebhookVerificationError(
      'signature_mismatch',
      'The signature does not match the body with any of the secrets',
    );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks a webhook delivery and returns its event, typed by `event`.
 *
 * - `rawBody`: the body exactly as received (a Buffer or string), never re-serialised JSON:
 *   the signature covers the bytes sent.
 * - `signature`: the request's headers (Node's `req.headers` or a Fetch `Headers`), which
 *   verifies the Standard Webhooks signature (`webhook-id`, `webhook-timestamp`,
 *   `webhook-signature`) and refuses a timestamp more than 5 minutes off
 *   (`timestamp_out_of_tolerance`), so a captured delivery cannot be replayed later; a request
 *   without those headers falls back to `x-signature` / `x-signature-previous` unless
 *   `options.requireTimestamp` is true. Or, as before, the `x-signature` header or several, e.g.
 *   `[x-signature, x-signature-previous]`, of which one must match (the spec's scheme: the body
 *   only, no time).
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
  signature: string | readonly (string | null | undefined)[] | WebhookHeaders | null | undefined,
  secrets: string | readonly string[],
  options: { now?: Date; requireTimestamp?: boolean } = {},
): WebhookEvent {
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new TypeError('verifyWebhook needs the raw request body (a Buffer or string), not parsed JSON');
  }
  const keys = (typeof secrets === 'string' ? [secrets] : [...secrets]).filter(
    (s) => typeof s === 'string' && s.length > 0,
  );
  if (keys.length === 0) throw new TypeError('verifyWebhook needs at least one non-empty webhook secret');
  const headers =
    typeof signature === 'object' && signature !== null && !Array.isArray(signature)
      ? (signature as WebhookHeaders)
      : null;
  const standard =
    headers !== null &&
    (options.requireTimestamp === true || header(headers, STANDARD_HEADERS.signature) !== undefined);
  if (standard) standardMatches(rawBody, headers!, keys, options.now ?? new Date());
  const list: readonly unknown[] = headers
    ? [header(headers, SIGNATURE_HEADER), header(headers, PREVIOUS_SIGNATURE_HEADER)]
    : typeof signature === 'string'
      ? [signature]
      : ((signature ?? []) as readonly unknown[]);
  const given = list.filter((s): s is string => typeof s === 'string' && s.length > 0);
  if (!standard && given.length === 0)
    throw new WebhookVerificationError('missing_signature', 'The x-signature header is missing');
  if (!standard && !keys.some((key) => given.some((s) => matches(rawBody, s, key)))) {
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
