import { SCORE_BREAKDOWN_MAX, type ScoreBreakdown } from '@loan/contracts';
import { populationStabilityIndex, psiFlag, round } from './metrics';

/** What the drift is measured on: the total score (100 points) and each part of it. */
export const DRIFT_MEASURES = { total: 100, ...SCORE_BREAKDOWN_MAX } as const;
export type DriftMeasure = keyof typeof DRIFT_MEASURES;

/** The total score in 10 bins of 10 points; each part in 5 bins of a fifth of its points. */
export const binsOf = (measure: DriftMeasure) => (measure === 'total' ? 10 : 5);

export function binOf(measure: DriftMeasure, value: number): number {
  const bins = binsOf(measure);
  const share = Math.max(0, value) / DRIFT_MEASURES[measure];
  return Math.min(bins - 1, Math.floor(share * bins));
}

/** The bins one decision counts in, as `measure|bin` (a day's counts add these up). */
export function driftCellsOf(breakdown: ScoreBreakdown): string[] {
  return (Object.keys(DRIFT_MEASURES) as DriftMeasure[]).map(
    (measure) => `${measure}|${binOf(measure, breakdown[measure])}`,
  );
}

/** Counts per bin of one measure, in bin order, from summed day counts. */
export function histogram(counts: Record<string, number>, measure: DriftMeasure): number[] {
  return Array.from({ length: binsOf(measure) }, (_, bin) => counts[`${measure}|${bin}`] ?? 0);
}

/** Below this many decisions in either period the PSI is not given. */
export const MINIMUM_DRIFT_POPULATION = 100;

/** The PSI of the total score and of each part, the current period against the baseline. */
export function driftReport(baseline: Record<string, number>, current: Record<string, number>) {
  const baseTotal = histogram(baseline, 'total').reduce((a, b) => a + b, 0);
  const currentTotal = histogram(current, 'total').reduce((a, b) => a + b, 0);
  const enough = baseTotal >= MINIMUM_DRIFT_POPULATION && currentTotal >= MINIMUM_DRIFT_POPULATION;
  return {
    baselineDecisions: baseTotal,
    currentDecisions: currentTotal,
    note: enough
      ? null
      : `${baseTotal} decisions in the baseline and ${currentTotal} in the period: the PSI needs at least ${MINIMUM_DRIFT_POPULATION} in each`,
    measures: (Object.keys(DRIFT_MEASURES) as DriftMeasure[]).map((measure) => {
      const psi = enough ? populationStabilityIndex(histogram(baseline, measure), histogram(current, measure)) : null;
      return {
        measure,
        psi: psi === null ? null : round(psi),
        flag: psiFlag(psi),
        baseline: histogram(baseline, measure),
        current: histogram(current, measure),
      };
    }),
  };
}
