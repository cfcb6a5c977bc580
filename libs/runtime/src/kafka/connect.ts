import { Kafka, logLevel, type Admin, type KafkaConfig, type LogEntry, type Producer } from 'kafkajs';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import type { KafkaSettings } from './settings';
import { sleep } from './timing';

const KAFKA_TO_PINO: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/** The kafkajs client of a bus: its brokers and credentials, its retries, its log lines in ours. */
export function createKafkaClient(settings: KafkaSettings, logger: Logger): Kafka {
  const config: KafkaConfig = {
    clientId: settings.clientId,
    brokers: settings.brokers,
    ssl: settings.ssl,
    sasl: settings.sasl as KafkaConfig['sasl'],
    connectionTimeout: 3_000,
    retry: { initialRetryTime: 100, retries: 8 },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log }: LogEntry) => {
        const { message, ...extra } = log;
        logger[KAFKA_TO_PINO[level] ?? 'info'](extra, message);
      },
  };
  return new Kafka(config);
}

/** Counts the requests each client sends, by API (Produce, Fetch, OffsetCommit...). */
export const requestCounter = (metrics: Metrics, client: string) => (event: { payload: { apiName: string } }) =>
  metrics.kafkaRequests.inc({ client, api: event.payload.apiName });

/**
 * Connects the producer and the admin client. A broker that has just started may still be
 * electing leaders (the idempotent producer's id comes from an internal topic), so failures
 * are retried with backoff for up to a minute before giving up.
 */
export async function connectWithRetries(clients: { admin: Admin; producer: Producer }, logger: Logger): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (let attempt = 0; ; attempt++) {
    try {
      await clients.admin.connect();
      await clients.producer.connect();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      logger.warn({ err: error, attempt }, 'Kafka not ready yet; retrying');
      await clients.producer.disconnect().catch(() => undefined);
      await sleep(Math.min(5_000, 250 * 2 ** attempt));
    }
  }
}
