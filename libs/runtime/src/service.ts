import type { Connection } from 'mongoose';
import { createBulkLane, type BulkLane } from './bulkLane';
import type { BaseConfig } from './config';
import { createKafkaBus, type KafkaBus } from './kafka';
import { createLifecycle, type Lifecycle } from './lifecycle';
import { createLogger, type Logger } from './logger';
import { createMetrics, type Metrics } from './metrics';
import { connectMongo } from './mongo';
import { roundTripCheck } from './probe';
import { createSealer, type PurposeSealer } from './seal';
import { stopTracing } from './tracingSdk';

/** What every service is built on: its logger, metrics, Kafka bus, database and shutdown. */
export interface ServiceRuntime {
  config: BaseConfig;
  logger: Logger;
  metrics: Metrics;
  bus: KafkaBus;
  db: Connection;
  /** The service's bulk writes to `db`, one after the other (see bulkLane.ts). */
  bulkLane: BulkLane;
  /** Seals personal data; `sealer.for(purpose)` seals anything else. */
  sealer: PurposeSealer;
  lifecycle: Lifecycle;
  /** Readiness: each asks its dependency over the network (see `roundTripCheck`). */
  checks: Record<string, () => Promise<boolean>>;
}

/**
 * Connects a service to Kafka and its database. Connections close last on shutdown (stoppers
 * registered later by the service, such as consumers and HTTP, run first).
 */
export async function createServiceRuntime(
  config: BaseConfig,
  overrides: { logger?: Logger } = {},
): Promise<ServiceRuntime> {
  const logger = overrides.logger ?? createLogger(config.SERVICE_NAME, config.LOG_LEVEL);
  const metrics = createMetrics(config.SERVICE_NAME);
  const lifecycle = createLifecycle({ logger, timeoutMs: config.SHUTDOWN_TIMEOUT });
  // Last of all: the spans of the shutdown itself are exported too.
  lifecycle.onStop('tracing', stopTracing);
  const bus = createKafkaBus({
    logger,
    metrics,
    settings: {
      brokers: config.KAFKA_BROKERS,
      clientId: config.SERVICE_NAME,
      ssl: config.KAFKA_SSL,
      sasl:
        config.KAFKA_SASL_MECHANISM && config.KAFKA_SASL_USERNAME
          ? {
              mechanism: config.KAFKA_SASL_MECHANISM,
              username: config.KAFKA_SASL_USERNAME,
              password: config.KAFKA_SASL_PASSWORD ?? '',
            }
          : undefined,
      registryUrl: config.SCHEMA_REGISTRY_URL,
      namespace: config.KAFKA_TOPIC_NAMESPACE,
      commitIntervalMs: config.KAFKA_COMMIT_INTERVAL,
      consumerStallMs: config.KAFKA_CONSUMER_STALL,
      producerLingerMs: config.KAFKA_PRODUCER_LINGER,
      partitions: config.KAFKA_TOPIC_PARTITIONS,
      replicationFactor: config.KAFKA_REPLICATION_FACTOR,
      retentionMs: config.KAFKA_RETENTION,
      eventsRetentionMs: config.KAFKA_EVENTS_RETENTION,
    },
  });
  const db = await connectMongo({
    url: config.MONGO_URL,
    dbName: config.MONGO_DB ?? `loan_${config.SERVICE_NAME}`,
    logger,
    commands: metrics.databaseCommands,
    durations: metrics.databaseDuration,
  });
  lifecycle.onStop('database', () => db.close());
  await bus.connect();
  lifecycle.onStop('kafka', () => bus.disconnect());
  return {
    config,
    logger,
    metrics,
    bus,
    db,
    bulkLane: createBulkLane(),
    sealer: createSealer(config.DATA_KEY, config.DATA_KEY_PREVIOUS),
    lifecycle,
    checks: {
      kafka: roundTripCheck(async () => {
        if (!bus.isConnected()) throw new Error('not connected');
        await bus.checkBroker();
      }),
      database: roundTripCheck(async () => {
        const handle = db.db;
        if (!handle) throw new Error('not connected');
        await handle.admin().ping();
      }),
    },
  };
}
