import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { Topics } from '@loan/contracts';
import { waitFor } from '@testing/helpers';
import { factsOf, type FactsOf } from './__tests__/facts';
import {
  type Driver,
  type RunningJanitor,
  newStage,
  settle,
  shiftableClock,
  startDriver,
  startJanitor,
} from './__tests__/harness';
import { type Deadline, type DeadlineKind, deadlineIdOf, hourOf } from './domain/deadline';
import { fireDeadline } from './domain/fireDeadline/decide';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const TTL: Partial<Record<DeadlineKind, number>> = {
  no_link: DAY,
  no_analyze: 7 * DAY,
  enrichment_timeout: 20 * MINUTE,
};

/**
 * An upgrade: the database holds what the previous version wrote (each deadline a document of
 * `deadlines`, its outcome an insert into `deadline_outcomes`, the timeline listing the
 * deadlines that may be armed), and this version takes over. Those deadlines fire and are
 * cancelled as they would have been; new ones live in the timeline.
 */
describe('janitor after an upgrade, against the real broker, registry and database', () => {
  const stage = newStage();
  const clock = shiftableClock();
  // The previous version wrote its documents a few minutes ago.
  const start = clock.now().getTime() - 5 * MINUTE;
  const at = (ms: number) => new Date(start + ms).toISOString();
  let janitor: RunningJanitor;
  let driver: Driver;
  let db: mongoose.Connection;

  const deadline = (app: FactsOf, kind: DeadlineKind, since: string, accountId: string | null = null): Deadline => ({
    deadlineId: deadlineIdOf(kind, accountId ?? app.applicationId, since),
    kind,
    clientId: app.clientId,
    applicationId: app.applicationId,
    accountId,
    attempt: accountId ? 1 : null,
    since,
    dueAt: new Date(Date.parse(since) + TTL[kind]!),
  });
  const ref = (d: Deadline) => ({
    deadlineId: d.deadlineId,
    kind: d.kind,
    accountId: d.accountId,
    attempt: d.attempt,
    since: d.since,
  });
  const head = (app: FactsOf, fields: Record<string, unknown>) => ({
    _id: app.applicationId,
    applicationId: app.applicationId,
    rev: 1,
    clientId: app.clientId,
    linkWindowStart: at(0),
    firstLinkedAt: null,
    analysisRequestedAt: null,
    closedAt: null,
    decidedAt: null,
    accounts: [],
    armed: [],
    ...fields,
  });
  /** A timeline as the version before this one wrote it: its deadlines in it, `nextDueAt` without its hour. */
  const headWithDeadline = (app: FactsOf, d: Deadline) =>
    head(app, {
      linkWindowStart: d.since,
      deadlines: [
        {
          deadlineId: d.deadlineId,
          kind: d.kind,
          accountId: null,
          attempt: null,
          since: d.since,
          dueAt: d.dueAt,
          status: 'ARMED',
          armedAt: new Date(d.since),
          firedAt: null,
          cancelledAt: null,
        },
      ],
      nextDueAt: d.dueAt,
      outbox: [],
      outboxPending: false,
      outboxAt: null,
    });
  const deadlineDoc = (d: Deadline, status = 'ARMED') => {
    const { deadlineId, ...fields } = d;
    return { _id: deadlineId, ...fields, status, armedAt: new Date(start), firedAt: null, cancelledAt: null };
  };

  // A: no_link armed; this version handles the first link.
  const a = factsOf();
  const aNoLink = deadline(a, 'no_link', at(0));
  // B: no_link armed, nothing happens: it fires.
  const b = factsOf();
  const bNoLink = deadline(b, 'no_link', at(0));
  // C: no_link fired, its message never published (the replica died).
  const c = factsOf();
  const cNoLink = deadline(c, 'no_link', at(-DAY));
  // D: linked; the previous version recorded no_link's cancellation and stored the timeline
  // listing the new deadlines, then died before arming them and mirroring the cancellation.
  const d = factsOf();
  const dAccount = randomUUID();
  const dNoLink = deadline(d, 'no_link', at(0));
  const dNoAnalyze = deadline(d, 'no_analyze', at(MINUTE));
  const dTimeout = deadline(d, 'enrichment_timeout', at(MINUTE), dAccount);
  // E and F: no_link kept in the timeline by the version before this one, which did not file
  // timelines under the hour of their next deadline. E's passed while no janitor ran; F's is due
  // a day after the others.
  const e = factsOf();
  const eNoLink = deadline(e, 'no_link', at(-DAY - 2 * MINUTE));
  const f = factsOf();
  const fNoLink = deadline(f, 'no_link', at(0));

  beforeAll(async () => {
    db = await mongoose
      .createConnection(process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/', { dbName: stage.database })
      .asPromise();
    const firedAt = new Date(clock.now().getTime() - 2 * MINUTE);
    await db.collection('timeline_heads').insertMany([
      head(a, { armed: [ref(aNoLink)] }),
      head(b, { armed: [ref(bNoLink)] }),
      head(c, { linkWindowStart: at(-DAY), armed: [ref(cNoLink)] }),
      head(d, {
        rev: 2,
        firstLinkedAt: at(MINUTE),
        accounts: [{ accountId: dAccount, starts: [at(MINUTE)], enriched: null }],
        armed: [ref(dNoAnalyze), ref(dTimeout)],
      }),
      headWithDeadline(e, eNoLink),
      headWithDeadline(f, fNoLink),
    ] as never[]);
    await db
      .collection('deadlines')
      .insertMany([
        deadlineDoc(aNoLink),
        deadlineDoc(bNoLink),
        { ...deadlineDoc(cNoLink, 'FIRED'), firedAt },
        deadlineDoc(dNoLink),
      ] as never[]);
    await db.collection('deadline_outcomes').insertMany([
      {
        _id: cNoLink.deadlineId,
        outcome: 'FIRED',
        kind: 'no_link',
        applicationId: c.applicationId,
        decidedAt: firedAt,
        outbox: [
          {
            id: cNoLink.deadlineId,
            topic: Topics.deadlines,
            key: c.applicationId,
            value: fireDeadline(cNoLink, firedAt),
          },
        ],
        outboxPending: true,
      },
      {
        _id: dNoLink.deadlineId,
        outcome: 'CANCELLED',
        kind: 'no_link',
        applicationId: d.applicationId,
        decidedAt: new Date(start),
        outbox: [],
        outboxPending: false,
      },
    ] as never[]);
    janitor = await startJanitor(stage, { clock, env: { JANITOR_PUBLISH_LEASE: '30s' } });
    driver = await startDriver(stage);
  });

  afterAll(async () => {
    await driver?.stop();
    await janitor?.stop();
    await db?.dropDatabase();
    await db?.close();
  });

  const statusOf = async (id: string) => (await janitor.service.deadlines.get(id))?.status;
  const emitted = (app: FactsOf) => driver.deadlinesOf(app.applicationId).map((x) => [x.kind, x.since]);

  it('when facts arrive for timelines the previous version wrote, then its deadlines are cancelled its way and the new ones are kept in the timeline', async () => {
    const aAccount = randomUUID();
    await driver.publish(a.linked(aAccount, at(HOUR)));
    await waitFor(async () => (await statusOf(aNoLink.deadlineId)) === 'CANCELLED', {
      what: 'the old no_link cancelled',
    });
    const aNoAnalyze = deadline(a, 'no_analyze', at(HOUR));
    expect(await statusOf(aNoAnalyze.deadlineId)).toBe('ARMED');
    expect(await db.collection('deadlines').findOne({ _id: aNoAnalyze.deadlineId as never })).toBeNull();
    expect(await db.collection('deadline_outcomes').findOne({ _id: aNoLink.deadlineId as never })).toMatchObject({
      outcome: 'CANCELLED',
    });
    await driver.publish(a.enriched(aAccount, 1, at(HOUR + MINUTE)));
    await waitFor(
      async () => (await statusOf(deadline(a, 'enrichment_timeout', at(HOUR), aAccount).deadlineId)) === 'CANCELLED',
      {
        what: 'the new enrichment timeout cancelled',
      },
    );

    // D's link again (a redelivery): the deadlines the previous version listed are armed its way.
    await driver.publish(d.linked(dAccount, at(MINUTE)));
    await waitFor(async () => (await statusOf(dTimeout.deadlineId)) === 'ARMED', {
      what: 'the listed enrichment timeout armed',
    });
    expect(await statusOf(dNoAnalyze.deadlineId)).toBe('ARMED');
    await driver.publish(d.enriched(dAccount, 1, at(2 * MINUTE)));
    await waitFor(async () => (await statusOf(dTimeout.deadlineId)) === 'CANCELLED', {
      what: 'the old enrichment timeout cancelled',
    });
  });

  it('when timelines were written without the hour of their next deadline, then the first reload fires the overdue one and files the other under its hour', async () => {
    await waitFor(() => emitted(e).length > 0, { what: "E's no_link, overdue at start" });
    expect(emitted(e)).toEqual([['no_link', eNoLink.since]]);
    expect(await db.collection('timeline_heads').findOne({ _id: f.applicationId as never })).toMatchObject({
      nextDueAt: fNoLink.dueAt,
      nextDueHour: hourOf(fNoLink.dueAt),
    });
  });

  it("when their due times pass, then the previous version's deadlines fire once unless they were cancelled, and a message it left unpublished goes out once", async () => {
    // A periodic reload (the first, full one was less than a day ago) finds F by its hour.
    clock.setTo(new Date(start + DAY + MINUTE));
    await settle([janitor], driver);
    expect(emitted(f)).toEqual([['no_link', at(0)]]);
    expect(emitted(a)).toEqual([]);
    expect(emitted(b)).toEqual([['no_link', at(0)]]);
    expect(emitted(c)).toEqual([['no_link', at(-DAY)]]);
    expect(emitted(d)).toEqual([]);
    expect(await statusOf(bNoLink.deadlineId)).toBe('FIRED');
    // D's no_link was still ARMED on its document, but its outcome said CANCELLED: now mirrored.
    expect(await statusOf(dNoLink.deadlineId)).toBe('CANCELLED');

    clock.setTo(new Date(start + 8 * DAY));
    await settle([janitor], driver);
    expect(emitted(a)).toEqual([['no_analyze', at(HOUR)]]);
    expect(emitted(b)).toEqual([['no_link', at(0)]]);
    expect(emitted(c)).toEqual([['no_link', at(-DAY)]]);
    expect(emitted(d)).toEqual([['no_analyze', at(MINUTE)]]);
    expect(emitted(e)).toHaveLength(1);
    expect(emitted(f)).toHaveLength(1);
  });
});
