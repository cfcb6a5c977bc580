import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { createLogger, type InboundMessage } from '@loan/runtime';
import { factsOf } from '../../__fixtures__/facts';
import type { DeadlineRepository } from '../../data-access/deadlineRepository';
import type { StoredTimeline, TimelineRepository } from '../../data-access/timelineRepository';
import type { Deadline, DeadlineStatus, DeadlineTtls } from '../../domain/deadline';
import type { TrackedFact } from '../../domain/trackDeadlines/decide';
import { createJanitorMetrics } from '../../metrics';
import { createFactHandler } from './trackFacts';

const HOUR = 3_600_000;
const ttls: DeadlineTtls = { no_link: 24 * HOUR, no_analyze: 7 * 24 * HOUR, enrichment_timeout: 20 * 60_000 };
const t0 = new Date('2026-11-01T08:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms).toISOString();
const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The repositories as the database behaves, in memory: revisions are inserts (the second
 * writer of a revision loses), arming and outcomes are inserts under the deadline's id. Every
 * call yields first, so concurrent handlers interleave; `crash` makes the named call throw once.
 */
function fakeStore() {
  const revisions = new Map<string, StoredTimeline>();
  const deadlines = new Map<string, Deadline & { status: DeadlineStatus }>();
  const outcomes = new Map<string, DeadlineStatus>();
  const crashes = new Set<'arm' | 'save'>();
  const crashIf = (what: 'arm' | 'save') => {
    if (crashes.delete(what)) throw new Error(`process killed before ${what}`);
  };
  const timelines: Pick<TimelineRepository, 'get' | 'save'> = {
    async get(applicationId) {
      await tick();
      let found: StoredTimeline | null = null;
      for (let rev = 1; revisions.has(`${applicationId}:${rev}`); rev++)
        found = revisions.get(`${applicationId}:${rev}`)!;
      return found && structuredClone(found);
    },
    async save(timeline, armed, rev) {
      await tick();
      crashIf('save');
      const id = `${timeline.applicationId}:${rev + 1}`;
      if (revisions.has(id)) return false;
      revisions.set(id, structuredClone({ timeline, armed, rev: rev + 1 }));
      return true;
    },
  };
  const repo: Pick<DeadlineRepository, 'recordCancel' | 'settle'> = {
    async recordCancel(deadline, now) {
      await tick();
      const won = !outcomes.has(deadline.deadlineId);
      if (won) outcomes.set(deadline.deadlineId, 'CANCELLED');
      const outcome = outcomes.get(deadline.deadlineId) as Exclude<DeadlineStatus, 'ARMED'>;
      return { won, held: { deadlineId: deadline.deadlineId, outcome, decidedAt: now } };
    },
    // One write: mirrors first, then arms; a crash loses all of it.
    async settle(held, arms) {
      await tick();
      crashIf('arm');
      for (const h of held) {
        const d = deadlines.get(h.deadlineId);
        if (d) d.status = h.outcome;
      }
      const armed = new Set<string>();
      for (const deadline of arms) {
        if (deadlines.has(deadline.deadlineId)) continue;
        deadlines.set(deadline.deadlineId, { ...deadline, status: 'ARMED' });
        armed.add(deadline.deadlineId);
      }
      return armed;
    },
  };
  return {
    crashes,
    // Armed: a deadline stored without an outcome (the outcome decides; the status mirrors it).
    armed: () =>
      [...deadlines.values()]
        .filter((d) => d.status === 'ARMED' && !outcomes.has(d.deadlineId))
        .map((d) => d.deadlineId)
        .sort(),
    statusOf: (deadlineId: string) => deadlines.get(deadlineId)?.status ?? null,
    handler: () =>
      createFactHandler({
        timelines: timelines as TimelineRepository,
        deadlines: repo as DeadlineRepository,
        ttls,
        clock: { now: () => t0 },
        metrics: createJanitorMetrics(new Registry(), { countArmed: async () => 0, countUnpublished: async () => 0 }),
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
  it('when a fact cancels one deadline and arms the next, then the cancelled one is marked so in the same write as the arming', async () => {
    const app = factsOf();
    const store = fakeStore();
    const handle = store.handler();
    await handle(message(app.opened(at(0))));
    await handle(message(app.linked(randomUUID(), at(HOUR))));
    expect(store.statusOf(`no_link:${app.applicationId}:${at(0)}`)).toBe('CANCELLED');
    expect(store.statusOf(`no_analyze:${app.applicationId}:${at(HOUR)}`)).toBe('ARMED');
  });

  it('when the process dies after storing the timeline and before arming, then the redelivered fact arms the deadline', async () => {
    const app = factsOf();
    const store = fakeStore();
    const handle = store.handler();
    store.crashes.add('arm');
    await expect(handle(message(app.opened(at(0))))).rejects.toThrow('killed');
    expect(store.armed()).toEqual([]);
    await handle(message(app.opened(at(0))));
    expect(store.armed()).toEqual([`no_link:${app.applicationId}:${at(0)}`]);
  });

  it('when the result of an account comes between a crashed link and its redelivery, then no enrichment timeout stays armed', async () => {
    const app = factsOf();
    const accountId = randomUUID();
    const store = fakeStore();
    const handle = store.handler();
    await handle(message(app.opened(at(0))));
    store.crashes.add('arm');
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
      app.opened(at(0)), app.linked(a, at(HOUR)), app.linked(b, at(HOUR + 1)), app.enriched(b, 1, at(HOUR + 60_000)), app.enriched(a, 1, at(HOUR + 60_001)),
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
});
