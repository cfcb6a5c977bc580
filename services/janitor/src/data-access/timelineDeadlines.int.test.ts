import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { Counter, Registry } from 'prom-client';
import { Topics } from '@loan/contracts';
import { connectMongo, createLogger, syncIndexes, type InboundMessage } from '@loan/runtime';
import { uniqueName, waitFor } from '@testing/helpers';
import { factsOf } from '../__tests__/facts';
import { type DeadlineTtls, hourOf } from '../domain/deadline';
import { fireDeadline } from '../domain/fireDeadline/decide';
import type { TrackedFact } from '../domain/trackDeadlines/decide';
import { createFactHandler } from '../entry-points/consumers/trackFacts';
import { createJanitorMetrics } from '../metrics';
import { createDeadlineRepository } from './deadlineRepository';
import { createDeadlineGauges } from './deadlineGauges';
import { janitorModels } from './models';
import { createTimelineRepository } from './timelineRepository';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** The scheduler's window: the next two reloads ahead, a day back. */
const window = { aheadMs: 2 * MINUTE, lookbackMs: DAY };
const ttls: DeadlineTtls = {
  no_link: DAY,
  no_analyze: 7 * DAY,
  enrichment_timeout: 20 * 60_000,
  analysis_timeout: 5 * 60_000,
  bank_data_retention: 90 * DAY,
  offer_expiry: 0,
  record_retention: 1827 * DAY,
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

  /**
   * A process of the janitor: its own repositories, memory and metrics, on the shared database.
   * `scrape` reads one of its metrics as Prometheus would.
   */
  function replica(options: { armedScanIntervalMs?: number; scrapeWaitMs?: number } = {}) {
    const models = janitorModels(db);
    const clock = { now: () => now };
    const deadlines = createDeadlineRepository(models);
    const timelines = createTimelineRepository(models);
    const gauges = createDeadlineGauges({
      models,
      deadlines,
      clock,
      armedScanIntervalMs: options.armedScanIntervalMs ?? 0,
      scrapeWaitMs: options.scrapeWaitMs ?? 60_000,
    });
    const registry = new Registry();
    const handle = createFactHandler({
      timelines,
      deadlines,
      ttls,
      clock,
      metrics: createJanitorMetrics(registry, gauges, () => now),
      logger: createLogger('janitor-test', 'silent'),
    });
    const scrape = (name: string) => registry.getSingleMetricAsString(name);
    return { deadlines, gauges, handle, scrape };
  }

  /** The value of an unlabelled gauge in a scrape, or null when the scrape has none. */
  const sampleOf = (text: string): number | null => {
    const value = /^\w+ (\S+)$/m.exec(text)?.[1];
    return value === undefined ? null : Number(value);
  };
  /** The value of a gauge of one kind in a scrape. */
  const kindSampleOf = (text: string, kind: string): number =>
    Number(new RegExp(`^\\w+\\{kind="${kind}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

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

  /** The timeline document of an application, as stored. */
  const headOf = (applicationId: string) =>
    db.collection<{ _id: string }>('timeline_heads').findOne({ _id: applicationId });

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
      ['record_retention', 'ARMED'],
    ]);
    // The timeline is filed under the hour of its earliest armed deadline, the bank data's retention.
    const retentionDue = new Date(Date.parse(at(64_000)) + ttls.bank_data_retention);
    expect(await headOf(app.applicationId)).toMatchObject({
      nextDueAt: retentionDue,
      nextDueHour: hourOf(retentionDue),
    });
  });

  it("when another replica armed a timeline's deadlines, then a periodic reload finds them by the hour of the timeline's earliest one, takes every one due by its horizon, and firing files the timeline under its next hour", async () => {
    const app = factsOf();
    const [a, b] = [randomUUID(), randomUUID()];
    const base = t0 + 30 * DAY;
    const here = replica();
    const there = replica();
    expect(await there.deadlines.reloadArmed(new Date(base), window)).toMatchObject({ full: true });

    // Enrichment timeouts due at 08:20:01 (a) and 09:10 (b); no_analyze 7 days on.
    now = new Date(base);
    await here.handle(message(app.opened(new Date(base).toISOString())));
    await here.handle(message(app.linked(a, new Date(base + 1_000).toISOString())));
    await here.handle(message(app.linked(b, new Date(base + 50 * MINUTE).toISOString())));
    const aDue = new Date(base + 20 * MINUTE + 1_000);
    const bDue = new Date(base + 70 * MINUTE);
    expect(await headOf(app.applicationId)).toMatchObject({ nextDueAt: aDue, nextDueHour: '2026-12-01T08' });

    // a is overdue by 49 minutes and still armed: its timeline is found by a's hour, and b with it.
    const reloadAt = new Date(base + 69 * MINUTE);
    expect(await there.deadlines.reloadArmed(reloadAt, window)).toMatchObject({ full: false });
    const due = there.deadlines.findDue(bDue, 100).filter((d) => d.applicationId === app.applicationId);
    expect(due.map((d) => [d.kind, d.accountId, d.dueAt])).toEqual([
      ['enrichment_timeout', a, aDue],
      ['enrichment_timeout', b, bDue],
    ]);

    now = bDue;
    const entry = (d: (typeof due)[number]) => ({
      id: d.deadlineId,
      topic: Topics.deadlines,
      key: d.applicationId,
      value: fireDeadline(d, now),
    });
    expect(await there.deadlines.claim(due[0]!, entry(due[0]!), now)).toBe(true);
    expect(await headOf(app.applicationId)).toMatchObject({ nextDueAt: bDue, nextDueHour: '2026-12-01T09' });
    expect(await there.deadlines.claim(due[1]!, entry(due[1]!), now)).toBe(true);
    const noAnalyzeDue = new Date(base + 1_000 + ttls.no_analyze);
    expect(await headOf(app.applicationId)).toMatchObject({
      nextDueAt: noAnalyzeDue,
      nextDueHour: hourOf(noAnalyzeDue),
    });
  });

  it('when a deadline this replica remembers is due before the first hour a periodic reload covers, then that reload does not forget it', async () => {
    const app = factsOf();
    const base = t0 + 60 * DAY;
    const r = replica();
    expect(await r.deadlines.reloadArmed(new Date(base), window)).toMatchObject({ full: true });
    // An opening handled three days late: its no_link has been due for two days.
    now = new Date(base);
    await r.handle(message(app.opened(new Date(base - 3 * DAY).toISOString())));
    const noLink = `no_link:${app.applicationId}:${new Date(base - 3 * DAY).toISOString()}`;
    expect(r.deadlines.findDue(now, 100).map((d) => d.deadlineId)).toContain(noLink);

    expect(await r.deadlines.reloadArmed(new Date(base + MINUTE), window)).toMatchObject({ full: false });
    expect(r.deadlines.findDue(new Date(base + MINUTE), 100).map((d) => d.deadlineId)).toContain(noLink);
  });

  it('when an earlier version wrote timelines without the hour of their next deadline, or with a wrong one, then the first reload is full, finds the due ones and files them all under their hour, and a periodic reload then finds the later ones', async () => {
    const base = t0 + 90 * DAY;
    /** A timeline whose one deadline, no_link, started at `since`, as an earlier version wrote it. */
    const previousHead = (since: number, fields: Record<string, unknown> = {}) => {
      const app = factsOf();
      const dueAt = new Date(since + ttls.no_link);
      const deadlineId = `no_link:${app.applicationId}:${new Date(since).toISOString()}`;
      return {
        deadlineId,
        dueAt,
        doc: {
          _id: app.applicationId,
          applicationId: app.applicationId,
          clientId: app.clientId,
          rev: 1,
          linkWindowStart: new Date(since).toISOString(),
          accounts: [],
          armed: [],
          deadlines: [
            {
              deadlineId,
              kind: 'no_link',
              accountId: null,
              attempt: null,
              since: new Date(since).toISOString(),
              dueAt,
              status: 'ARMED',
              armedAt: new Date(since),
              firedAt: null,
              cancelledAt: null,
            },
          ],
          nextDueAt: dueAt,
          outbox: [],
          outboxPending: false,
          outboxAt: null,
          ...fields,
        },
      };
    };
    // Overdue by three days (a janitor was down), due within the hour, due in two hours with a wrong hour.
    const overdue = previousHead(base - 4 * DAY);
    const soon = previousHead(base - DAY + 30 * MINUTE);
    const later = previousHead(base - DAY + 2 * HOUR, { nextDueHour: '2026-01-01T00' });
    await db.collection('timeline_heads').insertMany([overdue.doc, soon.doc, later.doc] as never[]);

    const r = replica();
    const first = await r.deadlines.reloadArmed(new Date(base), window);
    expect(first).toMatchObject({ full: true });
    expect(first.filed).toBeGreaterThanOrEqual(3);
    expect(r.deadlines.findDue(new Date(base), 100).map((d) => d.deadlineId)).toContain(overdue.deadlineId);
    for (const { doc, dueAt } of [overdue, soon, later]) {
      expect(await headOf(doc._id)).toMatchObject({ nextDueAt: dueAt, nextDueHour: hourOf(dueAt) });
    }

    const there = replica();
    await there.deadlines.reloadArmed(new Date(base), window);
    const reloadAt = new Date(later.dueAt.getTime() - MINUTE);
    expect(await there.deadlines.reloadArmed(reloadAt, window)).toMatchObject({ full: false });
    expect(there.deadlines.findDue(later.dueAt, 100).map((d) => d.deadlineId)).toEqual(
      expect.arrayContaining([soon.deadlineId, later.deadlineId]),
    );
  });

  it('when a deadline is armed and past due but not fired, then the overdue gauge counts it from memory without reading the database, and no longer once it fired', async () => {
    // Long before the other cases' deadlines: none of theirs is due by then.
    const base = t0 - 400 * DAY;
    const app = factsOf();
    const openedAt = new Date(base).toISOString();
    const noLinkDue = new Date(base + ttls.no_link);
    const here = replica();
    const there = replica();
    now = new Date(base);

    // Before its first reload a replica knows only what it armed itself: it reports no count.
    expect(sampleOf(await here.scrape('janitor_deadlines_overdue'))).toBeNull();
    expect(await here.deadlines.reloadArmed(now, window)).toMatchObject({ full: true });
    expect(sampleOf(await here.scrape('janitor_deadlines_overdue'))).toBe(0);

    // Another replica arms it; this one finds it by a periodic reload shortly before it is due.
    await there.handle(message(app.opened(openedAt)));
    now = new Date(noLinkDue.getTime() - MINUTE);
    expect(await here.deadlines.reloadArmed(now, window)).toMatchObject({ full: false });
    expect(sampleOf(await here.scrape('janitor_deadlines_overdue'))).toBe(0);

    // Past due and not fired (no pass ran): counted, and the scrape sends no database command.
    now = new Date(noLinkDue.getTime() + MINUTE);
    let scraped = '';
    expect(
      await commandsOf(async () => {
        scraped = await here.scrape('janitor_deadlines_overdue');
      }),
    ).toEqual([]);
    expect(sampleOf(scraped)).toBe(1);

    const [due] = here.deadlines.findDue(now, 100).filter((d) => d.applicationId === app.applicationId);
    expect(due?.kind).toBe('no_link');
    const entry = {
      id: due!.deadlineId,
      topic: Topics.deadlines,
      key: app.applicationId,
      value: fireDeadline(due!, now),
    };
    expect(await here.deadlines.claim(due!, entry, now)).toBe(true);
    expect(sampleOf(await here.scrape('janitor_deadlines_overdue'))).toBe(0);
  });

  it('when the armed deadlines are scraped twice within the scan interval, then the database is read once and the second scrape reports the counts of the first', async () => {
    const base = t0 + 200 * DAY;
    const r = replica({ armedScanIntervalMs: 5 * MINUTE });
    now = new Date(base);

    let first = '';
    expect(
      await commandsOf(async () => {
        first = await r.scrape('janitor_deadlines_armed');
      }),
    ).toEqual(['find deadlines', 'find timeline_heads']);
    const noLinks = kindSampleOf(first, 'no_link');
    expect(noLinks).toBeGreaterThanOrEqual(0);

    // An opening arms a no_link; the next scrape, two minutes on, still reports the first count.
    await r.handle(message(factsOf().opened(new Date(base).toISOString())));
    now = new Date(base + 2 * MINUTE);
    let second = '';
    expect(
      await commandsOf(async () => {
        second = await r.scrape('janitor_deadlines_armed');
      }),
    ).toEqual([]);
    expect(kindSampleOf(second, 'no_link')).toBe(noLinks);

    // Once the interval has passed, a scrape counts again.
    now = new Date(base + 5 * MINUTE);
    let third = '';
    expect(
      await commandsOf(async () => {
        third = await r.scrape('janitor_deadlines_armed');
      }),
    ).toEqual(['find deadlines', 'find timeline_heads']);
    expect(kindSampleOf(third, 'no_link')).toBe(noLinks + 1);
  });

  it('when a scrape does not wait for the count of the armed deadlines, then it reports none until a count has finished, and then that count, while the count goes on without it', async () => {
    const base = t0 + 300 * DAY;
    const r = replica({ armedScanIntervalMs: 5 * MINUTE, scrapeWaitMs: 0 });
    now = new Date(base);
    await r.handle(message(factsOf().opened(new Date(base).toISOString())));

    // The scrape returns before the count (begun by it) has read anything.
    expect(await r.scrape('janitor_deadlines_armed')).not.toMatch(/kind="no_link"/);
    const counted = await r.gauges.countArmed('no_link');
    expect(counted).toBeGreaterThanOrEqual(1);
    let text = '';
    await waitFor(async () => /kind="no_link"/.test((text = await r.scrape('janitor_deadlines_armed'))), {
      what: 'the finished count scraped',
    });
    expect(kindSampleOf(text, 'no_link')).toBe(counted);
  });

  it('when scrapes come while a count of the armed deadlines is under way, then they share it rather than each begin another, even past the scan interval', async () => {
    const r = replica({ armedScanIntervalMs: 0, scrapeWaitMs: 0 });
    now = new Date(t0 + 301 * DAY);
    expect(
      await commandsOf(async () => {
        await r.scrape('janitor_deadlines_armed');
        await r.scrape('janitor_deadlines_armed');
        await r.gauges.countArmed('no_link');
      }),
    ).toEqual(['find deadlines', 'find timeline_heads']);
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
      await there.deadlines.reloadArmed(new Date(t0 + DAY), { aheadMs: HOUR, lookbackMs: DAY });
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
