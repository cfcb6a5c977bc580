// The scorecard alone (no I/O): services/scoring/bench/scorecard.bench.ts, a 12-month, 3-account
// application scored over and over, run as its header says (scripts/run-ts.js: it imports the
// golden table's TypeScript beside the scoring domain, and the workspaces from their dist/).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { runNode } from './lib/transpile.mjs';
import { envInt, root } from './lib/util.mjs';

export const SCORING_TARGET_MS = 20;

export async function runScoring() {
  const serviceDir = path.join(root, 'services', 'scoring');
  const benchFile = path.join(serviceDir, 'bench', 'scorecard.bench.ts');
  if (!existsSync(benchFile)) return { status: 'not run', reason: `${path.relative(root, benchFile)} does not exist` };
  if (!existsSync(path.join(serviceDir, 'dist', 'domain', 'scoreApplication'))) {
    return { status: 'not run', reason: 'services/scoring is not built (npx tsc -b)' };
  }
  const iterations = envInt('BENCH_SCORING_ITERATIONS', 3_000);
  const run = await runNode(path.join(root, 'scripts', 'run-ts.js'), {
    args: [benchFile],
    env: { ITERATIONS: String(iterations) },
    timeoutMs: 120_000,
  });
  if (run.code !== 0) {
    return {
      status: 'failed',
      reason: run.timedOut ? 'timed out after 120 s' : `exit ${run.code}`,
      output: (run.stderr || run.stdout).slice(-2_000),
    };
  }
  const number = (name) => {
    const m = new RegExp(`^${name}\\s+([\\d.]+)`, 'm').exec(run.stdout);
    return m ? Number(m[1]) : null;
  };
  const meanUs = number('mean');
  const simulateMs = number('simulate');
  const p99Us = number('p99');
  const meanMs = meanUs === null ? null : meanUs / 1000;
  const p99Ms = p99Us === null ? null : p99Us / 1000;
  return {
    status: 'ok',
    what: run.stdout.split('\n')[0],
    iterations,
    decisionsPerSecond: number('decisions/sec'),
    // A credit policy replayed on 5,000 stored audits, against the active one (no database read).
    simulateMs,
    meanMs: meanMs === null ? null : Number(meanMs.toFixed(3)),
    p50Ms: number('p50') === null ? null : Number((number('p50') / 1000).toFixed(3)),
    p99Ms: p99Ms === null ? null : Number(p99Ms.toFixed(3)),
    target: {
      target: `<= ${SCORING_TARGET_MS} ms per decision (mean and p99)`,
      met: meanMs !== null && p99Ms !== null && meanMs <= SCORING_TARGET_MS && p99Ms <= SCORING_TARGET_MS,
    },
  };
}
