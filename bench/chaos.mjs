// `npm run chaos`: the SRE's fault test. Starts a Kafka, registry and FerretDB of its own (other
// ports, a scratch data directory removed afterwards: a developer's stack is never touched), the
// sandbox and the six services each as a process of its own, drives N loan applications end to
// end as a lender does, and meanwhile SIGKILLs a random service every few seconds and starts it
// again, and at other times Kafka or the database. Then it reports what every lender would
// check (decided, lost, stuck, decided twice, events out of order, bad signatures) and how long
// each fault took to recover, as a table and bench/results/chaos-latest.json. It exits
// non-zero when anything was lost, stuck, decided twice, out of order or badly signed, or when
// the pipeline did not move again after a fault.
// Options: node bench/chaos.mjs --help. See bench/README.md.
/* global AbortSignal */
import { execFile } from 'node:child_process';
import { clearInterval, setInterval } from 'node:timers';
import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify, parseArgs } from 'node:util';
import { applicantBody, createLender } from './e2e.mjs';
import { startReceiver } from './lib/receiver.mjs';
import { startSeparately } from './lib/stack.mjs';
import { isAlive } from './lib/procstat.mjs';
import { formatTable, freePort, httpJson, log, root, round, sleep, summarize } from './lib/util.mjs';

const run = promisify(execFile);

const SERVICES = ['gateway', 'applications', 'enrichment', 'scoring', 'notifier', 'janitor'];
const INFRA = ['kafka', 'ferretdb'];
const TERMINAL = ['COMPLETED', 'FAILED'];

