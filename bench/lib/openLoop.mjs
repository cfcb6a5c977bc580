// Requests sent on a fixed schedule, whatever the answers: request i leaves at start + i / rate
// on a pool of kept-alive connections, and its latency counts from when it was due to leave,
// so time it spent waiting for the generator itself counts too (no coordinated omission).
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { percentile, round, sleep } from './util.mjs';

/** One request over `agent`; answers its status, or throws on a socket error or a timeout. */
function send(agent, url, { method, headers, body }, timeoutMs) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * `rate` requests a second for `seconds`, each `request(i)` ({method, headers, body}) sent to
 * `url` when due. Answers autocannon's summary fields: requests per second, latency
 * percentiles (ms, from when each request was due), status codes, errors and timeouts.
 */
export async function openLoop({ url, rate, seconds, request, timeoutMs = 10_000 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const total = Math.round(rate * seconds);
  const latencies = [];
  const statusCodes = {};
  let errors = 0;
  let timeouts = 0;
  const pending = [];
  const start = performance.now();
  try {
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      pending.push(
        send(agent, url, request(i), timeoutMs).then(
          (status) => {
            latencies.push(performance.now() - due);
            statusCodes[status] = (statusCodes[status] ?? 0) + 1;
          },
          (error) => {
            if (String(error?.message) === 'timeout') timeouts += 1;
            else errors += 1;
          },
        ),
      );
    }
    await Promise.all(pending);
  } finally {
    agent.destroy();
  }
  const elapsed = (performance.now() - start) / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  const ok2xx = Object.entries(statusCodes).reduce((n, [code, count]) => (code.startsWith('2') ? n + count : n), 0);
  return {
    requestsPerSecond: round(latencies.length / elapsed),
    requests: latencies.length,
    latencyMs: {
      mean: round(sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length), 2),
      p50: round(percentile(sorted, 50)),
      p90: round(percentile(sorted, 90)),
      p99: round(percentile(sorted, 99)),
      max: round(sorted.at(-1) ?? 0),
    },
    ok2xx,
    non2xx: latencies.length - ok2xx,
    statusCodes,
    errors,
    timeouts,
    seconds: round(elapsed, 2),
  };
}
