// Benchmark suite entry point (`npm run bench`, or `node bench/run.mjs [e2e|tracing|scaling|
// gateway|scoring|kafka|notifier|soak ...]`; `soak` runs only when named). Starts the real local stack when a benchmark needs it, runs the
// benchmarks one after the other, prints a table against the targets and writes
// bench/results/latest.json (the run before it stays in git's history and a line of
// bench/results/SUMMARY.md). See bench/README.md.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { E2E_TARGETS, runE2E, STAGE_NAMES, waitForGroups } from './e2e.mjs';
import { databaseSizes, soakVerdict, SOAK_CHUNK } from './soak.mjs';
import { runGateway } from './gateway.mjs';
import { runKafka } from './kafka.mjs';
import { hasProjectBench, runNotifier, runProjectBench } from './notifier.mjs';
import { runScoring } from './scoring.mjs';
import { spawnService, startStack } from './lib/stack.mjs';
import { createTap } from './lib/tap.mjs';
import { startSpanSink } from './lib/spanSink.mjs';
import { envInt, formatTable, infraEnv, log, requireFromRoot, root, round, withTimeout } from './lib/util.mjs';

const ORDER = ['scoring', 'kafka', 'e2e', 'tracing', 'scaling', 'notifier', 'gateway', 'soak'];
/** Named only: the soak takes half an hour and is its own question (cost as history grows). */
const NAMED_ONLY = ['soak'];

