// Loan performance at scale: a lender with 100,000 loans and about 1,000,000 outcome events.
// Starts the scoring service (its built dist) on a database of its own, seeds the loans as the
// service stores them (each loan's outcomes replayed through the service's own domain code, its
// counts written to the lender's partitions) and 100,000 decisions over 120 days for the drift,
// then measures:
//   - GET /internal/performance (what GET /api/performance forwards to): its latency, 7 calls
//     after a first one, against the 2 s target;
//   - outcomes taken through the service's real path (the batch route the bulk upload uses) on
//     fresh loans: outcomes per second and the service's CPU per outcome;
//   - that the counts the service kept as those outcomes came in equal a recount of every loan.
// Writes bench/results/outcomes-latest.json (BENCH_RESULTS_DIR elsewhere).
//
//   npx tsc -b && bash scripts/infra start && node bench/outcomes.mjs
//   BENCH_LOANS=10000 node bench/outcomes.mjs
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { cpuSeconds } from './lib/procstat.mjs';
import { spawnService, stackEnvironment } from './lib/stack.mjs';
import { envInt, formatTable, log, requireFromRoot, root, round } from './lib/util.mjs';

const LOANS = envInt('BENCH_LOANS', 100_000);
const FRESH = envInt('BENCH_FRESH_LOANS', 200);
const CALLS = envInt('BENCH_REPORT_CALLS', 7);
const TARGET_MS = 2_000;

const scoringDist = (file) => requireFromRoot(path.join(root, 'services/scoring/dist', file));
const { replayOutcomes } = scoringDist('domain/outcomes/loanState.js');
const { count, cellsOf, merge } = scoringDist('domain/performance/cells.js');
const { expectedBadRate } = scoringDist('domain/performance/metrics.js');
const { driftCellsOf } = scoringDist('domain/performance/drift.js');
const { partitionOf, digestOf, PARTITIONS } = scoringDist('data-access/outcomeRepository.js');
const { scoreBandOf } = scoringDist('domain/scorecard/components.js');
const { MongoClient } = createRequire(path.join(root, 'libs', 'runtime', 'package.json'))('mongodb');

const runKey = `${Date.now().toString(36)}`;
const dbName = `benchoutcomes${runKey}_scoring`;
const clientId = `bench-lender-${runKey}`;
const token = 'an-outcomes-bench-internal-token';
const resultsDir = process.env.BENCH_RESULTS_DIR
  ? path.resolve(process.env.BENCH_RESULTS_DIR)
  : path.join(root, 'bench', 'results');

/** A deterministic generator, so every run seeds the same book. */
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = rng(47);
const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());

const DAY = 86_400_000;
const today = new Date().toISOString().slice(0, 10);
const dayOffset = (day, days) => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
const bandOf = scoreBandOf;

/**
 * One loan's outcomes up to today: paid month by month, or, for a loan that goes bad, missed
 * from some instalment on (15, 45, 95 days past due as the months pass), then defaulted and
 * written off; a loan paid to its end is REPAID.
 */
function outcomesOf(disbursedOn, amount, tenor, goesBad) {
  const reports = [{ type: 'DISBURSED', amount, date: disbursedOn, tenor }];
  const instalment = Math.round((amount / tenor) * 1.05);
  const badFrom = goesBad ? 1 + Math.floor(random() * tenor) : Infinity;
  for (let n = 1; n <= tenor; n++) {
    const due = dayOffset(disbursedOn, 30 * n);
    if (due > today) return reports;
    if (n < badFrom) {
      reports.push({ type: 'INSTALMENT_PAID', number: n, amount: instalment, date: due });
      continue;
    }
    for (const [lateBy, dpd] of [
      [15, 15],
      [45, 45],
      [95, 95],
    ]) {
      const day = dayOffset(due, lateBy);
      if (day > today) return reports;
      reports.push({ type: 'INSTALMENT_MISSED', number: n, daysPastDue: dpd, date: day });
    }
    const defaulted = dayOffset(due, 100);
    if (defaulted > today) return reports;
    reports.push({ type: 'DEFAULTED', outstanding: instalment * (tenor - n + 1), date: defaulted });
    const written = dayOffset(due, 180);
    if (written <= today)
      reports.push({ type: 'WRITTEN_OFF', outstanding: instalment * (tenor - n + 1), date: written });
    return reports;
  }
  reports.push({ type: 'REPAID', date: dayOffset(disbursedOn, 30 * tenor) });
  return reports;
}

