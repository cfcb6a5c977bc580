// Webhook delivery by the running notifier: public events written straight to loan.events.v1
// (through the same producer wrapper and registry the services use) for a lender whose
// webhooks go to a local receiver; deliveries per second and event-to-first-attempt latency.
// When the notifier has its own bench (services/notifier/bench/delivery.bench.ts), run.mjs runs
// that one instead (runProjectBench) and this one only with BENCH_NOTIFIER_STACK=1.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createLender } from './e2e.mjs';
import { startReceiver } from './lib/receiver.mjs';
import { createSampler } from './lib/procstat.mjs';
import { runNode, transpileBench } from './lib/transpile.mjs';
import { envInt, infraEnv, log, now, requireFromRoot, root, round, sleep, summarize } from './lib/util.mjs';

const eventFor = (clientId, applicationId, seq) => ({
  id: randomUUID(),
  event: 'account.linked',
  clientId,
  applicationId,
  data: {
    applicationId,
    applicantId: '00000000-0000-4000-8000-0000000000b1',
    accountId: randomUUID(),
    institution: `Bench Bank ${seq}`,
    accountNumber: '0123456789',
  },
  timestamp: new Date().toISOString(),
});

/** The notifier's own bench (an in-process notifier against the real broker and database). */
export function hasProjectBench() {
  return existsSync(path.join(root, 'services', 'notifier', 'bench', 'delivery.bench.ts'));
}

export async function runProjectBench() {
  const serviceDir = path.join(root, 'services', 'notifier');
  if (!hasProjectBench())
    return { status: 'not run', reason: 'services/notifier/bench/delivery.bench.ts does not exist' };
  if (!existsSync(path.join(serviceDir, 'dist', 'start.js')))
    return { status: 'not run', reason: 'services/notifier is not built' };
  const runner = path.join(serviceDir, 'bench', 'run.js');
  const file = existsSync(runner)
    ? runner
    : transpileBench(path.join(serviceDir, 'bench', 'delivery.bench.ts'), serviceDir);
  // Its own BENCH_* names: set them here rather than pass this suite's on.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BENCH_')));
  const own = {
    BENCH_RATE: String(envInt('BENCH_NOTIFIER_RATE', 50)),
    BENCH_RATE_SECONDS: String(envInt('BENCH_NOTIFIER_RATE_SECONDS', 10)),
    BENCH_EVENTS: String(envInt('BENCH_NOTIFIER_EVENTS', 1_000)),
    BENCH_APPS: String(envInt('BENCH_NOTIFIER_APPS', 100)),
    BENCH_TIMEOUT_SECONDS: String(envInt('BENCH_NOTIFIER_TIMEOUT_SECONDS', 30)),
  };
  const seconds = envInt('BENCH_NOTIFIER_PROJECT_SECONDS', 120);
  log(
    `notifier: node ${path.relative(root, file)} (${own.BENCH_RATE}/s for ${own.BENCH_RATE_SECONDS} s, then ${own.BENCH_EVENTS} events)`,
  );
  const run = await runNode(file, {
    env: { ...env, ...infraEnv(), ...own },
    clearEnv: true,
    timeoutMs: seconds * 1000,
  });
  const out = run.stdout;
  const num = (re) => {
    const m = re.exec(out);
    return m ? Number(m[1]) : null;
  };
  const burstLatency = /burst\s+event-to-first-attempt (\{[^}]*\})/.exec(out);
  let burst = null;
  try {
    burst = burstLatency ? JSON.parse(burstLatency[1]) : null;
  } catch {
    burst = null;
  }
  const result = {
    status: run.code === 0 ? 'ok' : 'failed',
    command: `node ${path.relative(root, file)}`,
    settings: own,
    exitCode: run.code,
    timedOut: run.timedOut,
    steady: {
      delivered: /delivered (\d+\/\d+);/.exec(out)?.[1] ?? null,
      eventToFirstAttemptMs: {
        p50: num(/steady.*?p50 ([\d.]+) ms/),
        p90: num(/steady.*?p90 ([\d.]+) ms/),
        p99: num(/steady.*?p99 ([\d.]+) ms/),
      },
    },
    burst: {
      delivered: /burst .*delivered (\d+\/\d+) in/.exec(out)?.[1] ?? null,
      deliveriesPerSecond: num(/= ([\d.]+) deliveries\/s/),
      eventToFirstAttemptMs: burst,
    },
    duplicates: num(/duplicates (\d+)/),
    output: (run.code === 0 ? out : `${out}\n${run.stderr}`).trim().split('\n').slice(-25).join('\n'),
  };
  return result;
}

