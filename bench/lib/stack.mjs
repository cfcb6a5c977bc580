// Brings up the real local stack for the benchmarks: `node scripts/stack.mjs` (the sandbox and
// the six services as child processes) in a topic namespace of its own, plus extra replicas.
/* global AbortSignal */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { childrenOf, isAlive } from './procstat.mjs';
import { freePort, infraEnv, isPortFree, log, root, sleep } from './util.mjs';

const host = '127.0.0.1';
/** The processes scripts/stack.mjs starts, with the health ports it gives them. */
export const STACK_PROCESSES = [
  { name: 'sandbox', entry: 'sandbox/dist/start.js', port: 8090, health: '/sandbox/health' },
  { name: 'applications', entry: 'services/applications/dist/start.js', port: 8101 },
  { name: 'enrichment', entry: 'services/enrichment/dist/start.js', port: 8102 },
  { name: 'scoring', entry: 'services/scoring/dist/start.js', port: 8103 },
  { name: 'notifier', entry: 'services/notifier/dist/start.js', port: 8104 },
  { name: 'janitor', entry: 'services/janitor/dist/start.js', port: 8105 },
  // The gateway's API is on GATEWAY_PORT; `port` is its internal one (health, /metrics).
  { name: 'gateway', entry: 'services/gateway/dist/start.js', port: 8106 },
];

const spawned = new Set();
/** `scripts/stack.mjs` runs, each in a process group of its own with the services it started. */
const groups = new Set();
/**
 * Last resort on exit: nothing this harness started outlives it, the services a stack script
 * started before its READY line included (they are in its group; killed alone, it would leave
 * them running, holding their ports).
 */
process.on('exit', () => {
  for (const pid of groups) killGroup(pid);
  for (const pid of spawned) {
    try {
      if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

/** Kills a stack script's process group, whatever in it is still running, and forgets it. */
function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // none left
  }
  groups.delete(pid);
}

/** The settings every process of the benchmark stack gets (on top of the caller's environment). */
export function stackEnvironment({ namespace, logDir }) {
  const infra = infraEnv();
  const env = { ...process.env };
  for (const [k, v] of Object.entries(infra)) if (env[k] === undefined) env[k] = v;
  return {
    ...env,
    RATE_LIMITS_ENABLED: 'false',
    SANDBOX_JOB_DELAY: process.env.SANDBOX_JOB_DELAY ?? '0ms',
    LOAN_STACK_KEEP_INFRA: '1',
    // In-flight work at the end of a benchmark is not worth waiting 15 s for.
    SHUTDOWN_TIMEOUT: process.env.SHUTDOWN_TIMEOUT ?? '5s',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    SANDBOX_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    // A failed attempt (none is expected) should not stall a stage for the default 10 s.
    WEBHOOK_RETRY_BASE: process.env.WEBHOOK_RETRY_BASE ?? '1s',
    // Topics and consumer groups of this run only (databases: see startStack).
    KAFKA_TOPIC_NAMESPACE: namespace,
    LOAN_STACK_LOGS: logDir,
  };
}

async function waitHealthy(url, timeoutMs, isDead) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (isDead?.()) throw new Error(`process behind ${url} exited`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  throw new Error(`${url} was not healthy within ${timeoutMs / 1000} s`);
}

async function stopPids(entries, graceMs = 20_000) {
  for (const { pid } of entries) if (isAlive(pid)) process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && entries.some(({ pid }) => isAlive(pid))) await sleep(200);
  for (const { pid } of entries) {
    if (isAlive(pid)) {
      log(`pid ${pid} did not stop within ${graceMs / 1000} s; killing it`);
      process.kill(pid, 'SIGKILL');
    }
  }
}

/** Starts one service process (an extra replica, or part of the fallback launcher). */
export async function spawnService({ name, entry, port, health = '/readyz', env, logDir, readyTimeoutMs = 120_000 }) {
  const httpPort = port ?? (await freePort());
  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${name}-${httpPort}.log`);
  const out = createWriteStream(logFile, { flags: 'a' });
  // The heap caps and malloc arenas scripts/stack.mjs gives every service.
  const heap = [`--max-old-space-size=${process.env.LOAN_STACK_HEAP_MB ?? '128'}`, '--max-semi-space-size=2'];
  const child = spawn(process.execPath, [...heap, path.join(root, entry)], {
    cwd: root,
    env: {
      MALLOC_ARENA_MAX: '2',
      ...env,
      SERVICE_NAME: name,
      HTTP_PORT: String(httpPort),
      ...(env.LOAN_STACK_DB_PREFIX ? { MONGO_DB: `${env.LOAN_STACK_DB_PREFIX}${name}` } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.add(child.pid);
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  let exited = false;
  child.on('exit', () => {
    exited = true;
    spawned.delete(child.pid);
  });
  try {
    await waitHealthy(`http://${host}:${httpPort}${health}`, readyTimeoutMs, () => exited);
  } catch (error) {
    if (!exited) child.kill('SIGKILL');
    throw new Error(`${name}: ${error.message}; see ${logFile}`);
  }
  return { name, pid: child.pid, port: httpPort, logFile, stop: () => stopPids([{ pid: child.pid }]) };
}

