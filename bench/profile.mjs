// Where the CPU of an application goes (`npm run bench:profile`, or `node bench/profile.mjs`).
// Runs the e2e benchmark (`BENCH_APPS`, 100 by default) with every service and the sandbox under
// `--cpu-prof`, and FerretDB under Go's CPU profiler when its debug address answers (start the
// infrastructure with `FERRETDB_DEBUG_ADDR=127.0.0.1:8088`). Prints, per process, its profiled
// CPU time by what spent it (the product's code, each library, Node's own modules, garbage
// collection) and the functions that spent the most, and writes them to
// bench/results/profile-latest.json (the e2e figures of the profiled run to
// profiled-latest.json). The raw profiles stay in .infra/profiles/<timestamp> (open a
// .cpuprofile in Chrome DevTools, a FerretDB profile with `go tool pprof`).
// Profiling costs some CPU itself: the e2e figures of this run are not the benchmark's figures.
// With BENCH_PROFILE_TRACING=1 every service exports every span, as in the `tracing` bench, to a
// receiver in this process: where the CPU that tracing adds goes; with BENCH_PROFILE_TRACING=default
// it samples as production does by default (a tenth of new traces).
// With BENCH_PROFILE_PART=initiate it profiles the gateway bench's initiate load instead (POST
// /api/applications/initiate, BENCH_GATEWAY_CONNECTIONS for BENCH_GATEWAY_SECONDS; that part
// alone) and writes bench/results/initiate-profile-latest.json: per process, CPU ms per initiate
// by category and the top functions, and every process's CPU (Kafka's and FerretDB's too) over
// the load as the bench samples it.
/* global AbortSignal */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startSpanSink } from './lib/spanSink.mjs';
import { envInt, log, root, round } from './lib/util.mjs';

const startedMs = Date.now();
const stamp = new Date(startedMs).toISOString().replace(/[:.]/g, '-');
const profileDir = path.join(root, '.infra', 'profiles', stamp);
const nodeDir = path.join(profileDir, 'node');
const goDir = path.join(profileDir, 'ferretdb');
mkdirSync(nodeDir, { recursive: true });
mkdirSync(goDir, { recursive: true });
const ferretDebug = process.env.FERRETDB_DEBUG_ADDR ?? '127.0.0.1:8088';
const apps = envInt('BENCH_APPS', 100);
const part = process.env.BENCH_PROFILE_PART ?? 'e2e';
if (!['e2e', 'initiate'].includes(part)) {
  console.error(`BENCH_PROFILE_PART is e2e or initiate, not ${part}`);
  process.exit(2);
}
const initiateMode = part === 'initiate';

/** Go's profiler, in slices of 10 s for as long as `running()` holds. */
async function profileFerretDb(running) {
  const files = [];
  for (let slice = 0; running(); slice++) {
    try {
      const response = await fetch(`http://${ferretDebug}/debug/pprof/profile?seconds=10`);
      if (!response.ok) break;
      const file = path.join(goDir, `cpu-${String(slice).padStart(3, '0')}.pb.gz`);
      writeFileSync(file, Buffer.from(await response.arrayBuffer()));
      files.push(file);
    } catch {
      break;
    }
  }
  return files;
}

async function ferretDbAnswers() {
  try {
    return (await fetch(`http://${ferretDebug}/debug/pprof/`, { signal: AbortSignal.timeout(1_000) })).ok;
  } catch {
    return false;
  }
}

/** What spent a sample, by the script it ran in. */
function categoryOf(frame) {
  const { functionName, url } = frame;
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)') return 'V8 and native code';
  if (!url) return 'V8 and native code';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) {
    const mod = url
      .slice(5)
      .replace(/^internal\//, '')
      .split('/')[0];
    return `node:${mod}`;
  }
  if (/\/(services|libs|sandbox)\//.test(url)) return 'product code';
  return 'other';
}

/** Which process wrote a profile: the service or sandbox whose start script it ran. */
function processOf(nodes) {
  for (const node of nodes) {
    const m = /\/(?:services\/(\w+)|(sandbox))\/dist\/start\.js$/.exec(node.callFrame.url);
    if (m) return m[1] ?? m[2];
  }
  return 'unknown';
}

/**
 * One process's profile, counting only the samples inside `window` (µs on the monotonic clock,
 * which both `process.hrtime` and V8's profiler stamp with): the applications, not the start.
 */
function summariseNodeProfile(file, window, units = null) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (window && (at < window[0] || at > window[1])) return;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });
  const categories = new Map();
  const functions = new Map();
  let totalUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (!frame || frame.functionName === '(idle)') continue;
    totalUs += us;
    const category = categoryOf(frame);
    categories.set(category, (categories.get(category) ?? 0) + us);
    const where = frame.url
      ? `${frame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(services|libs|sandbox)\//, '$1/')}:${frame.lineNumber + 1}`
      : '';
    const name = `${frame.functionName || '(anonymous)'} ${where}`.trim();
    functions.set(name, (functions.get(name) ?? 0) + us);
  }
  const ms = (us) => round(us / 1_000, 0);
  const share = (us) => round((100 * us) / Math.max(1, totalUs), 1);
  // Per unit of work (an initiate) when counted: ms with three decimals.
  const per = (us) => (units ? { msPerUnit: round(us / 1_000 / units, 3) } : {});
  return {
    process: processOf(profile.nodes),
    file: path.relative(root, file),
    cpuMs: ms(totalUs),
    ...per(totalUs),
    byCategory: [...categories]
      .sort((a, b) => b[1] - a[1])
      .map(([category, us]) => ({ category, ms: ms(us), ...per(us), percent: share(us) })),
    topFunctions: [...functions]
      .sort((a, b) => b[1] - a[1])
      .slice(0, units ? 20 : 12)
      .map(([fn, us]) => ({ function: fn, ms: ms(us), ...per(us), percent: share(us) })),
  };
}

