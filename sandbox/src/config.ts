import { z } from 'zod';
import { parseDuration } from './duration';

const duration = (fallback: string, description: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      try {
        return parseDuration(text);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    })
    .describe(description);

const EnvSchema = z.object({
  SANDBOX_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65_535)
    .default(8090)
    .describe('Port to listen on (0 picks a free one)'),
  SANDBOX_HOST: z.string().min(1).default('127.0.0.1').describe('Interface to listen on'),
  SANDBOX_PUBLIC_URL: z
    .url()
    .optional()
    .describe('Origin the widget addresses are built on; defaults to http://<host>:<port> once listening'),
  PROVIDER_WEBHOOK_URL: z
    .url()
    .default('http://127.0.0.1:8080/provider/webhooks/mono')
    .describe("Where the provider's webhooks are posted (the gateway)"),
  PROVIDER_WEBHOOK_SECRET: z
    .string()
    .min(1)
    .default('sandbox-webhook-secret')
    .describe('Sent as the mono-webhook-secret header of every webhook'),
  SANDBOX_JOB_DELAY: duration('2s', 'How long income and statement-insights jobs take'),
  SANDBOX_SESSION_TTL: duration('24h', 'Lifetime of a widget address from initiate'),
  SANDBOX_WEBHOOK_RETRY_BASE: duration('1s', 'First webhook retry delay; doubles on each retry'),
  SANDBOX_WEBHOOK_MAX_ATTEMPTS: z.coerce
    .number()
    .int()
    .min(1)
    .max(20)
    .default(5)
    .describe('Delivery attempts per webhook'),
  SANDBOX_ACCOUNT_CACHE: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(100)
    .describe('Linked accounts whose generated statements stay in memory; others are generated again when read'),
  SANDBOX_MAX_SESSIONS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(10_000)
    .describe(
      'Widget sessions kept at most; beyond it the oldest are forgotten with the accounts linked through them and their jobs (about 6 KiB each)',
    ),
  SANDBOX_JOB_RETENTION: duration('1h', 'How long a finished income or statement-insights job can be read'),
  SANDBOX_RETENTION: duration(
    '8d',
    'How long a widget session, and the accounts linked through it, are kept after the session expired',
  ),
  SANDBOX_BUREAU_SLOW_DELAY: duration('30s', 'How long the bureau takes to answer for the timeout test BVN'),
  SANDBOX_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('Log level of the JSON logs on stdout'),
});

/** Settings of one sandbox process, parsed once at start-up. Durations in milliseconds. */
export interface SandboxConfig {
  port: number;
  host: string;
  /** Null: derived from the listening address at start. */
  publicUrl: string | null;
  webhookUrl: string;
  webhookSecret: string;
  jobDelayMs: number;
  sessionTtlMs: number;
  webhookRetryBaseMs: number;
  webhookMaxAttempts: number;
  bureauSlowDelayMs: number;
  accountCacheSize: number;
  jobRetentionMs: number;
  retentionMs: number;
  maxSessions: number;
  logLevel: z.infer<typeof EnvSchema>['SANDBOX_LOG_LEVEL'];
}

/** Parses the environment into a frozen config; throws with every problem listed. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Readonly<SandboxConfig> {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`Invalid sandbox configuration: ${problems}`);
  }
  const e = parsed.data;
  return Object.freeze({
    port: e.SANDBOX_PORT,
    host: e.SANDBOX_HOST,
    publicUrl: e.SANDBOX_PUBLIC_URL?.replace(/\/+$/, '') ?? null,
    webhookUrl: e.PROVIDER_WEBHOOK_URL,
    webhookSecret: e.PROVIDER_WEBHOOK_SECRET,
    jobDelayMs: e.SANDBOX_JOB_DELAY,
    sessionTtlMs: e.SANDBOX_SESSION_TTL,
    webhookRetryBaseMs: e.SANDBOX_WEBHOOK_RETRY_BASE,
    webhookMaxAttempts: e.SANDBOX_WEBHOOK_MAX_ATTEMPTS,
    bureauSlowDelayMs: e.SANDBOX_BUREAU_SLOW_DELAY,
    accountCacheSize: e.SANDBOX_ACCOUNT_CACHE,
    jobRetentionMs: e.SANDBOX_JOB_RETENTION,
    retentionMs: e.SANDBOX_RETENTION,
    maxSessions: e.SANDBOX_MAX_SESSIONS,
    logLevel: e.SANDBOX_LOG_LEVEL,
  });
}
