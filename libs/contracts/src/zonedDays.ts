import { z } from 'zod';

/** The time zone a lender's days and times are in unless it sets another. */
export const DEFAULT_TIME_ZONE = 'Africa/Lagos';

const DAY_MS = 86_400_000;

const ZONE_MESSAGE = 'timeZone must be an IANA time zone name, such as Africa/Lagos';

/** The IANA zones this runtime knows by their canonical names, and UTC. */
export const TIME_ZONES: readonly string[] = [
  ...new Set([
    ...(Intl as unknown as { supportedValuesOf(key: 'timeZone'): string[] }).supportedValuesOf('timeZone'),
    'UTC',
  ]),
].sort();

const known = new Set(TIME_ZONES);

/**
 * Whether `zone` is one of {@link TIME_ZONES}: a name, not an offset (`+01:00` follows no
 * place's clock changes), and not an alias the runtime maps to another name.
 */
export const isTimeZone = (zone: string): boolean => known.has(zone);

/** A lender's time zone: one of {@link TIME_ZONES}, which its document lists. */
export const TimeZone = z.enum(TIME_ZONES as [string, ...string[]], { error: ZONE_MESSAGE });

/** The days that can hold applications: none before 2000, and 2999 is far enough ahead. */
export const FIRST_DAY = '2000-01-01';
export const LAST_DAY = '2999-12-31';

/** A calendar day as `YYYY-MM-DD`, named `name` in its errors. */
export const CalendarDay = (name: string) => z.iso.date({ error: `${name} must be a date (YYYY-MM-DD)` });

/**
 * A calendar day from 2000 to 2999, named `name` in its errors: where every day of a range is
 * counted (a report's days), a day outside them is a mistake, not an empty answer.
 */
export const ReportDay = (name: string) =>
  CalendarDay(name)
    // Only a day in the date's form is checked for its range: anything else has its error already.
    .refine(
      (day) => !/^\d{4}-\d{2}-\d{2}$/.test(day) || (day >= FIRST_DAY && day <= LAST_DAY),
      `${name} must be a day from ${FIRST_DAY} to ${LAST_DAY}`,
    );

const dayFormats = new Map<string, Intl.DateTimeFormat>();
function dayFormat(zone: string): Intl.DateTimeFormat {
  let format = dayFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    dayFormats.set(zone, format);
  }
  return format;
}

function wallClock(instant: Date, zone: string): Record<string, number> {
  const parts: Record<string, number> = {};
  for (const part of dayFormat(zone).formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return parts;
}

/** The calendar day (`YYYY-MM-DD`) an instant falls on in a time zone. */
export function dayIn(instant: Date, zone: string): string {
  const p = wallClock(instant, zone);
  return `${String(p.year).padStart(4, '0')}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** How far the zone's wall clock is ahead of UTC at an instant, in milliseconds. */
function offsetAt(instant: Date, zone: string): number {
  const p = wallClock(instant, zone);
  const asUtc = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return asUtc - Math.floor(instant.getTime() / 1000) * 1000;
}

/**
 * The instant a calendar day starts in a time zone. Where a clock change skips midnight, the
 * day starts at the first instant that exists.
 */
export function startOfDayIn(day: string, zone: string): Date {
  const midnightUtc = Date.parse(`${day}T00:00:00Z`);
  // Two passes settle the offset on either side of a clock change.
  let guess = midnightUtc - offsetAt(new Date(midnightUtc), zone);
  guess = midnightUtc - offsetAt(new Date(guess), zone);
  if (dayIn(new Date(guess), zone) !== day) guess += 3_600_000;
  return new Date(guess);
}

/** The calendar day `n` days after `day` (before it when `n` is negative). */
export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

/** The day after a calendar day. */
export const nextDay = (day: string): string => addDays(day, 1);

/** How many days run from `from` to `to`, both included. */
export function dayCount(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

/** Every calendar day from `from` to `to`, both included. */
export function daysFrom(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = from; day <= to; day = nextDay(day)) days.push(day);
  return days;
}

/**
 * The instants a range of days in a time zone covers: from the start of `from` (included) to
 * the start of the day after `to` (excluded). Either end may be left open.
 */
export function zonedDayRange(
  from: string | undefined,
  to: string | undefined,
  zone: string,
): { createdFrom?: string; createdBefore?: string } {
  // Days outside 2000-2999 hold no application: the range is the same with them moved in.
  const within = (day: string) => (day < FIRST_DAY ? FIRST_DAY : day > LAST_DAY ? LAST_DAY : day);
  return {
    ...(from ? { createdFrom: startOfDayIn(within(from), zone).toISOString() } : {}),
    ...(to ? { createdBefore: startOfDayIn(nextDay(within(to)), zone).toISOString() } : {}),
  };
}
