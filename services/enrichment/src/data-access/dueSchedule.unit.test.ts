import { createDueSchedule } from './dueSchedule';

const t0 = new Date('2026-11-01T08:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

describe('the schedule of pending jobs kept in memory', () => {
  it('when jobs are noted, then only those due are returned, earliest first and at most the limit', () => {
    const schedule = createDueSchedule();
    schedule.note('late', at(5_000));
    schedule.note('b', at(-1_000));
    schedule.note('a', at(-2_000));
    schedule.note('c', at(0));
    expect(schedule.due(t0, 10)).toEqual(['a', 'b', 'c']);
    expect(schedule.due(t0, 2)).toEqual(['a', 'b']);
    expect(schedule.due(at(5_000), 10)).toEqual(['a', 'b', 'c', 'late']);
  });

  it('when a job is noted again, then its new time replaces the old one; null (nothing to do) removes it', () => {
    const schedule = createDueSchedule();
    schedule.note('job', at(-1_000));
    schedule.note('job', at(60_000));
    expect(schedule.due(t0, 10)).toEqual([]);
    schedule.note('job', null);
    expect(schedule.size()).toBe(0);
    expect(schedule.due(at(60_000), 10)).toEqual([]);
  });

  it('when a reload brings jobs, then unknown ones are added and a known one keeps the earlier time', () => {
    const schedule = createDueSchedule();
    schedule.note('mine', at(1_000));
    schedule.note('soon', at(30_000));
    schedule.merge([
      { accountId: 'mine', nextTryAt: at(90_000) },
      { accountId: 'soon', nextTryAt: at(-500) },
      { accountId: 'left', nextTryAt: at(-1_000) },
      { accountId: 'none', nextTryAt: null },
    ]);
    expect(schedule.size()).toBe(3);
    expect(schedule.due(t0, 10)).toEqual(['left', 'soon']);
    expect(schedule.due(at(1_000), 10)).toEqual(['left', 'soon', 'mine']);
  });
});
