import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { Counter, Registry } from 'prom-client';
import { Topics } from '@loan/contracts';
import { connectMongo, createLogger, syncIndexes, type InboundMessage } from '@loan/runtime';
import { uniqueName } from '@testing/helpers';
import { factsOf } from '../__tests__/facts';
import type { DeadlineTtls } from '../domain/deadline';
import { fireDeadline } from '../domain/fireDeadline/decide';
import type { TrackedFact } from '../domain/trackDeadlines/decide';
import { createFactHandler } from '../entry-points/consumers/trackFacts';
import { createJanitorMetrics } from '../metrics';
import { createDeadlineRepository } from './deadlineRepository';
import { createDeadlineGauges } from './deadlineGauges';
import { janitorModels } from './models';
import { createTimelineRepository } from './timelineRepository';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ttls: DeadlineTtls = {
  no_link: DAY,
  no_analyze: 7 * DAY,
  enrichment_timeout: 20 * 60_000,
  analysis_timeout: 5 * 60_000,
  bank_data_retention: 90 * DAY,
};
const t0 = Date.parse('2026-11-01T08:00:00.000Z');
const at = (ms: number) => new Date(t0 + ms).toISOString();
const message = (fact: TrackedFact) => ({ value: fact }) as InboundMessage;

/**
 * The fact consumer and the firing of deadlines against the real database, without a broker:
 * what each fact costs in database commands, and races between a cancellation and firings.
 */
describe('deadlines in their timeline, against the real database', () => {
  let db: Connection;
  const registry = new Registry();
  const commands = new Counter({
    name: 'commands',
    help: 'commands',
    labelNames: ['command', 'collection'] as const,
    registers: [registry],
  });
  let now = new Date(t0);
  let repos: {
    deadlines: ReturnType<typeof createDeadlineRepository>;
    handle: (message: InboundMessage) => Promise<void>;
  };

  /** A process of the janitor: its own repositories and memory, on the shared database. */
  function replica() {
    const models = janitorModels(db);
    const deadlines = createDeadlineRepository(models);
    const timelines = createTimelineRepository(models);
    const handle = createFactHandler({
      timelines,
      deadlines,
      ttls,
      clock: { now: () => now },
      metrics: createJanitorMetrics(new Registry(), createDeadlineGauges(models)),
      logger: createLogger('janitor-test', 'silent'),
    });
    return { deadlines, handle };
  }

  beforeAll(async () => {
    db = await connectMongo({
      url: process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/',
      dbName: uniqueName('janitor_timeline_deadlines').replace(/-/g, '_'),
      logger: createLogger('janitor-test', 'silent'),
      commands,
    });
    janitorModels(db);
    await syncIndexes(db);
    repos = replica();
  });
  afterAll(async () => {
    await db.dropDatabase();
    await db.close();
  });

  /** The database commands sent while `work` ran, as `command collection`. */
  async function commandsOf(work: () => Promise<unknown>): Promise<string[]> {
    const before = (await commands.get()).values.map((v) => ({ ...v }));
    await work();
    const sent: string[] = [];
    for (const v of (await commands.get()).values) {
      const earlier = before.find(
        (b) => b.labels.command === v.labels.command && b.labels.collection === v.labels.collection,
      );
      for (let i = 0; i < v.value - (earlier?.value ?? 0); i++) sent.push(`${v.labels.command} ${v.labels.collection}`);
    }
    return sent.sort();
  }

  it('when an application goes from opening to decision, then each fact that concerns a deadline is one write of its timeline and nothing else', async () => {
    const app = factsOf();
    const [a, b] = [randomUUID(), randomUUID()];
    now = new Date(t0);
    const facts = [
      app.opened(at(0)),
      app.linked(a, at(1_000)),
      app.linked(b, at(2_000)),
      app.enriched(a, 1, at(60_000)),
      app.enriched(b, 1, at(61_000)),
      app.finalized(at(62_000)),
      app.analysisRequested(at(63_000), [a, b]),
      app.closed(at(64_000), 'COMPLETED'),
    ];
    const perFact: string[][] = [];
    for (const fact of facts) perFact.push(await commandsOf(() => repos.handle(message(fact))));
    expect(perFact).toEqual([
      ['insert timeline_heads'],
      ['update timeline_heads'],
      ['update timeline_heads'],
      ['update timeline_heads'],
      ['update timeline_heads'],
      [], // LinkingFinalized starts or stops no deadline
      ['update timeline_heads'],
      ['update timeline_heads'],
    ]);
    const stored = await repos.deadlines.listByApplication(app.applicationId);
    expect(stored.map((d) => [d.kind, d.status])).toEqual([
      ['no_link', 'CANCELLED'],
      ['no_analyze', 'CANCELLED'],
      ['enrichment_timeout', 'CANCELLED'],
      ['enrichment_timeout', 'CANCELLED'],
      ['analysis_timeout', 'CANCELLED'],
      ['bank_data_retention', 'ARMED'],
    ]);
  });

  it('when a fact cancels a deadline while replicas fire it, then either it fired exactly once or it was cancelled and never fires', async () => {
    const outcomes = { fired: 0, cancelled: 0 };
    for (let round = 0; round < 12; round++) {
      const app = factsOf();
      const noLink = `no_link:${app.applicationId}:${at(0)}`;
      const here = replica();
      const there = replica();
      now = new Date(t0);
      await here.handle(message(app.opened(at(0))));
      await there.deadlines.reloadArmed(new Date(t0 + DAY), HOUR);
      now = new Date(t0 + DAY);
      // Both replicas hold it as due: `here` armed it, `there` read it in a reload.
      const claims = [here, there].map((r) => {
        const d = r.deadlines.findDue(now, 100).find((due) => due.deadlineId === noLink);
        expect(d).toBeDefined();
        const entry = { id: noLink, topic: Topics.deadlines, key: app.applicationId, value: fireDeadline(d!, now) };
        return r.deadlines.claim(d!, entry, now);
      });
      const [won] = await Promise.all([
        Promise.all(claims),
        // The first link at the moment no_link is due, on a third replica that reads the timeline.
        replica().handle(message(app.linked(randomUUID(), at(DAY)))),
      ]);
      const stored = await here.deadlines.get(noLink);
      const winners = won.filter(Boolean).length;
      if (stored?.status === 'FIRED') {
        expect(winners).toBe(1);
        expect(stored.published).toBe(false); // its message waits in the timeline's outbox
        outcomes.fired++;
      } else {
        expect(stored?.status).toBe('CANCELLED');
        expect(winners).toBe(0);
        outcomes.cancelled++;
      }
      // Later passes find it ended, whichever way it ended.
      const late = new Date(t0 + 2 * DAY);
      const again = {
        deadlineId: noLink,
        kind: 'no_link' as const,
        clientId: app.clientId,
        applicationId: app.applicationId,
        accountId: null,
        attempt: null,
        since: at(0),
        dueAt: new Date(t0 + DAY),
        legacy: false,
      };
      expect(
        await there.deadlines.claim(
          again,
          { id: noLink, topic: Topics.deadlines, key: app.applicationId, value: fireDeadline(again, late) },
          late,
        ),
      ).toBe(false);
      const after = await here.deadlines.listByApplication(app.applicationId);
      expect(after.find((d) => d.kind === 'no_analyze')?.status).toBe('ARMED');
      expect(after.find((d) => d.kind === 'no_link')?.status).toBe(stored?.status);
    }
    expect(outcomes.fired + outcomes.cancelled).toBe(12);
  });
});
