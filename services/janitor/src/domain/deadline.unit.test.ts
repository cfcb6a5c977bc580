import { hourOf, hoursBetween, startOfHour } from './deadline';

describe('the hour a timeline is filed under', () => {
  it('when a moment falls anywhere in an hour, then its hour is that UTC hour, from its first millisecond to its last', () => {
    expect(hourOf(new Date('2026-11-01T08:00:00.000Z'))).toBe('2026-11-01T08');
    expect(hourOf(new Date('2026-11-01T08:59:59.999Z'))).toBe('2026-11-01T08');
    expect(hourOf(new Date('2026-11-01T09:00:00.000Z'))).toBe('2026-11-01T09');
    expect(hourOf(new Date('2026-11-01T09:30:00.000+02:00'))).toBe('2026-11-01T07');
    expect(startOfHour(new Date('2026-11-01T08:59:59.999Z'))).toEqual(new Date('2026-11-01T08:00:00.000Z'));
  });

  it('when hours are listed between two moments, then every hour from the first one to the last one is listed once, in order, across days and years', () => {
    expect(hoursBetween(new Date('2026-11-01T08:59:00.000Z'), new Date('2026-11-01T10:00:00.000Z'))).toEqual([
      '2026-11-01T08',
      '2026-11-01T09',
      '2026-11-01T10',
    ]);
    expect(hoursBetween(new Date('2026-12-31T22:10:00.000Z'), new Date('2027-01-01T01:05:00.000Z'))).toEqual([
      '2026-12-31T22',
      '2026-12-31T23',
      '2027-01-01T00',
      '2027-01-01T01',
    ]);
    const from = new Date('2026-11-01T08:17:00.000Z');
    const day = hoursBetween(from, new Date(from.getTime() + 24 * 3_600_000 + 120_000));
    expect(day).toHaveLength(25);
    expect(new Set(day).size).toBe(25);
    expect(day[0]).toBe('2026-11-01T08');
    expect(day.at(-1)).toBe('2026-11-02T08');
  });

  it('when both moments fall in one hour, then that hour alone is listed; when the second is before the first hour, then none', () => {
    const t = new Date('2026-11-01T08:20:00.000Z');
    expect(hoursBetween(t, t)).toEqual(['2026-11-01T08']);
    expect(hoursBetween(t, new Date('2026-11-01T08:00:00.000Z'))).toEqual(['2026-11-01T08']);
    expect(hoursBetween(t, new Date('2026-11-01T07:59:59.999Z'))).toEqual([]);
  });
});
