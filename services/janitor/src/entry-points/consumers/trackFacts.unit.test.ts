import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { createLogger, type InboundMessage } from '@loan/runtime';
import { factsOf } from '../../__tests__/facts';
import type { DeadlineRepository } from '../../data-access/deadlineRepository';
import type { StoredTimeline, TimelineRepository } from '../../data-access/timelineRepository';
import type { DeadlineStatus, DeadlineTtls } from '../../domain/deadline';
import type { TrackedFact } from '../../domain/trackDeadlines/decide';
import { createJanitorMetrics } from '../../metrics';
import { createFactHandler } from './trackFacts';

const HOUR = 3_600_000;
const ttls: DeadlineTtls = {
  no_link: 24 * HOUR,
  no_analyze: 7 * 24 * HOUR,
  enrichment_timeout: 20 * 60_000,
  analysis_timeout: 5 * 60_000,
  bank_data_retention: 90 * 24 * HOUR,
  offer_expiry: 0,
  record_retention: 1827 * 24 * HOUR,
};
const t0 = new Date('2026-11-01T08:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms).toISOString();
const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The repositories as the database behaves, in memory: a revision is written only after the
 * one read (the second writer of a revision loses), with the application's deadlines in the
 * same write. Every call yields first, so concurrent handlers interleave; `crash` makes the
 * named call throw once.
 */
function fakeStore() {
  const revisions = new Map<string, StoredTimeline>();
  const crashes = new Set<'save'>();
  const crashIf = (what: 'save') => {
    if (crashes.delete(what)) throw new Error(`process killed before ${what}`);
  };
  const newest = (applicationId: string) => {
    let found: StoredTimeline | null = null;
    for (let rev = 1; revisions.has(`${applicationId}:${rev}`); rev++)
      found = revisions.get(`${applicationId}:${rev}`)!;
    return found;
  };
  let reads = 0;
  const timelines: Pick<TimelineRepository, 'get' | 'save'> = {
    async get(applicationId) {
      reads++;
      await tick();
      const found = newest(applicationId);
      return found && structuredClone(found);
    },
    async save(timeline, armed, deadlines, rev) {
      await tick();
      crashIf('save');
      const id = `${timeline.applicationId}:${rev + 1}`;
      if (revisions.has(id)) return false;
      revisions.set(id, structuredClone({ timeline, armed, deadlines: [...deadlines], rev: rev + 1 }));
      return true;
    },
  };
  const repo: Pick<DeadlineRepository, 'recordCancel' | 'settle' | 'track'> = {
    async recordCancel() {
      throw new Error('no deadline of an earlier version here');
    },
    async settle(held, arms) {
      if (held.length > 0 || arms.length > 0) throw new Error('no deadline of an earlier version here');
      return new Set<string>();
    },
    track() {},
  };
  const all = () =>
    [...revisions.keys()].map((key) => key.slice(0, key.lastIndexOf(':'))).flatMap((id) => newest(id)?.deadlines ?? []);
  return {
    crashes,
    reads: () => reads,
    armed: () =>
      [
        ...new Set(
          all()
            .filter((d) => d.status === 'ARMED')
            .map((d) => d.deadlineId),
        ),
      ].sort(),
    statusOf: (deadlineId: string): DeadlineStatus | null =>
      all().find((d) => d.deadlineId === deadlineId)?.status ?? null,
    handler: () =>
      createFactHandler({
        timelines,
        deadlines: repo,
        ttls,
        clock: { now: () => t0 },
        metrics: createJanitorMetrics(new Registry(), {
          armedByKind: async () => ({
            no_link: 0,
            no_analyze: 0,
            enrichment_timeout: 0,
            analysis_timeout: 0,
            bank_data_retention: 0,
            consent_expiry: 0,
            consent_lapse: 0,
            offer_expiry: 0,
            record_retention: 0,
          }),
          countArmed: async () => 0,
          countUnpublished: async () => 0,
          countOverdue: () => 0,
        }),
        logger: createLogger('janitor-test', 'silent'),
      }),
  };
}

const message = (fact: TrackedFact) => ({ value: fact }) as InboundMessage;

async function sequentially(facts: TrackedFact[]) {
  const store = fakeStore();
  const handle = store.handler();
  for (const fact of facts) await handle(message(fact));
  return store.armed();
}

describe('handling facts: crashes and concurrency', () => {
  it('when a fact cancels one deadline and arms the next, then both are in the one write of the timeline', async () => {
    const app = factsOf();
    const store = fakeStore();
    const handle = store.handler();
    await handle(message(app.opened(at(0))));
    await handle(message(app.linked(randomUUID(), at(HOUR))));
    expect(store.statusOf(`no_link:${app.applicationId}:${at(0)}`)).toBe('CANCELLED');
    expect(store.statusOf(`no_analyze:${app.applicationId}:${at(HOUR)}`)).toBe('ARMED');
  });

  it('when a fact is redelivered after a later fact cancelled what it armed, then nothing is armed again', async () => {
    const app = factsOf();
    const accountId = randomUUID();
    const store = fakeStore();
    const handle = store.handler();
    const opened = app.opened(at(0));
    const linked = app.linked(accountId, at(HOUR));
    await handle(message(opened));
    await handle(message(linked));
    await handle(message(app.enriched(accountId, 1, at(HOUR + 60_000))));
    await handle(message(opened));
    await handle(message(linked));
    expect(store.statusOf(`no_link:${app.applicationId}:${at(0)}`)).toBe('CANCELLED');
    expect(store.statusOf(`enrichment_timeout:${accountId}:${at(HOUR)}`)).toBe('CANCELLED');
    expect(store.armed()).toEqual([`no_analyze:${app.applicationId}:${at(HOUR)}`]);
  });

  it('when the result of an account comes between a crashed link and its redelivery, then no enrichment timeout stays armed', async () => {
    const app = factsOf();
    const accountId = randomUUID();
    const store = fakeStore();
    const handle = store.handler();
    await handle(message(app.opened(at(0))));
    store.crashes.add('save');
    await expect(handle(message(app.linked(accountId, at(HOUR))))).rejects.toThrow('killed');
    await handle(message(app.enriched(accountId, 1, at(HOUR + 60_000))));
    await handle(message(app.linked(accountId, at(HOUR))));
    expect(store.armed()).toEqual([`no_analyze:${app.applicationId}:${at(HOUR)}`]);
  });

  it('when the process dies before storing the timeline, then the redelivered fact cancels what it cancelled and arms the rest', async () => {
    const app = factsOf();
    const accountId = randomUUID();
    const store = fakeStore();
    const handle = store.handler();
    await handle(message(app.opened(at(0))));
    store.crashes.add('save');
    await expect(handle(message(app.linked(accountId, at(HOUR))))).rejects.toThrow('killed');
    await handle(message(app.linked(accountId, at(HOUR))));
    expect(store.armed()).toEqual(await sequentially([app.opened(at(0)), app.linked(accountId, at(HOUR))]));
  });

  it('when another replica handled a fact of the application after this one, then the next fact here is decided on the timeline it stored', async () => {
    const app = factsOf();
    const [a, b] = [randomUUID(), randomUUID()];
    const store = fakeStore();
    const [here, there] = [store.handler(), store.handler()];
    await here(message(app.opened(at(0))));
    await here(message(app.linked(a, at(HOUR))));
    await there(message(app.linked(b, at(HOUR + 1))));
    // Here, b is unknown from what this process stored itself: its result must not be dropped.
    await here(message(app.enriched(b, 1, at(HOUR + 60_000))));
    await here(message(app.enriched(a, 1, at(HOUR + 60_001))));
    const expected = await sequentially([
      app.opened(at(0)),
      app.linked(a, at(HOUR)),
      app.linked(b, at(HOUR + 1)),
      app.enriched(b, 1, at(HOUR + 60_000)),
      app.enriched(a, 1, at(HOUR + 60_001)),
    ]);
    expect(store.armed()).toEqual(expected);
    expect(expected).toEqual([`no_analyze:${app.applicationId}:${at(HOUR)}`]);
  });

  it('when facts of both topics of one application are handled at once, then the deadlines are those of handling them one after the other', async () => {
    for (let round = 0; round < 20; round++) {
      const app = factsOf();
      const [a, b] = [randomUUID(), randomUUID()];
      const links = [app.opened(at(0)), app.linked(a, at(HOUR)), app.linked(b, at(HOUR + 1))];
      const results = [app.enriched(a, 1, at(HOUR + 60_000)), app.enriched(b, 1, at(HOUR + 60_001))];
      const store = fakeStore();
      // Two replicas, one per topic, each handling its partition in order.
      const [one, two] = [store.handler(), store.handler()];
      await Promise.all([
        (async () => {
          for (const fact of links) await one(message(fact));
        })(),
        (async () => {
          for (let i = 0; i < round % 4; i++) await tick();
          for (const fact of results) await two(message(fact));
        })(),
      ]);
      expect(store.armed()).toEqual(await sequentially([...links, ...results]));
    }
  });

  it('when facts of one application from both topics come to one process at once, then they go one after the other: none loses its write and reads the timeline again', async () => {
    const app = factsOf();
    const [a, b] = [randomUUID(), randomUUID()];
    const facts = [app.linked(a, at(HOUR)), app.linked(b, at(HOUR + 1)), app.enriched(a, 1, at(HOUR + 60_000))];
    const store = fakeStore();
    const handle = store.handler();
    await handle(message(app.opened(at(0))));
    await Promise.all(facts.map((fact) => handle(message(fact))));
    expect(store.reads()).toBe(0);
    expect(store.armed()).toEqual(await sequentially([app.opened(at(0)), ...facts]));
  });

  it('when an application is closed, then its timeline is no longer held in memory: a late fact reads it, and is decided on it', async () => {
    const app = factsOf();
    const a = randomUUID();
    const store = fakeStore();
    const handle = store.handler();
    await handle(message(app.opened(at(0))));
    await handle(message(app.linked(a, at(HOUR))));
    // Open: each fact is decided on the timeline this process wrote last, with no read.
    expect(store.reads()).toBe(0);
    await handle(message(app.enriched(a, 1, at(HOUR + 60_000))));
    await handle(message(app.closed(at(2 * HOUR))));
    expect(store.reads()).toBe(0);
    // Closed: forgotten, so memory follows the applications in flight. A late fact reads it.
    await handle(message(app.scrubbed([a], at(3 * HOUR))));
    expect(store.reads()).toBe(1);
    expect(store.armed()).toEqual(
      await sequentially([
        app.opened(at(0)),
        app.linked(a, at(HOUR)),
        app.enriched(a, 1, at(HOUR + 60_000)),
        app.closed(at(2 * HOUR)),
        app.scrubbed([a], at(3 * HOUR)),
      ]),
    );
  });
});
