import pino, { type Logger } from 'pino';

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

/** JSON logger of a service; children add a `component` (the namespaced-logger habit). */
export function createLogger(service: string, level = 'info', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
  };
  return destination ? pino(options, destination) : pino(options);
}