const { values: opts } = parseArgs({
  options: {
    applications: { type: 'string', default: '100' },
    concurrency: { type: 'string', default: '10' },
    interval: { type: 'string', default: '5' },
    'infra-share': { type: 'string', default: '0.25' },
    downtime: { type: 'string', default: '3' },
    duration: { type: 'string', default: '900' },
    'app-timeout': { type: 'string', default: '600' },
    targets: { type: 'string', default: [...SERVICES, ...INFRA].join(',') },
    seed: { type: 'string' },
    'keep-data': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (opts.help) {
  console.log(`usage: npm run chaos -- [options]
  --applications N    applications driven end to end (100)
  --concurrency N     applications in flight at once (10)
  --interval S        seconds between the recovery of one fault and the next fault (5)
  --infra-share P     share of faults that kill Kafka or the database instead of a service (0.25)
  --downtime S        seconds Kafka or the database stays down before it is started again (3)
  --duration S        no new fault after this many seconds (900); faults also stop once every
                      application is driven to its end
  --app-timeout S     how long one application may take from initiate to its outcome (600)
  --targets LIST      what may be killed: ${[...SERVICES, ...INFRA, 'registry', 'sandbox'].join(',')}
                      (default: the six services, kafka and ferretdb)
  --seed S            seed of the random choices, to repeat a run's sequence of faults
  --keep-data         keep the scratch data directory of the run's own Kafka, registry, FerretDB`);
  process.exit(0);
}

function positive(name, { integer = false, max = Infinity } = {}) {
  const v = Number(opts[name]);
  if (!Number.isFinite(v) || v < 0 || v > max || (integer && !Number.isInteger(v)))
    throw new Error(
      `--${name} must be a ${integer ? 'whole ' : ''}number from 0${max < Infinity ? ` to ${max}` : ''}, got "${opts[name]}"`,
    );
  return v;
}

const settings = {
  applications: positive('applications', { integer: true }),
  concurrency: Math.max(1, positive('concurrency', { integer: true })),
  intervalSeconds: positive('interval'),
  infraShare: positive('infra-share', { max: 1 }),
  downtimeSeconds: positive('downtime'),
  durationSeconds: positive('duration'),
  appTimeoutSeconds: positive('app-timeout'),
  targets: opts.targets
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean),
  seed: opts.seed ?? randomUUID().slice(0, 8),
};
const unknownTargets = settings.targets.filter((t) => ![...SERVICES, ...INFRA, 'registry', 'sandbox'].includes(t));
if (unknownTargets.length > 0) {
  console.error(`unknown --targets: ${unknownTargets.join(', ')}`);
  process.exit(2);
}

/** A small seeded generator (mulberry32), so a seed repeats the sequence of faults. */
function seededRandom(seed) {
  let a = [...seed].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 2654435761) >>> 0, 1779033703);
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seededRandom(settings.seed);
const pick = (list) => list[Math.floor(random() * list.length)];

const runKey = Date.now().toString(36);
const logDir = path.join(root, '.infra', 'logs', `chaos-${runKey}`);
const t0 = Date.now();
const since = (t) => round((t - t0) / 1000, 1);

// ---------------------------------------------------------------------------------------------
// The run's own Kafka, registry and FerretDB: scripts/infra with another run directory, data
// directory and ports, so killing them harms nobody else's stack.

async function startOwnInfra() {
  const infraHome = path.resolve(process.env.LOAN_INFRA_HOME ?? path.join(os.homedir(), '.cache', 'loan-infra'));
  const dataDir = path.join(infraHome, 'chaos', runKey);
  const env = {
    ...process.env,
    LOAN_INFRA_HOME: infraHome,
    LOAN_INFRA_RUN: path.join(logDir, 'infra'),
    LOAN_INFRA_DATA: dataDir,
  };
  for (const name of ['KAFKA_PORT', 'KAFKA_CONTROLLER_PORT', 'REGISTRY_PORT', 'REGISTRY_MANAGEMENT_PORT', 'MONGO_PORT'])
    env[name] = String(await freePort());
  const script = path.join(root, 'scripts', 'infra');
  const infra = async (...args) => (await run('bash', [script, ...args], { env, maxBuffer: 4 << 20 })).stdout.trim();
  log(`starting Kafka, the registry and FerretDB of this run (data ${dataDir}, logs ${env.LOAN_INFRA_RUN}/logs)`);
  await infra('start');
  const vars = Object.fromEntries(
    (await infra('env'))
      .split('\n')
      .map((l) => /^([A-Z_]+)=(.*)$/.exec(l.trim()))
      .filter(Boolean)
      .map((m) => [m[1], m[2]]),
  );
  return {
    vars,
    pid: async (component) => Number(await infra('pid', component)),
    start: () => infra('start'),
    async stop() {
      await infra('stop').catch((e) => log(`stopping the run's infrastructure: ${e.message}`));
      if (!opts['keep-data']) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Webhooks, in the order they arrive, per application.

function createEventLog(receiver) {
  /** applicationId -> [{ id, event, data, at, seq }] (first arrival of each event id) */
  const byApp = new Map();
  let lastAt = 0;
  let seq = 0;
  const waiters = new Set();
  receiver.onEvent((record) => {
    lastAt = record.at;
    if (!record.app) return;
    const entry = { id: record.id, event: record.event, data: record.data ?? {}, at: record.at, seq: seq++ };
    const list = byApp.get(record.app) ?? [];
    list.push(entry);
    byApp.set(record.app, list);
    for (const w of waiters) {
      if (w.app === record.app && w.match(entry)) {
        waiters.delete(w);
        w.resolve(entry);
      }
    }
  });
  return {
    byApp,
    lastEventAt: () => lastAt,
    /** The first event of an application that matches, waiting for it until `deadline`. */
    waitFor(app, match, deadline, what) {
      const have = (byApp.get(app) ?? []).find(match);
      if (have) return Promise.resolve(have);
      return new Promise((resolve, reject) => {
        const w = { app, match, resolve };
        const timer = setTimeout(
          () => {
            waiters.delete(w);
            reject(new Error(`no ${what} webhook within the application's time limit`));
          },
          Math.max(1, deadline - Date.now()),
        );
        w.resolve = (entry) => {
          clearTimeout(timer);
          resolve(entry);
        };
        waiters.add(w);
      });
    },
    /**
     * Resolves with the time of the first event that arrives after `after`, or null when none
     * came within `timeoutMs` or nothing is left in flight to send one (`busy()` false).
     */
    async nextEventAfter(after, timeoutMs, busy) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (lastAt > after) return lastAt;
        if (!busy()) return null;
        await sleep(100);
      }
      return null;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The lender: every call retried as the spec says (500 or no answer: again with backoff, the
// same idempotency key; 429: wait as told), bounded by the application's deadline.

function createLenderClient({ gatewayUrl, apiKey }) {
  async function call(method, url, { body, headers = {}, deadline, counters }) {
    let backoff = 1_000;
    for (let attempt = 0; ; attempt += 1) {
      let res = null;
      let failure = null;
      try {
        res = await httpJson(method, url, {
          headers,
          body,
          timeoutMs: Math.max(1, Math.min(30_000, deadline - Date.now())),
        });
      } catch (error) {
        failure = error;
      }
      const retryable = failure !== null || res.status === 429 || res.status >= 500;
      if (!retryable) return res;
      const why = failure ? String(failure.cause?.code ?? failure.name ?? failure.message) : String(res.status);
      const waitMs = res?.status === 429 ? 1_000 * Number(res.headers?.['retry-after'] ?? 60) : backoff;
      if (Date.now() + waitMs >= deadline)
        throw new Error(`${method} ${new URL(url).pathname} still ${why} at the deadline`);
      counters.retries += 1;
      counters.retriedBecause[why] = (counters.retriedBecause[why] ?? 0) + 1;
      // The spec suggests up to 3 retries of a 500; how many one call needed says whether that is enough.
      counters.mostRetriesOfOneCall = Math.max(counters.mostRetriesOfOneCall ?? 0, attempt + 1);
      await sleep(waitMs);
      backoff = Math.min(backoff * 2, 8_000);
    }
  }
  const api = (method, p, options) =>
    call(method, `${gatewayUrl}${p}`, { ...options, headers: { 'x-api-key': apiKey } });
  return { call, api };
}

const expectStatus = (res, ok, what) => {
  if (!ok.includes(res.status))
    throw new Error(`${what} answered ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
};

/** One application from initiate to its outcome, as a lender's backend and its applicant do it. */
async function driveApplication({ index, lender, sandboxUrl, events, counters }) {
  const app = {
    index,
    key: `chaos-${runKey}-${index}`,
    id: null,
    stage: 'initiate',
    error: null,
    startedAt: Date.now(),
  };
  const deadline = app.startedAt + settings.appTimeoutSeconds * 1000;
  const opt = (extra = {}) => ({ deadline, counters, ...extra });
  const statusNow = async () => (await lender.api('GET', `/api/applications/${app.id}`, opt())).body?.status;
  /** After a retried call answered 400 the first attempt may have done it: the state says. */
  const doneAlready = async (res, accepted) => res.status === 400 && accepted.includes(await statusNow());
  try {
    const init = await lender.api('POST', '/api/applications/initiate', opt({ body: applicantBody(app.key) }));
    expectStatus(init, [200, 201], 'initiate');
    app.id = init.body.applicationId;
    let widgetUrl = init.body.widgetUrl;

    app.stage = 'link';
    for (;;) {
      const link = await lender.call(
        'POST',
        `${sandboxUrl}/sandbox/link`,
        opt({ body: { widgetUrl, persona: 'salaried' } }),
      );
      if (link.status === 200) break;
      // The widget session is gone (the provider restarted): the lender asks for a fresh one.
      if (link.status !== 404 && link.status !== 410) expectStatus(link, [200], 'sandbox link');
      const again = await lender.api('POST', `/api/applications/${app.id}/link-account`, opt({ body: {} }));
      expectStatus(again, [200], 'link-account');
      widgetUrl = again.body.widgetUrl;
    }
    app.stage = 'account.linked';
    const linked = await events.waitFor(app.id, (e) => e.event === 'account.linked', deadline, 'account.linked');
    const accountId = linked.data.accountId;
    app.stage = 'account.enrichment_ready';
    const enriched = await events.waitFor(
      app.id,
      (e) =>
        ['account.enrichment_ready', 'account.enrichment_failed'].includes(e.event) && e.data.accountId === accountId,
      deadline,
      'account.enrichment_ready',
    );
    if (enriched.event === 'account.enrichment_failed')
      throw new Error(`account.enrichment_failed: ${enriched.data.reason}`);

    app.stage = 'finalize-linking';
    const fin = await lender.api('POST', `/api/applications/${app.id}/finalize-linking`, opt());
    if (!(await doneAlready(fin, ['LINKED', 'PROCESSING', ...TERMINAL]))) expectStatus(fin, [200], 'finalize-linking');
    app.stage = 'application.ready_for_analysis';
    await events.waitFor(
      app.id,
      (e) => e.event === 'application.ready_for_analysis',
      deadline,
      'application.ready_for_analysis',
    );

    app.stage = 'analyze';
    const an = await lender.api('POST', `/api/applications/${app.id}/analyze`, opt());
    if (!(await doneAlready(an, ['PROCESSING', ...TERMINAL]))) expectStatus(an, [200, 202], 'analyze');
    app.stage = 'outcome';
    const outcome = await events.waitFor(
      app.id,
      (e) => e.event === 'application.decision' || e.event === 'application.failed',
      deadline,
      'application.decision',
    );
    app.stage = outcome.event;
  } catch (error) {
    app.error = String(error?.message ?? error);
  }
  app.seconds = round((Date.now() - app.startedAt) / 1000);
  return app;
}

// ---------------------------------------------------------------------------------------------
// Faults.

async function everyServiceReady(stack, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  const services = stack.processes.filter((p) => SERVICES.includes(p.name));
  while (Date.now() < deadline) {
    const ready = await Promise.all(
      services.map((p) =>
        fetch(`http://127.0.0.1:${p.port}/readyz`, { signal: AbortSignal.timeout(3_000) })
          .then((r) => r.ok)
          .catch(() => false),
      ),
    );
    if (ready.every(Boolean)) return Date.now();
    await sleep(250);
  }
  return null;
}

/**
 * Kills one target, starts it again and measures: `readyS` from the kill until the target and
 * every service are ready again, `movingS` until the next webhook after that (the pipeline
 * moves again). A service is started again at once, as a kubelet would; Kafka and the
 * database after `--downtime`.
 */
async function fault({ target, stack, infra, events, supervisor, busy }) {
  const record = { target, atS: null, downS: null, readyS: null, movingS: null, idle: false, error: null };
  try {
    let killedAt;
    if (SERVICES.includes(target) || target === 'sandbox') {
      const p = stack.processes.find((x) => x.name === target);
      supervisor.expectExit(p.pid);
      killedAt = Date.now();
      process.kill(p.pid, 'SIGKILL');
      while (isAlive(p.pid)) await sleep(20);
      await stack.restart(target);
      record.downS = round((Date.now() - killedAt) / 1000);
    } else {
      const pid = await infra.pid(target);
      killedAt = Date.now();
      process.kill(pid, 'SIGKILL');
      while (isAlive(pid)) await sleep(20);
      await sleep(settings.downtimeSeconds * 1000);
      await infra.start();
      record.downS = round((Date.now() - killedAt) / 1000);
    }
    record.atS = since(killedAt);
    const readyAt = await everyServiceReady(stack, 180_000);
    if (readyAt === null) throw new Error('not every service was ready again within 180 s');
    record.readyS = round((readyAt - killedAt) / 1000);
    const movingAt = await events.nextEventAfter(readyAt, 120_000, busy);
    record.movingS = movingAt === null ? null : round((movingAt - killedAt) / 1000);
    // Every application ended meanwhile: nothing was left to move.
    record.idle = movingAt === null && !busy();
    if (movingAt === null && !record.idle) {
      record.stall = await whoIsStalled(stack);
      log(`fault ${target}: no webhook for 120 s after every service was ready: ${JSON.stringify(record.stall)}`);
    }
  } catch (error) {
    record.error = String(error?.message ?? error);
  }
  return record;
}

/** Consumer lag and handled messages of one service, from its /metrics. */
async function handlerFigures(port) {
  const text = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5_000) })
    .then((r) => r.text())
    .catch(() => '');
  const sum = (re) => [...text.matchAll(re)].reduce((t, m) => t + Number(m[1]), 0);
  return {
    lag: sum(/^kafka_consumer_lag\{[^}]*\}\s+(\S+)$/gm),
    handled: sum(/^kafka_handler_duration_seconds_count\{[^}]*\}\s+(\S+)$/gm),
  };
}

