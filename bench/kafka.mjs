// Producer throughput on the local broker: Kafka's own ProducerPerformance (the broker's
// ceiling from the JVM client), the project's producer wrapper (createKafkaBus: zod validation
// and registry encoding, idempotent, one request in flight) and raw kafkajs with the same
// producer settings but no registry. Same record count and size, acks=all, a topic each.
import { performance } from 'node:perf_hooks';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { envInt, infraEnv, log, requireFromRoot, root, round } from './lib/util.mjs';

function javaProducerPerformance({ topic, records, size, brokers }) {
  const home = process.env.LOAN_INFRA_HOME ?? path.join(os.homedir(), '.cache', 'loan-infra');
  const args = [
    '-Xmx256m',
    '-Dlog4j.configuration=file:/dev/null',
    '-cp',
    `${path.join(home, 'kafka', 'lib')}/*`,
    'org.apache.kafka.tools.ProducerPerformance',
    '--topic',
    topic,
    '--num-records',
    String(records),
    '--record-size',
    String(size),
    '--throughput',
    '-1',
    '--producer-props',
    `bootstrap.servers=${brokers.join(',')}`,
    'acks=all',
  ];
  return new Promise((resolve) => {
    const child = spawn('java', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', (error) => resolve({ status: 'failed', reason: String(error.message) }));
    child.on('exit', (code) => {
      clearTimeout(timer);
      const m =
        /(\d+) records sent, ([\d.]+) records\/sec \(([\d.]+) MB\/sec\), ([\d.]+) ms avg latency, ([\d.]+) ms max latency, (\d+) ms 50th, (\d+) ms 95th, (\d+) ms 99th/.exec(
          out,
        );
      if (code !== 0 || !m) return resolve({ status: 'failed', reason: `exit ${code}`, output: out.slice(-1_500) });
      resolve({
        status: 'ok',
        records: Number(m[1]),
        recordsPerSecond: round(Number(m[2])),
        mbPerSecond: Number(m[3]),
        latencyMs: { mean: Number(m[4]), p50: Number(m[6]), p95: Number(m[7]), p99: Number(m[8]), max: Number(m[5]) },
        settings: 'Java client defaults (idempotent, 5 requests in flight, batch.size 16 KiB), no key',
      });
    });
  });
}

/**
 * Waits until every partition of the topics has a leader. A broker started moments ago answers
 * metadata requests for a topic it has just created with "does not host this topic-partition"
 * for a while (kafkajs's own `waitForLeaders` gives up on that error): asked again until 60 s.
 */
async function waitForLeaders(admin, names) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: names });
      if (
        topics.length === names.length &&
        topics.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))
      )
        return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`no leader for every partition of ${names.join(', ')} after 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function runKafka() {
  const records = envInt('BENCH_KAFKA_RECORDS', 50_000);
  const size = 512;
  const singleRecords = envInt('BENCH_KAFKA_SINGLE_RECORDS', 2_000);
  const batch = envInt('BENCH_KAFKA_BATCH', 500);
  const warmUp = Math.min(records, 5_000);
  const partitions = envInt('KAFKA_TOPIC_PARTITIONS', 6);
  const infra = infraEnv();
  const brokers = (process.env.KAFKA_BROKERS ?? infra.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
  const registryUrl =
    process.env.SCHEMA_REGISTRY_URL ?? infra.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:8081/apis/ccompat/v7';
  const { Kafka, logLevel } = requireFromRoot('kafkajs');
  const runtime = requireFromRoot(path.join(root, 'libs', 'runtime', 'dist', 'index.js'));
  // The raw kafkajs client below runs with the services' fix of its idle connection timer too.
  runtime.fixKafkajsIdleTimers();
  // The zod the runtime itself resolves, so that its toJSONSchema understands the schema.
  const { z } = createRequire(path.join(root, 'libs', 'runtime', 'package.json'))('zod');

  const stamp = Date.now().toString(36);
  const prefix = `bench.producer.${stamp}.`;
  const topics = {
    java: `${prefix}java`,
    wrapper: `${prefix}bench.wrapper`,
    single: `${prefix}bench.wrapper-single`,
    raw: `${prefix}raw`,
  };
  const kafka = new Kafka({ clientId: 'bench-kafka', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const out = { records, recordSize: size, partitions, acks: 'all' };
  try {
    await admin.createTopics({
      waitForLeaders: false,
      topics: Object.values(topics).map((topic) => ({ topic, numPartitions: partitions, replicationFactor: 1 })),
    });
    await waitForLeaders(admin, Object.values(topics));

    log(`kafka: ProducerPerformance, ${records} x ${size} B`);
    out.producerPerformance = await javaProducerPerformance({ topic: topics.java, records, size, brokers });

    // A value whose encoded record (5-byte wire header + JSON) is exactly `size` bytes.
    const payload = 'x'.repeat(size - 5 - JSON.stringify({ payload: '' }).length);
    const key = (i) => `app-${String(i % 1000).padStart(4, '0')}`;

    log(`kafka: createKafkaBus, ${records} records in batches of ${batch}`);
    const bus = runtime.createKafkaBus({
      settings: {
        brokers,
        clientId: 'bench-kafka-wrapper',
        registryUrl,
        partitions,
        replicationFactor: 1,
        schemaOf: () => z.object({ payload: z.string() }),
        namespace: prefix,
      },
      logger: runtime.createLogger('bench', 'error'),
      metrics: runtime.createMetrics('bench'),
    });
    await bus.connect();
    try {
      // Registers the schema and warms the code paths (not counted), like the JVM's own ramp-up.
      for (let i = 0; i < warmUp; i += batch) {
        await bus.publish(
          'bench.wrapper',
          Array.from({ length: batch }, (_, j) => ({ key: key(j), value: { payload } })),
        );
      }
      await bus.publish('bench.wrapper-single', [{ key: 'warm', value: { payload } }]);
      const encodedSize = (await bus.raw.codec.encode('bench.wrapper', { payload })).length;
      let t = performance.now();
      for (let i = 0; i < records; i += batch) {
        const messages = [];
        for (let j = i; j < Math.min(records, i + batch); j += 1) messages.push({ key: key(j), value: { payload } });
        await bus.publish('bench.wrapper', messages);
      }
      let seconds = (performance.now() - t) / 1000;
      out.wrapperBatched = {
        status: 'ok',
        records,
        recordBytes: encodedSize,
        recordsPerSecond: round(records / seconds),
        seconds: round(seconds, 2),
        settings: `publish() of ${batch} records at a time; idempotent, 1 request in flight`,
      };

      // How the services use it: one publish() per state change, many at once.
      log(`kafka: createKafkaBus, ${singleRecords} records one publish() each, 64 concurrent`);
      t = performance.now();
      const deadline = Date.now() + 60_000;
      let sent = 0;
      await Promise.all(
        Array.from({ length: 64 }, async () => {
          while (sent < singleRecords && Date.now() < deadline) {
            const i = sent++;
            await bus.publish('bench.wrapper-single', [{ key: key(i), value: { payload } }]);
          }
        }),
      );
      seconds = (performance.now() - t) / 1000;
      out.wrapperSingle = {
        status: 'ok',
        records: sent,
        recordsPerSecond: round(sent / seconds),
        seconds: round(seconds, 2),
        settings: 'one record per publish(), 64 calls outstanding',
      };
    } finally {
      await bus.disconnect();
    }

    log(`kafka: raw kafkajs, ${records} records in batches of ${batch}`);
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    await producer.connect();
    try {
      const value = Buffer.concat([Buffer.from([0, 0, 0, 0, 1]), Buffer.from(JSON.stringify({ payload }))]);
      for (let i = 0; i < warmUp; i += batch) {
        await producer.send({
          topic: topics.raw,
          acks: -1,
          messages: Array.from({ length: batch }, (_, j) => ({ key: key(j), value })),
        });
      }
      const t = performance.now();
      for (let i = 0; i < records; i += batch) {
        const messages = [];
        for (let j = i; j < Math.min(records, i + batch); j += 1) messages.push({ key: key(j), value });
        await producer.send({ topic: topics.raw, acks: -1, messages });
      }
      const seconds = (performance.now() - t) / 1000;
      out.rawKafkajs = {
        status: 'ok',
        records,
        recordBytes: value.length,
        recordsPerSecond: round(records / seconds),
        seconds: round(seconds, 2),
        settings: `send() of ${batch} records at a time; idempotent, 1 request in flight, no registry`,
      };
    } finally {
      await producer.disconnect();
    }

    const rate = (x) => (x?.status === 'ok' ? x.recordsPerSecond : null);
    const ratio = (a, b) => (a && b ? round(a / b, 3) : null);
    out.ratios = {
      wrapperToProducerPerformance: ratio(rate(out.wrapperBatched), rate(out.producerPerformance)),
      rawKafkajsToProducerPerformance: ratio(rate(out.rawKafkajs), rate(out.producerPerformance)),
      wrapperToRawKafkajs: ratio(rate(out.wrapperBatched), rate(out.rawKafkajs)),
      wrapperSingleToWrapperBatched: ratio(rate(out.wrapperSingle), rate(out.wrapperBatched)),
    };
    return out;
  } finally {
    await admin.deleteTopics({ topics: Object.values(topics), timeout: 15_000 }).catch(() => undefined);
    await admin.disconnect();
  }
}
