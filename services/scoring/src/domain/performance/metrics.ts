/**
 * The measures of a scorecard against outcomes, on counts (never on documents): how many good
 * and bad loans each score has, how a population spreads over bins. Higher scores are meant to
 * be safer. docs/performance.md says what each one means.
 */

/** Good and bad loans at one score. */
export interface ScoreCount {
  score: number;
  good: number;
  bad: number;
}

/**
 * The area under the ROC curve: the chance that a good loan drawn at random scored higher than
 * a bad one drawn at random, a tie counting half. 0.5 is a coin; 1 separates them perfectly.
 * Null without at least one good and one bad loan.
 */
export function areaUnderCurve(counts: readonly ScoreCount[]): number | null {
  const rows = [...counts].sort((a, b) => a.score - b.score);
  const goods = rows.reduce((sum, row) => sum + row.good, 0);
  const bads = rows.reduce((sum, row) => sum + row.bad, 0);
  if (goods === 0 || bads === 0) return null;
  let badsBelow = 0;
  let pairs = 0;
  for (const row of rows) {
    pairs += row.good * (badsBelow + row.bad / 2);
    badsBelow += row.bad;
  }
  return pairs / (goods * bads);
}

/** Gini (accuracy ratio): 2 AUC - 1. 0 is no better than chance, 1 perfect. */
export const giniOf = (auc: number | null): number | null => (auc === null ? null : 2 * auc - 1);

/**
 * Kolmogorov-Smirnov: the widest gap between the share of bad loans and the share of good loans
 * at or below a score, over every score; and the score where it is widest. Null as for the AUC.
 */
export function kolmogorovSmirnov(counts: readonly ScoreCount[]): { ks: number; atScore: number } | null {
  const rows = [...counts].sort((a, b) => a.score - b.score);
  const goods = rows.reduce((sum, row) => sum + row.good, 0);
  const bads = rows.reduce((sum, row) => sum + row.bad, 0);
  if (goods === 0 || bads === 0) return null;
  let cumGood = 0;
  let cumBad = 0;
  let best = { ks: 0, atScore: rows[0]!.score };
  for (const row of rows) {
    cumGood += row.good;
    cumBad += row.bad;
    const gap = Math.abs(cumBad / bads - cumGood / goods);
    if (gap > best.ks + 1e-12) best = { ks: gap, atScore: row.score };
  }
  return best;
}

/** The share a bin with no one in it counts as, so that the logarithm is defined. */
export const PSI_EMPTY_SHARE = 0.0001;

/**
 * Population stability index of a population against a baseline, both as counts per bin (same
 * bins, same order): the sum over bins of (current share - baseline share) x ln(current share /
 * baseline share). Null when either population is empty.
 */
export function populationStabilityIndex(baseline: readonly number[], current: readonly number[]): number | null {
  if (baseline.length !== current.length) throw new Error('the populations must have the same bins');
  const baseTotal = baseline.reduce((a, b) => a + b, 0);
  const currentTotal = current.reduce((a, b) => a + b, 0);
  if (baseTotal === 0 || currentTotal === 0) return null;
  let psi = 0;
  for (let i = 0; i < baseline.length; i++) {
    const e = Math.max(baseline[i]! / baseTotal, PSI_EMPTY_SHARE);
    const a = Math.max(current[i]! / currentTotal, PSI_EMPTY_SHARE);
    psi += (a - e) * Math.log(a / e);
  }
  return psi;
}

/** The usual reading of a PSI: under 0.1 stable, 0.1 to 0.25 a shift to watch, above 0.25 a shift to act on. */
export function psiFlag(psi: number | null): 'STABLE' | 'WATCH' | 'ACT' | null {
  if (psi === null) return null;
  if (psi > 0.25) return 'ACT';
  if (psi > 0.1) return 'WATCH';
  return 'STABLE';
}

/**
 * The bad rate the scorecard expects of a score: odds of good to bad of 9 to 1 at 70 points,
 * doubling every 10 points (docs/performance.md, "Calibration").
 */
export const expectedBadRate = (score: number): number => 1 / (1 + 9 * 2 ** ((score - 70) / 10));

export const round = (value: number, digits = 4): number => Math.round(value * 10 ** digits) / 10 ** digits;
