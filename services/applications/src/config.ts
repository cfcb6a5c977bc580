import { ConfigError, baseConfigShape, durationMs, loadConfig, optionalDurationMs } from '@loan/runtime';
import { z } from 'zod';

export const configShape = {
  ...baseConfigShape,
  SERVICE_NAME: z.string().default('applications').describe('Service name'),
  PROVIDER_BASE_URL: z
    .string()
    .default('http://127.0.0.1:8090')
    .describe('Base URL of the account-linking provider API (https://api.withmono.com, or the sandbox)'),
  PROVIDER_REDIRECT_URL: z
    .string()
    .default('http://127.0.0.1:8080/linked')
    .describe('Where the provider widget sends the applicant when linking ends'),
  PROVIDER_TIMEOUT: z.string().default('10s').describe('Timeout of one provider call'),
  COMMAND_CONCURRENCY: z.coerce
    .number()
    .int()
    .positive()
    .default(6)
    .describe('Partitions of loan.applications.commands handled concurrently'),
  COMMAND_KEY_CONCURRENCY: z.coerce
    .number()
    .int()
    .positive()
    .default(4)
    .describe("Commands of one partition handled at once, of different applications (each application's in order)"),
  FACT_CONCURRENCY: z.coerce
    .number()
    .int()
    .positive()
    .default(6)
    .describe('Partitions of the fact topics (provider callbacks, results, deadlines) handled concurrently'),
  CONSENT_VALIDITY: durationMs('365d').describe(
    "How long an applicant's consent to read a linked account lasts from when it was given (CBN: re-validated every 12 months)",
  ),
  CONSENT_IDLE_LAPSE: durationMs('180d').describe(
    'A linked account whose consent was not used for this long lapses: unlinked at the provider and its bank data erased',
  ),
  RECORD_RETENTION_YEAR: optionalDurationMs().describe(
    "The length of one year of a lender's record retention (recordRetentionYears) when shorter than a calendar year: for tests; unset (calendar years) in production, which refuses it",
  ),
};

export type ApplicationsConfig = ReturnType<typeof loadApplicationsConfig>;
export const loadApplicationsConfig = (env: Record<string, string | undefined> = process.env) => {
  const config = loadConfig(configShape, env);
  if (env.NODE_ENV === 'production' && config.RECORD_RETENTION_YEAR !== undefined)
    throw new ConfigError(
      "Refusing to start with NODE_ENV=production: RECORD_RETENTION_YEAR is set (records would be purged before the lender's retention period ends)",
    );
  return config;
};