const notBuilt = () => STACK_PROCESSES.filter((p) => !existsSync(path.join(root, p.entry))).map((p) => p.name);

/** What scripts/stack.mjs adds for every process; extra replicas get the same. */
function commonEnvironment(env, sandboxPort) {
  const sandboxUrl = `http://${host}:${sandboxPort}`;
  return {
    ...env,
    HTTP_HOST: host,
    PROVIDER_WEBHOOK_SECRET: env.PROVIDER_WEBHOOK_SECRET ?? 'sandbox-webhook-secret',
    PROVIDER_BASE_URL: env.PROVIDER_BASE_URL ?? sandboxUrl,
    BUREAU_BASE_URL: env.BUREAU_BASE_URL ?? sandboxUrl,
  };
}

/**
 * Starts the stack. With every entry point built and the fixed service ports (8101-8106) free,
 * through `node scripts/stack.mjs`, exactly as `npm start` does; otherwise the same processes
 * with the same settings on free ports, leaving out a service that is not built yet.
 */
export async function startStack({ namespace, logDir, dbPrefix = null, extraEnv = {} }) {
  const env = { ...stackEnvironment({ namespace, logDir }), ...extraEnv };
  if (dbPrefix) env.LOAN_STACK_DB_PREFIX = dbPrefix;
  const missing = notBuilt();
  // Databases of this run only need scripts/stack.mjs to name them per service.
  const scriptNamesDatabases = readFileSync(path.join(root, 'scripts', 'stack.mjs'), 'utf8').includes(
    'LOAN_STACK_DB_PREFIX',
  );
  const fixedFree = (await Promise.all([8101, 8102, 8103, 8104, 8105, 8106].map((p) => isPortFree(p)))).every(Boolean);
  const gatewayPort = Number(process.env.GATEWAY_PORT ?? ((await isPortFree(8080)) ? 8080 : await freePort()));
  const sandboxPort = Number(process.env.SANDBOX_PORT ?? ((await isPortFree(8090)) ? 8090 : await freePort()));
  const common = commonEnvironment(env, sandboxPort);
  if (missing.length === 0 && fixedFree && (!dbPrefix || scriptNamesDatabases)) {
    return startWithStackScript({ env, common, gatewayPort, sandboxPort });
  }
  const why =
    missing.length > 0
      ? `not built: ${missing.join(', ')}`
      : !fixedFree
        ? 'ports 8101-8106 are in use'
        : 'it does not take LOAN_STACK_DB_PREFIX (databases of this run)';
  log(`scripts/stack.mjs not used (${why}); starting the same processes with the same settings`);
  return startOwnProcesses({ common, gatewayPort, sandboxPort, missing, logDir, why });
}

async function startWithStackScript({ env, common, gatewayPort, sandboxPort }) {
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'stack.mjs')], {
    cwd: root,
    env: { ...env, GATEWAY_PORT: String(gatewayPort), SANDBOX_PORT: String(sandboxPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, with the services it starts: see the exit handler above.
    detached: true,
  });
  spawned.add(child.pid);
  groups.add(child.pid);
  const stderr = [];
  child.stderr.on('data', (chunk) => {
    stderr.push(chunk.toString());
    if (stderr.length > 50) stderr.shift();
  });
  let exited = false;
  child.on('exit', () => {
    exited = true;
    spawned.delete(child.pid);
  });
  const ready = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('scripts/stack.mjs printed no READY line within 180 s')), 180_000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^READY gateway=(\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`scripts/stack.mjs exited (${code}) before READY: ${stderr.join('').trim().slice(-2_000)}`));
    });
  }).catch(async (error) => {
    if (!exited) await stopPids([{ pid: child.pid }], 25_000);
    killGroup(child.pid); // whatever it started and did not stop
    throw error;
  });
  const processes = childrenOf(child.pid)
    .map(({ pid, argv }) => {
      const p = STACK_PROCESSES.find((s) => argv.some((a) => a.endsWith(s.entry)));
      if (!p) return null;
      const port = p.name === 'sandbox' ? sandboxPort : p.port;
      return { name: p.name, pid, port };
    })
    .filter(Boolean);
  for (const p of processes) spawned.add(p.pid);
  return {
    mode: 'scripts/stack.mjs',
    env: common,
    gatewayUrl: ready,
    sandboxUrl: `http://${host}:${sandboxPort}`,
    processes,
    missing: [],
    async stop() {
      await stopPids([{ pid: child.pid }], 30_000);
      // stack.mjs stops its children; make sure of it.
      await stopPids(
        processes.filter((p) => isAlive(p.pid)),
        5_000,
      );
      for (const p of processes) spawned.delete(p.pid);
      groups.delete(child.pid);
    },
  };
}