const requested = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = requested.filter((a) => !ORDER.includes(a));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; choose from ${ORDER.join(', ')}`);
  process.exit(2);
}
const selected =
  requested.length > 0 ? ORDER.filter((n) => requested.includes(n)) : ORDER.filter((n) => !NAMED_ONLY.includes(n));
/** A soak alone writes its own file: latest.json keeps the suite's figures. */
const soakOnly = selected.length === 1 && selected[0] === 'soak';

const runKey = Date.now().toString(36);
// Each benchmark that needs the stack gets a fresh one: topics and consumer groups of its own
// and, unless BENCH_DB=shared (the usual loan_<service>), databases of its own; all removed after.
const sharedDb = process.env.BENCH_DB === 'shared';
const SERVICES = ['gateway', 'applications', 'enrichment', 'scoring', 'notifier', 'janitor'];
/** Where the results go: bench/results, or BENCH_RESULTS_DIR (a run that must leave them be). */
const resultsDir = process.env.BENCH_RESULTS_DIR
  ? path.resolve(process.env.BENCH_RESULTS_DIR)
  : path.join(root, 'bench', 'results');
const apps = envInt('BENCH_APPS', 200);
const concurrency = envInt('BENCH_CONCURRENCY', 20);
const profiled = process.env.BENCH_PROFILED === '1';

const results = {
  startedAt: new Date().toISOString(),
  finishedAt: null,
  benchmarks: selected,
  machine: {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? null,
    totalMemBytes: os.totalmem(),
    totalMemGiB: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    loadAverageAtStart: os.loadavg().map((v) => round(v, 2)),
  },
  settings: {
    apps,
    concurrency,
    ...(profiled ? { profiled: process.env.LOAN_STACK_NODE_ARGS ?? true } : {}),
    databases: sharedDb
      ? 'loan_<service> (shared with npm start)'
      : `bench${runKey}<n>_<service>, dropped after each benchmark`,
  },
  stacks: [],
  errors: [],
};

/** The running stack: { label, stack, tap, namespace, dbPrefix }. */
let current = null;
let stackCount = 0;
let finished = false;

function writeResults() {
  results.finishedAt = new Date().toISOString();
  results.machine.loadAverageAtEnd = os.loadavg().map((v) => round(v, 2));
  mkdirSync(resultsDir, { recursive: true });
  const text = `${JSON.stringify(results, null, 2)}\n`;
  // A run under the profiler (bench/profile.mjs) is not a benchmark run: latest.json stays.
  const file = path.join(resultsDir, profiled ? 'profiled-latest.json' : soakOnly ? 'soak-latest.json' : 'latest.json');
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
  return file;
}

/** Starts a fresh stack for one benchmark (with a Kafka tap when asked). */
async function bringUp(label, { withTap = false, extraEnv = {} } = {}) {
  stackCount += 1;
  const namespace = `bench${runKey}${stackCount}.`;
  const dbPrefix = sharedDb ? null : `bench${runKey}${stackCount}_`;
  const logDir = path.join(root, '.infra', 'logs', `bench-${runKey}`, label);
  log(`${label}: starting a stack (topics ${namespace}*${dbPrefix ? `, databases ${dbPrefix}*` : ''})`);
  const t = Date.now();
  current = { label, stack: null, tap: null, namespace, dbPrefix };
  try {
    current.stack = await startStack({ namespace, logDir, dbPrefix, extraEnv });
  } catch (error) {
    // A service can fail its first start while the others create the run's topics at the
    // same moment; once they exist a second start does not meet the race.
    const reason = String(error?.message ?? error).split('\n')[0];
    log(`${label}: the stack did not start (${reason}); trying once more`);
    results.errors.push(`${label}: first stack start failed: ${reason}`);
    current.stack = await startStack({ namespace, logDir, dbPrefix, extraEnv });
  }
  const { stack } = current;
  results.stacks.push({
    for: label,
    mode: stack.mode,
    secondsToReady: round((Date.now() - t) / 1000),
    gatewayUrl: stack.gatewayUrl,
    sandboxUrl: stack.sandboxUrl,
    processes: stack.processes,
    notBuilt: stack.missing,
    namespace,
    databases: dbPrefix ? `${dbPrefix}<service>` : 'loan_<service>',
    logDir: path.relative(root, logDir),
  });
  log(`${label}: stack ready in ${round((Date.now() - t) / 1000)} s (${stack.mode})`);
  if (withTap) {
    // Started by runE2E: after the run when the notifier delivers the events, so that reading
    // every topic does not weigh on what is measured.
    current.tap = createTap({
      brokers: stack.env.KAFKA_BROKERS.split(','),
      namespace,
      groupId: `${namespace}bench-tap`,
    });
  }
  return current;
}

async function tearDown() {
  if (!current) return;
  const { label, stack, tap, namespace, dbPrefix } = current;
  current = null;
  if (tap) await withTimeout(tap.stop(), 15_000, 'stopping the Kafka tap').catch(() => undefined);
  if (stack) {
    log(`${label}: stopping the stack`);
    await withTimeout(stack.stop(), 60_000, 'stopping the stack').catch((e) => results.errors.push(String(e.message)));
    await deleteNamespace(namespace).catch(() => undefined);
    if (dbPrefix) await dropDatabases(dbPrefix).catch((e) => log(`could not drop the databases: ${e.message}`));
  }
}

async function dropDatabases(dbPrefix) {
  const mongoose = createRequire(path.join(root, 'libs', 'runtime', 'package.json'))('mongoose');
  const url = process.env.MONGO_URL ?? infraEnv().MONGO_URL ?? 'mongodb://127.0.0.1:27017/';
  const connection = await mongoose.createConnection(url, { serverSelectionTimeoutMS: 5_000 }).asPromise();
  try {
    for (const name of SERVICES) await connection.useDb(`${dbPrefix}${name}`).db.dropDatabase();
    log(`dropped the databases ${dbPrefix}*`);
  } finally {
    await connection.close();
  }
}

/** Removes the topics and consumer groups of this run from the broker. */
async function deleteNamespace(namespace) {
  const { Kafka, logLevel } = requireFromRoot('kafkajs');
  const brokers = (process.env.KAFKA_BROKERS ?? infraEnv().KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
  const admin = new Kafka({ clientId: 'bench-cleanup', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(namespace));
    if (groups.length) await admin.deleteGroups(groups).catch(() => undefined);
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(namespace));
    if (topics.length) await admin.deleteTopics({ topics, timeout: 20_000 });
    log(`removed ${topics.length} topics and ${groups.length} consumer groups of ${namespace}`);
  } finally {
    await admin.disconnect();
  }
}

async function abort(reason, code) {
  if (finished) return;
  finished = true;
  log(`stopping: ${reason}`);
  results.errors.push(reason);
  await tearDown();
  const file = writeResults();
  console.log(report());
  console.log(`\nresults: ${path.relative(root, file)} (incomplete)`);
  process.exit(code);
}

// Everything stops by itself.
const maxSeconds = envInt('BENCH_MAX_SECONDS', selected.includes('soak') ? 5_400 : 1_800);
setTimeout(() => void abort(`the whole run exceeded BENCH_MAX_SECONDS=${maxSeconds}`, 3), maxSeconds * 1000).unref();
process.on('SIGINT', () => void abort('interrupted', 130));
process.on('SIGTERM', () => void abort('terminated', 143));

const yesNo = (met) => (met === undefined || met === null ? '' : met ? 'yes' : 'NO');
const ms = (s) => (s && s.n ? `${s.p50} / ${s.p95} / ${s.p99}` : '-');

function report() {
  const rows = [];
  const row = (bench, measure, value, target = '', met = null) =>
    rows.push({ bench, measure, value, target, met: yesNo(met) });
  const notRun = (bench, r) => row(bench, r?.status ?? 'not run', r?.reason ?? '', '', null);

  const s = results.scoring;
  if (s) {
    if (s.status !== 'ok') notRun('scoring', s);
    else {
      row(
        'scoring',
        'mean / p99 ms per decision (12 months x 3 accounts)',
        `${s.meanMs} / ${s.p99Ms}`,
        '<= 20 ms',
        s.target.met,
      );
      row('scoring', 'decisions per second (one core)', s.decisionsPerSecond);
      if (s.simulateMs !== null && s.simulateMs !== undefined)
        row(
          'scoring',
          'ms to simulate a credit policy on 5,000 stored audits (database read aside)',
          s.simulateMs,
          '< 2000 ms',
          s.simulateMs < 2000,
        );
    }
  }
  const k = results.kafka;
  if (k) {
    if (k.error) row('kafka', 'failed', k.error);
    else {
      const r = (x) => (x?.status === 'ok' ? x.recordsPerSecond : (x?.status ?? '-'));
      row(
        'kafka',
        `ProducerPerformance records/s (${k.records} x ${k.recordSize} B, acks=all)`,
        r(k.producerPerformance),
      );
      row(
        'kafka',
        'createKafkaBus records/s (batches), ratio to ProducerPerformance',
        `${r(k.wrapperBatched)} (${k.ratios?.wrapperToProducerPerformance}x)`,
      );
      row(
        'kafka',
        'raw kafkajs records/s (batches), ratio to ProducerPerformance',
        `${r(k.rawKafkajs)} (${k.ratios?.rawKafkajsToProducerPerformance}x)`,
      );
      row('kafka', 'createKafkaBus / raw kafkajs', `${k.ratios?.wrapperToRawKafkajs}x`);
      row('kafka', 'createKafkaBus records/s, one record per publish()', r(k.wrapperSingle));
    }
  }
  const e2eRows = (bench, e) => {
    if (!e) return;
    if (e.error) return row(bench, 'failed', e.error);
    row(
      bench,
      `applications per minute (${e.completed}/${e.requested} decided in ${e.secondsToLastDecision} s)`,
      e.applicationsPerMinute,
      e.targets.applicationsPerMinute.target,
      e.targets.applicationsPerMinute.met,
    );
    const cpu = e.cpuMsPerApplication;
    if (cpu) {
      row(bench, 'CPU ms per decided application, all processes', cpu.total, '<= 120', cpu.total <= 120);
      row(bench, 'CPU ms per decided application, the six services', cpu.services, '<= 60', cpu.services <= 60);
      row(
        bench,
        'CPU ms per decided application, by process',
        Object.entries(cpu.processes)
          .filter(([name]) => name !== 'bench (load generator)')
          .sort((x, y) => y[1] - x[1])
          .map(([name, v]) => `${name} ${v}`)
          .join(', '),
        'reported',
      );
    }
    if (e.unscraped?.length)
      row(bench, 'services whose counters could not be read', e.unscraped.join(', '), 'none', false);
    if (e.dbOpsPerApplication !== undefined && e.dbOpsPerApplication !== null) {
      const db = e.dbOpsPerApplication;
      row(bench, 'database operations per decided application', db, '<= 22', db <= 22);
      row(
        bench,
        'Kafka requests per decided application',
        e.kafkaRequestsPerApplication,
        '<= 15',
        e.kafkaRequestsPerApplication <= 15,
      );
    }
    if (e.loadAverageDuringRun) {
      const { atStart, atEnd } = e.loadAverageDuringRun;
      const load = `${atStart.join(' ')} / ${atEnd.join(' ')}`;
      row(bench, 'load average at start / end of the run', load, 'reported');
    }
    row(
      bench,
      'failed / cut off by the time limit / not started',
      `${e.failed} / ${e.cutOffByTimeLimit} / ${e.notStarted}`,
      '0',
      e.failed + e.cutOffByTimeLimit + e.notStarted === 0,
    );
    for (const [key, name] of Object.entries(STAGE_NAMES)) {
      row(
        bench,
        `${name} p50 / p95 / p99 ms${e.aloneMs ? ' (one application alone)' : ''}`,
        `${ms(e.stages[key])}${e.aloneMs?.[key] !== undefined ? ` (${e.aloneMs[key]})` : ''}`,
      );
    }
    for (const [name, p] of Object.entries(e.processes)) {
      if (
        ['kafka', 'registry', 'ferretdb', 'postgresql', 'bench (load generator)'].includes(name) ||
        name.startsWith('sandbox')
      )
        continue;
      row(bench, `peak RSS MiB ${name}`, p.peakRssMiB, `<= ${E2E_TARGETS.rssMiB}`, p.peakRssMiB <= E2E_TARGETS.rssMiB);
    }
    const d = e.duplicates;
    row(bench, 'same event delivered twice', d.sameEventDeliveredAgain ?? 'n/a (no notifier)', 'reported');
    row(
      bench,
      'applications with two decisions (webhooks / loan.events.v1)',
      `${d.appsWithTwoDecisionWebhooks ?? 'n/a'} / ${d.appsWithTwoDecisionEvents ?? 'n/a'}`,
      '0',
      (d.appsWithTwoDecisionWebhooks ?? 0) + (d.appsWithTwoDecisionEvents ?? 0) === 0,
    );
    row(
      bench,
      'bad webhook signatures',
      d.badSignatures ?? 'n/a',
      '0',
      d.badSignatures === null ? null : d.badSignatures === 0,
    );
    if (d.kafkaRecordsWrittenTwice !== undefined)
      row(bench, 'Kafka records written more than once (same id)', d.kafkaRecordsWrittenTwice, 'reported');
  };
  e2eRows('e2e', results.e2e);
  const tr = results.tracing;
  if (tr) {
    if (tr.error) row('tracing', 'failed', tr.error);
    else {
      const dflt = tr.atDefault;
      if (dflt) {
        // The default is judged on what an application adds to idle when there is an idle sample.
        const judged = dflt.servicesAboveIdleRatio ?? dflt.servicesRatio;
        row(
          'tracing',
          `CPU ms per decided application, the six services: tracing off -> on at the default sampling (a tenth of new traces; ${dflt.servicesAboveIdleRatio != null ? 'above idle, ' : ''}median of ${dflt.rounds?.length ?? 1} rounds)`,
          dflt.servicesAboveIdleRatio != null
            ? `${dflt.servicesAboveIdleOff} -> ${dflt.servicesAboveIdleOn} (${dflt.servicesAboveIdleRatio}x)`
            : `${dflt.servicesOff} -> ${dflt.servicesOn} (${dflt.servicesRatio}x)`,
          '<= 1.05x',
          judged === null ? null : judged <= 1.05,
        );
        row(
          'tracing',
          'spans exported per decided application at the default sampling (OTLP requests)',
          `${dflt.spansPerApplication} (${dflt.exportRequests})`,
          'reported',
        );
      }
      row(
        'tracing',
        `CPU ms per decided application, the six services: tracing off -> on (every span sampled; median of ${tr.rounds?.length ?? 1} rounds; each run after ${tr.warmUpApplications ?? 2} warm-up applications)`,
        `${tr.servicesOff} -> ${tr.servicesOn} (${tr.servicesRatio}x)`,
        // With an idle sample, the target is judged on what an application adds to idle (below).
        'reported',
      );
      if (tr.rounds?.length > 1)
        row(
          'tracing',
          'each round, the six services / all processes',
          tr.rounds
            .map((r) => `${r.servicesOff} -> ${r.servicesOn} (${r.servicesRatio}x) / ${r.totalRatio}x`)
            .join('; '),
          'reported',
        );
      if (tr.servicesAboveIdleRatio != null)
        row(
          'tracing',
          `CPU ms an application adds to the six services' idle CPU (${tr.servicesIdleOff} -> ${tr.servicesIdleOn} ms per second idle): off -> on${tr.ratePerMinute ? ` at ${tr.ratePerMinute} applications per minute` : ''}`,
          `${tr.servicesAboveIdleOff} -> ${tr.servicesAboveIdleOn} (${tr.servicesAboveIdleRatio}x)`,
          'reported',
        );
      row(
        'tracing',
        'CPU ms per decided application, all processes: off -> on',
        `${tr.totalOff} -> ${tr.totalOn} (${tr.totalRatio}x)`,
        'reported',
      );
      row(
        'tracing',
        'applications per minute: off -> on',
        `${tr.appsPerMinuteOff} -> ${tr.appsPerMinuteOn}`,
        'reported',
      );
      row(
        'tracing',
        'spans exported per decided application (OTLP requests)',
        `${tr.spansPerApplication} (${tr.exportRequests})`,
        'reported',
      );
    }
  }
  const sc = results.scaling;
  if (sc) {
    if (sc.error) row('scaling', 'failed', sc.error);
    else {
      row(
        'scaling',
        'applications per minute, 1 -> 2 replicas of scoring and enrichment',
        `${sc.singleAppsPerMinute} -> ${sc.scaledAppsPerMinute} (${sc.ratio}x)`,
        'rises',
        sc.throughputRose,
      );
      row('scaling', 'decided / requested with 2 replicas', `${sc.run?.completed}/${sc.run?.requested}`);
      row(
        'scaling',
        'scored twice / enriched twice / two decisions',
        `${sc.processedTwice.appsScoredTwice} / ${sc.processedTwice.appsEnrichedTwice} / ${sc.processedTwice.appsWithTwoDecisionEvents}`,
        '0',
        sc.nothingProcessedTwice,
      );
      row('scaling', 'analyze -> decision p50 / p95 / p99 ms', ms(sc.run?.stages?.analyzeToDecision));
    }
  }
  const n = results.notifier;
  if (n?.error) row('notifier', 'failed', n.error);
  const own = n?.ownBench;
  if (own) {
    if (own.status !== 'ok')
      notRun('notifier', {
        status: own.status,
        reason: own.reason ?? `${own.command} ${own.timedOut ? 'timed out' : `exited ${own.exitCode}`}`,
      });
    else {
      const st = own.steady.eventToFirstAttemptMs;
      const bu = own.burst.eventToFirstAttemptMs ?? {};
      row(
        'notifier',
        `deliveries per second, burst of ${own.settings.BENCH_EVENTS} over ${own.settings.BENCH_APPS} applications (${own.command})`,
        `${own.burst.deliveriesPerSecond} (${own.burst.delivered} delivered)`,
        '>= 1000 (issue 18)',
        own.burst.deliveriesPerSecond >= 1000,
      );
      row(
        'notifier',
        `event -> first attempt p50 / p99 ms at ${own.settings.BENCH_RATE}/s`,
        `${st.p50} / ${st.p99} (${own.steady.delivered} delivered)`,
        'p99 < 200 ms (notifier bench)',
        st.p99 !== null && st.p99 < 200,
      );
      row('notifier', 'event -> first attempt p50 / p99 ms in the burst', `${bu.p50} / ${bu.p99}`);
      row('notifier', 'webhook requests beyond one per event', own.duplicates, 'reported');
    }
  }
  const ns = n?.stack;
  if (ns) {
    if (ns.status !== 'ok' && ns.status !== 'incomplete') notRun('notifier', ns);
    else {
      row(
        'notifier (stack)',
        `deliveries per second (burst of ${ns.burst.events} over ${ns.burst.applications} applications)`,
        `${ns.burst.deliveriesPerSecond} (${ns.burst.delivered}/${ns.burst.events} delivered)`,
      );
      row(
        'notifier (stack)',
        `event -> first attempt p50 / p99 ms at ${ns.steady.eventsPerSecond}/s`,
        `${ns.steady.eventToFirstAttemptMs.p50} / ${ns.steady.eventToFirstAttemptMs.p99}`,
      );
      row(
        'notifier (stack)',
        'event -> first attempt p50 / p99 ms in the burst',
        `${ns.burst.eventToFirstAttemptMs.p50} / ${ns.burst.eventToFirstAttemptMs.p99}`,
      );
      row(
        'notifier (stack)',
        'out of order / duplicates / bad signatures',
        `${ns.burst.outOfOrderPerApplication} / ${ns.duplicateDeliveries} / ${ns.badSignatures}`,
      );
    }
  }
  const g = results.gateway;
  if (g) {
    if (g.error) row('gateway', 'failed', g.error);
    else {
      const line = (x) =>
        !x || x.error
          ? `failed: ${x?.error ?? 'not run'}`
          : `${x.requestsPerSecond} req/s, p50 ${x.latencyMs.p50} / p99 ${x.latencyMs.p99} ms${x.non2xx || x.errors ? `, ${x.non2xx} non-2xx, ${x.errors} errors` : ''}`;
      row('gateway', `baseline express (${g.connections} connections, ${g.durationSeconds} s)`, line(g.baseline));
      row('gateway', 'POST /api/applications/initiate', line(g.initiate));
      row('gateway', 'GET /api/applications/:id', line(g.get));
      row(
        'gateway',
        'initiate / baseline',
        g.initiateToBaseline,
        g.targets.initiateToBaseline.target,
        g.targets.initiateToBaseline.met,
      );
      row(
        'gateway',
        `initiate at ${g.initiateFixedRate?.rate ?? '?'}/s for ${g.initiateFixedRate?.seconds ?? '?'} s`,
        line(g.initiateFixedRate),
        g.targets.fixedRateP99.target,
        g.targets.fixedRateP99.met,
      );
      if (g.initiateBursts)
        row('gateway', `initiate at ${g.initiateBursts.rate ?? '?'}/s in bursts (autocannon)`, line(g.initiateBursts));
    }
  }
  const soak = results.soak;
  if (soak) {
    if (soak.error) row('soak', 'stopped', soak.error);
    for (const t of soak.thousands ?? []) {
      row(
        'soak',
        `applications ${t.applications}: per minute; CPU ms per application (services / all); database MiB; slowest sweep query ms`,
        `${t.applicationsPerMinute}; ${t.cpuMsPerApplication.services} / ${t.cpuMsPerApplication.all}; ${t.database?.totalMiB ?? '?'}; ${t.slowestSweepQueryMs}${t.slowestSweep ? ` (${t.slowestSweep.service}.${t.slowestSweep.collection}, ${t.slowestSweep.documents} documents)` : ''}`,
        'reported',
      );
    }
    const v = soak.verdict;
    if (v?.comparable) {
      const f = v.lastOverFirst;
      row(
        'soak',
        'last thousand / first: applications per minute',
        `${f.applicationsPerMinute}x`,
        '>= 0.90x',
        v.met.applicationsPerMinute,
      );
      row(
        'soak',
        'last thousand / first: CPU per application, services',
        `${f.cpuMsServices}x`,
        '<= 1.10x',
        v.met.cpuMsServices,
      );
      row('soak', 'last thousand / first: CPU per application, all', `${f.cpuMsAll}x`, '<= 1.10x', v.met.cpuMsAll);
      row(
        'soak',
        'last thousand / first: peak RSS of every process of the platform',
        v.notFlat.length === 0
          ? `all within 10% (highest ${v.rssHighest?.process} ${v.rssHighest?.ratio}x)`
          : `not flat: ${v.notFlat.map(({ process, ratio }) => `${process} ${ratio}x`).join(', ')}`,
        '<= 1.10x (flat)',
        v.met.rssFlat,
      );
    }
  }
  let text = `\n${formatTable(rows, ['bench', 'measure', 'value', 'target', 'met'])}\n`;
  const m = results.machine;
  text += `\nmachine: ${m.cpus} cpus (${m.cpuModel}), ${m.totalMemGiB} GiB, node ${m.node}; load average ${m.loadAverageAtStart.join(' ')} at start, ${(m.loadAverageAtEnd ?? []).join(' ')} at end`;
  for (const st of results.stacks) {
    text += `\nstack for ${st.for}: ${st.mode}; ready in ${st.secondsToReady} s; databases ${st.databases}; logs ${st.logDir}`;
  }
  for (const [bench, e] of [
    ['e2e', results.e2e],
    ['tracing', results.tracing?.run],
    ['scaling', results.scaling?.run],
  ]) {
    if (!e || e.error) continue;
    text += `\n\n${bench}: CPU over ${e.wallSeconds} s (% of one core; the machine has ${m.cpus * 100}%)\n`;
    text += formatTable(
      Object.entries(e.processes).map(([name, p]) => ({
        process: name,
        'cpu %': p.cpuPercentOfOneCore,
        'cpu s': p.cpuSeconds,
        'peak RSS MiB': p.peakRssMiB,
      })),
      ['process', 'cpu %', 'cpu s', 'peak RSS MiB'],
    );
    if (bench === 'e2e') {
      text += `\n\ne2e: where an application's time goes (median since initiate; hop = difference to the line above)\n`;
      text += formatTable(
        e.timeline.map((t) => ({
          at: t.at,
          'median ms': t.medianMsSinceInitiate,
          'p95 ms': t.p95MsSinceInitiate,
          'hop ms': t.hopMs,
        })),
        ['at', 'median ms', 'p95 ms', 'hop ms'],
      );
      text += `\n\ne2e: time inside the services' handlers (from their /metrics)\n`;
      text += formatTable(
        e.handlers.slice(0, 12).map((h) => ({
          service: h.service,
          handler: h.handler,
          calls: h.calls,
          'mean ms': h.meanMs,
          'total s': h.totalSeconds,
        })),
        ['service', 'handler', 'calls', 'mean ms', 'total s'],
      );
      if (e.requests?.length) {
        const total = (to) => e.requests.filter((r) => r.to === to).reduce((t, r) => t + r.perApplication, 0);
        text += `\n\ne2e: requests per application, ${round(total('kafka'))} to Kafka and ${round(total('db'))} to the database (from the services' /metrics)\n`;
        text += formatTable(
          e.requests
            .slice(0, 24)
            .map((r) => ({ service: r.service, to: r.to, what: r.what, 'per application': r.perApplication })),
          ['service', 'to', 'what', 'per application'],
        );
      }
      if (Array.isArray(e.databases) && e.databases.length) {
        text += `\n\ne2e: databases after the run (outboxPending = documents whose outbox is still unpublished; sweepQueryMs = the outbox sweep's query, as the start-up and periodic sweeps run it; both empty for a collection without an outbox)\n`;
        text += formatTable(e.databases, ['service', 'collection', 'documents', 'outboxPending', 'sweepQueryMs']);
      }
      if (Object.keys(e.duplicates.kafkaRecordsByKind ?? {}).length) {
        text += `\n\ne2e: records written to Kafka more than once\n${Object.entries(e.duplicates.kafkaRecordsByKind)
          .map(([k, v]) => `  ${k}: ${v}`)
          .join('\n')}`;
      }
      if (Object.keys(e.failures).length)
        text += `\n\ne2e failures:\n${Object.entries(e.failures)
          .map(([k, v]) => `  ${v} x ${k}`)
          .join('\n')}`;
    }
  }
  const bySpan = results.tracing?.spansPerApplicationBySpan;
  if (bySpan && Object.keys(bySpan).length) {
    text += `\n\ntracing: spans exported per decided application, by service, kind and name\n`;
    text += formatTable(
      Object.entries(bySpan)
        .slice(0, 40)
        .map(([what, n]) => {
          const [service, kind, ...name] = what.split(' ');
          return { service, kind, name: name.join(' '), 'per application': n };
        }),
      ['service', 'kind', 'name', 'per application'],
    );
  }
  if (results.errors.length) text += `\n\nerrors:\n${results.errors.map((e) => `  ${e}`).join('\n')}`;
  return text;
}

