import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { waitFor } from '../testing/helpers';
import { applicant, call, startWholeStack, suiteNamespace } from '../testing/stack';

/**
 * What a kubelet sees through `/readyz` while the broker or the database is gone: every
 * service turns unready, naming the dependency, and ready again once it is back. The broker is
 * frozen (SIGSTOP: connections open, nothing answers, as behind a dead network path); the
 * database is killed (SIGKILL: connections refused) and started again by the infra script.
 * These suites stop the shared infrastructure, so they run alone after the other tiers.
 */
const INFRA = path.resolve(__dirname, '../scripts/infra');
const infra = (...args: string[]) => execFileSync('bash', [INFRA, ...args], { encoding: 'utf8' }).trim();

const ns = suiteNamespace();
let stack: Awaited<ReturnType<typeof startWholeStack>>;
let frozenKafka: number | undefined;

beforeAll(async () => {
  stack = await startWholeStack(ns, { RATE_LIMITS_ENABLED: 'false' });
});

afterAll(async () => {
  if (frozenKafka) process.kill(frozenKafka, 'SIGCONT');
  infra('start');
  await stack?.stop();
});

type Readiness = { name: string; status: number; checks: Record<string, boolean> };

async function readiness(): Promise<Readiness[]> {
  return Promise.all(
    stack.services.map(async (s) => {
      const res = await fetch(`${s.opsUrl}/readyz`, { signal: AbortSignal.timeout(8_000) });
      const body = (await res.json()) as { checks: Record<string, boolean> };
      return { name: s.name, status: res.status, checks: body.checks };
    }),
  );
}

const everyService = (predicate: (r: Readiness) => boolean, what: string) =>
  waitFor(
    async () => {
      const all = await readiness();
      return all.every(predicate) && all;
    },
    { timeoutMs: 60_000, intervalMs: 500, what },
  );

it('when every dependency is up, then every service is ready', async () => {
  const all = await everyService((r) => r.status === 200, 'all ready');
  expect(all.map((r) => r.name).sort()).toEqual([
    'applications',
    'enrichment',
    'gateway',
    'janitor',
    'notifier',
    'scoring',
  ]);
  for (const r of all) expect(r.checks).toMatchObject({ kafka: true, database: true });
});

it('when the broker stops answering, then every service turns unready naming kafka, and ready again when it answers', async () => {
  frozenKafka = Number(infra('pid', 'kafka'));
  process.kill(frozenKafka, 'SIGSTOP');
  const down = await everyService((r) => r.status === 503 && r.checks.kafka === false, 'unready on kafka');
  for (const r of down) expect(r.checks.database).toBe(true);

  process.kill(frozenKafka, 'SIGCONT');
  frozenKafka = undefined;
  await everyService((r) => r.status === 200 && r.checks.kafka === true, 'ready after kafka returns');
});

it('when the database is killed, then every service turns unready naming the database, and ready again once it is restarted', async () => {
  process.kill(Number(infra('pid', 'ferretdb')), 'SIGKILL');
  const down = await everyService((r) => r.status === 503 && r.checks.database === false, 'unready on database');
  for (const r of down) expect(r.checks.kafka).toBe(true);

  infra('start');
  await everyService((r) => r.status === 200 && r.checks.database === true, 'ready after the database returns');

  // And the stack takes work again.
  const res = await call(stack.gatewayUrl, stack.lender.apiKey, 'POST', '/api/applications/initiate', applicant());
  expect(res.status).toBe(201);
});
