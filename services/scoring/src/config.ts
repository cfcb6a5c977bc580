import { baseConfigShape, durationMs, internalTokenSetting, loadConfig } from '@loan/runtime';
import { z } from 'zod';

export const configShape = {
  ...baseConfigShape,
  SERVICE_NAME: z.string().default('scoring').describe('Service name'),
  BUREAU_BASE_URL: z
    .string()
    .default('http://127.0.0.1:8090')
    .describe('Base URL of the credit bureau (CRC-shaped API, or the sandbox)'),
  BUREAU_API_KEY: z.string().default('sandbox-bureau-key').describe('Credential of the bureau API'),
  BUREAU_TIMEOUT: durationMs('5s').describe('Timeout of one bureau lookup; past it the bureau counts as unavailable'),
  PROFILE_WAIT: durationMs('30s').describe('How long an analysis waits for enriched profiles still in flight'),
  CONSUMER_GROUP: z.string().default('scoring').describe('Kafka consumer group'),
  INTERNAL_TOKEN: internalTokenSetting,
};

export type ScoringConfig = ReturnType<typeof loadScoringConfig>;
export const loadScoringConfig = (env: Record<string, string | undefined> = process.env) =>
  loadConfig(configShape, env, { secrets: ['BUREAU_API_KEY', 'INTERNAL_TOKEN'] });
