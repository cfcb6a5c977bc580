// CPU per database operation of FerretDB on SQLite and on PostgreSQL, for the operations the
// services send. Starts a FerretDB of each kind of its own (scripts/infra with a run directory,
// scratch data and free ports; the usual servers are left alone), runs the same operations
// against each in turn, and prints the CPU the database processes used per operation: FerretDB,
// and on PostgreSQL every server process too (connections, WAL writer, checkpointer...).
//
//   node bench/database.mjs
//   BENCH_DB_OPS=2000 BENCH_DB_ROUNDS=3 node bench/database.mjs
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers';
import { createRequire } from 'node:module';
import { cpuSeconds, treeCpuSeconds } from './lib/procstat.mjs';
import { envInt, formatTable, freePort, log, root, round } from './lib/util.mjs';

const OPS = envInt('BENCH_DB_OPS', 1000);
/** Operations whose filter is not `_id` read the whole collection on FerretDB: fewer of them. */
const SCAN_OPS = envInt('BENCH_DB_SCAN_OPS', 100);
const DOCS = envInt('BENCH_DB_DOCS', 1000);
const CONCURRENCY = envInt('BENCH_DB_CONCURRENCY', 10);
const ROUNDS = envInt('BENCH_DB_ROUNDS', 2);
const KINDS = (process.env.BENCH_DB_KINDS ?? 'sqlite,postgresql').split(',');

const { MongoClient } = createRequire(path.join(root, 'libs', 'runtime', 'package.json'))('mongodb');

const runKey = `${Date.now().toString(36)}${process.pid}`;
const infraHome = path.resolve(process.env.LOAN_INFRA_HOME ?? path.join(os.homedir(), '.cache', 'loan-infra'));
const script = path.join(root, 'scripts', 'infra');

