import type { DecisionOutcome, ScoreBand } from '@loan/contracts';
import { applicationOf, type PersonaName } from './__fixtures__/personas';
import type { LoanAsk } from './affordability';
import { scoreApplication } from './scoreApplication';
import { SCORECARD_VERSION } from './scorecard';
import { formatNaira } from './scorecard/math';

/** What the golden table records of a decision. */
export interface GoldenOutcome {
  decision: DecisionOutcome;
  band: ScoreBand;
  score: number;
  /** `approval_details`: zeros when declined. */
  amount: number;
  tenor: number;
  monthlyPayment: number;
}

/** One persona and ask, with the outcome the scorecard must keep producing. */
export interface GoldenCase {
  persona: PersonaName;
  ask: LoanAsk;
  expected: GoldenOutcome;
}

/**
 * The golden table of docs/scoring.md, held to the code by golden.unit.test.ts. Built from the
 * synthetic personas for now; to be regenerated from the sandbox personas. After a scorecard
 * change, print the new table with `__fixtures__/printGoldenTable.ts`, review every changed row,
 * then update these cases and the docs together.
 */
export const GOLDEN_CASES: readonly GoldenCase[] = [
  {
    persona: 'salaried',
    ask: { amount: 500_000, tenor: 12, interestRate: 5 },
    expected: {
      decision: 'APPROVED',
      band: 'LOW_RISK',
      score: 96.17,
      amount: 500_000,
      tenor: 12,
      monthlyPayment: 56_412.71,
    },
  },
  {
    persona: 'salaried',
    ask: { amount: 1_500_000, tenor: 12, interestRate: 5 },
    expected: {
      decision: 'COUNTER_OFFER',
      band: 'LOW_RISK',
      score: 96.17,
      amount: 840_000,
      tenor: 12,
      monthlyPayment: 94_773.34,
    },
  },
  {
    persona: 'salaried',
    ask: { amount: 800_000, tenor: 6, interestRate: 5 },
    expected: {
      decision: 'COUNTER_OFFER',
      band: 'LOW_RISK',
      score: 96.17,
      amount: 800_000,
      tenor: 12,
      monthlyPayment: 90_260.33,
    },
  },
  {
    persona: 'salaried',
    ask: { amount: 120_000, tenor: 6, interestRate: 0 },
    expected: {
      decision: 'APPROVED',
      band: 'LOW_RISK',
      score: 96.17,
      amount: 120_000,
      tenor: 6,
      monthlyPayment: 20_000,
    },
  },
  {
    persona: 'salaried_high',
    ask: { amount: 3_000_000, tenor: 12, interestRate: 4 },
    expected: {
      decision: 'APPROVED',
      band: 'LOW_RISK',
      score: 99.39,
      amount: 3_000_000,
      tenor: 12,
      monthlyPayment: 319_656.52,
    },
  },
  {
    persona: 'salaried_high',
    ask: { amount: 5_000_000, tenor: 12, interestRate: 4 },
    expected: {
      decision: 'COUNTER_OFFER',
      band: 'LOW_RISK',
      score: 99.39,
      amount: 5_000_000,
      tenor: 24,
      monthlyPayment: 327_934.16,
    },
  },
  {
    persona: 'gig',
    ask: { amount: 150_000, tenor: 6, interestRate: 6 },
    expected: {
      decision: 'APPROVED',
      band: 'MEDIUM_RISK',
      score: 73.63,
      amount: 150_000,
      tenor: 6,
      monthlyPayment: 30_504.39,
    },
  },
  {
    persona: 'gig',
    ask: { amount: 800_000, tenor: 12, interestRate: 6 },
    expected: {
      decision: 'COUNTER_OFFER',
      band: 'MEDIUM_RISK',
      score: 73.63,
      amount: 800_000,
      tenor: 18,
      monthlyPayment: 73_885.23,
    },
  },
  {
    persona: 'heavy_betting',
    ask: { amount: 200_000, tenor: 6, interestRate: 5 },
    expected: {
      decision: 'MANUAL_REVIEW',
      band: 'HIGH_RISK',
      score: 61.48,
      amount: 200_000,
      tenor: 6,
      monthlyPayment: 39_403.49,
    },
  },
  {
    persona: 'debt_stressed',
    ask: { amount: 200_000, tenor: 6, interestRate: 5 },
    expected: {
      decision: 'DECLINED',
      band: 'VERY_HIGH_RISK',
      score: 52.36,
      amount: 0,
      tenor: 0,
      monthlyPayment: 0,
    },
  },
  {
    persona: 'overdrawn',
    ask: { amount: 100_000, tenor: 3, interestRate: 5 },
    expected: {
      decision: 'DECLINED',
      band: 'VERY_HIGH_RISK',
      score: 52.21,
      amount: 0,
      tenor: 0,
      monthlyPayment: 0,
    },
  },
  {
    persona: 'thin_file',
    ask: { amount: 100_000, tenor: 3, interestRate: 5 },
    expected: {
      decision: 'MANUAL_REVIEW',
      band: 'MEDIUM_RISK',
      score: 80.32,
      amount: 100_000,
      tenor: 3,
      monthlyPayment: 36_720.86,
    },
  },
  {
    persona: 'name_mismatch',
    ask: { amount: 500_000, tenor: 12, interestRate: 5 },
    expected: {
      decision: 'MANUAL_REVIEW',
      band: 'LOW_RISK',
      score: 96.67,
      amount: 500_000,
      tenor: 12,
      monthlyPayment: 56_412.71,
    },
  },
];

const outcomeOf = ({ persona, ask }: Pick<GoldenCase, 'persona' | 'ask'>): GoldenOutcome => {
  const decision = scoreApplication(applicationOf(persona, ask));
  return {
    decision: decision.decision,
    band: decision.score_band,
    score: decision.score,
    amount: decision.approval_details.approved_amount,
    tenor: decision.approval_details.approved_tenor,
    monthlyPayment: decision.approval_details.monthly_payment,
  };
};

/** Scores a golden case with the current scorecard. */
export const runGoldenCase = (golden: Pick<GoldenCase, 'persona' | 'ask'>): GoldenOutcome =>
  outcomeOf(golden);

const askText = ({ amount, tenor, interestRate }: LoanAsk): string =>
  `${formatNaira(amount)} / ${tenor} m @ ${interestRate}%`;

const termsText = (outcome: GoldenOutcome): string =>
  outcome.amount === 0
    ? '-'
    : `${formatNaira(outcome.amount)} / ${outcome.tenor} m, ${formatNaira(outcome.monthlyPayment, 2)} a month`;

/** The golden table in Markdown, one row per case, in the given outcomes. */
export const renderGoldenTable = (
  rows: ReadonlyArray<Pick<GoldenCase, 'persona' | 'ask' | 'expected'>>,
): string =>
  [
    `Scorecard ${SCORECARD_VERSION}.`,
    '',
    '| persona | ask | decision | band | score | approved terms |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      ({ persona, ask, expected }) =>
        `| ${persona} | ${askText(ask)} | ${expected.decision} | ${expected.band} | ${expected.score.toFixed(2)} | ${termsText(expected)} |`,
    ),
  ].join('\n');
