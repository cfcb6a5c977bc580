import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { connectMongo, createBulkLane, createLogger, createMetrics, syncIndexes } from '@loan/runtime';
import { uniqueName } from '@testing/helpers';
import { emptyTimeline } from '../domain/timeline';
import { janitorModels } from './models';
import { createTimelineRepository } from './timelineRepository';

/** The timeline store against the real database: revisions, races between writers, old data. */
describe('timeline repository, against the real database', () => {
  let db: Connection;
  let models: ReturnType<typeof janitorModels>;
  let repo: ReturnType<typeof createTimelineRepository>;
  const metrics = createMetrics('timeline-test');
  /** Updates of heads sent to the database, as commands. */
  const headUpdates = async () =>
    (await metrics.databaseCommands.get()).values.find(
      (v) => v.labels.command === 'update' && v.labels.collection === 'timeline_heads',
    )?.value ?? 0;

  beforeAll(async () => {
    db = await connectMongo({
      url: process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/',
      dbName: uniqueName('janitor_timelines').replace(/-/g, '_'),
      logger: createLogger('timeline-test', 'silent'),
      commands: metrics.databaseCommands,
    });
    models = janitorModels(db);
    await syncIndexes(db);
    // As the service has it: saves handled side by side share commands.
    repo = createTimelineRepository(models, createBulkLane());
  });
  afterAll(async () => {
    await db.dropDatabase();
    await db.close();
  });

  const timelineOf = (applicationId: string, linkWindowStart: string) => ({
    ...emptyTimeline(applicationId, 'client-1'),
    linkWindowStart,
  });

  it('when a timeline is saved revision after revision, then each read returns the newest', async () => {
    const id = randomUUID();
    expect(await repo.get(id, { headOnly: true })).toBeNull();
    expect(await repo.save(timelineOf(id, '2026-01-01T00:00:00.000Z'), [], [], 0)).toBe(true);
    expect(await repo.save(timelineOf(id, '2026-01-02T00:00:00.000Z'), [], [], 1)).toBe(true);
    const stored = await repo.get(id, { headOnly: true });
    expect(stored?.rev).toBe(2);
    expect(stored?.timeline.linkWindowStart).toBe('2026-01-02T00:00:00.000Z');
  });

  it('when ten writers save after the same revision at once, then exactly one of them wins', async () => {
    const id = randomUUID();
    await repo.save(timelineOf(id, '2026-01-01T00:00:00.000Z'), [], [], 0);
    const firsts = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        repo.save(timelineOf(randomUUID(), `2026-02-0${i}T00:00:00.000Z`), [], [], 0),
      ),
    );
    expect(firsts.every(Boolean)).toBe(true); // different applications do not conflict
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => repo.save(timelineOf(id, `2026-03-0${i}T00:00:00.000Z`), [], [], 1)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true);
    const stored = await repo.get(id);
    expect(stored?.rev).toBe(2);
    expect(stored?.timeline.linkWindowStart).toBe(`2026-03-0${winner}T00:00:00.000Z`);
    // Two first revisions of one application: one insert wins.
    const fresh = randomUUID();
    const creations = await Promise.all(
      [0, 1].map(() => repo.save(timelineOf(fresh, '2026-04-01T00:00:00.000Z'), [], [], 0)),
    );
    expect(creations.filter(Boolean)).toHaveLength(1);
  });

  it('when timelines of many applications are saved at once, then they share commands and each save is told it landed; of two saves of one timeline in them, one lands', async () => {
    const ids = Array.from({ length: 20 }, () => randomUUID());
    await Promise.all(ids.map((id) => repo.save(timelineOf(id, '2026-05-01T00:00:00.000Z'), [], [], 0)));
    const before = await headUpdates();
    const results = await Promise.all([
      ...ids.map((id) => repo.save(timelineOf(id, '2026-05-02T00:00:00.000Z'), [], [], 1)),
      repo.save(timelineOf(ids[0]!, '2026-05-03T00:00:00.000Z'), [], [], 1),
    ]);
    expect(results.slice(1, 20).every(Boolean)).toBe(true);
    expect([results[0], results[20]].filter(Boolean)).toHaveLength(1);
    expect((await headUpdates()) - before).toBeLessThan(ids.length);
    for (const id of ids.slice(1)) expect((await repo.get(id, { headOnly: true }))?.rev).toBe(2);
    const first = await repo.get(ids[0]!, { headOnly: true });
    expect(first?.rev).toBe(2);
    expect(first?.timeline.linkWindowStart).toBe(results[0] ? '2026-05-02T00:00:00.000Z' : '2026-05-03T00:00:00.000Z');
  });

  it('when an earlier version left the head behind its newest revision, then that revision is read and the next save catches the head up', async () => {
    const id = randomUUID();
    await repo.save(timelineOf(id, '2026-01-01T00:00:00.000Z'), [], [], 0);
    // Revision 2 as earlier versions wrote it, with the head never moved (a crash in between).
    await models.timelines.create({ _id: `${id}:2`, ...timelineOf(id, '2026-01-05T00:00:00.000Z'), rev: 2, armed: [] });
    expect((await repo.get(id, { headOnly: true }))?.rev).toBe(1);
    const newest = await repo.get(id);
    expect(newest?.rev).toBe(2);
    expect(newest?.timeline.linkWindowStart).toBe('2026-01-05T00:00:00.000Z');
    // The writer that read revision 2 writes revision 3 into the head; another that read it too loses.
    expect(await repo.save(timelineOf(id, '2026-01-06T00:00:00.000Z'), [], [], 2)).toBe(true);
    const head = await repo.get(id, { headOnly: true });
    expect(head?.rev).toBe(3);
    expect(head?.timeline.linkWindowStart).toBe('2026-01-06T00:00:00.000Z');
    expect(await repo.save(timelineOf(id, '2026-01-07T00:00:00.000Z'), [], [], 2)).toBe(false);
  });
});
