import { randomUUID } from 'node:crypto';
import { factsOf } from '../../__tests__/facts';
import type { Deadline, DeadlineStatus, DeadlineTtls } from '../deadline';
import type { Timeline } from '../timeline';
import { type CancelDeadlines, type TrackedFact, applyPlan, cancels, trackFact } from './decide';

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

type Stored = Deadline & { status: DeadlineStatus };

const matches = (spec: CancelDeadlines, d: Stored) =>
  d.status === 'ARMED' && d.applicationId === spec.applicationId && cancels(spec, d);

/**
 * Plays facts through the decision and keeps the deadlines the way the database does: arming
 * never touches an existing id, cancelling only touches armed deadlines.
 */
function play(
  facts: TrackedFact[],
  start: { timeline: Timeline | null; deadlines?: Map<string, Stored> } = { timeline: null },
) {
  let timeline = start.timeline;
  const deadlines = start.deadlines ?? new Map<string, Stored>();
  for (const fact of facts) {
    const plan = trackFact(timeline, fact, ttls);
    if (!plan) continue;
    for (const spec of plan.cancel) {
      for (const d of deadlines.values()) if (matches(spec, d)) d.status = 'CANCELLED';
    }
    for (const d of plan.arm) if (!deadlines.has(d.deadlineId)) deadlines.set(d.deadlineId, { ...d, status: 'ARMED' });
    timeline = plan.timeline;
  }
  const list = [...deadlines.values()];
  return {
    timeline,
    deadlines,
    armed: list.filter((d) => d.status === 'ARMED'),
    statusOf: (kind: string, since: string, accountId?: string) =>
      list.find((d) => d.kind === kind && d.since === since && (accountId === undefined || d.accountId === accountId))
        ?.status,
  };
}

