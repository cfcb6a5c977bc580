import { randomUUID } from 'node:crypto';
import { DeadlinePassed } from '@loan/contracts';
import {
  type Deadline,
  type DeadlineTtls,
  type TrackedDeadline,
  deadlineIdOf,
  dueAtOf,
  hourOf,
  isDue,
  nextDueHourOf,
  nextDueOf,
} from '../deadline';
import { fireDeadline, fireIn } from './decide';

const since = '2026-11-01T08:00:00.000Z';
const ttls: DeadlineTtls = {
  no_link: 86_400_000,
  no_analyze: 604_800_000,
  enrichment_timeout: 1_200_000,
  analysis_timeout: 300_000,
  bank_data_retention: 7_776_000_000,
  offer_expiry: 0,
  record_retention: 157_852_800_000,
};

function deadline(overrides: Partial<Deadline> = {}): Deadline {
  const applicationId = randomUUID();
  return {
    deadlineId: deadlineIdOf('no_link', applicationId, since),
    kind: 'no_link',
    clientId: 'client-a',
    applicationId,
    accountId: null,
    attempt: null,
    since,
    dueAt: dueAtOf('no_link', since, ttls),
    ...overrides,
  };
}

describe('due time', () => {
  it('when a deadline starts, then it is due its kind of time later: 24 hours, 7 days or 20 minutes', () => {
    expect(dueAtOf('no_link', since, ttls).toISOString()).toBe('2026-11-02T08:00:00.000Z');
    expect(dueAtOf('no_analyze', since, ttls).toISOString()).toBe('2026-11-08T08:00:00.000Z');
    expect(dueAtOf('enrichment_timeout', since, ttls).toISOString()).toBe('2026-11-01T08:20:00.000Z');
  });

  it('when the due time is reached, then the deadline is due, and not a millisecond before', () => {
    const d = deadline();
    expect(isDue(d, new Date(d.dueAt.getTime() - 1))).toBe(false);
    expect(isDue(d, d.dueAt)).toBe(true);
    expect(isDue(d, new Date(d.dueAt.getTime() + 60_000))).toBe(true);
  });

  it('when the same period is armed twice, then it has the same id', () => {
    const accountId = randomUUID();
    expect(deadlineIdOf('enrichment_timeout', accountId, since)).toBe(
      deadlineIdOf('enrichment_timeout', accountId, since),
    );
    expect(deadlineIdOf('enrichment_timeout', accountId, since)).toBe(`enrichment_timeout:${accountId}:${since}`);
  });
});

describe('firing a deadline', () => {
  it('when it is not due yet, then nothing is fired', () => {
    const d = deadline();
    expect(fireDeadline(d, new Date(d.dueAt.getTime() - 1))).toBeNull();
  });

  it('when it is due, then the message carries the period start verbatim for the owner to compare, and the contract accepts it', () => {
    const accountId = randomUUID();
    const d = deadline({
      kind: 'enrichment_timeout',
      accountId,
      attempt: 2,
      deadlineId: deadlineIdOf('enrichment_timeout', accountId, since),
      dueAt: dueAtOf('enrichment_timeout', since, ttls),
    });
    const now = new Date('2026-11-01T08:20:00.250Z');
    const message = fireDeadline(d, now);
    expect(message).toEqual({
      deadlineId: d.deadlineId,
      kind: 'enrichment_timeout',
      clientId: 'client-a',
      applicationId: d.applicationId,
      accountId,
      attempt: 2,
      since,
      dueAt: '2026-11-01T08:20:00.000Z',
      firedAt: '2026-11-01T08:20:00.250Z',
    });
    expect(DeadlinePassed.safeParse(message).success).toBe(true);
  });
});

describe('firing a deadline the timeline holds', () => {
  const tracked = (d: Deadline, status: TrackedDeadline['status'] = 'ARMED'): TrackedDeadline => ({
    ...d,
    status,
    armedAt: new Date(since),
    firedAt: null,
    cancelledAt: status === 'CANCELLED' ? new Date(since) : null,
  });

  it('when an armed deadline is due, then it fires and the others stay as they were', () => {
    const [due, other] = [deadline(), deadline({ kind: 'no_analyze' })];
    const now = new Date(due.dueAt.getTime() + 1);
    const after = fireIn([tracked(due), tracked(other)], due.deadlineId, now);
    expect(after?.map((d) => [d.deadlineId, d.status, d.firedAt])).toEqual([
      [due.deadlineId, 'FIRED', now],
      [other.deadlineId, 'ARMED', null],
    ]);
    expect(nextDueOf(after!)).toEqual(other.dueAt);
    expect(nextDueHourOf(after!)).toBe(hourOf(other.dueAt));
    expect(nextDueOf([tracked(due), tracked(other)])).toEqual(due.dueAt);
    expect(nextDueHourOf([tracked(due), tracked(other)])).toBe('2026-11-02T08');
  });

  it('when the deadline was cancelled or fired, or is not due yet, then it does not fire', () => {
    const d = deadline();
    const late = new Date(d.dueAt.getTime() + 1);
    expect(fireIn([tracked(d, 'CANCELLED')], d.deadlineId, late)).toBeNull();
    expect(fireIn([tracked(d, 'FIRED')], d.deadlineId, late)).toBeNull();
    expect(fireIn([tracked(d)], d.deadlineId, new Date(d.dueAt.getTime() - 1))).toBeNull();
    expect(fireIn([tracked(d)], 'another', late)).toBeNull();
    expect(nextDueOf([tracked(d, 'CANCELLED')])).toBeNull();
    expect(nextDueHourOf([tracked(d, 'CANCELLED')])).toBeNull();
  });
});
