/** What the Portfolio page says of its numbers, in words: pure, so that it is tested on its own. */

/** `0.5714` -> `57%`; null (nothing to divide) -> `—`. */
export function percent(rate: number | null): string {
  return rate === null ? '—' : `${Math.round(rate * 100)}%`;
}

/** A duration to the unit that matters: `42 s`, `3 min 5 s`, `2 h 10 min`, `1 d 3 h`; null -> `—`. */
export function durationWords(seconds: number | null): string {
  if (seconds === null) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3_600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  if (s < 86_400) {
    const minutes = Math.floor((s % 3_600) / 60);
    return `${Math.floor(s / 3_600)} h${minutes ? ` ${minutes} min` : ''}`;
  }
  const hours = Math.floor((s % 86_400) / 3_600);
  return `${Math.floor(s / 86_400)} d${hours ? ` ${hours} h` : ''}`;
}

/** The decision-time buckets in words: `Up to 1 min`, `1 min to 5 min`, ..., `Over 1 d`. */
export function bucketLabels(bounds: (number | null)[]): string[] {
  return bounds.map((upTo, i) => {
    const previous = i === 0 ? null : bounds[i - 1]!;
    if (upTo === null) return `Over ${durationWords(previous)}`;
    return previous === null ? `Up to ${durationWords(upTo)}` : `${durationWords(previous)} to ${durationWords(upTo)}`;
  });
}

/** `2026-11-05` -> `5 Nov`: a day of the period, short enough for a chart's axis. */
export function shortDay(day: string): string {
  const [year, month, date] = day.split('-').map(Number);
  if (!year || !month || !date) return day;
  return new Date(Date.UTC(year, month - 1, date)).toLocaleString('en-GB', {
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
  });
}

/** The day `n` days before `day` (both `YYYY-MM-DD`). */
export function daysBefore(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);
}

/** The periods offered with one click, ending today (the lender's today, from the report). */
export function presets(today: string): { label: string; from: string; to: string }[] {
  return [7, 30, 90, 365].map((days) => ({
    label: `Last ${days} days`,
    from: daysBefore(today, days - 1),
    to: today,
  }));
}