/** The sink's counts between two readings of its totals. */
function spanTotalsSince(before, after) {
  const bySpan = {};
  for (const [what, n] of Object.entries(after.bySpan)) {
    const added = n - (before.bySpan[what] ?? 0);
    if (added > 0) bySpan[what] = added;
  }
  return {
    requests: after.requests - before.requests,
    bytes: after.bytes - before.bytes,
    spans: after.spans - before.spans,
    bySpan,
  };
}

const median = (values) => {
  const sorted = values.filter((v) => typeof v === 'number').sort((a, b) => a - b);
  if (!sorted.length) return null;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * The e2e's figures with tracing on against runs without it, round by round ({off, run,
 * exported} each): every round's ratios, and the medians of the rounds' figures.
 */
function tracingCost(pairs) {
  const decidedIn = (run) => (run.completed ?? 0) + (run.warmUpApplications ?? 0);
  const ratio = (a, b) => (a && b ? round(b / a, 2) : null);
  const rounds = pairs.map(({ off, run: on, exported }) => {
    const offCpu = off.cpuMsPerApplication ?? {};
    const onCpu = on.cpuMsPerApplication ?? {};
    return {
      servicesOff: offCpu.services ?? null,
      servicesOn: onCpu.services ?? null,
      servicesRatio: ratio(offCpu.services, onCpu.services),
      totalOff: offCpu.total ?? null,
      totalOn: onCpu.total ?? null,
      totalRatio: ratio(offCpu.total, onCpu.total),
      // With an idle sample on each side: what an application adds to the services' idle CPU.
      ...(off.cpuMsPerApplicationAboveIdle && on.cpuMsPerApplicationAboveIdle
        ? {
            servicesIdleOff: off.idleCpuMsPerSecond.services,
            servicesIdleOn: on.idleCpuMsPerSecond.services,
            servicesAboveIdleOff: off.cpuMsPerApplicationAboveIdle.services,
            servicesAboveIdleOn: on.cpuMsPerApplicationAboveIdle.services,
            servicesAboveIdleRatio: ratio(
              off.cpuMsPerApplicationAboveIdle.services,
              on.cpuMsPerApplicationAboveIdle.services,
            ),
          }
        : {}),
      appsPerMinuteOff: off.applicationsPerMinute,
      appsPerMinuteOn: on.applicationsPerMinute,
      exportRequests: exported.requests,
      exportedBytes: exported.bytes,
      // The sink counts the warm-up's spans too: they are divided among every application decided.
      spansPerApplication: on.completed ? round(exported.spans / decidedIn(on), 1) : null,
    };
  });
  const med = (field) => {
    const m = median(rounds.map((r) => r[field]));
    return m === null ? null : round(m, 2);
  };
  const completed = pairs.reduce((n, p) => n + decidedIn(p.run), 0);
  const bySpan = {};
  for (const { exported } of pairs)
    for (const [what, n] of Object.entries(exported.bySpan)) bySpan[what] = (bySpan[what] ?? 0) + n;
  return {
    rounds,
    servicesOff: med('servicesOff'),
    servicesOn: med('servicesOn'),
    servicesRatio: med('servicesRatio'),
    totalOff: med('totalOff'),
    totalOn: med('totalOn'),
    totalRatio: med('totalRatio'),
    ...(rounds.every((r) => r.servicesAboveIdleRatio != null)
      ? {
          servicesIdleOff: med('servicesIdleOff'),
          servicesIdleOn: med('servicesIdleOn'),
          servicesAboveIdleOff: med('servicesAboveIdleOff'),
          servicesAboveIdleOn: med('servicesAboveIdleOn'),
          servicesAboveIdleRatio: med('servicesAboveIdleRatio'),
        }
      : {}),
    ratePerMinute: pairs[pairs.length - 1].run.ratePerMinute ?? null,
    appsPerMinuteOff: med('appsPerMinuteOff'),
    appsPerMinuteOn: med('appsPerMinuteOn'),
    exportRequests: pairs.reduce((n, p) => n + p.exported.requests, 0),
    exportedBytes: pairs.reduce((n, p) => n + p.exported.bytes, 0),
    spansPerApplication: med('spansPerApplication'),
    spansPerApplicationBySpan: completed
      ? Object.fromEntries(
          Object.entries(bySpan)
            .sort((a, b) => b[1] - a[1])
            .map(([what, n]) => [what, round(n / completed, 2)]),
        )
      : null,
    warmUpApplications: pairs[pairs.length - 1].run.warmUpApplications,
    run: pairs[pairs.length - 1].run,
  };
}