describe('arming and cancelling deadlines from facts', () => {
  it('when an application is opened, then no_link is armed from the `at` of the fact and due 24 hours later', () => {
    const app = factsOf();
    const { armed } = play([app.opened(at(0))]);
    expect(armed).toEqual([
      {
        deadlineId: `no_link:${app.applicationId}:${at(0)}`,
        kind: 'no_link',
        clientId: app.clientId,
        applicationId: app.applicationId,
        accountId: null,
        attempt: null,
        since: at(0),
        dueAt: new Date(at(24 * HOUR)),
        status: 'ARMED',
      },
    ]);
  });

  it('when the application is resumed, then no_link is armed from the resume and the older one is cancelled', () => {
    const app = factsOf();
    const { armed, statusOf } = play([app.opened(at(0)), app.resumed(at(5 * HOUR))]);
    expect(armed.map((d) => [d.kind, d.since])).toEqual([['no_link', at(5 * HOUR)]]);
    expect(statusOf('no_link', at(0))).toBe('CANCELLED');
  });

  it('when the first account is linked, then no_link is cancelled and no_analyze and its enrichment timeout are armed from the link', () => {
    const app = factsOf();
    const accountId = randomUUID();
    const { armed, statusOf } = play([app.opened(at(0)), app.linked(accountId, at(HOUR))]);
    expect(statusOf('no_link', at(0))).toBe('CANCELLED');
    expect(armed.map((d) => [d.kind, d.since, d.accountId, d.attempt, d.dueAt.toISOString()])).toEqual([
      ['no_analyze', at(HOUR), null, null, at(HOUR + 7 * 24 * HOUR)],
      ['enrichment_timeout', at(HOUR), accountId, 1, at(HOUR + 20 * 60_000)],
    ]);
    expect(armed[1]!.deadlineId).toBe(`enrichment_timeout:${accountId}:${at(HOUR)}`);
  });

  it('when more accounts are linked, then no_analyze keeps the first link as its start and each account gets its own timeout', () => {
    const app = factsOf();
    const [a, b] = [randomUUID(), randomUUID()];
    const { armed } = play([app.opened(at(0)), app.linked(a, at(HOUR)), app.linked(b, at(2 * HOUR))]);
    expect(armed.filter((d) => d.kind === 'no_analyze').map((d) => d.since)).toEqual([at(HOUR)]);
    expect(armed.filter((d) => d.kind === 'enrichment_timeout').map((d) => [d.accountId, d.since])).toEqual([
      [a, at(HOUR)],
      [b, at(2 * HOUR)],
    ]);
  });

  it('when enrichment is restarted, then the account timeout is armed again from the restart as the next attempt and the older one is cancelled', () => {
    const app = factsOf();
    const accountId = randomUUID();
    const { armed, statusOf } = play([
      app.opened(at(0)),
      app.linked(accountId, at(HOUR)),
      app.restarted(accountId, at(2 * HOUR)),
    ]);
    expect(statusOf('enrichment_timeout', at(HOUR))).toBe('CANCELLED');
    expect(armed.filter((d) => d.kind === 'enrichment_timeout').map((d) => [d.since, d.attempt])).toEqual([
      [at(2 * HOUR), 2],
    ]);
  });

  it('when an account is enriched, then its timeout is cancelled and the other accounts keep theirs', () => {
    const app = factsOf();
    const [a, b] = [randomUUID(), randomUUID()];
    const { armed, statusOf } = play([
      app.opened(at(0)),
      app.linked(a, at(HOUR)),
      app.linked(b, at(HOUR + 1)),
      app.enriched(a, 1, at(HOUR + 60_000)),
    ]);
    expect(statusOf('enrichment_timeout', at(HOUR), a)).toBe('CANCELLED');
    expect(armed.filter((d) => d.kind === 'enrichment_timeout').map((d) => d.accountId)).toEqual([b]);
  });

  it('when the enrichment result is handled before the link it belongs to, then the link arms no timeout for that account', () => {
    const app = factsOf();
    const accountId = randomUUID();
    const { armed } = play([
      app.opened(at(0)),
      app.enriched(accountId, 1, at(HOUR + 60_000)),
      app.linked(accountId, at(HOUR)),
    ]);
    expect(armed.map((d) => d.kind)).toEqual(['no_analyze']);
  });

  it('when the result of an earlier attempt arrives after a restart, then the timeout of the restart stays armed', () => {
    const app = factsOf();
    const accountId = randomUUID();
    const { armed } = play([
      app.opened(at(0)),
      app.linked(accountId, at(HOUR)),
      app.restarted(accountId, at(2 * HOUR)),
      app.enriched(accountId, 1, at(2 * HOUR + 1_000)),
    ]);
    expect(armed.filter((d) => d.kind === 'enrichment_timeout').map((d) => [d.since, d.attempt])).toEqual([
      [at(2 * HOUR), 2],
    ]);
  });

  it('when analyze is requested, then no_analyze is cancelled and a later restart does not arm it again', () => {
    const app = factsOf();
    const accountId = randomUUID();
    const { armed, statusOf } = play([
      app.opened(at(0)),
      app.linked(accountId, at(HOUR)),
      app.enriched(accountId, 1, at(HOUR + 60_000)),
      app.finalized(at(2 * HOUR)),
      app.analysisRequested(at(3 * HOUR), [accountId]),
      app.restarted(accountId, at(4 * HOUR)),
    ]);
    expect(statusOf('no_analyze', at(HOUR))).toBe('CANCELLED');
    expect(armed.map((d) => [d.kind, d.since])).toEqual([
      ['analysis_timeout', at(3 * HOUR)],
      ['enrichment_timeout', at(4 * HOUR)],
    ]);
  });

  it('when analyze is requested, then analysis_timeout is armed from that moment, and the application closing (decided or failed) cancels it', () => {
    const app = factsOf();
    const accountId = randomUUID();
    const opened = [app.opened(at(0)), app.linked(accountId, at(HOUR)), app.enriched(accountId, 1, at(HOUR + 60_000))];
    const waiting = play([...opened, app.analysisRequested(at(3 * HOUR), [accountId])]);
    expect(waiting.armed.map((d) => [d.kind, d.since])).toEqual([['analysis_timeout', at(3 * HOUR)]]);
    const decided = play([
      ...opened,
      app.analysisRequested(at(3 * HOUR), [accountId]),
      app.closed(at(3 * HOUR + 2_000), 'COMPLETED'),
    ]);
    // Only the retentions of the bank data and of the records run on after a decision.
    expect(decided.armed.map((d) => [d.kind, d.since])).toEqual([
      ['bank_data_retention', at(3 * HOUR + 2_000)],
      ['record_retention', at(3 * HOUR + 2_000)],
    ]);
    expect(decided.statusOf('analysis_timeout', at(3 * HOUR))).toBe('CANCELLED');
  });

  it('when the application closes, then every armed deadline of it is cancelled (the bank data retention starts) and facts from before the closing arm nothing', () => {
    const app = factsOf();
    const [a, b] = [randomUUID(), randomUUID()];
    const played = play([
      app.opened(at(0)),
      app.linked(a, at(HOUR)),
      app.linked(b, at(2 * HOUR)),
      app.closed(at(3 * HOUR), 'FAILED'),
    ]);
    const retention = [
      ['bank_data_retention', at(3 * HOUR)],
      ['record_retention', at(3 * HOUR)],
    ];
    expect(played.armed.map((d) => [d.kind, d.since])).toEqual(retention);
    expect(
      [...played.deadlines.values()]
        .filter((d) => d.kind !== 'bank_data_retention' && d.kind !== 'record_retention')
        .every((d) => d.status === 'CANCELLED'),
    ).toBe(true);
    const replayed = play(
      [
        app.opened(at(0)),
        app.linked(a, at(HOUR)),
        app.restarted(b, at(2 * HOUR + 1)),
        app.closed(at(3 * HOUR), 'FAILED'),
      ],
      played,
    );
    expect(replayed.armed.map((d) => [d.kind, d.since])).toEqual(retention);
    expect(replayed.deadlines.size).toBe(played.deadlines.size);
  });

  it('when an application is abandoned, then no bank data retention is armed (abandonment scrubs or holds no bank data), only its records', () => {
    const app = factsOf();
    const played = play([app.opened(at(0)), app.closed(at(24 * HOUR), 'ABANDONED')]);
    expect(played.armed.map((d) => [d.kind, d.since])).toEqual([['record_retention', at(24 * HOUR)]]);
  });

  it("when an application ends, then record_retention is due when the ending's retainedUntil says (else RECORD_RETENTION later), and a resume cancels it", () => {
    const app = factsOf();
    const until = '2031-11-02T08:00:00.000Z';
    const decided = play([app.opened(at(0)), app.closed(at(HOUR), 'COMPLETED', null, until)]);
    const records = decided.armed.find((d) => d.kind === 'record_retention')!;
    expect(records).toMatchObject({
      deadlineId: `record_retention:${app.applicationId}:${at(HOUR)}`,
      since: at(HOUR),
      dueAt: new Date(until),
      accountId: null,
    });
    const unsaid = play([factsOf().closed(at(HOUR), 'FAILED')]);
    expect(unsaid.armed.find((d) => d.kind === 'record_retention')!.dueAt).toEqual(
      new Date(Date.parse(at(HOUR)) + ttls.record_retention),
    );

    const abandoned = play([app.opened(at(0)), app.closed(at(24 * HOUR), 'ABANDONED', 'no_link', until)]);
    const resumed = play([app.resumed(at(25 * HOUR))], abandoned);
    expect(resumed.statusOf('record_retention', at(24 * HOUR))).toBe('CANCELLED');
    expect(resumed.armed.map((d) => d.kind)).toEqual(['no_link']);
    const endedAgain = play([app.closed(at(50 * HOUR), 'ABANDONED', 'no_link', '2032-01-01T00:00:00.000Z')], resumed);
    expect(endedAgain.armed.map((d) => [d.kind, d.since, d.dueAt.toISOString()])).toEqual([
      ['record_retention', at(50 * HOUR), '2032-01-01T00:00:00.000Z'],
    ]);
  });

  it('when an abandoned application is resumed, then a new window starts: no_link from the resume, then no_analyze from its first link', () => {
    const app = factsOf();
    const [a, b] = [randomUUID(), randomUUID()];
    const resumed = play([
      app.opened(at(0)),
      app.linked(a, at(HOUR)),
      app.closed(at(200 * HOUR), 'ABANDONED', 'no_analyze'),
      app.resumed(at(201 * HOUR)),
    ]);
    expect(resumed.statusOf('no_analyze', at(HOUR))).toBe('CANCELLED');
    expect(resumed.armed.map((d) => [d.kind, d.since])).toEqual([['no_link', at(201 * HOUR)]]);

    const relinked = play([app.linked(b, at(202 * HOUR))], resumed);
    expect(relinked.statusOf('no_link', at(201 * HOUR))).toBe('CANCELLED');
    expect(relinked.armed.map((d) => [d.kind, d.since])).toEqual([
      ['no_analyze', at(202 * HOUR)],
      ['enrichment_timeout', at(202 * HOUR)],
    ]);
  });

  it('when every fact is delivered twice, then the deadlines are the same as when delivered once', () => {
    const app = factsOf();
    const [a, b] = [randomUUID(), randomUUID()];
    const facts = [
      app.opened(at(0)),
      app.resumed(at(HOUR)),
      app.linked(a, at(2 * HOUR)),
      app.linked(b, at(3 * HOUR)),
      app.restarted(b, at(4 * HOUR)),
      app.enriched(a, 1, at(5 * HOUR)),
    ];
    const once = play(facts);
    const twice = play(facts.flatMap((f) => [f, f]));
    const replayed = play(facts, {
      timeline: once.timeline,
      deadlines: new Map([...once.deadlines].map(([k, v]) => [k, { ...v }])),
    });
    expect([...twice.deadlines.values()]).toEqual([...once.deadlines.values()]);
    expect([...replayed.deadlines.values()]).toEqual([...once.deadlines.values()]);
    expect(twice.timeline).toEqual(once.timeline);
  });

  it("when an offer is made after the decision, then offer_expiry is armed from its making, due at the offer's own expiry, and the closing before it cancels nothing of it", () => {
    const app = factsOf();
    const expiresAt = at(3 * 24 * HOUR + 2 * HOUR);
    const played = play([
      app.opened(at(0)),
      app.analysisRequested(at(HOUR)),
      app.closed(at(2 * HOUR + 5)),
      app.offerMade(at(2 * HOUR), expiresAt, at(2 * HOUR + 6)),
    ]);
    expect(played.armed.find((d) => d.kind === 'offer_expiry')).toEqual({
      deadlineId: `offer_expiry:${app.applicationId}:${at(2 * HOUR)}`,
      kind: 'offer_expiry',
      clientId: app.clientId,
      applicationId: app.applicationId,
      accountId: null,
      attempt: null,
      since: at(2 * HOUR),
      dueAt: new Date(expiresAt),
      status: 'ARMED',
    });
    // Delivered again, it arms nothing more.
    const again = play([app.offerMade(at(2 * HOUR), expiresAt)], played);
    expect(again.deadlines.size).toBe(played.deadlines.size);
  });

  it('when the offer is answered, then its expiry is cancelled; a newer offer replaces an older one, and an older one redelivered changes nothing', () => {
    const app = factsOf();
    const made = play([app.closed(at(0)), app.offerMade(at(0), at(7 * 24 * HOUR))]);
    const answered = play([app.offerAnswered(at(HOUR), 'DECLINED')], made);
    expect(answered.statusOf('offer_expiry', at(0))).toBe('CANCELLED');

    const reviewed = play([app.offerMade(at(2 * HOUR), at(9 * 24 * HOUR))], answered);
    expect(reviewed.statusOf('offer_expiry', at(2 * HOUR))).toBe('ARMED');
    const late = play([app.offerMade(at(0), at(7 * 24 * HOUR))], reviewed);
    expect(late.armed.filter((d) => d.kind === 'offer_expiry').map((d) => d.since)).toEqual([at(2 * HOUR)]);

    const replaced = play([app.closed(at(0)), app.offerMade(at(0), at(HOUR)), app.offerMade(at(5), at(2 * HOUR))]);
    expect([replaced.statusOf('offer_expiry', at(0)), replaced.statusOf('offer_expiry', at(5))]).toEqual([
      'CANCELLED',
      'ARMED',
    ]);
  });

  it('when a fact does not start or stop a deadline, then there is nothing to do', () => {
    const app = factsOf();
    const accountId = randomUUID();
    expect(trackFact(null, app.finalized(at(0)), ttls)).toBeNull();
    expect(trackFact(null, app.timedOut(accountId, 1, at(0)), ttls)).toBeNull();
    expect(trackFact(null, app.scrubbed([accountId], at(0)), ttls)).toBeNull();
  });
});

