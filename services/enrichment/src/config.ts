import { baseConfigShape, durationMs, loadConfig } from '@loan/runtime';
import { z } from 'zod';

export const configShape = {
  ...baseConfigShape,
  SERVICE_NAME: z.string().default('enrichment').describe('Service name'),
  CONSUMER_GROUP: z.string().min(1).default('enrichment').describe('Kafka consumer group of the service'),
  CONSUMER_CONCURRENCY: z.coerce.number().int().positive().default(6).describe('Partitions handled concurrently'),
  PROVIDER_BASE_URL: z
    .string()
    .default('http://127.0.0.1:8090')
    .describe('Base URL of the account-linking provider API (https://api.withmono.com, or the sandbox)'),
  PROVIDER_TIMEOUT: durationMs('10s').describe('Timeout of one provider call'),
  PROVIDER_RETRIES: z.coerce
    .number()
    .int()
    .min(0)
    .default(3)
    .describe('Retries of one provider call on 5xx, 429 and timeouts'),
  PROVIDER_RETRY_BASE: durationMs('250ms').describe('First backoff between retries of one provider call'),
  PROVIDER_BREAKER_RESET: durationMs('10s').describe(
    'How long the open circuit breaker waits before trying the provider again',
  ),
  PROVIDER_BREAKER_VOLUME: z.coerce
    .number()
    .int()
    .positive()
    .default(5)
    .describe('Calls in the rolling window before the breaker may open'),
  INCOME_PERIOD_MONTHS: z.coerce
    .number()
    .int()
    .positive()
    .default(12)
    .describe('Months of history the income analysis covers'),
  ENRICHMENT_POLL_INTERVAL: durationMs('5s').describe(
    'How often pending enrichments are looked at (retries and polling)',
  ),
  ENRICHMENT_POLL_AFTER: durationMs('60s').describe(
    'A provider job started longer ago than this is polled even if its webhook has not come',
  ),
  ENRICHMENT_RETRY_BASE: durationMs('2s').describe(
    'First backoff after a provider call failed for a pending enrichment',
  ),
  ENRICHMENT_RETRY_MAX: durationMs('2m').describe('Longest backoff between attempts on a pending enrichment'),
  ENRICHMENT_LEASE: durationMs('2m').describe(
    'How long a worker owns a pending enrichment it is working on; after that another may take it over',
  ),
  ENRICHMENT_RESCAN_INTERVAL: durationMs('1m').describe(
    'How often the pending enrichments are read from the database whole, to take over those another process left',
  ),
  ENRICHMENT_WORKERS: z.coerce.number().int().positive().default(8).describe('Enrichments worked on at the same time'),
};

export type EnrichmentConfig = ReturnType<typeof loadEnrichmentConfig>;
export const loadEnrichmentConfig = (env: Record<string, string | undefined> = process.env) =>
  loadConfig(configShape, env);