/** A loan as scoring stores it, and its cells. */
function loanDoc(index) {
  const applicationId = randomUUID();
  const score = Math.max(30, Math.min(100, Math.round(74 + 9 * normal())));
  const band = bandOf(score);
  const tenor = [9, 12, 12][index % 3];
  const amount = 50_000 + 5_000 * Math.floor(random() * 60);
  const disbursedOn = dayOffset(today, -Math.floor(60 + random() * 600));
  const reports = outcomesOf(disbursedOn, amount, tenor, random() < expectedBadRate(score) * 1.3);
  const granted = { amount, tenor, day: disbursedOn };
  const states = replayOutcomes(reports, granted);
  const state = states.at(-1);
  const measured = {
    score,
    band,
    decision: 'APPROVED',
    policyVersion: index % 2,
    challenger: index % 10 < 3 ? { version: 2, decision: score < 65 ? 'DECLINED' : 'APPROVED' } : null,
  };
  const recordedAt = new Date();
  const analysisId = randomUUID();
  return {
    doc: {
      _id: applicationId,
      clientId,
      analysisId,
      partition: partitionOf(applicationId),
      basis: { analysisId, measured, reviewed: false, granted },
      outcomes: reports.map((report, i) => ({
        key: `book-${index}-${i}`,
        digest: digestOf(report),
        outcomeId: randomUUID(),
        sequence: i + 1,
        report,
        recordedAt,
      })),
      state,
      rev: reports.length,
      changedAt: recordedAt,
      countedCells: cellsOf({ ...measured, state }),
      countedRev: reports.length,
      countPending: false,
      outbox: [],
      outboxPending: false,
    },
    measured,
    state,
    events: reports.length,
  };
}

/** A decision's score parts, in proportion to its total. */
const breakdownOf = (score) => ({
  total: score,
  cash_flow_health: (score * 20) / 100,
  income_stability: (score * 20) / 100,
  debt_service_capacity: (score * 25) / 100,
  account_behavior: (score * 20) / 100,
  credit_history: (score * 15) / 100,
});

