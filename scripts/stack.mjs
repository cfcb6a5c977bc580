// Starts the sandbox and the six services as child processes, waits for each to be ready and
// prints one READY line; on SIGINT/SIGTERM stops them and the infrastructure. A process that
// exits by itself is started again, as Kubernetes restarts a container: after 1 s, doubling up
// to 30 s while it keeps dying within a minute of its start, each restart said on stderr.
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, createWriteStream } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const logDir = process.env.LOAN_STACK_LOGS ?? path.join(root, '.infra', 'logs');
mkdirSync(logDir, { recursive: true });

const host = '127.0.0.1';
const gatewayPort = Number(process.env.GATEWAY_PORT ?? 8080);
const sandboxPort = Number(process.env.SANDBOX_PORT ?? 8090);
const gatewayUrl = `http://${host}:${gatewayPort}`;
const sandboxUrl = process.env.SANDBOX_PUBLIC_URL ?? `http://${host}:${sandboxPort}`;
const webhookSecret = process.env.PROVIDER_WEBHOOK_SECRET ?? 'sandbox-webhook-secret';
const allowPrivate = process.env.ALLOW_PRIVATE_WEBHOOK_URLS ?? 'true';

const common = {
  ...process.env,
  HTTP_HOST: host,
  PROVIDER_WEBHOOK_SECRET: webhookSecret,
  PROVIDER_BASE_URL: process.env.PROVIDER_BASE_URL ?? sandboxUrl,
  BUREAU_BASE_URL: process.env.BUREAU_BASE_URL ?? sandboxUrl,
  ALLOW_PRIVATE_WEBHOOK_URLS: allowPrivate,
};

// LOAN_TRACING=1: every service sends its spans to the Jaeger scripts/infra started beside the
// broker, and the console links to it; an OTLP endpoint set by the caller wins.
const traceUiUrl = process.env.LOAN_TRACING === '1' ? `http://${host}:${process.env.JAEGER_UI_PORT ?? 16686}` : null;
if (traceUiUrl) {
  common.OTEL_EXPORTER_OTLP_ENDPOINT ||= `http://${host}:${process.env.JAEGER_OTLP_PORT ?? 4318}`;
  common.TRACE_UI_URL ||= traceUiUrl;
}

/** Each process: its entry point, its health port and its own settings. */
const processes = [
  {
    name: 'sandbox',
    entry: 'sandbox/dist/start.js',
    port: sandboxPort,
    health: '/sandbox/health',
    env: {
      SANDBOX_PORT: String(sandboxPort),
      SANDBOX_HOST: host,
      SANDBOX_PUBLIC_URL: sandboxUrl,
      PROVIDER_WEBHOOK_URL: `${gatewayUrl}/provider/webhooks/mono`,
      SANDBOX_SESSION_TTL: process.env.SANDBOX_SESSION_TTL ?? process.env.NO_LINK_TTL ?? '24h',
    },
  },
  { name: 'applications', entry: 'services/applications/dist/start.js', port: 8101, env: {} },
  { name: 'enrichment', entry: 'services/enrichment/dist/start.js', port: 8102, env: {} },
  { name: 'scoring', entry: 'services/scoring/dist/start.js', port: 8103, env: {} },
  { name: 'notifier', entry: 'services/notifier/dist/start.js', port: 8104, env: {} },
  { name: 'janitor', entry: 'services/janitor/dist/start.js', port: 8105, env: {} },
  // The gateway's API is on GATEWAY_PORT; its health and /metrics on its internal port.
  {
    name: 'gateway',
    entry: 'services/gateway/dist/start.js',
    port: 8106,
    // The delivery log and the credit policies are served by the notifier and scoring on their internal ports.
    env: { GATEWAY_PORT: String(gatewayPort), NOTIFIER_URL: `http://${host}:8104`, SCORING_URL: `http://${host}:8103` },
  },
];

/** The running child of each process, by name. */
const children = new Map();
/** Restarts in a row of each process, and when it last started. */
const restarts = new Map();
let stopping = false;
const RESTART_BASE_MS = 1_000;
const RESTART_MAX_MS = 30_000;
/** A process up this long has recovered: its next exit restarts it after the base delay again. */
const HEALTHY_AFTER_MS = 60_000;

