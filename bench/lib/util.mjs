// Small helpers shared by the benchmarks: time, statistics, ports, HTTP calls, tables.
/* global AbortSignal */
import { performance } from 'node:perf_hooks';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** `require` anchored at the repository root (built workspaces, root node_modules). */
export const requireFromRoot = createRequire(path.join(root, 'package.json'));

/** Wall-clock milliseconds with sub-millisecond resolution (comparable to Kafka timestamps). */
export const now = () => performance.timeOrigin + performance.now();
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function envInt(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return n;
}

/** Rejects after `ms` unless the promise settles first. */
export function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s`)), ms);
      timer.unref?.();
    }),
  ]).finally(() => clearTimeout(timer));
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** n, mean, p50, p95, p99, max of a list of numbers (milliseconds unless told), rounded. */
export function summarize(values, digits = 1) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const r = (v) => (v === null || v === undefined ? null : Number(v.toFixed(digits)));
  if (sorted.length === 0) return { n: 0, mean: null, p50: null, p95: null, p99: null, max: null };
  return {
    n: sorted.length,
    mean: r(sorted.reduce((t, v) => t + v, 0) / sorted.length),
    p50: r(percentile(sorted, 50)),
    p95: r(percentile(sorted, 95)),
    p99: r(percentile(sorted, 99)),
    max: r(sorted[sorted.length - 1]),
  };
}

export function isPortFree(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

export function freePort(host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** A JSON HTTP call; never throws on an HTTP status, only on a network error or timeout. Header names come lower-cased. */
export async function httpJson(method, url, { headers = {}, body, timeoutMs = 30_000 } = {}) {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: res.status, body: json, headers: Object.fromEntries(res.headers) };
}

/** Addresses of the local broker, registry and database as `scripts/infra env` prints them. */
export function infraEnv() {
  try {
    const out = execFileSync('bash', [path.join(root, 'scripts', 'infra'), 'env'], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    const env = {};
    for (const line of out.split('\n')) {
      const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
      if (m) env[m[1]] = m[2];
    }
    return env;
  } catch {
    return {};
  }
}

export const round = (v, digits = 1) =>
  v === null || v === undefined || !Number.isFinite(v) ? null : Number(v.toFixed(digits));

/** Prints rows as an aligned text table. */
export function formatTable(rows, columns) {
  const cells = rows.map((row) => columns.map((c) => (row[c] === null || row[c] === undefined ? '' : String(row[c]))));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i].length)));
  const line = (values) =>
    values
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

export const log = (...args) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...args);
