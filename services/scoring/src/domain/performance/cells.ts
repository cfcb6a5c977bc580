import { DPD_THRESHOLDS, type DecisionOutcome, type ScoreBand } from '@loan/contracts';
import { monthsBetween, type LoanState } from '../outcomes/loanState';

/** A loan with the decision it is measured against. */
export interface MeasuredLoan {
  score: number;
  band: ScoreBand;
  decision: DecisionOutcome;
  policyVersion: number | null;
  /** The challenger's shadow decision of the same application, when one ran. */
  challenger: { version: number; decision: string } | null;
  state: LoanState;
}

/** Counts of loans by cell: what the performance figures are computed from. */
export type Cells = Record<string, number>;

/**
 * How bad a loan has been, as few values as any bad definition needs: the highest threshold of
 * days past due it ever reached (0 for none), and whether it was declared defaulted or written off.
 */
export function badnessOf(state: Pick<LoanState, 'maxDaysPastDue' | 'defaulted' | 'writtenOff'>): string {
  const reached = DPD_THRESHOLDS.filter((days) => state.maxDaysPastDue >= days);
  const dpd = reached.length ? reached[reached.length - 1] : 0;
  return `${dpd}:${state.defaulted ? 1 : 0}${state.writtenOff ? 1 : 0}`;
}

/** The month of a day, YYYY-MM. */
export const monthOf = (day: string) => day.slice(0, 7);

/**
 * The cells a loan counts in, once each:
 * - `s|score|band|badness`: discrimination and calibration;
 * - `d|policyVersion|decision|band|badness`: bad rate by policy version, decision and band;
 * - `c|version|decision|badness`: bad rate by the challenger's shadow decision;
 * - `v|vintage|mob30|mob90`: vintage curves, months on book when first 30+ and 90+ DPD ('-' never).
 */
export function cellsOf(loan: MeasuredLoan): string[] {
  const badness = badnessOf(loan.state);
  const score = Math.round(loan.score);
  const disbursed = loan.state.disbursed.date;
  const mob = (day: string | null) => (day ? String(monthsBetween(disbursed, day)) : '-');
  const cells = [
    `s|${score}|${loan.band}|${badness}`,
    `d|${loan.policyVersion ?? 0}|${loan.decision}|${loan.band}|${badness}`,
    `v|${monthOf(disbursed)}|${mob(loan.state.first30)}|${mob(loan.state.first90)}`,
  ];
  if (loan.challenger) cells.push(`c|${loan.challenger.version}|${loan.challenger.decision}|${badness}`);
  return cells;
}

/** Adds a loan's cells to counts. */
export function count(cells: Cells, loan: MeasuredLoan): Cells {
  for (const cell of cellsOf(loan)) cells[cell] = (cells[cell] ?? 0) + 1;
  return cells;
}

/** Sums counts (of the partitions of a lender's loans). */
export function merge(all: readonly Cells[]): Cells {
  const total: Cells = {};
  for (const cells of all) for (const [cell, n] of Object.entries(cells)) total[cell] = (total[cell] ?? 0) + n;
  return total;
}