/**
 * When the pipeline stands still: per service, the messages waiting for it (consumer lag) and
 * how many it handled over 10 s. A service with work waiting that handles nothing is wedged.
 */
async function whoIsStalled(stack) {
  const services = stack.processes.filter((p) => SERVICES.includes(p.name));
  const before = await Promise.all(services.map((p) => handlerFigures(p.port)));
  await sleep(10_000);
  const after = await Promise.all(services.map((p) => handlerFigures(p.port)));
  return Object.fromEntries(
    services.map((p, i) => [p.name, { waiting: after[i].lag, handledIn10s: after[i].handled - before[i].handled }]),
  );
}

/**
 * What a kubelet does for the processes nobody killed on purpose: a service that exits by
 * itself (a crash on a lost broker, say) is counted and started again.
 */
function createSupervisor(stack) {
  const expected = new Set();
  const crashes = [];
  let timer = null;
  let busy = false;
  return {
    crashes,
    expectExit: (pid) => expected.add(pid),
    start() {
      timer = setInterval(async () => {
        if (busy) return;
        busy = true;
        try {
          for (const p of stack.processes) {
            if (isAlive(p.pid) || expected.has(p.pid)) continue;
            log(`${p.name} (pid ${p.pid}) exited by itself; starting it again`);
            crashes.push({ service: p.name, atS: since(Date.now()) });
            expected.add(p.pid);
            await stack.restart(p.name).catch((e) => log(`${p.name} did not start again: ${e.message}`));
          }
        } finally {
          busy = false;
        }
      }, 500);
    },
    stop: () => clearInterval(timer),
  };
}

