const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses a duration such as `500ms`, `10s`, `20m`, `24h` or `7d` (or a bare number of
 * milliseconds) into milliseconds.
 */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!match) throw new Error(`Invalid duration "${text}": use a number with ms, s, m, h or d`);
  const value = Number(match[1]);
  return Math.round(value * (UNITS[match[2] ?? 'ms'] ?? 1));
}
