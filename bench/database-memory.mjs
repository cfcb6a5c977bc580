// FerretDB's resident memory as its databases grow, and its throughput while they do. Starts a
// FerretDB of its own for each set of settings (scripts/infra with a run directory, scratch data
// and free ports; the usual servers are left alone), then writes the soak's pattern in rounds:
// in each of a few databases, documents inserted, read by `_id`, given an outbox (`$set` of an
// indexed boolean and a `$push`), cleared; then every collection swept by the indexed boolean
// and counted (`countDocuments`, as the soak's look at the databases does). After each round it
// prints the operations per second, FerretDB's CPU per operation, its resident memory (now and
// the peak of the round), what Go holds of it (from FerretDB's debug metrics) and the SQLite
// connections open. The last round is compared with the first, for each set, in the same run.
//
//   node bench/database-memory.mjs
//   BENCH_DBMEM_ROUNDS=4 BENCH_DBMEM_DOCS=300 node bench/database-memory.mjs
//   BENCH_DBMEM_SETS='low-gogc:FERRETDB_GOGC=100' node bench/database-memory.mjs
//   # another checkout's FerretDB (its scripts/infra and patches) beside this one's, twice each:
//   A='before:INFRA_ROOT=/work/main,LOAN_INFRA_HOME=/root/.cache/loan-infra'
//   B='after:LOAN_INFRA_HOME=/tmp/loan-infra-new'
//   BENCH_DBMEM_SETS="$A;$B;$A;$B" BENCH_DBMEM_ROUNDS=5 BENCH_DBMEM_DOCS=200 node bench/database-memory.mjs
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { createRequire } from 'node:module';
import { cpuSeconds, rssMiB } from './lib/procstat.mjs';
import { envInt, formatTable, freePort, log, root, round } from './lib/util.mjs';

const DATABASES = envInt('BENCH_DBMEM_DATABASES', 6);
const ROUNDS = envInt('BENCH_DBMEM_ROUNDS', 8);
/** Documents inserted into each database in each round. */
const DOCS = envInt('BENCH_DBMEM_DOCS', 200);
const CONCURRENCY = envInt('BENCH_DBMEM_CONCURRENCY', 24);

/**
 * The settings compared, each as environment for scripts/infra: `name:VAR=value,VAR=value;...`
 * (`INFRA_ROOT`: the checkout whose scripts/infra starts the set). By default one set: FerretDB
 * as scripts/infra launches it.
 */
const SETS = parseSets(process.env.BENCH_DBMEM_SETS ?? 'scripts/infra:');

const { MongoClient } = createRequire(path.join(root, 'libs', 'runtime', 'package.json'))('mongodb');

const runKey = `${Date.now().toString(36)}${process.pid}`;
const infraHome = path.resolve(process.env.LOAN_INFRA_HOME ?? path.join(os.homedir(), '.cache', 'loan-infra'));
const scratch = path.join(os.tmpdir(), `database-memory-${runKey}`);

function parseSets(text) {
  return text
    .split(';')
    .filter(Boolean)
    .map((entry) => {
      const [name, vars = ''] = entry.split(/:(.*)/s);
      const env = Object.fromEntries(
        vars
          .split(',')
          .filter(Boolean)
          .map((kv) => kv.split(/=(.*)/s)),
      );
      return { name, env };
    });
}