/**
 * A fault the stack did not get over: a start that failed, or no webhook for 120 s after every
 * service was ready again while applications were in flight (a process that looks ready but
 * handles nothing; a later fault that happens to restart it would otherwise hide it).
 */
const notRecovered = (f) => f.error !== null || (f.movingS === null && !f.idle);

// ---------------------------------------------------------------------------------------------
// What a lender checks afterwards.

function orderProblems(list) {
  const problems = [];
  const index = (pred) => list.findIndex(pred);
  for (const e of list.filter((x) => x.event === 'account.enrichment_ready')) {
    const linkedAt = index((x) => x.event === 'account.linked' && x.data.accountId === e.data.accountId);
    if (linkedAt === -1 || linkedAt > list.indexOf(e)) problems.push('account.enrichment_ready before account.linked');
  }
  const ready = index((x) => x.event === 'application.ready_for_analysis');
  for (const e of list.filter((x) => x.event === 'application.decision')) {
    if (ready === -1 || ready > list.indexOf(e))
      problems.push('application.decision before application.ready_for_analysis');
  }
  const outcomes = list.filter((x) => x.event === 'application.decision' || x.event === 'application.failed');
  if (outcomes.length > 1 && new Set(outcomes.map((x) => x.event)).size > 1)
    problems.push('both application.decision and application.failed');
  if (list.filter((x) => x.event === 'application.failed').length > 1) problems.push('application.failed twice');
  return problems;
}

