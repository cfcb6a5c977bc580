import type { Rng } from '../prng';

export const DAY_MS = 86_400_000;

/** A calendar month, clipped to the statement window, as day indices. */
export interface WindowMonth {
  year: number;
  /** 0-11 */
  month: number;
  firstDay: number;
  lastDay: number;
  /** True when the whole month lies inside the window. */
  complete: boolean;
}

/** The days a statement covers: day 0 is `start` (UTC midnight), `days` days in all. */
export interface Calendar {
  start: number;
  days: number;
  dayStart(day: number): number;
  date(day: number): Date;
  /** Day index of a date inside the window, or null when outside. */
  dayOf(year: number, month: number, dayOfMonth: number): number | null;
  months(): WindowMonth[];
}

export function startOfUtcDay(date: Date): number {
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

export function createCalendar({ start, days }: { start: number; days: number }): Calendar {
  const dayStart = (day: number): number => start + day * DAY_MS;
  const dayOf = (year: number, month: number, dayOfMonth: number): number | null => {
    const day = Math.round((Date.UTC(year, month, dayOfMonth) - start) / DAY_MS);
    return day >= 0 && day < days ? day : null;
  };
  return {
    start,
    days,
    dayStart,
    date: (day) => new Date(dayStart(day)),
    dayOf,
    months: () => {
      const out: WindowMonth[] = [];
      const first = new Date(start);
      let year = first.getUTCFullYear();
      let month = first.getUTCMonth();
      for (;;) {
        const firstDay = Math.max(0, Math.round((Date.UTC(year, month, 1) - start) / DAY_MS));
        if (firstDay >= days) break;
        const monthEnd = Math.round((Date.UTC(year, month, daysInMonth(year, month)) - start) / DAY_MS);
        const lastDay = Math.min(days - 1, monthEnd);
        out.push({
          year,
          month,
          firstDay,
          lastDay,
          complete: Date.UTC(year, month, 1) >= start && monthEnd <= days - 1,
        });
        month += 1;
        if (month === 12) {
          month = 0;
          year += 1;
        }
      }
      return out;
    },
  };
}

interface Task {
  at: number;
  order: number;
  run: (at: number) => void;
}

/**
 * The statement's diary: tasks run day by day in time order, so every decision that depends
 * on the balance sees the balance as it stood at that moment.
 */
export interface Agenda {
  /** A random moment of the given day between the two hours (UTC). */
  time(day: number, fromHour: number, toHour: number, rng: Rng): number;
  /**
   * Runs `run` on `day` at `at`; a day already past moves to the next day, same time of day.
   * `run` receives the moment it actually runs.
   */
  schedule(day: number, at: number, run: (at: number) => void): void;
  /** Hook called after the last task of every day. */
  onDayEnd(hook: (day: number) => void): void;
  run(): void;
}

export function createAgenda({ calendar }: { calendar: Calendar }): Agenda {
  const byDay = new Map<number, Task[]>();
  const dayEndHooks: Array<(day: number) => void> = [];
  let current = -1;
  let order = 0;
  return {
    time: (day, fromHour, toHour, rng) => calendar.dayStart(day) + Math.floor(rng.float(fromHour, toHour) * 3_600_000),
    schedule: (day, at, run) => {
      let target = day;
      let when = at;
      if (target <= current) {
        const shift = current + 1 - target;
        target = current + 1;
        when = at + shift * DAY_MS;
      }
      if (target < 0 || target >= calendar.days) return;
      const tasks = byDay.get(target) ?? [];
      tasks.push({ at: when, order: order++, run });
      byDay.set(target, tasks);
    },
    onDayEnd: (hook) => {
      dayEndHooks.push(hook);
    },
    run: () => {
      for (current = 0; current < calendar.days; current += 1) {
        const tasks = byDay.get(current) ?? [];
        tasks.sort((a, b) => a.at - b.at || a.order - b.order);
        for (const task of tasks) task.run(task.at);
        byDay.delete(current);
        for (const hook of dayEndHooks) hook(current);
      }
    },
  };
}