describe('which deadlines a cancellation names', () => {
  const ref = { deadlineId: 'd', kind: 'enrichment_timeout' as const, accountId: 'acc-1', attempt: 2, since: at(HOUR) };
  const spec = (more: Partial<CancelDeadlines>): CancelDeadlines => ({
    kind: 'enrichment_timeout',
    applicationId: 'app',
    ...more,
  });

  it('when the spec bounds the start, then `sinceBefore` excludes the bound and `sinceAtMost` includes it', () => {
    expect(cancels(spec({ sinceBefore: at(HOUR) }), ref)).toBe(false);
    expect(cancels(spec({ sinceBefore: at(HOUR + 1) }), ref)).toBe(true);
    expect(cancels(spec({ sinceAtMost: at(HOUR) }), ref)).toBe(true);
    expect(cancels(spec({ sinceAtMost: at(HOUR - 1) }), ref)).toBe(false);
  });

  it('when the spec names another kind, account or an earlier attempt, then the deadline is not named', () => {
    expect(cancels(spec({ kind: 'no_link' }), ref)).toBe(false);
    expect(cancels(spec({ accountId: 'acc-2' }), ref)).toBe(false);
    expect(cancels(spec({ accountId: 'acc-1' }), ref)).toBe(true);
    expect(cancels(spec({ attemptAtMost: 1 }), ref)).toBe(false);
    expect(cancels(spec({ attemptAtMost: 2 }), ref)).toBe(true);
    expect(cancels(spec({ attemptAtMost: 2 }), { ...ref, attempt: null })).toBe(false);
  });
});