async function runScaling({ stack, tap, namespace }, single) {
  const replicas = [];
  try {
    log('scaling: starting a second scoring and a second enrichment process');
    for (const name of ['scoring', 'enrichment']) {
      replicas.push(
        await spawnService({
          name,
          entry: `services/${name}/dist/start.js`,
          env: stack.env,
          logDir: path.join(root, results.stacks[results.stacks.length - 1].logDir),
        }),
      );
    }
    const groups = await waitForGroups({
      brokers: stack.env.KAFKA_BROKERS.split(','),
      namespace,
      expect: { scoring: 2, enrichment: 2 },
    });
    if (!groups.stable) log(`scaling: consumer groups not stable after 45 s: ${JSON.stringify(groups.groups)}`);
    const run = await runE2E({
      stack,
      tap,
      apps,
      concurrency,
      stageTimeoutMs: 60_000,
      runTimeoutMs: envInt('BENCH_E2E_TIMEOUT_SECONDS', 40) * 1000,
      label: 'scaling',
      warmUp: 1,
      extraProcesses: replicas.map(({ name, pid, port }) => ({ name: `${name} (replica 2)`, pid, port })),
    });
    const ratio = single?.applicationsPerMinute
      ? round(run.applicationsPerMinute / single.applicationsPerMinute, 2)
      : null;
    const processedTwice = {
      appsScoredTwice: run.duplicates.appsScoredTwice,
      appsEnrichedTwice: run.duplicates.appsEnrichedTwice,
      appsWithTwoDecisionEvents: run.duplicates.appsWithTwoDecisionEvents,
      appsWithTwoDecisionWebhooks: run.duplicates.appsWithTwoDecisionWebhooks,
      kafkaRecordsWrittenTwice: run.duplicates.kafkaRecordsWrittenTwice,
    };
    return {
      replicas: { scoring: 2, enrichment: 2 },
      groups: groups.groups,
      singleAppsPerMinute: single?.applicationsPerMinute ?? null,
      scaledAppsPerMinute: run.applicationsPerMinute,
      ratio,
      throughputRose: ratio === null ? null : ratio > 1.05,
      nothingProcessedTwice: [
        processedTwice.appsScoredTwice,
        processedTwice.appsEnrichedTwice,
        processedTwice.appsWithTwoDecisionEvents,
        processedTwice.appsWithTwoDecisionWebhooks,
      ].every((v) => !v),
      processedTwice,
      run,
    };
  } finally {
    await Promise.all(replicas.map((r) => r.stop()));
  }
}

