import { z } from 'zod';
import { parseDuration } from './duration';

/** A zod type for a duration given as text (`10s`, `24h`), parsed into milliseconds. */
export const durationMs = (fallback: string) =>
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
    });

/**
 * A positive duration that may be left unset (or empty): undefined then, for a setting whose
 * absence means something of its own (a calendar period, say).
 */
export const optionalDurationMs = (example = '2s or 365d') =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text.trim() === '') return undefined;
      try {
        const ms = parseDuration(text);
        if (ms > 0) return ms;
      } catch {
        // reported below
      }
      ctx.addIssue({ code: 'custom', message: `must be a positive duration such as ${example}` });
      return z.NEVER;
    });

const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Settings every service has. */
export const baseConfigShape = {
  SERVICE_NAME: z.string().describe('Name used in logs, metrics and the Kafka client id'),
  KAFKA_BROKERS: z
    .string()
    .default('127.0.0.1:9092')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .describe('Comma-separated Kafka bootstrap servers'),
  KAFKA_SSL: bool(false).describe('Use TLS to reach the brokers'),
  KAFKA_SASL_MECHANISM: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']).optional().describe('SASL mechanism'),
  KAFKA_SASL_USERNAME: z.string().optional().describe('SASL user name'),
  KAFKA_SASL_PASSWORD: z.string().optional().describe('SASL password'),
  KAFKA_TOPIC_PARTITIONS: z.coerce
    .number()
    .int()
    .positive()
    .default(6)
    .describe('Partitions of topics the service creates'),
  KAFKA_REPLICATION_FACTOR: z.coerce
    .number()
    .int()
    .positive()
    .default(1)
    .describe('Replication factor of created topics'),
  KAFKA_COMMIT_INTERVAL: durationMs('1s').describe(
    'How often consumers commit the offsets of handled messages (a crash handles at most that much again)',
  ),
  KAFKA_CONSUMER_STALL: durationMs('60s').describe(
    'How long a consumer may go without fetching while no handler runs before it is started again (a stalled kafkajs consumer)',
  ),
  KAFKA_PRODUCER_LINGER: durationMs('5ms').describe(
    'How long a publish waits for others to share its produce request when none is in flight (as linger.ms of the Java producer)',
  ),
  OUTBOX_CLEAR_DELAY: durationMs('2s').describe(
    'How long published outbox entries stay in their document before they are removed, so that the removals of a document written again meanwhile, and of many documents, go to the database together (a crash in between publishes them again, with the same ids)',
  ),
  KAFKA_RETENTION: durationMs('7d').describe(
    'How long the broker keeps records of internal topics the service creates (commands, callbacks, facts, results, replies, dead letters)',
  ),
  KAFKA_EVENTS_RETENTION: durationMs('7d').describe(
    'How long the broker keeps records of loan.events.v1, loan.analytics.v1 and loan.outcomes.v1 when the service creates them',
  ),
  KAFKA_TOPIC_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9._-]*$/)
    .default('')
    .describe('Prefix of every topic and consumer group (empty in production; isolates test runs)'),
  SCHEMA_REGISTRY_URL: z
    .string()
    .default('http://127.0.0.1:8081/apis/ccompat/v7')
    .describe('Confluent-compatible schema registry base URL'),
  MONGO_URL: z.string().default('mongodb://127.0.0.1:27017/').describe('MongoDB connection string'),
  MONGO_DB: z.string().optional().describe('Database name; defaults to loan_<service>'),
  HTTP_HOST: z.string().default('127.0.0.1').describe('Address the HTTP server binds'),
  HTTP_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(0)
    .describe('Port of the health/metrics (or API) server'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('Log level'),
  DATA_KEY: z
    .string()
    .default('local-development-data-key-change-me')
    .describe('Secret that seals provider keys and webhook secrets at rest and on Kafka'),
  DATA_KEY_PREVIOUS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .describe('Earlier data keys, comma-separated: they only open values sealed before DATA_KEY was rotated'),
  SHUTDOWN_TIMEOUT: durationMs('15s').describe('How long in-flight work may take to finish on SIGTERM'),
};

export type BaseConfig = z.infer<z.ZodObject<typeof baseConfigShape>>;

/** The token the gateway presents to the notifier's internal API (both read it). */
export const internalTokenSetting = z
  .string()
  .min(16)
  .default('local-internal-token-change-me')
  .describe(
    'Shared token of internal calls (gateway to notifier and to scoring, x-internal-token); refused at its built-in value in production',
  );

/** A setting that stops a service from starting; its message names the variable. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * What a production start (`NODE_ENV=production`) refuses besides invalid values: a secret
 * left missing or at its built-in development value (`DATA_KEY` always, plus the service's
 * own), and settings that are only for a laptop.
 */
export interface ProductionRules {
  secrets?: string[];
}

/** Laptop-only settings: the value a production start refuses, and why. */
const DEVELOPMENT_ONLY: Record<string, { refused: (value: unknown) => boolean; why: string }> = {
  ALLOW_PRIVATE_WEBHOOK_URLS: {
    refused: (value) => value === true,
    why: 'webhooks to private addresses let a client account reach internal services',
  },
};

function productionRefusals(
  shape: z.ZodRawShape,
  env: Record<string, string | undefined>,
  config: Record<string, unknown>,
  rules: ProductionRules,
): string[] {
  const refusals: string[] = [];
  for (const name of ['DATA_KEY', ...(rules.secrets ?? [])]) {
    const given = env[name];
    const builtIn = (shape[name] as z.ZodType | undefined)?.safeParse(undefined);
    if (given === undefined || given.trim() === '') refusals.push(`${name} is not set`);
    else if (builtIn?.success && builtIn.data === given) refusals.push(`${name} is the built-in development value`);
  }
  for (const [name, rule] of Object.entries(DEVELOPMENT_ONLY)) {
    if (name in shape && rule.refused(config[name])) refusals.push(`${name}=${env[name]} is not allowed (${rule.why})`);
  }
  return refusals;
}

/**
 * Parses the environment once at start-up with the service's schema, and freezes the result.
 * Throws one error naming every bad setting.
 */
export function loadConfig<S extends z.ZodRawShape>(
  shape: S,
  env: Record<string, string | undefined> = process.env,
  production: ProductionRules = {},
): Readonly<z.infer<z.ZodObject<S>>> {
  const result = z.object(shape).safeParse(env);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  if (env.NODE_ENV === 'production') {
    const refusals = productionRefusals(shape, env, result.data as Record<string, unknown>, production);
    if (refusals.length > 0) {
      throw new ConfigError(`Refusing to start with NODE_ENV=production: ${refusals.join('; ')}`);
    }
  }
  return Object.freeze(result.data) as Readonly<z.infer<z.ZodObject<S>>>;
}

export { bool as booleanSetting };
