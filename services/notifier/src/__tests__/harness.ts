import { randomUUID } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import mongoose from 'mongoose';
import { Topics, buildEvent, type ClientChanged, type EventName, type PublicEventRecord } from '@loan/contracts';
import {
  createKafkaBus,
  createLogger,
  createMetrics,
  createSealer,
  createServiceRuntime,
  systemClock,
} from '@loan/runtime';
import { testConfig, testStamp } from '@testing/helpers';
import { configShape, type NotifierConfig } from '../config';
import { createNotifierService } from '../service';

/** Settings of one suite: its own topic namespace, consumer group and database. */
export function suiteSettings(overrides: Record<string, string> = {}): Record<string, string> {
  const id = testStamp();
  return {
    KAFKA_TOPIC_NAMESPACE: `${id}.`,
    MONGO_DB: `${id}_notifier`,
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    WEBHOOK_TIMEOUT: '2s',
    WEBHOOK_RETRY_BASE: '200ms',
    DELIVERY_LEASE: '5s',
    DELIVERY_POLL_INTERVAL: '50ms',
    ...overrides,
  };
}

export type StartedNotifier = Awaited<ReturnType<typeof startNotifier>>;

/** Starts a notifier in this process, as `start.ts` would, on the given settings. */
export async function startNotifier(settings: Record<string, string>) {
  const config = testConfig<NotifierConfig>('notifier', settings, configShape);
  const runtime = await createServiceRuntime(config);
  const service = createNotifierService({ runtime, config, clock: systemClock });
  // A busy shared broker sometimes answers topic creation with a transient metadata error.
  for (let attempt = 1; ; attempt++) {
    try {
      const { url } = await service.start();
      return { config, runtime, service, url };
    } catch (error) {
      if (attempt >= 3 || !/kafka/i.test((error as Error).name)) {
        await runtime.lifecycle.stop();
        throw error;
      }
    }
  }
}

/**
 * Stops the notifiers of a suite, then drops its database through a connection of its own:
 * dropping a database that a running service still reads can bring FerretDB down.
 */
export async function stopAndDrop(notifiers: (StartedNotifier | undefined)[]): Promise<void> {
  const [first] = notifiers.filter((n): n is StartedNotifier => n !== undefined);
  for (const n of notifiers) await n?.service.stop();
  if (!first?.config.MONGO_DB) return;
  const connection = mongoose.createConnection(first.config.MONGO_URL, { dbName: first.config.MONGO_DB });
  await connection.asPromise();
  await connection.dropDatabase();
  await connection.close();
}

/** Publishes client changes and public events the way the gateway and the other services do. */
export async function createPublisher(config: NotifierConfig) {
  const bus = createKafkaBus({
    logger: createLogger('notifier-test', 'silent'),
    metrics: createMetrics('notifier-test'),
    settings: {
      brokers: config.KAFKA_BROKERS,
      clientId: `notifier-test-${randomUUID().slice(0, 8)}`,
      registryUrl: config.SCHEMA_REGISTRY_URL,
      namespace: config.KAFKA_TOPIC_NAMESPACE,
      partitions: config.KAFKA_TOPIC_PARTITIONS,
      replicationFactor: config.KAFKA_REPLICATION_FACTOR,
    },
  });
  await bus.connect();
  const sealer = createSealer(config.DATA_KEY);

  return {
    /** Publishes a client account change; the secrets are given in plain text and sealed here. */
    async client(args: {
      clientId?: string;
      webhookUrl: string | null;
      secrets?: { secret: string; validUntil?: Date | null }[];
      version?: number;
    }) {
      const clientId = args.clientId ?? `client-${randomUUID().slice(0, 8)}`;
      const secrets = args.secrets ?? [{ secret: `whsec_${randomUUID().replace(/-/g, '')}` }];
      const change: ClientChanged = {
        clientId,
        name: `Lender ${clientId}`,
        webhookUrl: args.webhookUrl,
        webhookSecrets: secrets.map((s) => ({
          secret: sealer.for('client-secrets').seal(s.secret),
          validUntil: s.validUntil ? s.validUntil.toISOString() : null,
        })),
        providerSecretKey: null,
        version: args.version ?? 1,
        changedAt: new Date().toISOString(),
      };
      await bus.publish(Topics.clients, [{ key: clientId, value: change }]);
      return { clientId, secret: secrets[0]?.secret ?? '', change };
    },

    /** Builds a public event (not published). */
    event(args: { clientId: string; applicationId?: string; event?: EventName; id?: string }): PublicEventRecord {
      const applicationId = args.applicationId ?? randomUUID();
      const applicantId = randomUUID();
      const event = args.event ?? 'application.failed';
      const data =
        event === 'application.abandoned'
          ? { applicationId, applicantId, reason: 'no_link', message: 'No bank account was linked within 24 hours' }
          : { applicationId, applicantId, status: 'FAILED', reason: 'No accounts with completed enrichment' };
      return buildEvent({
        id: args.id ?? randomUUID(),
        event: event as 'application.failed',
        clientId: args.clientId,
        applicationId,
        data: data as never,
        at: new Date(),
      });
    },

    /** Publishes events in the given order, keyed by application as the services do. */
    async publish(...records: PublicEventRecord[]) {
      await bus.publish(
        Topics.events,
        records.map((r) => ({ key: r.applicationId, value: r })),
      );
    },

    close: () => bus.disconnect(),
  };
}
export type Publisher = Awaited<ReturnType<typeof createPublisher>>;

/** One request a receiver got, with its body as raw bytes. */
export interface Received {
  at: number;
  rawBody: Buffer;
  headers: IncomingHttpHeaders;
  eventId: string;
  /** The status it was answered with (null while the answer is held back). */
  status: number | null;
}

export type Behaviour = (request: Received, nth: number) => number | { status: number; delayMs?: number };

/** A real HTTP webhook receiver on 127.0.0.1 whose answers the test chooses. */
export async function startReceiver(behaviour: Behaviour = () => 200) {
  const requests: Received[] = [];
  let respond = behaviour;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: Received = {
        at: Date.now(),
        rawBody: Buffer.concat(chunks),
        headers: req.headers,
        eventId: String(req.headers['x-event-id'] ?? ''),
        status: null,
      };
      requests.push(received);
      const answer = respond(received, requests.filter((r) => r.eventId === received.eventId).length);
      const { status, delayMs } = typeof answer === 'number' ? { status: answer, delayMs: 0 } : answer;
      const send = () => {
        received.status = status;
        res.writeHead(status, { 'content-type': 'application/json' }).end('{"ok":true}');
      };
      if (delayMs) setTimeout(send, delayMs);
      else send();
    });
  });
  let port = 0;
  async function listen() {
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  }
  await listen();
  return {
    requests,
    get url() {
      return `http://127.0.0.1:${port}/webhooks/loans`;
    },
    forEvent: (eventId: string) => requests.filter((r) => r.eventId === eventId),
    setBehaviour(next: Behaviour) {
      respond = next;
    },
    /** Stops listening: connections are refused until `up` is called. */
    async down() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    up: listen,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
