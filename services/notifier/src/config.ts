import { baseConfigShape, booleanSetting, durationMs, internalTokenSetting, loadConfig } from '@loan/runtime';
import { z } from 'zod';

export const configShape = {
  ...baseConfigShape,
  ANALYTICS_KEY: z
    .string()
    .min(16)
    .default('local-analytics-key-change-me')
    .describe(
      'Key of the pseudonyms in loan.analytics.v1 (HMAC-SHA256 of lender, application and account ids); keep it secret and stable',
    ),
  INTERNAL_TOKEN: internalTokenSetting,
  SERVICE_NAME: z.string().default('notifier').describe('Service name'),
  WEBHOOK_TIMEOUT: durationMs('10s').describe(
    'How long a receiver has to answer with a 2xx; a later answer counts as a failed attempt',
  ),
  WEBHOOK_RETRY_BASE: durationMs('10s').describe(
    'Delay before the first retry; each further retry doubles it (10s, 20s, 40s, 80s, 160s)',
  ),
  WEBHOOK_MAX_RETRIES: z.coerce
    .number()
    .int()
    .min(0)
    .max(20)
    .default(5)
    .describe('Retries after the first attempt before a delivery is marked FAILED'),
  ALLOW_PRIVATE_WEBHOOK_URLS: booleanSetting(false).describe(
    'Allow http:// and loopback, private and link-local webhook targets (the local stack only)',
  ),
  DELIVERY_POLL_INTERVAL: durationMs('200ms').describe('How often an idle notifier looks for due deliveries'),
  DELIVERY_CONCURRENCY: z.coerce
    .number()
    .int()
    .positive()
    .default(32)
    .describe('Webhook attempts one notifier makes at the same time'),
  DELIVERY_LEASE: durationMs('30s').describe(
    'How long a claimed attempt stays reserved for the replica that claimed it; must exceed WEBHOOK_TIMEOUT',
  ),
  INGEST_CONCURRENCY: z.coerce
    .number()
    .int()
    .positive()
    .default(6)
    .describe('Partitions of loan.events.v1 recorded concurrently'),
  INGEST_KEY_CONCURRENCY: z.coerce
    .number()
    .int()
    .positive()
    .default(8)
    .describe(
      "Events of one partition recorded at once, of different applications (each application's in order; 1: one at a time)",
    ),
  CONSUMER_GROUP: z.string().min(1).default('notifier').describe('Kafka consumer group of the notifier replicas'),
};

export type NotifierConfig = ReturnType<typeof loadNotifierConfig>;
export const loadNotifierConfig = (env: Record<string, string | undefined> = process.env) =>
  loadConfig(configShape, env, { secrets: ['INTERNAL_TOKEN', 'ANALYTICS_KEY'] });