/** A FerretDB of this run, with its debug handler on a port of its own. */
async function startFerretDB(set, index) {
  // INFRA_ROOT: a checkout whose scripts/infra (and FerretDB patches) start this set.
  const { INFRA_ROOT: infraRoot = root, ...setEnv } = set.env;
  const script = path.join(infraRoot, 'scripts', 'infra');
  const env = {
    ...process.env,
    LOAN_INFRA_HOME: infraHome,
    ...setEnv,
    LOAN_INFRA_RUN: path.join(scratch, `set-${index}`, 'run'),
    LOAN_INFRA_DATA: path.join(scratch, `set-${index}`, 'data'),
    LOAN_INFRA_DB: 'sqlite',
    MONGO_PORT: String(await freePort()),
  };
  const debugPort = await freePort();
  env.FERRETDB_DEBUG_ADDR = `127.0.0.1:${debugPort}`;
  log(`starting FerretDB "${set.name}" (port ${env.MONGO_PORT}, debug ${debugPort})`);
  execFileSync('bash', [script, 'start', 'ferretdb'], { cwd: infraRoot, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const pid = Number(readFileSync(path.join(env.LOAN_INFRA_RUN, 'ferretdb.pid'), 'utf8').trim());
  return {
    pid,
    url: `mongodb://127.0.0.1:${env.MONGO_PORT}/`,
    cmdline: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean),
    metrics: () => debugMetrics(debugPort),
    dataMiB: () => databaseFilesMiB(path.join(env.LOAN_INFRA_DATA, 'ferretdb', 'db')),
    stop() {
      execFileSync('bash', [script, 'stop'], { cwd: infraRoot, env, stdio: ['ignore', 'ignore', 'inherit'] });
      rmSync(path.join(scratch, `set-${index}`), { recursive: true, force: true });
    },
  };
}

/** What Go holds of FerretDB's memory, and the SQLite connections open, from /debug/metrics. */
async function debugMetrics(port) {
  const text = await (await fetch(`http://127.0.0.1:${port}/debug/metrics`)).text();
  const sum = (name) =>
    text
      .split('\n')
      .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`))
      .reduce((acc, line) => acc + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  const mib = (bytes) => bytes / 2 ** 20;
  return {
    goHeapInUseMiB: mib(sum('go_memstats_heap_inuse_bytes')),
    // What the Go runtime has mapped and not given back: its share of the resident memory at most.
    goHeldMiB: mib(sum('go_memstats_sys_bytes') - sum('go_memstats_heap_released_bytes')),
    sqliteConnections: sum('ferretdb_sqldb_open'),
  };
}

/** The databases' files and their write-ahead logs. */
function databaseFilesMiB(dir) {
  try {
    const files = readdirSync(dir).filter((name) => name.endsWith('.sqlite') || name.endsWith('.sqlite-wal'));
    return files.reduce((acc, name) => acc + statSync(path.join(dir, name)).size, 0) / 2 ** 20;
  } catch {
    return null;
  }
}

/** Shaped like a stored application (~8.6 KB of JSON): its history and its linked accounts. */
function application(i) {
  return {
    _id: randomUUID(),
    rev: 1,
    status: 'SUBMITTED',
    lenderId: `lender-${i % 7}`,
    updatedAt: new Date(),
    outboxPending: false,
    outbox: [],
    events: Array.from({ length: 30 }, (_, e) => ({
      type: `event.${e}`,
      at: new Date(),
      by: 'svc',
      n: e,
      note: 'n'.repeat(60),
    })),
    accounts: Array.from({ length: 3 }, (_, a) => ({
      id: randomUUID(),
      institution: `bank-${a}`,
      balance: a * 1000,
      transactions: Array.from({ length: 20 }, (_, t) => ({ amount: t, at: new Date(), memo: 'm'.repeat(20) })),
    })),
  };
}

/** One document's life, as a service gives it: five operations. */
async function lifeOfOne(collection, i) {
  const doc = application(i);
  await collection.insertOne(doc);
  await collection.findOne({ _id: doc._id });
  await collection.updateOne(
    { _id: doc._id, rev: 1 },
    {
      $set: { status: 'DECIDED', rev: 2, outboxPending: true, updatedAt: new Date() },
      $push: { outbox: { id: randomUUID(), topic: 'loan.decided', payload: 'p'.repeat(512) } },
    },
  );
  await collection.findOne({ _id: doc._id });
  await collection.updateOne({ _id: doc._id, outboxPending: true }, { $set: { outboxPending: false, outbox: [] } });
}

async function prepare(client) {
  for (let d = 0; d < DATABASES; d += 1) {
    const db = client.db(`memory_${d}`);
    for (const name of ['applications', 'timelines']) {
      await db.collection(name).createIndex({ outboxPending: 1 });
      await db.collection(name).createIndex({ lenderId: 1, updatedAt: -1 });
    }
  }
}

/** One round's writes: DOCS documents' lives in every database. Returns the operations sent. */
async function writeRound(client, roundIndex) {
  const total = DOCS * DATABASES;
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next;
      next += 1;
      const db = client.db(`memory_${i % DATABASES}`);
      const collection = db.collection(i % 3 === 0 ? 'timelines' : 'applications');
      await lifeOfOne(collection, roundIndex * total + i);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return total * 5;
}

/**
 * After the writes, what reads the history: each collection's outbox sweep and its count
 * (`countDocuments`, as the soak's look at the databases after each thousand asks).
 */
async function readBack(client) {
  for (let d = 0; d < DATABASES; d += 1) {
    for (const name of ['applications', 'timelines']) {
      const collection = client.db(`memory_${d}`).collection(name);
      await collection.find({ outboxPending: true }).toArray();
      await collection.countDocuments({});
    }
  }
}

async function measureSet(set, index) {
  const server = await startFerretDB(set, index);
  const client = new MongoClient(server.url, { maxPoolSize: CONCURRENCY * 2 });
  const rows = [];
  try {
    await client.connect();
    await prepare(client);
    for (let r = 0; r < ROUNDS; r += 1) {
      let peak = rssMiB(server.pid) ?? 0;
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssMiB(server.pid) ?? 0);
      }, 200);
      const cpu0 = cpuSeconds(server.pid);
      const t0 = performance.now();
      const ops = await writeRound(client, r);
      const seconds = (performance.now() - t0) / 1000;
      const cpu = cpuSeconds(server.pid) - cpu0;
      const t1 = performance.now();
      await readBack(client);
      const readSeconds = (performance.now() - t1) / 1000;
      clearInterval(sampler);
      const rss = rssMiB(server.pid);
      const m = await server.metrics();
      const row = {
        set: set.name,
        round: r + 1,
        documents: (r + 1) * DOCS * DATABASES,
        'files MiB': round(server.dataMiB(), 0),
        'ops/s': round(ops / seconds, 0),
        'CPU ms/op': round((cpu * 1000) / ops, 2),
        'sweeps+counts s': round(readSeconds, 1),
        'RSS MiB': round(rss, 0),
        'peak RSS MiB': round(Math.max(peak, rss), 0),
        'Go heap MiB': round(m.goHeapInUseMiB, 0),
        'Go held MiB': round(m.goHeldMiB, 0),
        'outside Go MiB': round(rss - m.goHeldMiB, 0),
        'SQLite conns': m.sqliteConnections,
      };
      rows.push(row);
      log(JSON.stringify(row));
    }
    return { name: set.name, env: set.env, cmdline: server.cmdline, rows };
  } finally {
    await client.close();
    server.stop();
  }
}

mkdirSync(scratch, { recursive: true });
const sets = [];
try {
  for (const [index, set] of SETS.entries()) sets.push(await measureSet(set, index));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const ratio = (a, b) => (a && b ? round(b / a, 2) : null);
const verdicts = sets.map(({ name, rows }) => {
  const first = rows[0];
  const last = rows[rows.length - 1];
  return {
    set: name,
    'documents last/first': ratio(first.documents, last.documents),
    'peak RSS last/first': ratio(first['peak RSS MiB'], last['peak RSS MiB']),
    'ops/s last/first': ratio(first['ops/s'], last['ops/s']),
    'CPU ms/op last/first': ratio(first['CPU ms/op'], last['CPU ms/op']),
    'peak RSS MiB first -> last': `${first['peak RSS MiB']} -> ${last['peak RSS MiB']}`,
  };
});

const columns = Object.keys(sets[0].rows[0]);
console.log(
  `\nFerretDB on SQLite: ${DATABASES} databases, ${ROUNDS} rounds of ${DOCS} documents of ~8.6 KB per database ` +
    `(5 operations a document), ${CONCURRENCY} clients\n`,
);
console.log(
  formatTable(
    sets.flatMap((s) => s.rows),
    columns,
  ),
);
console.log(`\nlast round against the first\n`);
console.log(formatTable(verdicts, Object.keys(verdicts[0])));
// The run's date is inside; only the latest is kept (as the other benches keep theirs).
const out = path.join(
  process.env.BENCH_RESULTS_DIR ?? path.join(root, 'bench', 'results'),
  'database-memory-latest.json',
);
const json = {
  at: new Date().toISOString(),
  settings: { databases: DATABASES, rounds: ROUNDS, docs: DOCS, concurrency: CONCURRENCY },
  loadAverage: os.loadavg().map((v) => round(v, 2)),
  sets,
  verdicts,
};
writeFileSync(out, `${JSON.stringify(json, null, 2)}\n`);
log(`wrote ${path.relative(root, out)}`);