export async function runNotifier({ stack }) {
  const out = {};
  const notifier = stack.processes.find((p) => p.name === 'notifier');
  if (!notifier) {
    out.status = 'not run';
    out.reason = existsSync(path.join(root, 'services', 'notifier', 'dist', 'start.js'))
      ? 'the notifier is not part of the running stack'
      : 'services/notifier is not built yet (no dist/start.js)';
    return out;
  }
  const paced = envInt('BENCH_NOTIFIER_RATE', 50);
  const pacedSeconds = envInt('BENCH_NOTIFIER_RATE_SECONDS', 10);
  const burst = envInt('BENCH_NOTIFIER_EVENTS', 1_000);
  const burstApps = Math.max(1, Math.min(burst, envInt('BENCH_NOTIFIER_APPS', 100)));
  const runtime = requireFromRoot(path.join(root, 'libs', 'runtime', 'dist', 'index.js'));
  const receiver = await startReceiver();
  const sentAt = new Map();
  const bus = runtime.createKafkaBus({
    settings: {
      brokers: stack.env.KAFKA_BROKERS.split(','),
      clientId: 'bench-notifier',
      registryUrl: stack.env.SCHEMA_REGISTRY_URL,
      partitions: envInt('KAFKA_TOPIC_PARTITIONS', 6),
      replicationFactor: 1,
      namespace: stack.env.KAFKA_TOPIC_NAMESPACE,
    },
    logger: runtime.createLogger('bench', 'error'),
    metrics: runtime.createMetrics('bench'),
  });
  const publish = async (records) => {
    const t = now();
    for (const r of records) sentAt.set(r.id, t);
    await bus.publish(
      'loan.events.v1',
      records.map((r) => ({ key: r.applicationId, value: r })),
    );
  };
  const waitAll = async (ids, timeoutMs) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && ids.some((id) => !receiver.byId.has(id))) await sleep(50);
    return ids.filter((id) => receiver.byId.has(id)).length;
  };
  const latencies = (ids) =>
    summarize(ids.filter((id) => receiver.byId.has(id)).map((id) => receiver.byId.get(id).at - sentAt.get(id)));
  try {
    await bus.connect();
    const lender = await createLender(stack.gatewayUrl, `${receiver.url}/hooks`);
    receiver.setSecret(lender.webhookSecret);

    // The notifier learns the new lender from loan.gateway.clients; the first event proves it.
    const first = eventFor(lender.clientId, randomUUID(), 0);
    await publish([first]);
    if ((await waitAll([first.id], 30_000)) !== 1) throw new Error('the first event was not delivered within 30 s');
    const warm = Array.from({ length: 50 }, (_, i) => eventFor(lender.clientId, randomUUID(), i));
    await publish(warm);
    await waitAll(
      warm.map((e) => e.id),
      10_000,
    );

    const sampler = createSampler([{ name: 'notifier', pid: notifier.pid }]);
    sampler.start();

    // 1. a steady rate: the latency of one delivery when the notifier is not queueing
    log(`notifier: ${paced} events/s for ${pacedSeconds} s`);
    const pacedIds = [];
    const pacedApps = Array.from({ length: 50 }, () => randomUUID());
    const tick = 100;
    const perTick = Math.max(1, Math.round((paced * tick) / 1000));
    const start = Date.now();
    for (let n = 0; Date.now() - start < pacedSeconds * 1000; n += 1) {
      const batch = Array.from({ length: perTick }, (_, i) =>
        eventFor(lender.clientId, pacedApps[(n * perTick + i) % pacedApps.length], n),
      );
      pacedIds.push(...batch.map((e) => e.id));
      await publish(batch);
      const nextAt = start + (n + 1) * tick;
      if (nextAt > Date.now()) await sleep(nextAt - Date.now());
    }
    const pacedDelivered = await waitAll(pacedIds, 15_000);
    out.steady = {
      eventsPerSecond: paced,
      seconds: pacedSeconds,
      events: pacedIds.length,
      delivered: pacedDelivered,
      eventToFirstAttemptMs: latencies(pacedIds),
    };
    log(
      `notifier steady: p50 ${out.steady.eventToFirstAttemptMs.p50} ms, p99 ${out.steady.eventToFirstAttemptMs.p99} ms`,
    );

    // 2. a burst: how fast a backlog drains (order kept per application)
    log(`notifier: burst of ${burst} events over ${burstApps} applications`);
    const apps = Array.from({ length: burstApps }, () => randomUUID());
    const burstEvents = [];
    for (let seq = 0; burstEvents.length < burst; seq += 1) {
      for (const app of apps) if (burstEvents.length < burst) burstEvents.push(eventFor(lender.clientId, app, seq));
    }
    const burstIds = burstEvents.map((e) => e.id);
    const t0 = now();
    for (let i = 0; i < burstEvents.length; i += 200) await publish(burstEvents.slice(i, i + 200));
    const publishedSeconds = (now() - t0) / 1000;
    const delivered = await waitAll(burstIds, envInt('BENCH_NOTIFIER_TIMEOUT_SECONDS', 30) * 1000);
    const arrivals = burstIds.filter((id) => receiver.byId.has(id)).map((id) => receiver.byId.get(id).at);
    const drainSeconds = arrivals.length ? (Math.max(...arrivals) - t0) / 1000 : null;
    // order: per application, the sequence numbers must arrive increasing
    let outOfOrder = 0;
    const lastSeq = new Map();
    const inBurst = new Set(burstIds);
    for (const r of [...receiver.byId.values()].filter((x) => inBurst.has(x.id)).sort((a, b) => a.at - b.at)) {
      const seq = Number(/(\d+)$/.exec(r.data?.institution ?? '')?.[1]);
      if (seq < (lastSeq.get(r.app) ?? -1)) outOfOrder += 1;
      lastSeq.set(r.app, seq);
    }
    const usage = sampler.stop();
    out.burst = {
      events: burst,
      applications: burstApps,
      publishedInSeconds: round(publishedSeconds, 2),
      delivered,
      drainSeconds: round(drainSeconds, 2),
      deliveriesPerSecond: drainSeconds ? round(delivered / drainSeconds) : 0,
      eventToFirstAttemptMs: latencies(burstIds),
      outOfOrderPerApplication: outOfOrder,
    };
    log(`notifier burst: ${out.burst.deliveriesPerSecond} deliveries/s`);
    out.status = delivered === burst && pacedDelivered === pacedIds.length ? 'ok' : 'incomplete';
    out.duplicateDeliveries = receiver.stats.duplicateDeliveries;
    out.badSignatures = receiver.stats.badSignature;
    out.notifierProcess = usage.processes.notifier;
  } catch (error) {
    out.status = 'failed';
    out.reason = String(error?.message ?? error);
  } finally {
    await bus.disconnect().catch(() => undefined);
    await receiver.close();
  }
  return out;
}
