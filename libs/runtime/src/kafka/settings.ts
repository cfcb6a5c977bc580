import type { z } from 'zod';

export interface KafkaSettings {
  brokers: string[];
  clientId: string;
  ssl?: boolean;
  sasl?: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string };
  registryUrl: string;
  partitions: number;
  replicationFactor: number;
  /** Value schema of a topic; the contracts' by default. */
  schemaOf?: (topic: string) => z.ZodType;
  /**
   * Prefix of every topic and consumer group this bus touches (empty in production). Lets
   * test suites share one broker without seeing each other's messages; handlers and schemas
   * see the plain names.
   */
  namespace?: string;
  /**
   * How often consumers commit the offsets of the messages they have handled (1 s by
   * default). A process that dies loses at most that much progress: those messages are
   * handled again, which every handler tolerates (delivery is at least once).
   */
  commitIntervalMs?: number;
  /**
   * How long a consumer may go without starting a fetch, while none of its handlers runs,
   * before it is taken for stalled and started again (60 s by default). A kafkajs consumer can
   * stop for good after a broker outage without a crash event (it leaves its group, fetches
   * nothing and sends no heartbeat) while the process, its connections and `/readyz` look
   * healthy; a healthy one starts a fetch at least every second (see `fetchWaitFor`).
   */
  consumerStallMs?: number;
  /**
   * How long a message whose handler failed (a retriable error) waits before it is handled
   * again, its partition paused meanwhile: `initialMs` (200) after the first failure, doubled
   * after each next one, at most `maxMs` (5,000).
   */
  retryBackoff?: { initialMs: number; maxMs: number };
  /**
   * How long a publish waits for others to join it in one produce request when none is in
   * flight (0 by default: sent at once). A few milliseconds gather what several handlers
   * publish at about the same time into one request, as the Java producer's `linger.ms` does.
   */
  producerLingerMs?: number;
  /**
   * How long the broker keeps records of the topics this bus creates (`retention.ms`): the
   * public events and analytics topics keep `eventsRetentionMs`, every other one (commands, callbacks,
   * facts, results, replies, dead letters) `retentionMs`. Compacted topics keep their latest
   * record per key instead. Unset: the broker's default.
   */
  retentionMs?: number;
  eventsRetentionMs?: number;
}