/** A FerretDB (and its PostgreSQL) of this run. */
async function startSet(kind) {
  const env = {
    ...process.env,
    LOAN_INFRA_HOME: infraHome,
    LOAN_INFRA_RUN: path.join(root, '.infra', 'logs', `database-${runKey}`, kind),
    LOAN_INFRA_DATA: path.join(infraHome, 'database-bench', runKey, kind),
    LOAN_INFRA_DB: kind,
    MONGO_PORT: String(await freePort()),
    POSTGRES_PORT: String(await freePort()),
  };
  log(`starting FerretDB on ${kind} (port ${env.MONGO_PORT})`);
  execFileSync('bash', [script, 'start', 'ferretdb'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const pidOf = (name) => {
    try {
      return Number(readFileSync(path.join(env.LOAN_INFRA_RUN, `${name}.pid`), 'utf8').trim());
    } catch {
      return null;
    }
  };
  const ferretdb = pidOf('ferretdb');
  const postgres = kind === 'postgresql' ? pidOf('postgresql') : null;
  return {
    kind,
    env,
    url: `mongodb://127.0.0.1:${env.MONGO_PORT}/`,
    /** FerretDB's CPU seconds and PostgreSQL's (server and connection processes). */
    cpu: () => ({ ferretdb: cpuSeconds(ferretdb), postgresql: postgres ? treeCpuSeconds(postgres) : 0 }),
    stop() {
      execFileSync('bash', [script, 'stop'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
      rmSync(env.LOAN_INFRA_DATA, { recursive: true, force: true });
    },
  };
}

/** About 3 KB, shaped like an application with its history. */
function application(i) {
  return {
    _id: randomUUID(),
    rev: 1,
    status: 'PENDING_LINK',
    clientId: `client-${i % 20}`,
    updatedAt: new Date(Date.now() - i * 1000),
    applicant: { bvnHash: 'x'.repeat(64), email: `applicant${i}@example.com`, phone: '+2348000000000' },
    accounts: Array.from({ length: 3 }, (_, a) => ({ id: randomUUID(), institution: `bank-${a}`, balance: 1000 * a })),
    events: Array.from({ length: 8 }, (_, e) => ({ type: `event.${e}`, at: new Date(), note: 'y'.repeat(160) })),
    outbox: [],
    outboxPending: false,
  };
}

/** Runs `count` calls of `op(i)`, `CONCURRENCY` at a time. */
async function pool(count, op) {
  let next = 0;
  const worker = async () => {
    while (next < count) await op(next++);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
}

/**
 * The operations, each a name, how many, and what one does; `state` is set up first (not
 * measured): DOCS applications, a unique index on idempotency keys, a deadline per application.
 */
function operations(db, state) {
  const apps = db.collection('applications');
  const keys = db.collection('idempotency');
  const deadlines = db.collection('deadlines');
  const pick = (i) => state.ids[i % state.ids.length];
  return [
    [
      'insertOne, unique index',
      OPS,
      (i) =>
        keys.insertOne({
          _id: randomUUID(),
          key: `k-${i}-${randomUUID()}`,
          reply: { status: 201, body: 'z'.repeat(300) },
        }),
    ],
    ['findOne by _id', OPS, (i) => apps.findOne({ _id: pick(i) })],
    [
      'findOneAndUpdate {_id, rev}',
      OPS,
      async (i) => {
        const id = pick(i);
        const rev = state.revs.get(id);
        const doc = await apps.findOneAndUpdate(
          { _id: id, rev },
          { $set: { status: 'LINKED', rev: rev + 1, updatedAt: new Date() } },
          { returnDocument: 'after' },
        );
        if (!doc) throw new Error(`conditional update of ${id} at rev ${rev} missed`);
        state.revs.set(id, rev + 1);
      },
    ],
    [
      'updateOne by _id, $set + $push',
      OPS,
      (i) =>
        apps.updateOne(
          { _id: pick(i) },
          { $set: { updatedAt: new Date() }, $push: { events: { type: 'event.more', at: new Date() } } },
        ),
    ],
    [
      // One conditional write that adds an outbox entry, then the clears of several documents as
      // one bulk write, as libs/runtime/src/outbox.ts does; per document, so two operations.
      'outbox: write + bulk clear (per document)',
      OPS,
      (() => {
        let waiting = [];
        const flush = async () => {
          const batch = waiting;
          waiting = [];
          if (batch.length === 0) return;
          await apps.bulkWrite(
            batch.map(({ id, entryId }) => ({
              updateOne: {
                filter: { _id: id, outbox: { $size: 1 }, 'outbox.0.id': entryId },
                update: { $set: { outbox: [], outboxPending: false } },
              },
            })),
            { ordered: false },
          );
        };
        return async (i) => {
          const id = pick(i);
          const entryId = randomUUID();
          const rev = state.revs.get(id);
          const res = await apps.updateOne(
            { _id: id, rev },
            {
              $set: { rev: rev + 1, status: 'ANALYZING' },
              $push: { outbox: { id: entryId, topic: 'loan.events.v1', value: { n: i } } },
            },
          );
          if (res.modifiedCount !== 1) throw new Error(`outbox write of ${id} missed`);
          state.revs.set(id, rev + 1);
          waiting.push({ id, entryId });
          if (waiting.length >= CONCURRENCY) await flush();
          else await new Promise((resolve) => setImmediate(resolve)).then(flush);
        };
      })(),
    ],
    [
      'find by indexed field, sort, limit 10',
      SCAN_OPS,
      (i) =>
        apps
          .find({ clientId: `client-${i % 20}` })
          .sort({ updatedAt: -1 })
          .limit(10)
          .toArray(),
    ],
    ['deleteMany by applicationId', SCAN_OPS, (i) => deadlines.deleteMany({ applicationId: state.ids[i] })],
  ];
}

async function setUp(db) {
  const apps = db.collection('applications');
  await apps.createIndex({ clientId: 1, updatedAt: -1 });
  await db.collection('idempotency').createIndex({ key: 1 }, { unique: true });
  await db.collection('deadlines').createIndex({ applicationId: 1 });
  const docs = Array.from({ length: DOCS }, (_, i) => application(i));
  for (let i = 0; i < docs.length; i += 100) await apps.insertMany(docs.slice(i, i + 100));
  const deadlines = docs.map((d) => ({ _id: randomUUID(), applicationId: d._id, kind: 'no-link', dueAt: new Date() }));
  for (let i = 0; i < deadlines.length; i += 100)
    await db.collection('deadlines').insertMany(deadlines.slice(i, i + 100));
  return { ids: docs.map((d) => d._id), revs: new Map(docs.map((d) => [d._id, 1])) };
}

async function measure(set, round) {
  const client = await new MongoClient(set.url, { maxPoolSize: CONCURRENCY }).connect();
  const db = client.db(`dbbench_${runKey}_${round}`);
  const rows = [];
  try {
    const state = await setUp(db);
    for (const [name, count, op] of operations(db, state)) {
      const before = set.cpu();
      const t0 = performance.now();
      await pool(count, op);
      const seconds = (performance.now() - t0) / 1000;
      const after = set.cpu();
      const ferretdb = after.ferretdb - before.ferretdb;
      const postgresql = after.postgresql - before.postgresql;
      rows.push({ name, count, ferretdb, postgresql, seconds });
    }
    await db.dropDatabase();
  } finally {
    await client.close();
  }
  return rows;
}

const sets = [];
const results = {};
try {
  for (const kind of KINDS) sets.push(await startSet(kind));
  // Rounds alternate between the two, so that a change of the machine's load weighs on both.
  for (let r = 0; r < ROUNDS; r++) {
    for (const set of sets) {
      log(`round ${r + 1}/${ROUNDS} on ${set.kind}`);
      for (const row of await measure(set, r)) {
        const acc = (results[row.name] ??= {});
        const k = (acc[set.kind] ??= { count: 0, ferretdb: 0, postgresql: 0, seconds: 0 });
        k.count += row.count;
        k.ferretdb += row.ferretdb;
        k.postgresql += row.postgresql;
        k.seconds += row.seconds;
      }
    }
  }
} finally {
  for (const set of sets) {
    try {
      set.stop();
    } catch (error) {
      log(`stopping the ${set.kind} set failed: ${error}`);
    }
  }
  rmSync(path.join(infraHome, 'database-bench', runKey), { recursive: true, force: true });
}

const ms = (seconds, count) => round((1000 * seconds) / count, 3);
const table = [];
const json = {
  docs: DOCS,
  ops: OPS,
  scanOps: SCAN_OPS,
  concurrency: CONCURRENCY,
  rounds: ROUNDS,
  cpus: os.cpus().length,
  loadAverage: os.loadavg().map((v) => round(v, 2)),
  operations: {},
};
for (const [name, byKind] of Object.entries(results)) {
  const row = { operation: name };
  json.operations[name] = {};
  for (const [kind, k] of Object.entries(byKind)) {
    const total = ms(k.ferretdb + k.postgresql, k.count);
    row[`${kind} CPU ms/op`] =
      kind === 'postgresql' ? `${total} (${ms(k.ferretdb, k.count)} + ${ms(k.postgresql, k.count)})` : total;
    row[`${kind} op/s`] = Math.round(k.count / k.seconds);
    json.operations[name][kind] = {
      count: k.count,
      cpuMsPerOp: total,
      ferretdbCpuMsPerOp: ms(k.ferretdb, k.count),
      postgresqlCpuMsPerOp: ms(k.postgresql, k.count),
      opsPerSecond: Math.round(k.count / k.seconds),
    };
  }
  table.push(row);
}
const columns = ['operation', ...KINDS.flatMap((kind) => [`${kind} CPU ms/op`, `${kind} op/s`])];
console.log(
  `CPU per database operation: ${DOCS} applications of ~3 KB, ${CONCURRENCY} clients, ${ROUNDS} rounds alternating; ` +
    `PostgreSQL's figure is FerretDB + PostgreSQL. Load average ${json.loadAverage.join(' ')} on ${json.cpus} cpus.\n`,
);
console.log(formatTable(table, columns));
const out = path.join(root, 'bench', 'results', 'database-latest.json');
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(json, null, 2));
log(`figures in ${path.relative(root, out)}`);
