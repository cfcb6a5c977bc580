/**
 * Webhook delivery throughput and latency of one notifier, in process, against the local
 * broker, registry and database, to a receiver on loopback that answers 200 at once.
 *
 *   1. steady: NOTIFIER_BENCH_RATE (50) events/s for NOTIFIER_BENCH_RATE_SECONDS (5);
 *      event-to-first-attempt latency (the event's timestamp to its first POST arriving).
 *   2. burst: NOTIFIER_BENCH_EVENTS (1,000) events over NOTIFIER_BENCH_APPS (200) applications
 *      published at once; deliveries per second until the last one arrives, and the latency.
 *
 * Prints figures only (targets: 500 deliveries/s, p99 < 200 ms). Uses its own topic namespace
 * and database, removed at the end. Run: `node services/notifier/bench/run.js`.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import mongoose from 'mongoose';
import { Topics, buildEvent, type PublicEventRecord } from '@loan/contracts';
import {
  createKafkaBus,
  createLogger,
  createMetrics,
  createSealer,
  createServiceRuntime,
  systemClock,
} from '@loan/runtime';
import { loadNotifierConfig } from '../src/config';
import { createNotifierService } from '../src/service';

const int = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentiles(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
  const round = (n: number) => Math.round(n * 10) / 10;
  return { n: sorted.length, p50: round(at(50)), p90: round(at(90)), p99: round(at(99)), max: round(at(100)) };
}

async function startReceiver() {
  const firstArrival = new Map<string, number>();
  let requests = 0;
  const server = http.createServer((req, res) => {
    req.on('data', () => undefined);
    req.on('end', () => {
      requests++;
      const id = String(req.headers['x-event-id'] ?? '');
      if (!firstArrival.has(id)) firstArrival.set(id, Date.now());
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    firstArrival,
    requests: () => requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function main() {
  const id = randomUUID().slice(0, 8);
  const config = loadNotifierConfig({
    ...process.env,
    SERVICE_NAME: 'notifier',
    LOG_LEVEL: process.env.NOTIFIER_BENCH_LOG_LEVEL ?? 'warn',
    HTTP_PORT: '0',
    KAFKA_TOPIC_NAMESPACE: `bench-notifier-${id}.`,
    MONGO_DB: `bench_notifier_${id}`,
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
  });
  const rate = int('NOTIFIER_BENCH_RATE', 50);
  const rateSeconds = int('NOTIFIER_BENCH_RATE_SECONDS', 5);
  const burst = int('NOTIFIER_BENCH_EVENTS', 1_000);
  const apps = int('NOTIFIER_BENCH_APPS', 200);
  const timeoutMs = int('NOTIFIER_BENCH_TIMEOUT_SECONDS', 30) * 1000;

  const runtime = await createServiceRuntime(config);
  const service = createNotifierService({ runtime, config, clock: systemClock });
  // A busy shared broker sometimes answers topic creation with a transient metadata error.
  for (let attempt = 1; ; attempt++) {
    try {
      await service.start();
      break;
    } catch (error) {
      if (attempt >= 3) throw error;
      await sleep(1_000);
    }
  }
  const receiver = await startReceiver();
  const bus = createKafkaBus({
    logger: createLogger('bench', 'error'),
    metrics: createMetrics('bench'),
    settings: {
      brokers: config.KAFKA_BROKERS,
      clientId: 'bench-notifier',
      registryUrl: config.SCHEMA_REGISTRY_URL,
      namespace: config.KAFKA_TOPIC_NAMESPACE,
      partitions: config.KAFKA_TOPIC_PARTITIONS,
      replicationFactor: config.KAFKA_REPLICATION_FACTOR,
    },
  });
  await bus.connect();

  const clientId = `bench-${id}`;
  const sealer = createSealer(config.DATA_KEY);
  await bus.publish(Topics.clients, [
    {
      key: clientId,
      value: {
        clientId,
        name: 'Bench lender',
        webhookUrl: receiver.url,
        webhookSecrets: [{ secret: sealer.for('client-secrets').seal('whsec_bench'), validUntil: null }],
        providerSecretKey: null,
        version: 1,
        changedAt: new Date().toISOString(),
      },
    },
  ]);

  const event = (applicationId: string): PublicEventRecord =>
    buildEvent({
      id: randomUUID(),
      event: 'application.failed',
      clientId,
      applicationId,
      data: { applicationId, applicantId: applicationId, status: 'FAILED', reason: 'bench' },
      at: new Date(),
    });
  const publish = (records: PublicEventRecord[]) =>
    bus.publish(
      Topics.events,
      records.map((r) => ({ key: r.applicationId, value: r })),
    );
  const eventAt = new Map<string, number>();
  const track = (records: PublicEventRecord[]) => records.forEach((r) => eventAt.set(r.id, Date.parse(r.timestamp)));
  async function waitAll(ids: string[]) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && ids.some((i) => !receiver.firstArrival.has(i))) await sleep(20);
    return ids.filter((i) => receiver.firstArrival.has(i)).length;
  }
  const latency = (ids: string[]) =>
    percentiles(
      ids.filter((i) => receiver.firstArrival.has(i)).map((i) => receiver.firstArrival.get(i)! - eventAt.get(i)!),
    );

  /** Where the time went: mean time of recording an event and of one attempt, from the service's metrics. */
  async function handlerTimes(): Promise<string[]> {
    const metrics = await runtime.metrics.registry.getMetricsAsJSON();
    const mean = (name: string, match: (labels: Record<string, unknown>) => boolean) => {
      const values = metrics.find((m) => m.name === name)?.values ?? [];
      const pick = (suffix: string) =>
        (values as { metricName?: string; labels: Record<string, unknown>; value: number }[])
          .filter((v) => v.metricName === `${name}${suffix}` && match(v.labels))
          .reduce((sum, v) => sum + v.value, 0);
      const count = pick('_count');
      return count ? `${count} x ${((pick('_sum') / count) * 1000).toFixed(1)} ms` : 'none';
    };
    return [
      `recording an event: ${mean('kafka_handler_duration_seconds', (l) => l.topic === Topics.events)}`,
      `one attempt (POST): ${mean('webhook_attempt_duration_seconds', () => true)}`,
      `one insert command (all collections): ${mean('mongo_command_duration_seconds', (l) => l.command === 'insert')}`,
      `one update command (all collections): ${mean('mongo_command_duration_seconds', (l) => l.command === 'update')}`,
    ];
  }

  /** Database commands the notifier has sent so far, by command and collection. */
  async function commands(): Promise<Map<string, number>> {
    const counted = new Map<string, number>();
    for (const v of (await runtime.metrics.databaseCommands.get()).values) {
      const key = `${String(v.labels.command)} ${String(v.labels.collection)}`;
      counted.set(key, (counted.get(key) ?? 0) + v.value);
    }
    return counted;
  }
  const WRITES = new Set(['insert', 'update', 'delete', 'findAndModify']);
  /** The commands between two counts, per delivery: writes, reads, and the writes by collection. */
  function perDelivery(before: Map<string, number>, after: Map<string, number>, deliveries: number): string[] {
    const added = [...after]
      .map(([key, n]) => [key, n - (before.get(key) ?? 0)] as const)
      .filter(([, n]) => n > 0)
      .sort((a, b) => b[1] - a[1]);
    const per = (n: number) => (n / deliveries).toFixed(2);
    const writes = added.filter(([key]) => WRITES.has(key.split(' ')[0]!));
    const total = (list: (readonly [string, number])[]) => list.reduce((sum, [, n]) => sum + n, 0);
    return [
      `burst   database commands per delivery: ${per(total(added))} (writes ${per(total(writes))}, other ${per(total(added) - total(writes))})`,
      `burst   by command: ${added.map(([key, n]) => `${key} ${per(n)}`).join(', ')}`,
    ];
  }

  try {
    const warm = Array.from({ length: 50 }, () => event(randomUUID()));
    track(warm);
    await publish(warm);
    await waitAll(warm.map((r) => r.id));

    const steadyIds: string[] = [];
    const steadyApps = Array.from({ length: 50 }, () => randomUUID());
    const tickMs = 100;
    const perTick = Math.max(1, Math.round((rate * tickMs) / 1000));
    const start = Date.now();
    for (let n = 0; Date.now() - start < rateSeconds * 1000; n++) {
      const batch = Array.from({ length: perTick }, (_, i) =>
        event(steadyApps[(n * perTick + i) % steadyApps.length]!),
      );
      track(batch);
      steadyIds.push(...batch.map((r) => r.id));
      await publish(batch);
      const next = start + (n + 1) * tickMs;
      if (next > Date.now()) await sleep(next - Date.now());
    }
    const steadyDelivered = await waitAll(steadyIds);
    const steady = latency(steadyIds);

    const burstApps = Array.from({ length: apps }, () => randomUUID());
    const burstEvents = Array.from({ length: burst }, (_, i) => event(burstApps[i % apps]!));
    const commandsBefore = await commands();
    const t0 = performance.now();
    const wallStart = Date.now();
    for (let i = 0; i < burstEvents.length; i += 250) {
      const slice = burstEvents.slice(i, i + 250);
      track(slice);
      await publish(slice);
    }
    const publishedMs = performance.now() - t0;
    const burstIds = burstEvents.map((r) => r.id);
    const burstDelivered = await waitAll(burstIds);
    const lastArrival = Math.max(...burstIds.map((i) => receiver.firstArrival.get(i) ?? 0));
    const drainSeconds = (lastArrival - wallStart) / 1000;
    // Counted once every burst delivery has settled (its outcome written), not at the last POST;
    // watched through a connection of the bench's own, so that the watching is not counted.
    const watch = mongoose.createConnection(config.MONGO_URL, { dbName: config.MONGO_DB });
    await watch.asPromise();
    const pendingDeadline = Date.now() + timeoutMs;
    while (
      Date.now() < pendingDeadline &&
      (await watch.collection('deliveries').countDocuments({ status: 'PENDING' })) > 0
    )
      await sleep(50);
    await watch.close();
    const commandsAfter = await commands();

    const lines = [
      `notifier delivery bench (concurrency ${config.DELIVERY_CONCURRENCY}, poll ${config.DELIVERY_POLL_INTERVAL} ms)`,
      `steady  ${rate} events/s for ${rateSeconds} s: delivered ${steadyDelivered}/${steadyIds.length}; event-to-first-attempt p50 ${steady.p50} ms, p90 ${steady.p90} ms, p99 ${steady.p99} ms, max ${steady.max} ms`,
      `burst   ${burst} events over ${apps} applications (published in ${Math.round(publishedMs)} ms): delivered ${burstDelivered}/${burst} in ${drainSeconds.toFixed(2)} s = ${(burstDelivered / drainSeconds).toFixed(0)} deliveries/s`,
      `burst   event-to-first-attempt ${JSON.stringify(latency(burstIds))} ms`,
      ...perDelivery(commandsBefore, commandsAfter, burstDelivered),
      `receiver requests ${receiver.requests()} for ${eventAt.size} events (duplicates ${receiver.requests() - receiver.firstArrival.size})`,
      `targets: 500 deliveries/s; p99 event-to-first-attempt < 200 ms`,
      ...(await handlerTimes()),
    ];
    console.log(lines.join('\n'));
  } finally {
    await bus.disconnect().catch(() => undefined);
    await receiver.close();
    // Stopped first: a database must not be dropped while the notifier still reads it.
    await service.stop();
    const cleanup = mongoose.createConnection(config.MONGO_URL, { dbName: config.MONGO_DB });
    await cleanup.asPromise();
    await cleanup.dropDatabase().catch(() => undefined);
    await cleanup.close();
    const leftovers = createKafkaBus({
      logger: createLogger('bench', 'silent'),
      metrics: createMetrics('bench'),
      settings: {
        brokers: config.KAFKA_BROKERS,
        clientId: 'bench-cleanup',
        registryUrl: config.SCHEMA_REGISTRY_URL,
        partitions: 1,
        replicationFactor: 1,
        namespace: config.KAFKA_TOPIC_NAMESPACE,
      },
    });
    await leftovers.connect();
    await leftovers.deleteTopics(await leftovers.listTopics()).catch(() => undefined);
    await leftovers.deleteGroups([config.CONSUMER_GROUP]).catch(() => undefined);
    await leftovers.disconnect();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
