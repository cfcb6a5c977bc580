import mongoose from 'mongoose';
import { waitFor } from '@testing/helpers';
import { factsOf } from '../../__tests__/facts';
import {
  type Driver,
  type RunningJanitor,
  type Stage,
  newStage,
  settle,
  shiftableClock,
  startDriver,
  startJanitor,
} from '../../__tests__/harness';

const DAY = 24 * 3_600_000;

/**
 * Each test gets its own topics and database: it starts and stops janitors of its own, and
 * counts what they emitted.
 */
describe('janitor scheduler: replicas, restarts and crashes, against the real broker and database', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  });

  async function stageWithDriver(): Promise<{ stage: Stage; driver: Driver }> {
    const stage = newStage();
    cleanups.push(async () => {
      const db = await mongoose
        .createConnection(process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/', { dbName: stage.database })
        .asPromise();
      await db.dropDatabase();
      await db.close();
    });
    const driver = await startDriver(stage);
    cleanups.push(() => driver.stop());
    return { stage, driver };
  }

  async function janitorOn(stage: Stage, options: Parameters<typeof startJanitor>[1]): Promise<RunningJanitor> {
    const janitor = await startJanitor(stage, options);
    cleanups.push(() => janitor.stop());
    return janitor;
  }

  const countById = (driver: Driver) => {
    const counts = new Map<string, number>();
    for (const s of driver.seen) counts.set(s.value.deadlineId, (counts.get(s.value.deadlineId) ?? 0) + 1);
    return counts;
  };

  it('when two replicas run, then every deadline is emitted exactly once', async () => {
    const { stage, driver } = await stageWithDriver();
    const clock = shiftableClock();
    const [a, b] = [await janitorOn(stage, { clock }), await janitorOn(stage, { clock })];
    const apps = Array.from({ length: 30 }, () => factsOf());
    for (const app of apps) await driver.publish(app.opened(clock.now().toISOString()));
    await waitFor(async () => (await a.service.gauges.countArmed('no_link')) === apps.length, { what: 'all armed' });

    clock.advance(DAY + 1);
    // Both replicas' loops race, and two extra passes race with them.
    await Promise.all([a.service.scheduler.tick(), b.service.scheduler.tick()]);
    await settle([a, b], driver);

    const counts = countById(driver);
    expect(counts.size).toBe(apps.length);
    expect([...counts].filter(([, n]) => n !== 1)).toEqual([]);
    expect(new Set(driver.seen.map((s) => s.value.applicationId))).toEqual(
      new Set(apps.map((app) => app.applicationId)),
    );
    const fired = async (j: RunningJanitor) =>
      (await j.runtime.metrics.registry.getSingleMetricAsString('janitor_deadlines_fired_total'))
        .split('\n')
        .filter((line) => line.includes('kind="no_link"'))
        .map((line) => Number(line.split(' ').at(-1)))[0] ?? 0;
    expect((await fired(a)) + (await fired(b))).toBe(apps.length);
  });

  it.each([
    ['while a deadline passes', DAY + 60_000],
    // Longer than a periodic reload looks back (JANITOR_RELOAD_LOOKBACK, a day): the first reload is full.
    ['for days after a deadline passed', 3 * DAY + 60_000],
  ])('when the janitor is down %s, then the deadline fires as soon as a janitor is back', async (_when, downFor) => {
    const { stage, driver } = await stageWithDriver();
    const clock = shiftableClock();
    const app = factsOf();
    const openedAt = clock.now().toISOString();
    const first = await janitorOn(stage, { clock });
    await driver.publish(app.opened(openedAt));
    await waitFor(async () => (await first.service.gauges.countArmed('no_link')) === 1, { what: 'no_link armed' });
    await first.stop();

    clock.advance(downFor);
    const second = await janitorOn(stage, { clock });
    const [passed] = await waitFor(
      () => driver.deadlinesOf(app.applicationId).length > 0 && driver.deadlinesOf(app.applicationId),
      {
        what: 'the deadline that passed while down',
      },
    );
    expect(passed).toMatchObject({ kind: 'no_link', since: openedAt });
    await settle([second], driver);
    expect(driver.deadlinesOf(app.applicationId)).toHaveLength(1);
  });

  it('when the janitor dies between firing a deadline and publishing it, then the next janitor publishes it once its lease is over', async () => {
    const { stage, driver } = await stageWithDriver();
    const clock = shiftableClock();
    const app = factsOf();
    const openedAt = clock.now().toISOString();
    const id = `no_link:${app.applicationId}:${openedAt}`;
    const dying = await janitorOn(stage, { clock, brokenPublish: true, env: { JANITOR_PUBLISH_LEASE: '30s' } });
    await driver.publish(app.opened(openedAt));
    await waitFor(async () => (await dying.service.deadlines.get(id))?.status === 'ARMED', { what: 'no_link armed' });

    clock.advance(DAY + 1);
    await waitFor(
      async () => {
        const d = await dying.service.deadlines.get(id);
        return d?.status === 'FIRED' && d.published === false;
      },
      { what: 'fired but not published' },
    );
    await dying.stop();

    const next = await janitorOn(stage, { clock, env: { JANITOR_PUBLISH_LEASE: '30s' } });
    await next.service.scheduler.tick();
    await driver.readToEnd();
    expect(driver.deadlinesOf(app.applicationId)).toEqual([]);

    clock.advance(30_000);
    await settle([next], driver);
    expect(driver.deadlinesOf(app.applicationId)).toEqual([
      expect.objectContaining({ deadlineId: id, since: openedAt }),
    ]);
    expect((await next.service.deadlines.get(id))?.published).toBe(true);
  });
});