async function assess({ apps, events, lender, receiver }) {
  const rows = [];
  for (const app of apps) {
    const list = events.byApp.get(app.id) ?? [];
    const decisions = list.filter((e) => e.event === 'application.decision');
    const failures = list.filter((e) => e.event === 'application.failed');
    let status = null;
    if (app.id) {
      const res = await lender
        .api('GET', `/api/applications/${app.id}`, {
          deadline: Date.now() + 60_000,
          counters: { retries: 0, retriedBecause: {} },
        })
        .catch((e) => ({ status: 0, body: { message: e.message } }));
      status = res.status === 200 ? res.body.status : `HTTP ${res.status}`;
    }
    const heard = decisions.length + failures.length > 0;
    const lost = app.id !== null && (status === 'HTTP 404' || (TERMINAL.includes(status) && !heard));
    rows.push({
      index: app.index,
      applicationId: app.id,
      status,
      decided: decisions.length > 0 && status === 'COMPLETED',
      failed: failures.length > 0,
      failedReason: failures[0]?.data?.reason ?? null,
      decidedTwice: decisions.length > 1,
      lost,
      stuck: !lost && !heard,
      outOfOrder: orderProblems(list),
      stage: app.stage,
      error: app.error,
      seconds: app.seconds,
    });
  }
  const count = (pred) => rows.filter(pred).length;
  return {
    rows,
    summary: {
      applications: rows.length,
      decided: count((r) => r.decided),
      failed: count((r) => r.failed),
      lost: count((r) => r.lost),
      stuck: count((r) => r.stuck),
      decidedTwice: count((r) => r.decidedTwice),
      outOfOrder: count((r) => r.outOfOrder.length > 0),
      badSignatures: receiver.stats.badSignature,
    },
  };
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const results = {
    kind: 'chaos',
    startedAt: new Date().toISOString(),
    finishedAt: null,
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? null,
      totalMemGiB: round(os.totalmem() / 2 ** 30, 1),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
      loadAverageAtStart: os.loadavg().map((v) => round(v, 2)),
    },
    settings,
    logs: path.relative(root, logDir),
  };
  let infra = null;
  let stack = null;
  let receiver = null;
  let supervisor = null;
  let exitCode = 1;
  const cleanUp = async () => {
    supervisor?.stop();
    await stack?.stop().catch((e) => log(`stopping the stack: ${e.message}`));
    await receiver?.close().catch(() => undefined);
    await infra?.stop();
  };
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) return;
    interrupted = true;
    log('interrupted; stopping what this run started');
    void cleanUp().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    mkdirSync(logDir, { recursive: true });
    infra = await startOwnInfra();
    // The run's own infrastructure wins over whatever the caller's environment points at.
    Object.assign(process.env, infra.vars);
    const namespace = `chaos${runKey}.`;
    log(`starting the sandbox and the six services, each a process of its own (logs ${path.relative(root, logDir)})`);
    stack = await startSeparately({ namespace, logDir, dbPrefix: `chaos${runKey}_` });
    results.stack = { gatewayUrl: stack.gatewayUrl, sandboxUrl: stack.sandboxUrl, namespace };
    supervisor = createSupervisor(stack);
    supervisor.start();

    receiver = await startReceiver();
    const events = createEventLog(receiver);
    const account = await createLender(stack.gatewayUrl, `${receiver.url}/hooks`);
    receiver.setSecret(account.webhookSecret);
    const lender = createLenderClient({ gatewayUrl: stack.gatewayUrl, apiKey: account.apiKey });
    const counters = { retries: 0, retriedBecause: {} };

    log(
      `driving ${settings.applications} applications, ${settings.concurrency} at a time; a fault every ` +
        `${settings.intervalSeconds} s among ${settings.targets.join(', ')} (seed ${settings.seed})`,
    );
    const apps = [];
    let next = 0;
    let active = 0;
    let driving = true;
    const drive = Promise.all(
      Array.from({ length: Math.min(settings.concurrency, settings.applications) }, async () => {
        while (next < settings.applications) {
          const index = next++;
          active += 1;
          apps.push(await driveApplication({ index, lender, sandboxUrl: stack.sandboxUrl, events, counters }));
          active -= 1;
        }
      }),
    ).finally(() => (driving = false));
    const progress = setInterval(() => {
      const done = apps.filter((a) => a.error === null).length;
      log(`${done}/${settings.applications} applications at their outcome, ${apps.length - done} gave up`);
    }, 15_000);

    const faults = [];
    const services = settings.targets.filter((t) => SERVICES.includes(t) || t === 'sandbox');
    const infraTargets = settings.targets.filter((t) => INFRA.includes(t) || t === 'registry');
    const chaosEnds = Date.now() + settings.durationSeconds * 1000;
    const chaos = (async () => {
      while (driving && Date.now() < chaosEnds) {
        await sleep(settings.intervalSeconds * 1000);
        if (!driving || Date.now() >= chaosEnds) break;
        const useInfra = infraTargets.length > 0 && (services.length === 0 || random() < settings.infraShare);
        const target = pick(useInfra ? infraTargets : services);
        if (!target) break;
        log(`fault ${faults.length + 1}: SIGKILL ${target}`);
        const record = await fault({ target, stack, infra, events, supervisor, busy: () => active > 0 });
        faults.push(record);
        log(
          `fault ${faults.length}: ${target} ready again after ${record.readyS ?? '-'} s, ` +
            `pipeline moving after ${record.movingS ?? '-'} s${record.error ? ` (${record.error})` : ''}`,
        );
      }
    })();
    await Promise.all([drive, chaos]);
    clearInterval(progress);
    log(`driving done after ${since(Date.now())} s; ${faults.length} faults; checking every application`);
    // Late duplicates or out-of-order deliveries, if any, reach the receiver.
    await sleep(5_000);
    supervisor.stop();

    const { rows, summary } = await assess({ apps, events, lender, receiver });
    summary.faultsNotRecovered = faults.filter(notRecovered).length;
    const recovery = {};
    for (const kind of [...new Set(faults.map((f) => f.target))].sort()) {
      const of = faults.filter((f) => f.target === kind);
      recovery[kind] = {
        faults: of.length,
        readyS: summarize(of.map((f) => f.readyS)),
        movingS: summarize(of.map((f) => f.movingS)),
        notRecovered: of.filter(notRecovered).length,
      };
    }
    Object.assign(results, {
      finishedAt: new Date().toISOString(),
      wallSeconds: since(Date.now()),
      summary,
      faults,
      recovery,
      serviceCrashes: supervisor.crashes,
      lenderRetries: counters,
      webhookRequests: receiver.stats.requests,
      duplicateDeliveries: receiver.stats.duplicateDeliveries,
      secondsPerApplication: summarize(rows.map((r) => r.seconds)),
      notDecided: rows
        .filter((r) => !r.decided || r.decidedTwice || r.outOfOrder.length > 0)
        .map(({ index, applicationId, status, stage, error, failedReason, outOfOrder, lost, stuck }) => ({
          index,
          applicationId,
          status,
          stage,
          error,
          failedReason,
          outOfOrder,
          lost,
          stuck,
        })),
    });
    results.machine.loadAverageAtEnd = os.loadavg().map((v) => round(v, 2));
    const bad = ['lost', 'stuck', 'decidedTwice', 'outOfOrder', 'badSignatures', 'faultsNotRecovered'].filter(
      (k) => summary[k] > 0,
    );
    results.passed = bad.length === 0;
    exitCode = bad.length === 0 ? 0 : 1;

    const file = writeResults(results);
    printReport(results, file);
    if (bad.length > 0) console.log(`\nFAILED: ${bad.join(', ')} not zero (details under notDecided in the JSON)`);
  } catch (error) {
    results.error = String(error?.stack ?? error);
    log(`chaos run failed: ${error?.message ?? error}`);
    try {
      writeResults(results);
    } catch {
      // nothing more to save
    }
  } finally {
    await cleanUp();
  }
  process.exit(exitCode);
}

