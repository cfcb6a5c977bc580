import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The benchmarks that reach into the code below the services (the scorecard's bench file, the
 * bus beneath the producer) run on the code as it is, scaled down: a rename or a move inside
 * the repository breaks them here rather than in the next `npm run bench`. Each runs in a node
 * process of its own, as `bench/run.mjs` runs it, and its figures are only checked for being
 * figures.
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
