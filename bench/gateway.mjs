// The gateway under load (autocannon): a bare express baseline, the real initiate (a command
// and its reply over Kafka, a database write, a provider call), a cheap GET; and initiate at a
// fixed 100 requests per second, evenly spaced (lib/openLoop.mjs). BENCH_GATEWAY_PARTS names the
// parts to run (baseline,initiate,get,fixedRate,bursts; all by default): the profiler's initiate
// mode runs `initiate` alone.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { applicantBody, createLender } from './e2e.mjs';
import { createSampler, infraProcesses } from './lib/procstat.mjs';
import { diff, requests, scrapeAll } from './lib/metrics.mjs';
import { openLoop } from './lib/openLoop.mjs';
import { envInt, httpJson, log, requireFromRoot, root, round } from './lib/util.mjs';

export const GATEWAY_TARGETS = { initiateToBaseline: 0.1, fixedRateP99Ms: 50 };
const PARTS = ['baseline', 'initiate', 'get', 'fixedRate', 'bursts'];

function autocannonRun(options) {
  const autocannon = requireFromRoot('autocannon');
  return new Promise((resolve, reject) => {
    const instance = autocannon({ timeout: 10, ...options }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
    // Bounded even if something hangs: autocannon stops itself after `duration`.
    instance.on('error', () => undefined);
  });
}

const summary = (r) => ({
  requestsPerSecond: round(r.requests.average),
  requests: r.requests.total,
  latencyMs: {
    mean: round(r.latency.average, 2),
    p50: r.latency.p50,
    p90: r.latency.p90,
    p99: r.latency.p99,
    max: r.latency.max,
  },
  ok2xx: r['2xx'],
  non2xx: r.non2xx,
  statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, v]) => [code, v.count])),
  errors: r.errors,
  timeouts: r.timeouts,
  seconds: r.duration,
});

/**
 * FerretDB under Go's CPU profiler for `seconds` (the profiler's initiate mode: the initiate load
 * alone), written to `file`; nothing when its debug address does not answer.
 */
async function profileFerretDb(file, seconds) {
  const address = process.env.FERRETDB_DEBUG_ADDR ?? '127.0.0.1:8088';
  try {
    const response = await fetch(`http://${address}/debug/pprof/profile?seconds=${seconds}`);
    if (response.ok) writeFileSync(file, Buffer.from(await response.arrayBuffer()));
  } catch {
    // not served: FerretDB is left out of the profile
  }
}