async function call(base, method, pathname, body) {
  const started = performance.now();
  const res = await fetch(`${base}/internal${pathname}`, {
    method,
    headers: {
      'x-internal-token': token,
      'x-client-id': clientId,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const payload = await res.json();
  return { status: res.status, payload, ms: performance.now() - started };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

async function main() {
  const logDir = path.join(root, '.infra', 'logs', `outcomes-bench-${runKey}`);
  const env = { ...stackEnvironment({ namespace: `bo${runKey}.`, logDir }), MONGO_DB: dbName, INTERNAL_TOKEN: token };
  const mongoUrl = env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/';
  const mongo = new MongoClient(mongoUrl);
  await mongo.connect();
  const db = mongo.db(dbName);
  const results = {
    startedAt: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? null,
      loadAverageAtStart: os.loadavg().map((v) => round(v, 2)),
    },
    settings: { loans: LOANS, freshLoans: FRESH, reportCalls: CALLS, database: 'FerretDB (scripts/infra)' },
  };
  let scoring;
  try {
    scoring = await spawnService({ name: 'scoring', entry: 'services/scoring/dist/start.js', env, logDir });
    const base = `http://127.0.0.1:${scoring.port}`;
    log(`scoring on ${base}, database ${dbName}; seeding ${LOANS} loans`);

    // The book: loans with their outcomes, and the lender's counts by partition.
    const seedStarted = performance.now();
    const partitions = Array.from({ length: PARTITIONS }, () => ({}));
    let events = 0;
    let batch = [];
    for (let i = 0; i < LOANS; i++) {
      const { doc, measured, state, events: n } = loanDoc(i);
      events += n;
      count(partitions[doc.partition], { ...measured, state });
      batch.push(doc);
      if (batch.length === 1000 || i === LOANS - 1) {
        await db.collection('loans').insertMany(batch, { ordered: false });
        batch = [];
        if ((i + 1) % 20_000 === 0) log(`  ${i + 1} loans, ${events} outcomes`);
      }
    }
    for (let p = 0; p < PARTITIONS; p++)
      await db
        .collection('performance_partitions')
        .replaceOne(
          { _id: `${clientId}|${p}` },
          { clientId, partition: p, cells: partitions[p], applied: {} },
          { upsert: true },
        );
    // Decisions of the last 120 days, counted by score bin as the analysis handler counts them.
    const days = new Map();
    for (let i = 0; i < LOANS; i++) {
      const day = dayOffset(today, -Math.floor(random() * 120));
      // The latest 30 days drift a little lower, for a PSI that is not zero.
      const shift = day > dayOffset(today, -30) ? -3 : 0;
      const score = Math.max(0, Math.min(100, Math.round(74 + shift + 9 * normal())));
      const bins = days.get(day) ?? {};
      for (const cell of driftCellsOf(breakdownOf(score))) bins[cell] = (bins[cell] ?? 0) + 1;
      days.set(day, bins);
    }
    for (const [day, bins] of days)
      await db
        .collection('score_days')
        .replaceOne({ _id: `${clientId}|${day}` }, { clientId, day, bins }, { upsert: true });
    results.seed = { loans: LOANS, outcomeEvents: events, seconds: round((performance.now() - seedStarted) / 1000, 1) };
    log(`seeded ${LOANS} loans with ${events} outcomes in ${results.seed.seconds} s`);

    // The report, as the lender's GET /api/performance asks for it.
    const first = await call(base, 'GET', '/performance');
    if (first.status !== 200) throw new Error(`performance answered ${first.status}: ${JSON.stringify(first.payload)}`);
    const timings = [];
    const cpuBefore = cpuSeconds(scoring.pid);
    for (let i = 0; i < CALLS; i++) timings.push((await call(base, 'GET', '/performance')).ms);
    const cpuPerCall = ((cpuSeconds(scoring.pid) - cpuBefore) * 1000) / CALLS;
    const report = first.payload;
    results.report = {
      firstMs: round(first.ms, 1),
      medianMs: round(median(timings), 1),
      maxMs: round(Math.max(...timings), 1),
      scoringCpuMsPerCall: round(cpuPerCall, 1),
      targetMs: TARGET_MS,
      met: median(timings) < TARGET_MS,
      figures: {
        loans: report.loans,
        badRate: report.badRate,
        gini: report.discrimination.gini,
        ks: report.discrimination.ks,
        vintages: report.vintages.length,
        psiTotal: report.drift.measures.find((m) => m.measure === 'total')?.psi ?? null,
      },
    };
    if (report.loans !== LOANS) throw new Error(`the report counts ${report.loans} loans, not ${LOANS}`);
    log(`report: median ${results.report.medianMs} ms over ${CALLS} calls (first ${results.report.firstMs} ms)`);

    // Outcomes through the service's own path, on fresh loans decided and accepted.
    const fresh = [];
    for (let i = 0; i < FRESH; i++) {
      const applicationId = randomUUID();
      const score = Math.max(30, Math.min(100, Math.round(74 + 9 * normal())));
      const analysisId = randomUUID();
      const decidedAt = new Date(Date.parse(`${dayOffset(today, -400)}T09:00:00Z`));
      await db.collection('analyses').insertOne({
        _id: analysisId,
        applicationId,
        clientId,
        applicantId: randomUUID(),
        status: 'DECIDED',
        decision: {
          decision: 'APPROVED',
          score,
          score_band: bandOf(score),
          approval_details: {
            approved_amount: 300_000,
            approved_tenor: 9,
            approved_interest: 5,
            monthly_payment: 42_000,
          },
        },
        decidedAt,
        policyVersion: 1,
        challenger: null,
        outbox: [],
        outboxPending: false,
      });
      await db.collection('grants').insertOne({
        _id: applicationId,
        analysisId,
        review: null,
        offer: { response: 'ACCEPTED', answeredAt: decidedAt.toISOString() },
      });
      const reports = outcomesOf(dayOffset(today, -380), 300_000, 9, random() < expectedBadRate(score) * 1.3);
      fresh.push(...reports.map((report, n) => ({ applicationId, idempotencyKey: `fresh-${i}-${n}`, ...report })));
    }
    const ingestCpu = cpuSeconds(scoring.pid);
    const ingestStarted = performance.now();
    let taken = 0;
    for (let i = 0; i < fresh.length; i += 200) {
      const answer = await call(base, 'POST', '/outcomes/batch', { rows: fresh.slice(i, i + 200) });
      if (answer.status !== 200) throw new Error(`batch answered ${answer.status}`);
      taken += answer.payload.results.filter((r) => r.status === 201).length;
    }
    const seconds = (performance.now() - ingestStarted) / 1000;
    results.ingest = {
      outcomes: fresh.length,
      taken,
      perSecond: round(fresh.length / seconds, 1),
      scoringCpuMsPerOutcome: round(((cpuSeconds(scoring.pid) - ingestCpu) * 1000) / fresh.length, 2),
    };
    if (taken !== fresh.length) throw new Error(`${fresh.length - taken} of the fresh outcomes were refused`);
    log(`ingest: ${fresh.length} outcomes at ${results.ingest.perSecond}/s`);

    // The counts the service kept, against a recount of every loan.
    const kept = merge(
      (await db.collection('performance_partitions').find({ clientId }).toArray()).map((doc) => doc.cells),
    );
    const recount = {};
    for await (const doc of db.collection('loans').find({ clientId }, { projection: { basis: 1, state: 1 } }))
      count(recount, { ...doc.basis.measured, state: doc.state });
    const nonZero = (cells) => Object.fromEntries(Object.entries(cells).filter(([, n]) => n !== 0));
    const a = nonZero(kept);
    const b = nonZero(recount);
    const differing = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((cell) => a[cell] !== b[cell]);
    results.counts = { cells: Object.keys(b).length, differing: differing.length, exact: differing.length === 0 };
    const after = await call(base, 'GET', '/performance');
    results.counts.reportLoans = after.payload.loans;
    log(`counts: ${differing.length} of ${Object.keys(b).length} cells differ from a recount`);
  } finally {
    await scoring?.stop();
    await db.dropDatabase().catch(() => undefined);
    await mongo.close();
  }
  results.finishedAt = new Date().toISOString();
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(path.join(resultsDir, 'outcomes-latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  const row = (figure, value, target) => ({ figure, 'this run': value, target });
  console.log(
    formatTable(
      [
        row('loans / outcome events', `${results.seed.loans} / ${results.seed.outcomeEvents}`, ''),
        row(
          'GET performance, median of calls',
          `${results.report.medianMs} ms (first ${results.report.firstMs}, max ${results.report.maxMs})`,
          `< ${TARGET_MS} ms: ${results.report.met ? 'met' : 'NOT met'}`,
        ),
        row('scoring CPU per report', `${results.report.scoringCpuMsPerCall} ms`, ''),
        row(
          'outcomes taken through the batch route',
          `${results.ingest.perSecond}/s, ${results.ingest.scoringCpuMsPerOutcome} ms CPU each`,
          '',
        ),
        row(
          'counts kept against a recount',
          `${results.counts.differing} of ${results.counts.cells} cells differ`,
          results.counts.exact ? 'exact' : 'NOT exact',
        ),
      ],
      ['figure', 'this run', 'target'],
    ),
  );
  if (!results.report.met || !results.counts.exact) process.exitCode = 1;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
