// End to end: N loan applications through the whole running stack, as a lender and its
// applicants drive them, timed per stage from the lender's side (HTTP replies, webhooks).
import { clearInterval, setInterval } from 'node:timers';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { startReceiver } from './lib/receiver.mjs';
import { createSampler, infraProcesses, isAlive } from './lib/procstat.mjs';
import { diff, requests, scrapeAll, unscraped } from './lib/metrics.mjs';
import { probeOutboxes } from './lib/db.mjs';
import { httpJson, log, now, requireFromRoot, round, sleep, summarize } from './lib/util.mjs';

export const E2E_TARGETS = { appsPerMinute: 600, rssMiB: 150 };

const ADMIN_TOKEN = () => process.env.ADMIN_TOKEN ?? 'local-admin-token';

/** A lender account whose webhooks go to `webhookUrl`. */
export async function createLender(gatewayUrl, webhookUrl) {
  const res = await httpJson('POST', `${gatewayUrl}/admin/clients`, {
    headers: { 'x-admin-token': ADMIN_TOKEN() },
    body: {
      name: `Bench Lender ${randomUUID().slice(0, 6)}`,
      ...(webhookUrl ? { webhookUrl } : {}),
      providerSecretKey: 'test_sk_sandbox',
    },
  });
  if (res.status !== 201) throw new Error(`client creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const applicantBody = (idempotencyKey) => ({
  firstName: 'Chinedu',
  lastName: 'Okonkwo',
  email: 'chinedu.okonkwo@example.com',
  phone: '08031234567',
  bvn: '22200000001',
  amount: 300_000,
  tenor: 6,
  interestRate: 5,
  purpose: 'Stock for a provisions shop',
  idempotencyKey,
});

const STAGES = {
  initiate: 'initiate reply',
  linkCall: 'sandbox link reply',
  linkToLinked: 'link -> account.linked',
  linkedToEnrichmentReady: 'account.linked -> enrichment_ready',
  finalize: 'finalize-linking reply',
  finalizeToReady: 'finalize -> ready_for_analysis',
  analyze: 'analyze reply',
  analyzeToDecision: 'analyze -> decision',
  total: 'initiate -> decision',
};
export const STAGE_NAMES = STAGES;

/**
 * One application from initiate to decision. Every step is bounded by `timeoutMs` and by the
 * run's deadline; returns the stage times (ms) or the stage that failed.
 */
async function oneApplication({ gatewayUrl, sandboxUrl, apiKey, waitEvent, runId, index, timeoutMs, deadline }) {
  const stages = {};
  const marks = {};
  let stage = 'initiate';
  let applicationId = null;
  const budget = () => Math.max(1, Math.min(timeoutMs, deadline - Date.now()));
  let cutOff = false;
  /** A step bounded by the stage timeout or, when sooner, the run's time limit. */
  const bounded = async (step) => {
    const limitedByRun = deadline - Date.now() < timeoutMs;
    try {
      return await step(budget());
    } catch (error) {
      if (limitedByRun && Date.now() >= deadline - 50) {
        cutOff = true;
        throw new Error("cut off by the run's time limit (BENCH_E2E_TIMEOUT_SECONDS)");
      }
      throw error;
    }
  };
  const wait = (event) => bounded((t) => waitEvent(applicationId, event, t));
  const api = (method, path, body) =>
    bounded((t) => httpJson(method, `${gatewayUrl}${path}`, { headers: { 'x-api-key': apiKey }, body, timeoutMs: t }));
  const expect = (res, ok, what) => {
    if (!ok.includes(res.status))
      throw new Error(`${what} answered ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
  };
  try {
    const t0 = (marks.start = now());
    const init = await api('POST', '/api/applications/initiate', applicantBody(`bench-${runId}-${index}`));
    expect(init, [201], 'initiate');
    marks.initiateReply = now();
    stages.initiate = marks.initiateReply - t0;
    applicationId = init.body.applicationId;

    stage = 'link';
    marks.linkSent = now();
    const link = await bounded((t) =>
      httpJson('POST', `${sandboxUrl}/sandbox/link`, {
        body: { widgetUrl: init.body.widgetUrl, persona: 'salaried' },
        timeoutMs: t,
      }),
    );
    expect(link, [200], 'sandbox link');
    stages.linkCall = now() - marks.linkSent;
    stage = 'account.linked';
    marks.linked = await wait('account.linked');
    stages.linkToLinked = marks.linked - marks.linkSent;
    stage = 'account.enrichment_ready';
    marks.enrichmentReady = await wait('account.enrichment_ready');
    stages.linkedToEnrichmentReady = marks.enrichmentReady - marks.linked;

    stage = 'finalize-linking';
    marks.finalizeSent = now();
    const fin = await api('POST', `/api/applications/${applicationId}/finalize-linking`);
    expect(fin, [200], 'finalize-linking');
    stages.finalize = now() - marks.finalizeSent;
    stage = 'application.ready_for_analysis';
    marks.readyForAnalysis = await wait('application.ready_for_analysis');
    stages.finalizeToReady = marks.readyForAnalysis - marks.finalizeSent;

    stage = 'analyze';
    marks.analyzeSent = now();
    const an = await api('POST', `/api/applications/${applicationId}/analyze`);
    expect(an, [200, 202], 'analyze');
    stages.analyze = now() - marks.analyzeSent;
    stage = 'application.decision';
    marks.decision = await wait('application.decision');
    stages.analyzeToDecision = marks.decision - marks.analyzeSent;
    stages.total = marks.decision - t0;
    return { ok: true, applicationId, stages, marks };
  } catch (error) {
    return { ok: false, cutOff, applicationId, stages, marks, stage, error: String(error?.message ?? error) };
  }
}

