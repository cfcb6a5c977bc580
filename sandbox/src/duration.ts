const UNITS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * Milliseconds in a duration such as `500ms`, `2s`, `20m`, `24h` or `7d` (a bare number is
 * milliseconds). Throws on anything else.
 */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!match) throw new Error(`not a duration: "${text}" (expected e.g. 500ms, 2s, 20m, 24h, 7d)`);
  return Math.round(Number(match[1]) * (UNITS[match[2] ?? 'ms'] ?? 1));
}