/**
 * The soak: BENCH_SOAK_APPS applications (10,000 by default) through one stack, a thousand at a
 * time, each thousand measured as the e2e measures its run; and after each, the databases' size
 * and what the outbox sweeps' query costs them. History piles up in one set of databases and
 * topics, so a cost that grows with it shows as a later thousand slower or dearer than the first.
 */
async function runSoak() {
  const total = envInt('BENCH_SOAK_APPS', 10_000);
  const chunk = Math.min(envInt('BENCH_SOAK_CHUNK', SOAK_CHUNK), total);
  const { stack, tap, dbPrefix } = await bringUp('soak', { withTap: true });
  const thousands = [];
  try {
    for (let done = 0; done < total; done += chunk) {
      const apps = Math.min(chunk, total - done);
      const run = await runE2E({
        stack,
        tap,
        apps,
        concurrency,
        stageTimeoutMs: 60_000,
        runTimeoutMs: envInt('BENCH_SOAK_CHUNK_TIMEOUT_SECONDS', 900) * 1000,
        label: `soak ${done + 1}-${done + apps}`,
        warmUp: done === 0 ? 2 : 0,
      });
      const sizes = await databaseSizes(dbPrefix).catch((e) => ({ error: String(e.message) }));
      // Which collection's sweep query was the slowest, and how many documents it held.
      const slowestSweep =
        (Array.isArray(run.databases) ? run.databases : [])
          .filter((d) => d.sweepQueryMs !== null)
          .sort((a, b) => b.sweepQueryMs - a.sweepQueryMs)[0] ?? null;
      const row = {
        applications: `${done + 1}-${done + apps}`,
        decided: run.completed,
        failed: run.failed,
        failures: run.failures,
        applicationsPerMinute: run.applicationsPerMinute,
        cpuMsPerApplication: {
          services: run.cpuMsPerApplication?.services,
          all: run.cpuMsPerApplication?.total,
          processes: run.cpuMsPerApplication?.processes,
        },
        dbOpsPerApplication: run.dbOpsPerApplication,
        kafkaRequestsPerApplication: run.kafkaRequestsPerApplication,
        ...(run.unscraped?.length ? { unscraped: run.unscraped } : {}),
        peakRssMiB: Object.fromEntries(Object.entries(run.processes).map(([name, p]) => [name, p.peakRssMiB])),
        database: sizes,
        slowestSweepQueryMs: slowestSweep?.sweepQueryMs ?? 0,
        slowestSweep,
        duplicates: run.duplicates,
        stuck: run.stuck ?? null,
      };
      thousands.push(row);
      log(
        `soak: ${row.applications}: ${row.decided} decided, ${row.applicationsPerMinute}/min, ` +
          `${row.cpuMsPerApplication.services} ms services / ${row.cpuMsPerApplication.all} ms all per application, ` +
          `database ${sizes.totalMiB ?? '?'} MiB`,
      );
      if (run.stuck) throw new Error(`the stack is stuck: ${run.stuck}`);
      // One slow application (a stage over its minute) is a figure of the row; more is a stop.
      if (run.completed < apps * 0.99) throw new Error(`only ${run.completed} of ${apps} applications were decided`);
    }
    return { total, chunk, thousands, verdict: soakVerdict(thousands) };
  } catch (error) {
    return { error: String(error?.message ?? error), total, chunk, thousands, verdict: soakVerdict(thousands) };
  } finally {
    await tearDown();
  }
}

