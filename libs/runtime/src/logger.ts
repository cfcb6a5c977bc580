import pino, { type Logger } from 'pino';
import { activeTraceIds } from './tracing';

export type { Logger };

/**
 * Paths whose values never reach a log line: identity numbers, account numbers, keys and
 * secrets, wherever they appear in a logged object.
 */
export const REDACTED_PATHS = [
  'bvn',
  '*.bvn',
  '*.*.bvn',
  'accountNumber',
  '*.accountNumber',
  '*.*.accountNumber',
  'account_number',
  '*.account_number',
  'apiKey',
  '*.apiKey',
  'secret',
  '*.secret',
  'webhookSecret',
  '*.webhookSecret',
  'providerSecretKey',
  '*.providerSecretKey',
  'providerKey',
  '*.providerKey',
  'headers["x-api-key"]',
  'headers["x-admin-token"]',
  'headers["mono-webhook-secret"]',
  'headers["mono-sec-key"]',
  '*.headers["x-api-key"]',
  '*.headers["mono-sec-key"]',
];

/**
 * Keys whose values never reach a log line at any depth (compared in lower case): credentials
 * and cookies of requests, and an applicant's name, e-mail and phone, which the paths above
 * cannot reach when they are nested deeper than their wildcards.
 */
const REDACTED_KEYS = new Set([
  'bvn',
  'accountnumber',
  'account_number',
  'apikey',
  'secret',
  'webhooksecret',
  'providersecretkey',
  'providerkey',
  'cookie',
  'set-cookie',
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'x-admin-token',
  'x-internal-token',
  'x-csrf-token',
  'mono-webhook-secret',
  'mono-sec-key',
  'firstname',
  'lastname',
  'first_name',
  'last_name',
  'holdername',
  'customername',
  'email',
  'customeremail',
  'phone',
  'customerphone',
]);

/** A copy of a logged object with the values of REDACTED_KEYS censored at any depth; errors and other class instances pass as they are. */
function redactDeep(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value !== 'object' || value === null || depth > 20) return value;
  if (seen.has(value)) return value;
  const isArray = Array.isArray(value);
  if (!isArray && Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null)
    return value;
  seen.add(value);
  if (isArray) return value.map((item) => redactDeep(item, depth + 1, seen));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = REDACTED_KEYS.has(key.toLowerCase()) ? '[redacted]' : redactDeep(item, depth + 1, seen);
  }
  return out;
}

/**
 * JSON logger of a service; children add a `component` (the namespaced-logger habit). A line
 * written inside a span carries its `trace_id` and `span_id`.
 */
export function createLogger(service: string, level = 'info', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: activeTraceIds,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    formatters: {
      level: (label) => ({ level: label }),
      log: (object) => redactDeep(object) as Record<string, unknown>,
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