/**
 * Median time of every internal hop (Kafka record timestamps seen by the tap, plus the lender's
 * own marks), relative to the start of each application, in the order they happen.
 */
function hopTimeline(results, tap) {
  const offsets = new Map();
  const add = (label, value) => {
    if (!Number.isFinite(value)) return;
    const list = offsets.get(label) ?? [];
    list.push(value);
    offsets.set(label, list);
  };
  const local = {
    initiateReply: 'lender: initiate reply',
    linkSent: 'lender: sandbox link sent',
    linked: 'lender: account.linked webhook',
    enrichmentReady: 'lender: enrichment_ready webhook',
    finalizeSent: 'lender: finalize-linking sent',
    readyForAnalysis: 'lender: ready_for_analysis webhook',
    analyzeSent: 'lender: analyze sent',
    decision: 'lender: decision webhook',
  };
  for (const r of results) {
    if (!r.ok) continue;
    const t0 = r.marks.start;
    for (const [k, label] of Object.entries(local)) add(label, r.marks[k] - t0);
    for (const [label, m] of tap?.byApp.get(r.applicationId) ?? []) {
      if (label === 'command:GetApplication') continue;
      add(`kafka ${label}`, m.first - t0);
    }
  }
  const rows = [...offsets.entries()]
    .map(([label, list]) => ({ label, ...summarize(list) }))
    .filter((r) => r.n >= Math.max(1, Math.floor(results.filter((x) => x.ok).length / 2)))
    .sort((a, b) => a.p50 - b.p50);
  let previous = 0;
  return rows.map((r) => {
    const row = {
      at: r.label,
      medianMsSinceInitiate: r.p50,
      p95MsSinceInitiate: r.p95,
      hopMs: round(r.p50 - previous),
    };
    previous = r.p50;
    return row;
  });
}