/**
 * The broker, the registry and the database answer at the addresses the services will be given
 * (the environment's, else `scripts/infra env`'s), or the reason they do not: a stack started
 * without them would keep restarting its services until the READY line's time ran out.
 */
async function infrastructureMissing() {
  const infra = infraEnv();
  const setting = (name) => process.env[name] ?? infra[name];
  const hostPort = (url, defaultPort) => {
    const { hostname, port } = new URL(url);
    return { host: hostname.replace(/^\[|\]$/g, ''), port: Number(port || defaultPort) };
  };
  const needed = [
    ['Kafka', hostPort(`kafka://${(setting('KAFKA_BROKERS') ?? '127.0.0.1:9092').split(',')[0]}`, 9092)],
    ['the schema registry', hostPort(setting('SCHEMA_REGISTRY_URL') ?? 'http://127.0.0.1:8081', 80)],
    ['the database', hostPort((setting('MONGO_URL') ?? 'mongodb://127.0.0.1:27017/').split(',')[0], 27017)],
  ];
  const refusals = [];
  for (const [what, { host, port }] of needed) {
    const answered = await new Promise((resolve) => {
      const socket = net.connect({ host, port, timeout: 3_000 });
      const done = (ok) => {
        socket.destroy();
        resolve(ok);
      };
      socket.once('connect', () => done(true));
      socket.once('timeout', () => done(false));
      socket.once('error', () => done(false));
    });
    if (!answered) refusals.push(`${what} at ${host}:${port}`);
  }
  return refusals.length === 0 ? null : `nothing answers for ${refusals.join(', ')}`;
}