/** FerretDB's profile, flat time by Go package (and the top functions), through `go tool pprof`. */
function summariseGoProfiles(files, units = null) {
  if (files.length === 0) return null;
  const top = spawnSync('go', ['tool', 'pprof', '-top', '-nodecount=100000', ...files], { encoding: 'utf8' });
  if (top.status !== 0) return { error: (top.stderr || 'go tool pprof failed').trim().slice(0, 500) };
  const rows = [];
  for (const line of top.stdout.split('\n')) {
    const m = /^\s*([\d.]+)(ms|s|us|µs)\s+([\d.]+)%\s+[\d.]+%\s+[\d.]+(?:ms|s|us|µs)\s+[\d.]+%\s+(.+)$/.exec(line);
    if (!m) continue;
    const factor = { s: 1_000, ms: 1, us: 0.001, µs: 0.001 }[m[2]];
    rows.push({ fn: m[4].trim(), ms: Number(m[1]) * factor });
  }
  const total = rows.reduce((sum, r) => sum + r.ms, 0);
  const packages = new Map();
  for (const { fn, ms } of rows) {
    // `modernc.org/sqlite/lib.sqlite3VdbeExec` -> `modernc.org/sqlite/lib`; `runtime.mallocgc` -> `runtime`.
    const pkg = fn.replace(/^(.*?\/)?([^/]*?)\..*$/, (_, dir = '', last) => `${dir}${last}`);
    packages.set(pkg, (packages.get(pkg) ?? 0) + ms);
  }
  const share = (ms) => round((100 * ms) / Math.max(1, total), 1);
  const per = (ms) => (units ? { msPerUnit: round(ms / units, 3) } : {});
  return {
    files: files.map((f) => path.relative(root, f)),
    cpuMs: round(total, 0),
    ...per(total),
    byPackage: [...packages]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([pkg, ms]) => ({ package: pkg, ms: round(ms, 0), ...per(ms), percent: share(ms) })),
    topFunctions: rows
      .sort((a, b) => b.ms - a.ms)
      .slice(0, units ? 20 : 12)
      .map(({ fn, ms }) => ({ function: fn, ms: round(ms, 0), ...per(ms), percent: share(ms) })),
  };
}

const withFerretDb = await ferretDbAnswers();
log(
  initiateMode
    ? `profiling the gateway bench's initiate load; node profiles in ${path.relative(root, nodeDir)}`
    : `profiling ${apps} applications; node profiles in ${path.relative(root, nodeDir)}`,
);
if (!withFerretDb) log(`FerretDB's debug address ${ferretDebug} does not answer: FerretDB is not profiled`);

const tracingMode = process.env.BENCH_PROFILE_TRACING ?? '';
const sink = tracingMode === '1' || tracingMode === 'default' ? await startSpanSink() : null;
if (sink)
  log(
    tracingMode === 'default'
      ? `tracing on at the default sampling: spans exported to ${sink.url}`
      : `tracing on: every span of every service exported to ${sink.url}`,
  );
// In the initiate mode the gateway bench takes FerretDB's profile itself, over the load alone.
const goInitiateFile = path.join(goDir, 'cpu-initiate.pb.gz');
const child = spawn(process.execPath, [path.join(root, 'bench', 'run.mjs'), initiateMode ? 'gateway' : 'e2e'], {
  cwd: root,
  stdio: 'inherit',
  env: {
    ...process.env,
    ...(sink
      ? {
          OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
          ...(tracingMode === 'default' ? {} : { OTEL_TRACES_SAMPLER: 'parentbased_always_on' }),
        }
      : {}),
    ...(initiateMode
      ? {
          BENCH_GATEWAY_PARTS: 'initiate',
          ...(withFerretDb ? { BENCH_GATEWAY_FERRETDB_PROFILE: goInitiateFile, FERRETDB_DEBUG_ADDR: ferretDebug } : {}),
        }
      : {}),
    BENCH_APPS: String(apps),
    BENCH_PROFILED: '1',
    LOAN_STACK_NODE_ARGS: `${process.env.LOAN_STACK_NODE_ARGS ?? ''} --cpu-prof --cpu-prof-dir=${nodeDir}`.trim(),
  },
});
let running = true;
const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
const goFiles = withFerretDb && !initiateMode ? profileFerretDb(() => running) : Promise.resolve([]);
const code = await exited;
running = false;
if (sink) {
  log(`spans received: ${JSON.stringify(sink.totals())}`);
  await sink.close();
}