async function startBaseline() {
  const child = spawn(process.execPath, [path.join(root, 'bench', 'lib', 'baseline-server.mjs')], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('baseline server did not start')), 15_000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^LISTENING (\d+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.on('exit', () => reject(new Error('baseline server exited')));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.on('exit', () => {
          clearTimeout(t);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

export async function runGateway({ stack, warm }) {
  const connections = envInt('BENCH_GATEWAY_CONNECTIONS', 20);
  const duration = envInt('BENCH_GATEWAY_SECONDS', 10);
  const rate = envInt('BENCH_GATEWAY_RATE', 100);
  const rateSeconds = envInt('BENCH_GATEWAY_RATE_SECONDS', 30);
  const runId = Date.now().toString(36);
  const parts = (process.env.BENCH_GATEWAY_PARTS ?? PARTS.join(','))
    .split(',')
    .map((p) => p.trim())
    .filter((p) => PARTS.includes(p));
  const lender = await createLender(stack.gatewayUrl, null);
  let counter = 0;
  let someApplicationId = null;
  const initiateRequest = {
    method: 'POST',
    path: '/api/applications/initiate',
    headers: { 'content-type': 'application/json', 'x-api-key': lender.apiKey },
    setupRequest: (req) => ({ ...req, body: JSON.stringify(applicantBody(`gw-${runId}-${counter++}`)) }),
    onResponse: (status, body) => {
      if (status === 201 && !someApplicationId) {
        try {
          someApplicationId = JSON.parse(body).applicationId ?? null;
        } catch {
          // not JSON
        }
      }
    },
  };
  /** One part failing (a timeout under load) leaves the others' figures; a part not asked for is left out. */
  const part = async (name, fn) => {
    if (!parts.includes(name)) return undefined;
    try {
      return await fn();
    } catch (error) {
      log(`gateway: ${error?.message ?? error}`);
      return { error: String(error?.message ?? error) };
    }
  };
  const sample = applicantBody('baseline');
  const out = { connections, durationSeconds: duration };
  const processes = [...stack.processes, ...infraProcesses()].map(({ name, pid, tree }) => ({ name, pid, tree }));
  const measured = async (name, options, { ferretDbProfile = null } = {}) => {
    const sampler = createSampler(processes);
    const before = await scrapeAll(stack.processes);
    sampler.start();
    // The measured window on the monotonic clock (µs), the one CPU profiles are stamped with.
    const windowStartUs = Number(process.hrtime.bigint() / 1000n);
    const goProfile = ferretDbProfile ? profileFerretDb(ferretDbProfile, options.duration) : null;
    const result = options.openLoop ? await openLoop(options.openLoop) : summary(await autocannonRun(options));
    const windowEndUs = Number(process.hrtime.bigint() / 1000n);
    const usage = sampler.stop();
    if (goProfile) await goProfile;
    const after = await scrapeAll(stack.processes);
    const cpu = Object.fromEntries(Object.entries(usage.processes).map(([n, p]) => [n, p.cpuPercentOfOneCore]));
    const s = {
      ...result,
      cpuPercentOfOneCore: cpu,
      handlers: diff(before, after).slice(0, 8),
      // What each request sent to Kafka and the database, every service together.
      sentPerRequest: requests(before, after, Math.max(1, result.requests ?? 1)).map(({ perApplication, ...row }) => ({
        ...row,
        perRequest: perApplication,
      })),
      monotonicWindowUs: [windowStartUs, windowEndUs],
    };
    log(
      `gateway ${name}: ${s.requestsPerSecond} req/s, p50 ${s.latencyMs.p50} ms, p99 ${s.latencyMs.p99} ms, non-2xx ${s.non2xx}, errors ${s.errors}`,
    );
    return s;
  };

  // (a) bare express, in a process of its own like the gateway
  out.baseline = await part('baseline', async () => {
    const baseline = await startBaseline();
    processes.push({ name: 'baseline express', pid: baseline.pid });
    try {
      const opts = {
        url: `${baseline.url}/api/applications/initiate`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(sample),
      };
      await autocannonRun({ ...opts, connections: 5, duration: 2 });
      return await measured('baseline', { ...opts, connections, duration });
    } finally {
      await baseline.stop();
      processes.pop();
    }
  });

  // (b) the real initiate, a fresh idempotency key per request
  out.initiate = await part('initiate', async () => {
    if (!warm) await autocannonRun({ url: stack.gatewayUrl, connections: 5, duration: 2, requests: [initiateRequest] });
    return measured(
      'initiate',
      { url: stack.gatewayUrl, connections, duration, requests: [initiateRequest] },
      { ferretDbProfile: process.env.BENCH_GATEWAY_FERRETDB_PROFILE || null },
    );
  });

  // (c) a cheap read: one application's status (one created by (b), or a new one)
  out.get = await part('get', async () => {
    for (let attempt = 0; !someApplicationId && attempt < 3; attempt += 1) {
      const one = await httpJson('POST', `${stack.gatewayUrl}/api/applications/initiate`, {
        headers: { 'x-api-key': lender.apiKey },
        body: applicantBody(`gw-${runId}-get`),
      });
      if (one.status === 201 || one.status === 200) someApplicationId = one.body.applicationId;
    }
    if (!someApplicationId) throw new Error('no application to read: initiate did not answer 201 in three tries');
    return measured('GET application', {
      url: `${stack.gatewayUrl}/api/applications/${someApplicationId}`,
      headers: { 'x-api-key': lender.apiKey },
      connections,
      duration,
    });
  });

  // Initiate at a fixed rate, as a lender's backend sends it: one request every 1/rate s,
  // whatever the answers (autocannon's rate sends each connection's share of a second back to
  // back at the start of the second, bursts of 20 at once), latency counted from when each
  // request was due.
  out.initiateFixedRate = await part('fixedRate', async () => ({
    rate,
    arrivals: 'evenly spaced, open loop',
    ...(await measured(`initiate at ${rate}/s`, {
      openLoop: {
        url: `${stack.gatewayUrl}/api/applications/initiate`,
        rate,
        seconds: rateSeconds,
        request: (i) => ({
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': lender.apiKey },
          body: JSON.stringify(applicantBody(`gw-${runId}-rate-${i}`)),
        }),
      },
    })),
  }));

  // The same rate as autocannon sends it, in bursts at the start of each second: what a
  // backend that batches its calls does to the tail.
  out.initiateBursts = await part('bursts', async () => ({
    rate,
    arrivals: `autocannon, ${Math.min(connections, 20)} connections, each its share at the start of every second`,
    ...(await measured(`initiate at ${rate}/s in bursts`, {
      url: stack.gatewayUrl,
      connections: Math.min(connections, 20),
      overallRate: rate,
      duration: rateSeconds,
      requests: [initiateRequest],
    })),
  }));

  const ratio =
    out.baseline?.requestsPerSecond > 0 && out.initiate?.requestsPerSecond !== undefined
      ? out.initiate.requestsPerSecond / out.baseline.requestsPerSecond
      : null;
  out.initiateToBaseline = round(ratio, 3);
  out.targets = {
    initiateToBaseline: {
      target: `>= ${GATEWAY_TARGETS.initiateToBaseline}`,
      value: round(ratio, 3),
      met: ratio !== null && ratio >= GATEWAY_TARGETS.initiateToBaseline,
    },
    fixedRateP99: {
      target: `p99 < ${GATEWAY_TARGETS.fixedRateP99Ms} ms at ${rate}/s`,
      value: out.initiateFixedRate?.latencyMs?.p99 ?? null,
      met:
        out.initiateFixedRate?.latencyMs !== undefined &&
        out.initiateFixedRate.latencyMs.p99 < GATEWAY_TARGETS.fixedRateP99Ms &&
        out.initiateFixedRate.non2xx === 0 &&
        out.initiateFixedRate.errors === 0,
    },
  };
  return out;
}