async function main() {
  log(`benchmarks: ${selected.join(', ')}`);
  if (selected.some((name) => name !== 'scoring')) {
    const missing = await infrastructureMissing();
    if (missing) {
      console.error(
        `[bench] ${missing}: start the infrastructure (\`bash scripts/infra start\`), or run \`npm run bench\`, which starts it`,
      );
      process.exit(3);
    }
  }
  const safely = async (name, fn) => {
    const t = Date.now();
    try {
      results[name] = await fn();
    } catch (error) {
      log(`${name} failed: ${error?.stack ?? error}`);
      results[name] = { error: String(error?.message ?? error) };
    }
    results[name].loadAverage = os.loadavg().map((v) => round(v, 2));
    results[name].benchSeconds = round((Date.now() - t) / 1000);
  };
  if (selected.includes('scoring')) await safely('scoring', runScoring);
  // A broker started moments ago may still be electing leaders for new topics: one more try.
  const kafkaOnceMore = async () => {
    try {
      return await runKafka();
    } catch (error) {
      if (!/does not host this topic-partition|leader/i.test(String(error?.message ?? error))) throw error;
      log(`kafka: ${error.message}; trying once more in 5 s`);
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      return { ...(await runKafka()), retried: String(error.message) };
    }
  };
  if (selected.includes('kafka')) await safely('kafka', kafkaOnceMore);

  const e2eOptions = {
    apps,
    concurrency,
    stageTimeoutMs: 60_000,
    runTimeoutMs: envInt('BENCH_E2E_TIMEOUT_SECONDS', 40) * 1000,
  };
  // scaling and tracing compare against e2e, so it runs e2e first when either is asked alone
  if (selected.includes('e2e') || selected.includes('scaling') || selected.includes('tracing')) {
    await safely('e2e', async () => {
      const { stack, tap } = await bringUp('e2e', { withTap: true });
      try {
        return await runE2E({ stack, tap, ...e2eOptions, label: 'e2e', warmUp: 2 });
      } finally {
        await tearDown();
      }
    });
  }
  if (selected.includes('tracing')) {
    await safely('tracing', async () => {
      // The e2e with every span of every service exported over OTLP to a receiver in this process
      // (it decodes only names and counts, keeps nothing), against the e2e without tracing, in
      // BENCH_TRACING_ROUNDS rounds of one run each way on fresh stacks. One run's CPU per
      // application moves by 10% from run to run on a busy machine, as much as the cost being
      // measured: the ratio reported is the median of the rounds'. Without tracing comes first in
      // odd rounds, last in even ones, so that the machine's drift over the bench weighs on both
      // sides. BENCH_TRACING_WARMUP applications (none by default) are decided first in each
      // run, at the run's concurrency, not counted: what a fresh process spends once (compiling
      // the SDK's and the exporter's code among its own) is then out of the measured window.
      // Without a warm-up, the first round's run without tracing is the e2e above.
      const rounds = Math.max(1, envInt('BENCH_TRACING_ROUNDS', 3));
      const warmUpApps = envInt('BENCH_TRACING_WARMUP', 0);
      const ratePerMinute = envInt('BENCH_TRACING_RATE', 0);
      const idleSeconds = envInt('BENCH_TRACING_IDLE_SECONDS', 0);
      // The e2e above ran closed loop with no idle sample: a round at a fixed rate or with one
      // runs its own side without tracing.
      const ownOffSide = warmUpApps > 0 || ratePerMinute > 0 || idleSeconds > 0;
      const sink = await startSpanSink();
      try {
        const e2eRun = async (label, extraEnv = {}) => {
          const { stack, tap } = await bringUp(label, { withTap: true, extraEnv });
          try {
            return await runE2E({
              stack,
              tap,
              ...e2eOptions,
              label,
              warmUp: 2,
              warmUpApps,
              ratePerMinute,
              idleSeconds,
            });
          } finally {
            await tearDown();
          }
        };
        // Every span sampled, or (`atDefault`) the services' own default sampler: a tenth of new
        // traces (libs/runtime tracingSdk DEFAULT_SAMPLER), no sampler named in their environment.
        const traced = async (label, atDefault = false) => {
          const before = sink.totals();
          const run = await e2eRun(label, {
            OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
            OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
            ...(atDefault ? {} : { OTEL_TRACES_SAMPLER: 'parentbased_always_on' }),
          });
          return { run, exported: spanTotalsSince(before, sink.totals()) };
        };
        const pairs = [];
        const defaultPairs = [];
        for (let round = 1; round <= rounds; round++) {
          const label = rounds === 1 ? 'tracing' : `tracing ${round}/${rounds}`;
          const bothOn = async () => ({
            full: await traced(label),
            atDefault: await traced(`${label} (default sampling)`, true),
          });
          let off;
          let on;
          if (round === 1 && !ownOffSide) {
            if (!results.e2e || results.e2e.error)
              throw new Error('needs the e2e run without tracing first (node bench/run.mjs e2e tracing)');
            off = results.e2e;
            on = await bothOn();
          } else if (round % 2 === 0) {
            on = await bothOn();
            off = await e2eRun(`${label} (off)`);
          } else {
            off = await e2eRun(`${label} (off)`);
            on = await bothOn();
          }
          pairs.push({ off, ...on.full });
          defaultPairs.push({ off, ...on.atDefault });
        }
        return { ...tracingCost(pairs), atDefault: tracingCost(defaultPairs) };
      } finally {
        await sink.close();
      }
    });
  }
  if (selected.includes('scaling')) {
    await safely('scaling', async () => {
      const ctx = await bringUp('scaling', { withTap: true });
      try {
        return await runScaling(ctx, results.e2e?.error ? null : results.e2e);
      } finally {
        await tearDown();
      }
    });
  }
  if (selected.includes('notifier')) {
    await safely('notifier', async () => {
      const out = {};
      // The notifier's own bench when it has one; the same figures through a running stack
      // when it has none (or with BENCH_NOTIFIER_STACK=1).
      if (hasProjectBench()) out.ownBench = await runProjectBench();
      if (!hasProjectBench() || process.env.BENCH_NOTIFIER_STACK === '1') {
        const { stack } = await bringUp('notifier');
        try {
          out.stack = await runNotifier({ stack });
        } finally {
          await tearDown();
        }
      }
      return out;
    });
  }
  if (selected.includes('gateway')) {
    await safely('gateway', async () => {
      const { stack } = await bringUp('gateway');
      try {
        return await runGateway({ stack, warm: false });
      } finally {
        await tearDown();
      }
    });
  }
  if (selected.includes('soak')) await safely('soak', runSoak);
  await tearDown();
  finished = true;
  const file = writeResults();
  console.log(report());
  console.log(`\nresults: ${path.relative(root, file)}`);
}

main().then(
  () => process.exit(0),
  (error) => void abort(String(error?.stack ?? error), 1),
);