function writeResults(results) {
  const dir = path.join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const text = `${JSON.stringify(results, null, 2)}\n`;
  const file = path.join(dir, 'chaos-latest.json');
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
  return file;
}

function printReport(results, file) {
  const s = results.summary;
  const rows = [
    ['applications driven', s.applications, settings.applications],
    ['decided', s.decided, settings.applications],
    ['failed (application.failed)', s.failed, 0],
    ['lost', s.lost, 0],
    ['stuck', s.stuck, 0],
    ['decided twice', s.decidedTwice, 0],
    ['events out of order', s.outOfOrder, 0],
    ['bad signatures', s.badSignatures, 0],
    ['faults', results.faults.length, ''],
    ['faults not recovered', s.faultsNotRecovered, 0],
    ['services that exited by themselves', results.serviceCrashes.length, 0],
    ['lender retries (500 / no answer)', results.lenderRetries.retries, ''],
    ['most retries of one call', results.lenderRetries.mostRetriesOfOneCall ?? 0, ''],
  ].map(([what, value, target]) => ({ what, value, target }));
  console.log(
    `\nChaos run ${results.startedAt} (${results.machine.cpus} cores, ${results.machine.totalMemGiB} GiB), seed ${settings.seed}`,
  );
  console.log(formatTable(rows, ['what', 'value', 'target']));
  const rec = Object.entries(results.recovery).map(([target, r]) => ({
    killed: target,
    faults: r.faults,
    'ready p50 s': r.readyS.p50,
    'ready max s': r.readyS.max,
    'moving p50 s': r.movingS.p50,
    'moving max s': r.movingS.max,
    'not recovered': r.notRecovered,
  }));
  console.log('\nTime to recover, from the SIGKILL: every service ready again / the next webhook after that');
  console.log(
    formatTable(rec, [
      'killed',
      'faults',
      'ready p50 s',
      'ready max s',
      'moving p50 s',
      'moving max s',
      'not recovered',
    ]),
  );
  console.log(`\n${path.relative(root, file)}`);
}

await main();
