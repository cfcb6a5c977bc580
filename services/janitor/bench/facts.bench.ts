/**
 * Time per handled fact of the janitor's fact consumer against the real database (no broker:
 * the handler is called directly), while the collections grow: APPS applications (300 by
 * default), CONCURRENCY (3, as CONSUMER_CONCURRENCY) at a time, each through opened, two links,
 * two enrichments, finalize, analyze and close. Also the time of one scheduler pass.
 * Run after `npx tsc -b`, transpiled as bench/lib/transpile.mjs does for the other services'
 * benches: `transpileBench(<this file>, <absolute path of services/janitor>)`, then run the
 * output with node (APPS, CONCURRENCY, MONGO_URL from the environment). It uses a database of
 * its own and drops it afterwards.
 */
import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { Registry } from 'prom-client';
import { createLogger, systemClock, type InboundMessage } from '@loan/runtime';
import { createDeadlineGauges } from '../src/data-access/deadlineGauges';
import { createDeadlineRepository } from '../src/data-access/deadlineRepository';
import { createPublishLeases } from '../src/data-access/leases';
import { janitorModels } from '../src/data-access/models';
import { createTimelineRepository } from '../src/data-access/timelineRepository';
import { createFactHandler } from '../src/entry-points/consumers/trackFacts';
import { createScheduler } from '../src/entry-points/scheduler/fireDueDeadlines';
import { createJanitorMetrics } from '../src/metrics';

const APPS = Number(process.env.APPS ?? 300);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 3);
const DAY = 86_400_000;

function factsOf(start: number) {
  const applicationId = randomUUID();
  const base = { clientId: 'client-bench', applicationId, applicantId: randomUUID() };
  const [a1, a2] = [randomUUID(), randomUUID()];
  const at = (ms: number) => new Date(start + ms).toISOString();
  const account = (accountId: string) => ({ accountId, providerAccountId: `mono-${accountId.slice(0, 8)}` });
  const fact = (type: string, ms: number, extra: Record<string, unknown> = {}) => ({
    factId: randomUUID(),
    ...base,
    type,
    at: at(ms),
    ...extra,
  });
  return [
    fact('ApplicationOpened', 0),
    fact('AccountLinked', 1_000, account(a1)),
    fact('AccountLinked', 2_000, account(a2)),
    fact('AccountEnriched', 60_000, { ...account(a1), attempt: 1 }),
    fact('AccountEnriched', 61_000, { ...account(a2), attempt: 1 }),
    fact('LinkingFinalized', 62_000),
    fact('AnalysisRequested', 63_000, { accountIds: [a1, a2] }),
    fact('ApplicationClosed', 64_000, { status: 'COMPLETED', abandonReason: null }),
  ];
}

const message = (value: unknown): InboundMessage => ({
  topic: 'bench',
  partition: 0,
  offset: '0',
  key: null,
  value,
  headers: {},
  timestamp: String(Date.now()),
});

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)] ?? 0;

async function main() {
  const dbName = `janitor_bench_${Date.now()}`;
  const db = await mongoose
    .createConnection(process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/', { dbName })
    .asPromise();
  try {
    const models = janitorModels(db);
    await db.syncIndexes();
    const logger = createLogger('janitor-bench', 'silent');
    const deadlines = createDeadlineRepository(models);
    const timelines = createTimelineRepository(models);
    const metrics = createJanitorMetrics(new Registry(), createDeadlineGauges(models));
    const ttls = {
      no_link: DAY,
      no_analyze: 7 * DAY,
      enrichment_timeout: 20 * 60_000,
      analysis_timeout: 5 * 60_000,
      bank_data_retention: 90 * DAY,
      record_retention: 1827 * DAY,
    };
    const handle = createFactHandler({ timelines, deadlines, ttls, clock: systemClock, metrics, logger });
    const relay = { flush: async () => undefined };
    const relays = { timeline: relay, outcome: relay };
    const scheduler = createScheduler({
      deadlines,
      leases: createPublishLeases(models),
      relays,
      clock: systemClock,
      metrics,
      logger,
      settings: {
        pollIntervalMs: 500,
        batchSize: 100,
        publishLeaseMs: 30_000,
        reloadIntervalMs: 60_000,
        reloadLookbackMs: 86_400_000,
      },
    });

    const times: number[] = [];
    const byBlock: { apps: number; meanMs: number }[] = [];
    let next = 0;
    let blockStart = 0;
    const start = Date.now();
    async function worker() {
      for (;;) {
        const i = next++;
        if (i >= APPS) return;
        for (const fact of factsOf(start + i * 100_000)) {
          const t0 = performance.now();
          await handle(message(fact));
          times.push(performance.now() - t0);
        }
        if ((i + 1) % 100 === 0) {
          byBlock.push({ apps: i + 1, meanMs: Number(mean(times.slice(blockStart)).toFixed(2)) });
          blockStart = times.length;
        }
      }
    }
    const t0 = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const wall = performance.now() - t0;
    const p0 = performance.now();
    await scheduler.tick();
    const tickMs = performance.now() - p0;

    console.log(`janitor facts: ${APPS} applications, ${times.length} facts, concurrency ${CONCURRENCY}`);
    console.log(`mean ms/fact   ${mean(times).toFixed(2)}`);
    console.log(`p50 ms/fact    ${pct(times, 0.5).toFixed(2)}`);
    console.log(`p99 ms/fact    ${pct(times, 0.99).toFixed(2)}`);
    console.log(`facts/sec      ${((times.length / wall) * 1000).toFixed(1)}`);
    console.log(`mean by 100 applications  ${byBlock.map((b) => `${b.apps}:${b.meanMs}`).join(' ')}`);
    console.log(`scheduler pass ms  ${tickMs.toFixed(1)}`);
  } finally {
    await db.dropDatabase();
    await db.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
