import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from './helpers';
import { freePort } from './stack';

/**
 * The benchmarks that reach into the code below the services (the scorecard's bench file, the
 * bus beneath the producer) run on the code as it is, scaled down: a rename or a move inside
 * the repository breaks them here rather than in the next `npm run bench`. Each runs in a node
 * process of its own, as `bench/run.mjs` runs it, and its figures are only checked for being
 * figures. The runner itself is checked where it must refuse to start.
 */
const ROOT = path.resolve(__dirname, '..');
const run = promisify(execFile);

async function benchResult(module: string, fn: string, env: Record<string, string>): Promise<Record<string, unknown>> {
  const script = `import(${JSON.stringify(path.join(ROOT, 'bench', module))}).then((m) => m.${fn}()).then((r) => console.log('RESULT ' + JSON.stringify(r)))`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    timeout: 240_000,
    maxBuffer: 10 * 1024 * 1024,
  });
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`no result from bench/${module}: ${stdout.slice(-2_000)}`);
  return JSON.parse(line.slice('RESULT '.length)) as Record<string, unknown>;
}

it('when the scorecard bench runs, then it scores and simulates and reports its figures', async () => {
  const result = await benchResult('scoring.mjs', 'runScoring', { BENCH_SCORING_ITERATIONS: '200', SIMULATED: '200' });
  expect(result).toMatchObject({ status: 'ok', iterations: 200 });
  expect(result.meanMs).toEqual(expect.any(Number));
  expect(result.decisionsPerSecond).toBeGreaterThan(0);
  expect(result.simulateMs).toEqual(expect.any(Number));
});

it('when the Kafka producer bench runs, then every producer it compares publishes and reports a rate', async () => {
  const result = await benchResult('kafka.mjs', 'runKafka', {
    BENCH_KAFKA_RECORDS: '1000',
    BENCH_KAFKA_SINGLE_RECORDS: '50',
    BENCH_KAFKA_BATCH: '100',
  });
  for (const producer of ['producerPerformance', 'wrapperBatched', 'wrapperSingle', 'rawKafkajs'])
    expect({ producer, ...(result[producer] as object) }).toMatchObject({ producer, status: 'ok' });
  expect(result.ratios).toMatchObject({ wrapperToRawKafkajs: expect.any(Number) });
});

it('when the infrastructure does not answer, then the bench says which part and how to start it, and stops without writing results', async () => {
  const port = await freePort();
  const results = path.join(ROOT, 'bench', 'results', 'latest.json');
  const before = statSync(results).mtimeMs;
  const outcome = await run(process.execPath, [path.join(ROOT, 'bench', 'run.mjs'), 'e2e'], {
    cwd: ROOT,
    env: { ...process.env, KAFKA_BROKERS: `127.0.0.1:${port}` },
    timeout: 60_000,
  }).then(
    () => ({ code: 0, stderr: '' }),
    (error: { code?: number; stderr?: string }) => ({ code: error.code, stderr: error.stderr ?? '' }),
  );
  expect(outcome.code).toBe(3);
  expect(outcome.stderr).toContain(`nothing answers for Kafka at 127.0.0.1:${port}`);
  expect(outcome.stderr).toContain('bash scripts/infra start');
  expect(statSync(results).mtimeMs).toBe(before);
});

/** The processes below `pid` (children, theirs, and so on), with their command lines. */
function descendantsOf(pid: number): { pid: number; args: string }[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const found: { pid: number; args: string }[] = [];
  const parents = [pid];
  while (parents.length > 0) {
    const parent = parents.pop();
    for (const row of rows.filter((r) => r.ppid === parent)) {
      found.push({ pid: row.pid, args: row.args });
      parents.push(row.pid);
    }
  }
  return found;
}

/** Whether a process runs (a zombie waiting to be reaped does not). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

it('when the bench is stopped while its stack is starting, then no process of that stack outlives it', async () => {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'bench-results-'));
  const bench = spawn(process.execPath, [path.join(ROOT, 'bench', 'run.mjs'), 'e2e'], {
    cwd: ROOT,
    env: { ...process.env, BENCH_RESULTS_DIR: resultsDir },
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((resolve) => bench.on('exit', (code) => resolve(code)));
  let stack: { pid: number; args: string }[] = [];
  try {
    stack = await waitFor(
      () => {
        const below = descendantsOf(bench.pid!);
        return below.some((p) => /dist\/start\.js/.test(p.args)) ? below : undefined;
      },
      { what: 'a process of the bench stack to start', timeoutMs: 60_000, intervalMs: 100 },
    );
    bench.kill('SIGTERM');
    expect(await exited).toBe(143);
    await waitFor(() => stack.every((p) => !running(p.pid)), { what: 'every process of the stack to be gone' });
  } finally {
    for (const p of [{ pid: bench.pid! }, ...stack].filter((p) => running(p.pid))) process.kill(p.pid, 'SIGKILL');
  }
});
