import {
  CalendarDay,
  ReportDay,
  TimeZone,
  addDays,
  dayCount,
  dayIn,
  daysFrom,
  isTimeZone,
  startOfDayIn,
  zonedDayRange,
} from './zonedDays';

describe('days in a lender’s time zone', () => {
  it('starts a Lagos day at 23:00 UTC the evening before (WAT is UTC+1 all year)', () => {
    expect(startOfDayIn('2026-11-27', 'Africa/Lagos').toISOString()).toBe('2026-11-26T23:00:00.000Z');
    expect(zonedDayRange('2026-11-27', '2026-11-27', 'Africa/Lagos')).toEqual({
      createdFrom: '2026-11-26T23:00:00.000Z',
      createdBefore: '2026-11-27T23:00:00.000Z',
    });
  });

  it('follows a zone with summer time on both sides of its clock changes', () => {
    // London: GMT in winter, BST (UTC+1) from the last Sunday of March.
    expect(startOfDayIn('2026-01-15', 'Europe/London').toISOString()).toBe('2026-01-15T00:00:00.000Z');
    expect(startOfDayIn('2026-07-15', 'Europe/London').toISOString()).toBe('2026-07-14T23:00:00.000Z');
    expect(startOfDayIn('2026-03-29', 'Europe/London').toISOString()).toBe('2026-03-29T00:00:00.000Z');
    expect(startOfDayIn('2026-03-30', 'Europe/London').toISOString()).toBe('2026-03-29T23:00:00.000Z');
    // New York's day starts at 05:00 UTC in winter.
    expect(startOfDayIn('2026-12-01', 'America/New_York').toISOString()).toBe('2026-12-01T05:00:00.000Z');
  });

  it('starts a day whose midnight a clock change skips at the first instant that exists', () => {
    // Santiago moved its clocks from 00:00 to 01:00 on 2026-09-06.
    const start = startOfDayIn('2026-09-06', 'America/Santiago');
    expect(dayIn(start, 'America/Santiago')).toBe('2026-09-06');
    expect(dayIn(new Date(start.getTime() - 1), 'America/Santiago')).toBe('2026-09-05');
  });

  it('names the day an instant falls on in the zone, not in UTC', () => {
    expect(dayIn(new Date('2026-11-26T23:30:00Z'), 'Africa/Lagos')).toBe('2026-11-27');
    expect(dayIn(new Date('2026-11-26T23:30:00Z'), 'UTC')).toBe('2026-11-26');
  });

  it('lists the days of a range across a month end, both ends included', () => {
    expect(daysFrom('2026-11-29', '2026-12-02')).toEqual(['2026-11-29', '2026-11-30', '2026-12-01', '2026-12-02']);
    expect(daysFrom('2026-12-02', '2026-12-01')).toEqual([]);
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(addDays('2026-12-31', 29)).toBe('2027-01-29');
    expect(dayCount('2025-11-27', '2026-11-27')).toBe(366);
    expect(dayCount('2026-11-27', '2026-11-27')).toBe(1);
  });

  it('knows IANA zone names and refuses others', () => {
    expect(isTimeZone('Africa/Lagos')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Lagos')).toBe(false);
    expect(isTimeZone('')).toBe(false);
    expect(isTimeZone('+01:00')).toBe(false);
  });
});

describe('a day asked for', () => {
  it('is a date; a report’s day is one from 2000 to 2999, named in the error', () => {
    expect(CalendarDay('from').parse('0159-12-08')).toBe('0159-12-08');
    const day = ReportDay('from');
    expect(day.parse('2026-11-27')).toBe('2026-11-27');
    expect(day.safeParse('2026-02-30').error?.issues[0]?.message).toBe('from must be a date (YYYY-MM-DD)');
    expect(day.safeParse('0001-01-01').error?.issues[0]?.message).toBe(
      'from must be a day from 2000-01-01 to 2999-12-31',
    );
    expect(day.safeParse('9999-12-31').success).toBe(false);
  });

  it('a text that is no date gets one error, not two', () => {
    expect(
      ReportDay('to')
        .safeParse('yesterday')
        .error?.issues.map((i) => i.message),
    ).toEqual(['to must be a date (YYYY-MM-DD)']);
  });

  it('a list’s days outside 2000-2999 cover the same applications as its ends: none exist there', () => {
    expect(zonedDayRange('0159-12-08', '9999-12-31', 'Africa/Lagos')).toEqual({
      createdFrom: '1999-12-31T23:00:00.000Z',
      createdBefore: '2999-12-31T23:00:00.000Z',
    });
  });
});

describe('a lender’s time zone as the API takes it', () => {
  it('is one of the zones its document lists, UTC included, and nothing else', () => {
    expect(TimeZone.parse('Africa/Lagos')).toBe('Africa/Lagos');
    expect(TimeZone.parse('UTC')).toBe('UTC');
    expect(TimeZone.options).toContain('Pacific/Kiritimati');
    expect(TimeZone.safeParse('000000').error?.issues[0]?.message).toBe(
      'timeZone must be an IANA time zone name, such as Africa/Lagos',
    );
  });
});