function startProcess(p) {
  const out = createWriteStream(path.join(logDir, `${p.name}.log`), { flags: 'a' });
  // Each service's heap is capped as in production (the Helm chart sets three quarters of the
  // memory limit): without a cap V8 grows the heap lazily, and a service whose live data is
  // small reaches 240 MB under load (LOAN_STACK_HEAP_MB, 128 by default). Node 24's young
  // generation grows to tens of MB per semi-space under load; 2 MB semi-spaces and two malloc
  // arenas (MALLOC_ARENA_MAX, glibc's default is 8 per core) keep each service under 150 MB of
  // resident memory through a 200-application bench for no measurable CPU (bench/README.md).
  // LOAN_STACK_NODE_ARGS: extra options for each service's node, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  const nodeArgs = [
    `--max-old-space-size=${process.env.LOAN_STACK_HEAP_MB ?? '128'}`,
    '--max-semi-space-size=2',
    ...(process.env.LOAN_STACK_NODE_ARGS ?? '').split(' ').filter(Boolean),
  ];
  const child = spawn(process.execPath, [...nodeArgs, path.join(root, p.entry)], {
    cwd: root,
    env: {
      MALLOC_ARENA_MAX: '2',
      ...common,
      SERVICE_NAME: p.name,
      HTTP_PORT: String(p.port),
      ...(process.env.LOAN_STACK_DB_PREFIX ? { MONGO_DB: `${process.env.LOAN_STACK_DB_PREFIX}${p.name}` } : {}),
      ...p.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  const startedAt = Date.now();
  child.on('exit', (code, signal) => {
    if (stopping) return;
    const previous = restarts.get(p.name) ?? 0;
    const inRow = Date.now() - startedAt >= HEALTHY_AFTER_MS ? 0 : previous;
    const delayMs = Math.min(RESTART_BASE_MS * 2 ** inRow, RESTART_MAX_MS);
    restarts.set(p.name, inRow + 1);
    console.error(
      `[stack] ${p.name} exited (${signal ?? `code ${code}`}); restarting it in ${delayMs / 1000} s ` +
        `(restart ${inRow + 1} in a row); see ${path.join(logDir, `${p.name}.log`)}`,
    );
    setTimeout(() => {
      if (stopping) return;
      startProcess(p);
      waitReady(p).then(
        () => console.error(`[stack] ${p.name} is ready again`),
        (error) => console.error(`[stack] ${String(error?.message ?? error)}`),
      );
    }, delayMs);
  });
  children.set(p.name, child);
}

async function waitReady(p, timeoutMs = 120_000) {
  const url = `http://${host}:${p.port}${p.health ?? '/readyz'}`;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${p.name} was not ready within ${timeoutMs / 1000}s; see ${path.join(logDir, `${p.name}.log`)}`);
}

async function stopAll(code) {
  if (stopping) return;
  stopping = true;
  const running = [...children.values()].reverse();
  for (const child of running) child.kill('SIGTERM');
  await Promise.all(
    running.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null) return resolve();
          const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
          child.on('exit', () => {
            clearTimeout(t);
            resolve();
          });
        }),
    ),
  );
  if (process.env.LOAN_STACK_KEEP_INFRA !== '1') {
    try {
      execFileSync('bash', [path.join(root, 'scripts', 'infra'), 'stop'], { stdio: 'inherit' });
    } catch {
      // already stopped
    }
  }
  process.exit(code);
}

process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

try {
  for (const p of processes) startProcess(p);
  await Promise.all(processes.map((p) => waitReady(p)));
  console.log(`READY gateway=${gatewayUrl}`);
  console.log(`sandbox=${sandboxUrl} admin-token=${process.env.ADMIN_TOKEN ?? 'local-admin-token'} logs=${logDir}`);
  if (traceUiUrl) console.log(`traces=${traceUiUrl} (Jaeger; each service's spans over OTLP)`);
} catch (error) {
  console.error(String(error?.message ?? error));
  await stopAll(1);
}
