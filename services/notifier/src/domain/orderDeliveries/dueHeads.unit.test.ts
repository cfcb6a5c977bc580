import type { ScheduleEntry } from '../delivery';
import { dueHeads, nextHeadDueAt } from './dueHeads';

const now = new Date('2025-03-01T09:00:00.000Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const later = (ms: number) => new Date(now.getTime() + ms);

const entry = (
  deliveryId: string,
  applicationId: string,
  seq: number,
  nextAttemptAt: Date,
  partition = 0,
): ScheduleEntry => ({
  deliveryId,
  clientId: 'c1',
  applicationId,
  partition,
  seq,
  nextAttemptAt,
  version: 0,
});

describe('ordering of deliveries per application', () => {
  it('when an earlier event of the application is waiting for a retry, then the later one is held back', () => {
    const entries = [entry('first', 'app-1', 10, later(5_000)), entry('second', 'app-1', 11, ago(100))];
    expect(dueHeads(entries, now)).toEqual([]);
  });

  it('when the earlier event has settled (left the schedule), then the later one goes', () => {
    const entries = [entry('second', 'app-1', 11, ago(100))];
    expect(dueHeads(entries, now).map((e) => e.deliveryId)).toEqual(['second']);
  });

  it('when an earlier event is under way on this replica, then the later one still waits', () => {
    const entries = [entry('first', 'app-1', 10, ago(50)), entry('second', 'app-1', 11, ago(100))];
    expect(dueHeads(entries, now, new Set(['first']))).toEqual([]);
  });

  it('when one application is held back, then the events of other applications are not', () => {
    const entries = [
      entry('a1', 'app-1', 10, later(5_000)),
      entry('a2', 'app-1', 11, ago(100)),
      entry('b1', 'app-2', 12, ago(10)),
      entry('c1', 'app-3', 3, ago(300)),
    ];
    expect(dueHeads(entries, now).map((e) => e.deliveryId)).toEqual(['c1', 'b1']);
  });

  it('when entries arrive out of order, then the lowest offset of the application is its head', () => {
    const entries = [
      entry('third', 'app-1', 30, ago(1)),
      entry('first', 'app-1', 10, ago(1)),
      entry('second', 'app-1', 20, ago(1)),
    ];
    expect(dueHeads(entries, now).map((e) => e.deliveryId)).toEqual(['first']);
  });

  it('when the head is not due yet, then nothing of that application is offered', () => {
    expect(dueHeads([entry('first', 'app-1', 10, later(1))], now)).toEqual([]);
  });

  it('when several heads are due, then the most overdue comes first', () => {
    const entries = [
      entry('x', 'app-1', 1, ago(10)),
      entry('y', 'app-2', 2, ago(1_000)),
      entry('z', 'app-3', 3, ago(100)),
    ];
    expect(dueHeads(entries, now).map((e) => e.deliveryId)).toEqual(['y', 'z', 'x']);
  });

  it('when the first claim of a head is held, then it is not offered before the hold ends unless the asking replica holds it itself', () => {
    const held = { ...entry('first', 'app-1', 10, ago(100)), heldBy: 'replica-a', heldUntil: later(2_000) };
    const successor = entry('second', 'app-1', 11, ago(100));
    expect(dueHeads([held, successor], now)).toEqual([]);
    expect(dueHeads([held, successor], now, new Set(), (e) => e.heldBy === 'replica-a')).toEqual([held]);
    expect(dueHeads([held, successor], later(2_000)).map((e) => e.deliveryId)).toEqual(['first']);
  });

  it('when the dispatcher asks when to wake, then entries behind an earlier event and heads under way do not count, and a held head counts from the end of its hold', () => {
    const entries = [
      entry('a1', 'app-1', 10, later(5_000)),
      entry('a2', 'app-1', 11, ago(100)),
      entry('b1', 'app-2', 12, ago(10)),
      { ...entry('c1', 'app-3', 3, ago(300)), heldBy: 'other', heldUntil: later(3_000) },
    ];
    expect(nextHeadDueAt(entries, new Set())).toBe(ago(10).getTime());
    expect(nextHeadDueAt(entries, new Set(['b1']))).toBe(later(3_000).getTime());
    expect(nextHeadDueAt(entries, new Set(['b1']), undefined, (id) => id === 'c1')).toBe(later(5_000).getTime());
    expect(nextHeadDueAt([], new Set())).toBeNull();
  });
});
