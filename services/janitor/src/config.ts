import { baseConfigShape, durationMs, loadConfig } from '@loan/runtime';
import { z } from 'zod';

export const configShape = {
  ...baseConfigShape,
  SERVICE_NAME: z.string().default('janitor').describe('Service name'),
  CONSUMER_GROUP: z.string().min(1).default('janitor').describe('Kafka consumer group of the fact consumers'),
  CONSUMER_CONCURRENCY: z.coerce.number().int().positive().default(3).describe('Partitions handled concurrently'),
  CONSUMER_KEY_CONCURRENCY: z.coerce
    .number()
    .int()
    .positive()
    .default(8)
    .describe(
      "Facts of one partition tracked at once, of different applications (each application's in order; 1: one at a time); their timeline writes go to the database together",
    ),
  JANITOR_FETCH_MIN_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1_048_576)
    .describe(
      "How many bytes of facts a fetch of the janitor's waits at the broker to gather, for at most a second, before it returns (Kafka's fetch.min.bytes; 1: at once). No applicant or lender waits on the janitor's view of a timeline, and the applications service checks every deadline the janitor fires against the application's state, so its facts are read in fewer, larger fetches: fewer Kafka requests, and more timeline writes coalesced into one bulk write",
    ),
  NO_LINK_TTL: durationMs('24h').describe('Time an application may wait for its first linked account (spec: 24 hours)'),
  NO_ANALYZE_TTL: durationMs('7d').describe(
    'Time from the first linked account to analyze before abandonment (spec: 7 days)',
  ),
  ENRICHMENT_TIMEOUT: durationMs('20m').describe(
    'Time an account may stay in enrichment before it fails (spec: 20 minutes)',
  ),
  ANALYSIS_TIMEOUT: durationMs('5m').describe(
    'Time an analysis may take from analyze to a decision before the application fails with reason analysis_timeout',
  ),
  BANK_DATA_RETENTION: durationMs('90d').describe(
    'How long bank data (statements, enriched profiles, webhook bodies with account numbers) is kept after an application is COMPLETED or FAILED',
  ),
  OFFER_EXPIRY_GRACE: durationMs('0s').describe(
    "How long after an offer's own expiry (the lender's policy fixes it when the offer is made) the janitor tells the applications service it passed",
  ),
  RECORD_RETENTION: durationMs('1827d').describe(
    "How long an ended application's records are kept when its ending did not carry the lender's own period (recordRetentionYears, 5 years unless set)",
  ),
  JANITOR_POLL_INTERVAL: durationMs('500ms').describe(
    'How often the scheduler looks for deadlines that are due, among the armed deadlines it holds in memory',
  ),
  JANITOR_RELOAD_INTERVAL: durationMs('1m').describe(
    'How often the scheduler reloads the armed deadlines from the database (those other replicas armed) and takes over publications a lease old; each reload reads the timelines whose next deadline is due in the hours from JANITOR_RELOAD_LOOKBACK ago to the next two reloads',
  ),
  JANITOR_RELOAD_LOOKBACK: durationMs('1d').describe(
    'How far back a periodic reload looks for timelines whose next deadline is overdue; the first reload of a process, and one every JANITOR_RELOAD_LOOKBACK, reads every timeline with a deadline due, however long overdue; up to 40 days (a longer one asks for more than 1,000 hours, which the local FerretDB does not narrow by its index)',
  ),
  JANITOR_GAUGE_SCAN_INTERVAL: durationMs('5m').describe(
    'How often the janitor_deadlines_armed gauge counts the armed deadlines in the database (a read of every timeline with one armed, the 90-day bank-data retentions included); a scrape in between reports the last counts',
  ),
  JANITOR_GAUGE_SCRAPE_WAIT: durationMs('2s').describe(
    'How long a scrape of /metrics waits for a count of the armed deadlines under way; a longer count goes on in the background and the scrape reports the last counts (none before the first), so that a large history never makes the scraper time out',
  ),
  JANITOR_BATCH_SIZE: z.coerce.number().int().positive().default(100).describe('Deadlines claimed per scheduler pass'),
  JANITOR_PUBLISH_LEASE: durationMs('30s').describe(
    'How long the replica that fired a deadline has to publish it before another replica publishes it instead',
  ),
};

export type JanitorConfig = ReturnType<typeof loadJanitorConfig>;
export const loadJanitorConfig = (env: Record<string, string | undefined> = process.env) =>
  loadConfig(configShape, env);
