// `npm run bench:containers`: what the deployed form costs. Builds the images when needed
// (scripts/containers: engine, the local base images, ours from the Dockerfile, docker compose),
// records each image's size, then brings docker-compose.yml up with the local images
// (deploy/docker-compose.local-images.yml) under a project name of its own and free host ports,
// and measures, per container, the time from its start to its first passing health check
// (compose's own checks, asked every second while they start:
// deploy/docker-compose.probe-every-second.yml), and the wall time of `docker compose up --wait`. Then `down -v`. Prints a table and writes
// bench/results/containers-latest.json. When no Docker engine
// can be had it says why and exits 0 with nothing measured. See bench/README.md.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatTable, freePort, log, root, round, sleep } from './lib/util.mjs';

const project = `loan-bench-${Date.now().toString(36)}`;
const OURS = ['gateway', 'applications', 'enrichment', 'scoring', 'notifier', 'janitor', 'sandbox'];
const PROBED = ['kafka', 'schema-registry', 'mongo', ...OURS];

const sh = (cmd, args, opts = {}) => spawnSync(cmd, args, { cwd: root, encoding: 'utf8', ...opts });

const began = Date.now();
const loadAverageAtStart = os.loadavg().map((v) => round(v, 2));
// LOAN_CONTAINERS_BUILT=1: the images and docker compose are there already (as for the tests).
const prepared =
  process.env.LOAN_CONTAINERS_BUILT === '1'
    ? { status: 0, stderr: '' }
    : sh('bash', ['scripts/containers', 'all'], { stdio: ['ignore', 'inherit', 'pipe'] });
process.stderr.write(prepared.stderr ?? '');
if (prepared.status === 3) {
  const reason = /no Docker engine: (.*)/.exec(prepared.stderr ?? '')?.[1] ?? 'no Docker engine';
  console.log(`skipped: ${reason}`);
  process.exit(0);
}
if (prepared.status !== 0) {
  console.error(`scripts/containers failed (exit ${prepared.status})`);
  process.exit(1);
}
const prepareSeconds = process.env.LOAN_CONTAINERS_BUILT === '1' ? null : (Date.now() - began) / 1000;
const env = { ...process.env };
for (const line of sh('bash', ['scripts/containers', 'env']).stdout.split('\n')) {
  const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
  if (m) env[m[1]] = m[2];
}

const mib = (bytes) => round(bytes / 1024 ** 2, 0);
const imageSize = (tag) => Number(sh('docker', ['image', 'inspect', '-f', '{{.Size}}', tag]).stdout.trim());
const images = [
  ...OURS.map((name) => ({ image: `${env.LOAN_IMAGE_PREFIX}/${name}:${env.LOAN_IMAGE_TAG}`, kind: 'ours' })),
  { image: env.LOAN_IMAGE_NODE, kind: 'base of ours' },
  { image: env.LOAN_IMAGE_KAFKA, kind: 'local stand-in' },
  { image: env.LOAN_IMAGE_REGISTRY, kind: 'local stand-in' },
  { image: env.LOAN_IMAGE_FERRETDB, kind: 'local stand-in' },
].map((i) => ({ ...i, MiB: mib(imageSize(i.image)) }));

// Compose's health checks, asked every second while a container starts (its start_period),
// so a container's first passing check is at most a second after it is ready.
const files = [
  ...['-f', 'docker-compose.yml', '-f', 'deploy/docker-compose.local-images.yml'],
  ...['-f', 'deploy/docker-compose.probe-every-second.yml'],
];
Object.assign(env, {
  IMAGE_PREFIX: env.LOAN_IMAGE_PREFIX,
  IMAGE_TAG: env.LOAN_IMAGE_TAG,
  GATEWAY_PORT: String(await freePort()),
  SANDBOX_PORT: String(await freePort()),
  KAFKA_HOST_PORT: String(await freePort()),
  SCHEMA_REGISTRY_HOST_PORT: String(await freePort()),
});
const compose = (...args) => sh('docker', ['compose', '-p', project, ...files, ...args], { env });

/** Each container's start and the first moment it was seen healthy, by polling `docker inspect`. */
const firstHealthy = new Map();
const started = new Map();
let polling = true;
function sample() {
  const ids = sh('docker', ['ps', '-q', '--filter', `label=com.docker.compose.project=${project}`]).stdout;
  const live = ids.split('\n').filter(Boolean);
  if (live.length === 0) return;
  const out = sh('docker', [
    'inspect',
    '-f',
    '{{index .Config.Labels "com.docker.compose.service"}} {{.State.StartedAt}} {{if .State.Health}}{{.State.Health.Status}}{{end}}',
    ...live,
  ]).stdout;
  for (const line of out.split('\n').filter(Boolean)) {
    const [service, startedAt, health] = line.split(' ');
    if (!started.has(service)) started.set(service, Date.parse(startedAt));
    if (health === 'healthy' && !firstHealthy.has(service)) firstHealthy.set(service, Date.now());
  }
}
async function poll() {
  while (polling) {
    sample();
    await sleep(250);
  }
}

let upSeconds = null;
let exitCode = 0;
try {
  log(`docker compose up --wait (project ${project})`);
  const watcher = poll();
  const upBegan = Date.now();
  const up = await new Promise((resolve) => {
    const child = spawn(
      'docker',
      ['compose', '-p', project, ...files, 'up', '--wait', '--wait-timeout', '420', '--no-build', '--pull', 'never'],
      { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => resolve({ code, err }));
  });
  upSeconds = (Date.now() - upBegan) / 1000;
  polling = false;
  await watcher;
  sample(); // the last to become healthy (the gateway) may have become so after the last poll
  if (up.code !== 0) {
    exitCode = 1;
    console.error(`docker compose up --wait failed (exit ${up.code}):\n${up.err}`);
    console.error(compose('logs', '--no-color', '--tail', '20').stdout);
  }
} finally {
  polling = false;
  compose('down', '--volumes', '--remove-orphans', '--timeout', '20');
}

const startup = PROBED.map((service) => ({
  service,
  'start to healthy (s)':
    started.has(service) && firstHealthy.has(service)
      ? round((firstHealthy.get(service) - started.get(service)) / 1000, 1)
      : null,
}));
const results = {
  startedAt: new Date(began).toISOString(),
  machine: { cpus: os.cpus().length, loadAverageAtStart },
  prepareSeconds: round(prepareSeconds, 0),
  images,
  composeUpWait: exitCode === 0 ? 'healthy' : 'failed',
  composeUpWaitSeconds: round(upSeconds, 1),
  startup,
};
console.log(
  results.prepareSeconds === null
    ? '\nimages (built before: LOAN_CONTAINERS_BUILT=1)'
    : `\nimages (scripts/containers took ${results.prepareSeconds} s: a build, or only checks when nothing changed)`,
);
console.log(formatTable(images, ['image', 'kind', 'MiB']));
console.log(
  exitCode === 0
    ? `\ndocker compose up --wait: ${results.composeUpWaitSeconds} s until every service was healthy`
    : `\ndocker compose up --wait failed after ${results.composeUpWaitSeconds} s`,
);
console.log(formatTable(startup, ['service', 'start to healthy (s)']));
const dir = path.join(root, 'bench', 'results');
mkdirSync(dir, { recursive: true });
const file = path.join(dir, 'containers-latest.json');
writeFileSync(`${file}.tmp`, `${JSON.stringify(results, null, 2)}\n`);
renameSync(`${file}.tmp`, file);
process.exit(exitCode);