function duplicatesOf(results, receiver, tap) {
  const apps = results.map((r) => r.applicationId).filter(Boolean);
  const out = {
    sameEventDeliveredAgain: receiver ? receiver.stats.duplicateDeliveries : null,
    appsWithTwoDecisionWebhooks: receiver
      ? apps.filter((a) => (receiver.byAppEvent.get(`${a}|application.decision`)?.length ?? 0) > 1).length
      : null,
    badSignatures: receiver ? receiver.stats.badSignature : null,
  };
  if (tap) {
    const count = (label, pred) => apps.filter((a) => pred(tap.byApp.get(a)?.get(label))).length;
    out.appsWithTwoDecisionEvents = count('event:application.decision', (m) => (m?.ids.size ?? 0) > 1);
    out.appsScoredTwice = count('scoring:ApplicationScored', (m) => (m?.ids.size ?? 0) > 1);
    out.appsEnrichedTwice = count('enrichment:AccountEnriched', (m) => (m?.ids.size ?? 0) > 1);
    out.appsWithTwoAnalysisRequests = count('fact:AnalysisRequested', (m) => (m?.ids.size ?? 0) > 1);
    // The same record (same event, fact or command id) written to its topic more than once.
    let repeated = 0;
    const byKind = {};
    for (const a of apps) {
      for (const [label, m] of tap.byApp.get(a) ?? []) {
        if (m.ids.size === 0) continue;
        const k = (byKind[label] ??= { records: 0, distinct: 0 });
        k.records += m.count;
        k.distinct += m.ids.size;
        repeated += m.count - m.ids.size;
      }
    }
    out.kafkaRecordsWrittenTwice = repeated;
    out.kafkaRecordsByKind = Object.fromEntries(
      Object.entries(byKind)
        .filter(([, v]) => v.records > v.distinct)
        .sort((x, y) => y[1].records - y[1].distinct - (x[1].records - x[1].distinct))
        .map(([label, v]) => [label, `${v.records} records of ${v.distinct} distinct`]),
    );
  }
  out.errors = (out.appsWithTwoDecisionWebhooks ?? 0) + (out.appsWithTwoDecisionEvents ?? 0) + (out.badSignatures ?? 0);
  return out;
}

/** Processes of the platform that are not one of the six services. */
const INFRA = ['kafka', 'registry', 'ferretdb', 'postgresql'];
const LOAD_GENERATOR = 'bench (load generator)';
/** How long an idle sample waits for the warm-up's work to end (see runE2E). */
const IDLE_SETTLE_MS = 8_000;

/**
 * CPU milliseconds per decided application: every process of the platform together (the load
 * generator left out: it plays the lenders and applicants), the six services together, and each
 * process. Kafka, the registry and FerretDB are counted whole, so anything else using them at
 * the same time adds to their share; the services' figures are their own.
 */
function cpuPerApplication(processes, decided) {
  if (decided === 0) return null;
  const ms = (seconds) => round((1000 * seconds) / decided);
  const perProcess = {};
  let total = 0;
  let services = 0;
  for (const [name, p] of Object.entries(processes)) {
    if (p.cpuSeconds === null) continue;
    perProcess[name] = ms(p.cpuSeconds);
    if (name === LOAD_GENERATOR) continue;
    total += p.cpuSeconds;
    const base = name.split('#')[0];
    if (!INFRA.includes(base) && !base.startsWith('sandbox')) services += p.cpuSeconds;
  }
  return { total: ms(total), services: ms(services), processes: perProcess };
}

/**
 * CPU ms per second of each process, and of the six services together, in an idle sample: the
 * same sums as per application, divided by the sample's seconds instead.
 */
const idleRates = (idle) => cpuPerApplication(idle.processes, Math.max(0.001, idle.wallSeconds));

/**
 * The run's usage with what each process spends idle (its rate in `idle`, over the run's wall
 * time) taken off its CPU seconds: what the applications added.
 */
function aboveIdle(usage, idle) {
  const processes = {};
  for (const [name, p] of Object.entries(usage.processes)) {
    const rest = idle.processes[name];
    if (p.cpuSeconds === null || name === LOAD_GENERATOR || !rest || rest.cpuSeconds === null) continue;
    const idleSeconds = (rest.cpuSeconds / Math.max(0.001, idle.wallSeconds)) * usage.wallSeconds;
    processes[name] = { ...p, cpuSeconds: Math.max(0, p.cpuSeconds - idleSeconds) };
  }
  return processes;
}