describe('applying a plan to the deadlines a timeline holds', () => {
  it('when a fact cancels one deadline and arms another, then the cancelled one stays listed as CANCELLED and a replay changes nothing', () => {
    const app = factsOf();
    const now = new Date(at(HOUR));
    const opened = trackFact(null, app.opened(at(0)), ttls)!;
    const first = applyPlan([], opened, new Date(at(0)));
    expect(first.armed.map((d) => d.deadlineId)).toEqual([`no_link:${app.applicationId}:${at(0)}`]);
    const linked = trackFact(opened.timeline, app.linked(randomUUID(), at(HOUR)), ttls)!;
    const second = applyPlan(first.deadlines, linked, now);
    expect(second.cancelled.map((d) => [d.kind, d.status, d.cancelledAt])).toEqual([['no_link', 'CANCELLED', now]]);
    expect(second.armed.map((d) => d.kind).sort()).toEqual(['enrichment_timeout', 'no_analyze']);
    expect(second.deadlines).toHaveLength(3);
    const replay = applyPlan(second.deadlines, linked, new Date(at(2 * HOUR)));
    expect(replay).toEqual({ deadlines: second.deadlines, cancelled: [], armed: [] });
    // The opening again: its no_link is listed as cancelled, so it is not armed a second time.
    expect(applyPlan(second.deadlines, opened, new Date(at(3 * HOUR))).armed).toEqual([]);
  });

  it('when a deadline the plan arms is kept elsewhere (an earlier version armed it), then it is not added', () => {
    const app = factsOf();
    const plan = trackFact(null, app.opened(at(0)), ttls)!;
    const id = `no_link:${app.applicationId}:${at(0)}`;
    expect(applyPlan([], plan, new Date(at(0)), new Set([id])).deadlines).toEqual([]);
  });
});
