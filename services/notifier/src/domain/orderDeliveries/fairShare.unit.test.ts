import type { ScheduleEntry } from '../delivery';
import { fairPick, reservedSlots } from './fairShare';

const at = new Date('2025-03-01T09:00:00.000Z');
let n = 0;
const heads = (clientId: string, count: number): ScheduleEntry[] =>
  Array.from({ length: count }, () => {
    n += 1;
    return {
      deliveryId: `${clientId}-${n}`,
      clientId,
      applicationId: `app-${n}`,
      partition: 0,
      seq: n,
      nextAttemptAt: at,
      version: 0,
    };
  });
const lendersOf = (picked: ScheduleEntry[]) => picked.map((e) => e.clientId);
const count = (picked: ScheduleEntry[], clientId: string) => picked.filter((e) => e.clientId === clientId).length;

describe('sharing the delivery slots between lenders', () => {
  it('when one lender alone has work, then it gets every slot but the reserved ones', () => {
    expect(reservedSlots(32)).toBe(4);
    expect(fairPick(heads('a', 100), new Map(), 32)).toHaveLength(28);
    expect(fairPick(heads('a', 100), new Map([['a', 28]]), 32)).toEqual([]);
  });

  it('when one lender holds every slot it may (its receiver hangs), then another lender gets a reserved slot at once', () => {
    const picked = fairPick([...heads('a', 50), ...heads('b', 1)], new Map([['a', 28]]), 32);
    expect(lendersOf(picked)).toEqual(['b']);
  });

  it('when two lenders have more work than slots, then the free slots alternate between them, the one whose work came first leading, and one slot stays in reserve', () => {
    const picked = fairPick([...heads('a', 20), ...heads('b', 20)], new Map(), 8);
    expect(lendersOf(picked)).toEqual(['a', 'b', 'a', 'b', 'a', 'b', 'a']);
  });

  it('when a lender over its share frees a slot, then a lender under its share takes it first', () => {
    const picked = fairPick(
      [...heads('a', 10), ...heads('b', 10)],
      new Map([
        ['a', 6],
        ['b', 1],
      ]),
      8,
    );
    expect(lendersOf(picked)).toEqual(['b']);
  });

  it('when a lender has little work, then the others use what it leaves, still keeping the reserve', () => {
    const picked = fairPick([...heads('a', 40), ...heads('b', 1)], new Map(), 32);
    expect(count(picked, 'b')).toBe(1);
    expect(count(picked, 'a')).toBe(27);
  });

  it('when there is one slot, then it is used (nothing can be reserved)', () => {
    expect(fairPick(heads('a', 3), new Map(), 1)).toHaveLength(1);
    expect(fairPick(heads('a', 3), new Map([['a', 1]]), 1)).toEqual([]);
  });

  it('when every slot is busy, then nothing is picked', () => {
    expect(fairPick(heads('b', 3), new Map([['a', 4]]), 4)).toEqual([]);
  });
});