/** Requests per decided application to one side ('db' or 'kafka'), every service together. */
function perApplicationTotal(rows, to, decided) {
  if (decided === 0) return null;
  return round(rows.filter((r) => r.to === to).reduce((t, r) => t + r.count, 0) / decided);
}

/** Waits until the consumer groups of the namespace are stable, with `expect` members where given. */
export async function waitForGroups({ brokers, namespace, expect = {}, timeoutMs = 45_000 }) {
  const { Kafka, logLevel } = requireFromRoot('kafkajs');
  const admin = new Kafka({ clientId: 'bench-admin', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  const deadline = Date.now() + timeoutMs;
  let last = [];
  try {
    while (Date.now() < deadline) {
      const ids = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(namespace));
      const { groups } = await admin.describeGroups(ids);
      last = groups.map((g) => ({
        group: g.groupId.slice(namespace.length),
        state: g.state,
        members: g.members.length,
      }));
      const ok = Object.entries(expect).every(([name, n]) =>
        last.some((g) => g.group === name && g.state === 'Stable' && g.members >= n),
      );
      if (ok && last.every((g) => g.state === 'Stable' || g.state === 'Empty')) return { stable: true, groups: last };
      await sleep(500);
    }
    return { stable: false, groups: last };
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

export async function runE2E({
  stack,
  tap,
  apps,
  concurrency,
  stageTimeoutMs,
  runTimeoutMs,
  label,
  extraProcesses = [],
  warmUp = 1,
  warmUpApps = 0,
  stuckAfterMs = 120_000,
  ratePerMinute = 0,
  idleSeconds = 0,
}) {
  const runId = `${label}-${Date.now().toString(36)}`;
  const notifierRunning = stack.processes.some((p) => p.name === 'notifier');
  if (!notifierRunning && !tap)
    throw new Error('the notifier is not running and there is no Kafka tap to read events from');
  if (!notifierRunning) await tap.start();
  const receiver = await startReceiver();
  try {
    const lender = await createLender(stack.gatewayUrl, `${receiver.url}/hooks`);
    receiver.setSecret(lender.webhookSecret);
    const eventSource = notifierRunning ? 'webhooks (notifier)' : 'loan.events.v1 read directly (notifier not running)';
    const waitEvent = notifierRunning
      ? (app, event, t) => receiver.waitFor(app, event, t)
      : (app, event, t) => tap.waitFor(app, `event:${event}`, t);
    const common = {
      gatewayUrl: stack.gatewayUrl,
      sandboxUrl: stack.sandboxUrl,
      apiKey: lender.apiKey,
      waitEvent,
      runId,
      timeoutMs: stageTimeoutMs,
    };

    // Warm-up (not counted): the notifier learns the new lender, code paths get compiled.
    let alone = null;
    for (let i = 0; i < warmUp; i += 1) {
      const w = await oneApplication({
        ...common,
        index: `warm${i}`,
        timeoutMs: 45_000,
        deadline: Date.now() + 46_000,
      });
      if (!w.ok) throw new Error(`warm-up application failed at ${w.stage}: ${w.error}`);
      alone = Object.fromEntries(Object.entries(w.stages).map(([k, v]) => [k, round(v)]));
    }
    // A warm-up at the run's concurrency (not counted either): what a fresh process spends once
    // (compiling its hot paths, growing its pools and caches) is over before the measured window.
    if (warmUpApps > 0) {
      log(`${label}: warming up with ${warmUpApps} applications, ${concurrency} at a time (not counted)`);
      let started = 0;
      const warmDeadline = Date.now() + runTimeoutMs;
      await Promise.all(
        Array.from({ length: Math.min(concurrency, warmUpApps) }, async () => {
          while (started < warmUpApps) {
            const index = `warm-batch${started++}`;
            const w = await oneApplication({ ...common, index, deadline: warmDeadline });
            if (!w.ok) throw new Error(`warm-up application failed at ${w.stage}: ${w.error}`);
          }
        }),
      );
    }

    const processes = [...stack.processes, ...extraProcesses, ...infraProcesses()];
    const tracked = processes.map(({ name, pid, tree }) => ({ name, pid, tree }));
    // What each process spends with nothing to do (consumers polling, timers, sweeps), measured
    // on this stack just before the window: the CPU an application costs is what it adds to that.
    // It starts once what the warm-up left is done: its last webhooks, and with tracing its spans,
    // which the SDK's batch exports 5 s after they end (the first export also loads the exporter).
    let idle = null;
    if (idleSeconds > 0) {
      await sleep(IDLE_SETTLE_MS);
      log(`${label}: measuring ${idleSeconds} s with no application running`);
      const idleSampler = createSampler(tracked);
      idleSampler.start();
      await sleep(idleSeconds * 1000);
      idle = idleSampler.stop();
    }
    const sampler = createSampler(tracked);
    const before = await scrapeAll([...stack.processes, ...extraProcesses]);
    log(
      ratePerMinute > 0
        ? `${label}: ${apps} applications started at ${ratePerMinute} per minute, evenly spaced (events via ${eventSource})`
        : `${label}: ${apps} applications, ${concurrency} at a time (events via ${eventSource})`,
    );
    const loadAtStart = os.loadavg().map((v) => round(v, 2));
    sampler.start();
    const startedAt = now();
    // The measured window on the monotonic clock (µs), the one CPU profiles are stamped with.
    const windowStartUs = Number(process.hrtime.bigint() / 1000n);
    let deadline = Date.now() + runTimeoutMs;
    const results = [];
    let next = 0;
    // A stack that decides nothing for `stuckAfterMs` is stuck (or dead): no new application is
    // started, and the run says why instead of waiting out its time limit.
    let stuck = null;
    let seen = 0;
    let lastProgressAt = Date.now();
    const progress = setInterval(() => {
      const decided = results.filter((r) => r.ok).length;
      log(`${label}: ${decided}/${apps} decided`);
      if (results.length !== seen) {
        seen = results.length;
        lastProgressAt = Date.now();
      } else if (!stuck && next > results.length && Date.now() - lastProgressAt > stuckAfterMs) {
        const dead = stack.processes.filter((p) => p.pid && !isAlive(p.pid)).map((p) => p.name);
        stuck =
          `no application finished in ${stuckAfterMs / 1000} s` +
          (dead.length ? `; not running: ${dead.join(', ')}` : '; every process is running') +
          ` (logs: ${stack.env?.LOAN_STACK_LOGS ?? '.infra/logs'})`;
        log(`${label}: ${stuck}`);
        deadline = Date.now();
      }
    }, 10_000);
    if (ratePerMinute > 0) {
      // Open loop: application i starts at i times the interval from the start, whether or not
      // those before it are decided, so both sides of a comparison carry the same load for the
      // same time (none of them saturating the machine, when the rate is below what it decides).
      const intervalMs = 60_000 / ratePerMinute;
      const firstAt = Date.now();
      const running = [];
      while (next < apps && Date.now() < deadline && !stuck) {
        const index = next;
        const wait = firstAt + index * intervalMs - Date.now();
        if (wait > 0) await sleep(wait);
        if (Date.now() >= deadline || stuck) break;
        next += 1;
        running.push(oneApplication({ ...common, index, deadline }).then((result) => void results.push(result)));
      }
      await Promise.all(running);
    } else {
      await Promise.all(
        Array.from({ length: Math.min(concurrency, apps) }, async () => {
          while (next < apps && Date.now() < deadline) {
            const index = next++;
            results.push(await oneApplication({ ...common, index, deadline }));
            if (stuck) break;
          }
        }),
      );
    }
    clearInterval(progress);
    const finishedAt = now();
    const windowEndUs = Number(process.hrtime.bigint() / 1000n);
    const usage = sampler.stop();
    const after = await scrapeAll([...stack.processes, ...extraProcesses]);
    await sleep(1_500); // late duplicates, if any, reach the receiver
    if (tap) await tap.catchUp();

    const completed = results.filter((r) => r.ok);
    const requestRows = requests(before, after, Math.max(1, completed.length));
    // A service whose counters could not be read at the start or the end: the totals are not worked out.
    const notRead = unscraped(before, after);
    const lastDecision = Math.max(...completed.map((r) => r.marks.decision), startedAt);
    const wallSeconds = (finishedAt - startedAt) / 1000;
    const throughputSeconds = (lastDecision - startedAt) / 1000;
    const stages = {};
    for (const [key, name] of Object.entries(STAGES))
      stages[key] = { stage: name, ...summarize(completed.map((r) => r.stages[key])) };
    const failures = {};
    for (const r of results.filter((x) => !x.ok && !x.cutOff)) {
      const k = `${r.stage}: ${r.error.replace(/[0-9a-f-]{36}/g, '<id>').slice(0, 160)}`;
      failures[k] = (failures[k] ?? 0) + 1;
    }
    const applicationsPerMinute = completed.length > 0 ? round((60 * completed.length) / throughputSeconds) : 0;
    const services = Object.fromEntries(
      Object.entries(usage.processes).filter(
        ([name]) => !['kafka', 'registry', 'ferretdb', 'postgresql', 'bench (load generator)'].includes(name),
      ),
    );
    const maxServiceRss = Math.max(
      0,
      ...Object.entries(services)
        .filter(([n]) => !n.startsWith('sandbox'))
        .map(([, p]) => p.peakRssMiB),
    );
    return {
      label,
      eventSource,
      stackMode: stack.mode,
      requested: apps,
      concurrency,
      ...(ratePerMinute > 0 ? { ratePerMinute } : {}),
      ...(stuck ? { stuck } : {}),
      completed: completed.length,
      failed: results.filter((r) => !r.ok && !r.cutOff).length,
      cutOffByTimeLimit: results.filter((r) => r.cutOff).length,
      notStarted: apps - results.length,
      warmUpApplications: warmUp + warmUpApps,
      aloneMs: alone,
      databases: await probeOutboxes(stack.env.LOAN_STACK_DB_PREFIX ?? null).catch((e) => ({
        error: String(e.message),
      })),
      wallSeconds: round(wallSeconds),
      secondsToLastDecision: round(throughputSeconds),
      applicationsPerMinute,
      targets: {
        applicationsPerMinute: {
          target: `>= ${E2E_TARGETS.appsPerMinute} (${apps} in < ${round((apps * 60) / E2E_TARGETS.appsPerMinute)} s)`,
          met: applicationsPerMinute >= E2E_TARGETS.appsPerMinute && completed.length === apps,
        },
        rssPerService: {
          target: `<= ${E2E_TARGETS.rssMiB} MiB`,
          maxMiB: maxServiceRss,
          met: maxServiceRss <= E2E_TARGETS.rssMiB,
        },
      },
      stages,
      failures,
      duplicates: duplicatesOf(results, notifierRunning ? receiver : null, tap),
      webhookRequests: receiver.stats.requests,
      processes: usage.processes,
      monotonicWindowUs: [windowStartUs, windowEndUs],
      cpuSecondsTotal: round(Object.values(usage.processes).reduce((t, p) => t + (p.cpuSeconds ?? 0), 0)),
      cpuMsPerApplication: cpuPerApplication(usage.processes, completed.length),
      ...(idle
        ? {
            idleCpuMsPerSecond: idleRates(idle),
            cpuMsPerApplicationAboveIdle: cpuPerApplication(aboveIdle(usage, idle), completed.length),
          }
        : {}),
      unscraped: notRead.map((s) => s.split(':')[0]),
      dbOpsPerApplication: notRead.length ? null : perApplicationTotal(requestRows, 'db', completed.length),
      kafkaRequestsPerApplication: notRead.length ? null : perApplicationTotal(requestRows, 'kafka', completed.length),
      loadAverageDuringRun: { atStart: loadAtStart, atEnd: os.loadavg().map((v) => round(v, 2)) },
      handlers: diff(before, after).slice(0, 20),
      requests: requestRows,
      timeline: hopTimeline(results, tap),
    };
  } finally {
    await receiver.close();
  }
}