async function startOwnProcesses({ common, gatewayPort, sandboxPort, missing, logDir, why, freePorts = false }) {
  const gatewayUrl = `http://${host}:${gatewayPort}`;
  const sandboxUrl = `http://${host}:${sandboxPort}`;
  const started = [];
  const portFor = async (port) => (!freePorts && (await isPortFree(port)) ? port : freePort());
  let plan = [];
  try {
    plan = await Promise.all(
      STACK_PROCESSES.filter((p) => !missing.includes(p.name)).map(async (p) => {
        if (p.name === 'sandbox') {
          return {
            ...p,
            port: sandboxPort,
            env: {
              ...common,
              SANDBOX_PORT: String(sandboxPort),
              SANDBOX_HOST: host,
              SANDBOX_PUBLIC_URL: sandboxUrl,
              PROVIDER_WEBHOOK_URL: `${gatewayUrl}/provider/webhooks/mono`,
              SANDBOX_SESSION_TTL: common.SANDBOX_SESSION_TTL ?? '24h',
            },
          };
        }
        // spawnService names the database from LOAN_STACK_DB_PREFIX, as stack.mjs would.
        if (p.name === 'gateway')
          return { ...p, port: await portFor(p.port), env: { ...common, GATEWAY_PORT: String(gatewayPort) } };
        return { ...p, port: await portFor(p.port), env: common };
      }),
    );
    const results = await Promise.allSettled(plan.map((p) => spawnService({ ...p, logDir })));
    for (const r of results) if (r.status === 'fulfilled') started.push(r.value);
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  } catch (error) {
    await stopPids(started);
    throw error;
  }
  return {
    mode: `bench launcher (${why})`,
    env: common,
    gatewayUrl,
    sandboxUrl,
    processes: started.map(({ name, pid, port }) => ({ name, pid, port })),
    missing,
    /**
     * Starts a process again as it was first started (same port and settings) after it died
     * or was killed; resolves once it is healthy again.
     */
    async restart(name, { readyTimeoutMs = 120_000 } = {}) {
      const p = plan.find((x) => x.name === name);
      if (!p) throw new Error(`no process named ${name} in this stack`);
      const i = started.findIndex((x) => x.name === name);
      const again = await spawnService({ ...p, logDir, readyTimeoutMs });
      if (i >= 0) started[i] = again;
      else started.push(again);
      const entry = this.processes.find((x) => x.name === name);
      if (entry) entry.pid = again.pid;
      return again;
    },
    async stop() {
      // Edge first, like stack.mjs: gateway, then the rest.
      await stopPids([...started].reverse());
    },
  };
}

/**
 * The same processes as startStack, each started on its own by this harness on free ports, so
 * that one can be killed and started again while the others run (scripts/stack.mjs stops all
 * of them when one exits). The returned stack has `restart(name)`.
 */
export async function startSeparately({ namespace, logDir, dbPrefix = null }) {
  const env = stackEnvironment({ namespace, logDir });
  if (dbPrefix) env.LOAN_STACK_DB_PREFIX = dbPrefix;
  const missing = notBuilt();
  if (missing.length > 0) throw new Error(`not built: ${missing.join(', ')} (run npx tsc -b)`);
  const gatewayPort = Number(process.env.GATEWAY_PORT ?? (await freePort()));
  const sandboxPort = Number(process.env.SANDBOX_PORT ?? (await freePort()));
  const common = commonEnvironment(env, sandboxPort);
  return startOwnProcesses({
    common,
    gatewayPort,
    sandboxPort,
    missing,
    logDir,
    why: 'each process on its own, to be killed and restarted',
    freePorts: true,
  });
}