// The profiled run: its figures, and the window its applications (or initiates) ran in.
const resultsDir = path.join(root, 'bench', 'results');
const runFile = 'profiled-latest.json';
const runPath = path.join(resultsDir, runFile);
const fresh = existsSync(runPath) && statSync(runPath).mtimeMs >= startedMs;
const run = fresh ? JSON.parse(readFileSync(runPath, 'utf8')) : null;
const measured = initiateMode ? run?.gateway?.initiate : run?.e2e;
const window = measured?.monotonicWindowUs ?? null;
if (!window) log('no measured window in the results: the whole life of each process is counted');
/** What the CPU is divided by: initiates answered, or applications decided. */
const units = (initiateMode ? measured?.requests : measured?.completed) || null;
const unitName = initiateMode ? 'initiate' : 'decided application';

const processes = readdirSync(nodeDir)
  .filter((f) => f.endsWith('.cpuprofile'))
  .map((f) => summariseNodeProfile(path.join(nodeDir, f), window, initiateMode ? units : null))
  .sort((a, b) => b.cpuMs - a.cpuMs);
const goFileList = initiateMode ? (existsSync(goInitiateFile) ? [goInitiateFile] : []) : await goFiles;
const ferretdb = summariseGoProfiles(goFileList, initiateMode ? units : null);

for (const p of processes) {
  const perUnit = units ? ` (${round(p.cpuMs / units, initiateMode ? 2 : 1)} ms per ${unitName})` : '';
  console.log(`\n${p.process}: ${p.cpuMs} ms profiled${perUnit}`);
  console.log(
    `  by category: ${p.byCategory
      .slice(0, 10)
      .map((c) => `${c.category} ${c.percent}%`)
      .join(', ')}`,
  );
  for (const f of p.topFunctions.slice(0, 8)) console.log(`  ${String(f.percent).padStart(5)}%  ${f.function}`);
}
if (ferretdb?.byPackage) {
  console.log(`\nferretdb: ${ferretdb.cpuMs} ms profiled`);
  console.log(
    `  by package: ${ferretdb.byPackage
      .slice(0, 10)
      .map((c) => `${c.package} ${c.percent}%`)
      .join(', ')}`,
  );
  for (const f of ferretdb.topFunctions.slice(0, 8)) console.log(`  ${String(f.percent).padStart(5)}%  ${f.function}`);
}

let summary;
let out;
if (initiateMode) {
  // Every process's CPU over the load as the bench samples it (Kafka and FerretDB included,
  // profiled or not), per initiate.
  const seconds = window ? (window[1] - window[0]) / 1e6 : null;
  const cpuMsPerInitiate =
    measured?.cpuPercentOfOneCore && seconds && units
      ? Object.fromEntries(
          Object.entries(measured.cpuPercentOfOneCore)
            .map(([name, percent]) => [name, round(((percent / 100) * seconds * 1_000) / units, 2)])
            .sort((a, b) => b[1] - a[1]),
        )
      : null;
  for (const row of measured?.sentPerRequest ?? [])
    console.log(`  ${String(row.perRequest).padStart(6)} ${row.to} ${row.service} ${row.what}`);
  if (cpuMsPerInitiate) {
    console.log(`\nCPU ms per initiate, every process (sampled, unprofiled processes too):`);
    for (const [name, ms] of Object.entries(cpuMsPerInitiate)) console.log(`  ${String(ms).padStart(6)}  ${name}`);
  }
  out = path.join(resultsDir, 'initiate-profile-latest.json');
  summary = {
    startedAt: stamp,
    part: 'initiate',
    initiate: measured
      ? {
          file: `bench/results/${runFile}`,
          connections: run.gateway.connections,
          seconds: round(seconds, 1),
          initiates: units,
          requestsPerSecond: measured.requestsPerSecond,
          latencyMs: measured.latencyMs,
          non2xx: measured.non2xx,
          errors: measured.errors,
          handlers: measured.handlers,
          sentPerInitiate: measured.sentPerRequest,
        }
      : null,
    cpuMsPerInitiate,
    benchExitCode: code,
    windowUs: window,
    processes,
    ferretdb,
  };
} else {
  out = path.join(resultsDir, 'profile-latest.json');
  const e2e = run?.e2e
    ? {
        file: `bench/results/${runFile}`,
        decided: run.e2e.completed,
        cpuMsPerApplication: run.e2e.cpuMsPerApplication,
        dbOpsPerApplication: run.e2e.dbOpsPerApplication,
        kafkaRequestsPerApplication: run.e2e.kafkaRequestsPerApplication,
      }
    : null;
  summary = { startedAt: stamp, applications: apps, e2eExitCode: code, e2e, windowUs: window, processes, ferretdb };
}
writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`);
console.log(`\nprofile summary: ${path.relative(root, out)}; raw profiles: ${path.relative(root, profileDir)}`);
process.exit(code ?? 1);
