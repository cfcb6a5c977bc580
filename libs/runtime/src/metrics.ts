import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The metrics of one service: process defaults plus the ones every service shares. Each
 * service gets its own registry (no global), so tests can run several in one process.
 */
export function createMetrics(service: string) {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const handlerDuration = new Histogram({
    name: 'kafka_handler_duration_seconds',
    help: 'Time spent handling one Kafka message',
    labelNames: ['topic', 'outcome'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const handlerFailures = new Counter({
    name: 'kafka_handler_failures_total',
    help: 'Kafka messages whose handling failed, by kind (retried, dead_lettered)',
    labelNames: ['topic', 'kind'] as const,
    registers: [registry],
  });
  const consumerLag = new Gauge({
    name: 'kafka_consumer_lag',
    help: 'Messages behind the partition high watermark',
    labelNames: ['group', 'topic', 'partition'] as const,
    registers: [registry],
  });
  const published = new Counter({
    name: 'kafka_messages_published_total',
    help: 'Messages published, by topic',
    labelNames: ['topic'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const kafkaRequests = new Counter({
    name: 'kafka_requests_total',
    help: 'Requests sent to the Kafka brokers, by client (producer, consumer, admin) and API',
    labelNames: ['client', 'api'] as const,
    registers: [registry],
  });
  const databaseCommands = new Counter({
    name: 'mongo_commands_total',
    help: 'Commands sent to the database, by command and collection',
    labelNames: ['command', 'collection'] as const,
    registers: [registry],
  });
  const databaseDuration = new Histogram({
    name: 'mongo_command_duration_seconds',
    help: 'Time from sending a database command to its answer, by command and outcome (ok, error)',
    labelNames: ['command', 'outcome'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return {
    registry,
    databaseDuration,
    handlerDuration,
    handlerFailures,
    consumerLag,
    published,
    httpDuration,
    kafkaRequests,
    databaseCommands,
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
