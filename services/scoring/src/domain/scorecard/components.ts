import type { ScoreBand, ScoreBreakdown } from '@loan/contracts';
import { DSR_CAP } from '../affordability/affordability';
import type { BureauSummary } from './bureau';
import {
  ACCOUNT_BEHAVIOR,
  BAND_THRESHOLDS,
  CASH_FLOW,
  COMPONENT_MAX_POINTS,
  CREDIT_HISTORY,
  DEBT_SERVICE,
  INCOME,
  MINIMUM_WAGE,
  THIN_FILE_MIN_HISTORY_MONTHS,
  type ComponentName,
} from './constants';
import { existingMonthlyDebt, type ScoringFeatures } from './features';
import { linearScale, ratio, round2, sum } from './math';

/** One signal's contribution to a component: `points` of at most `maxPoints`. */
export interface SignalScore {
  component: ComponentName;
  signal: string;
  points: number;
  maxPoints: number;
}

export interface ScoredComponents {
  breakdown: ScoreBreakdown;
  signals: SignalScore[];
}

type Signal = Omit<SignalScore, 'component' | 'points'> & { fraction: number };

const signal = (name: string, maxPoints: number, fraction: number): Signal => ({
  signal: name,
  maxPoints,
  fraction,
});

/** Income on a log scale from the minimum wage (0) to INCOME.levelBest (1). */
const incomeLevel = (monthlyIncome: number): number =>
  monthlyIncome <= MINIMUM_WAGE
    ? 0
    : linearScale(Math.log(monthlyIncome / MINIMUM_WAGE) / Math.log(INCOME.levelBest / MINIMUM_WAGE), 0, 1);

const cashFlowHealth = (f: ScoringFeatures): Signal[] => {
  const cushion = ratio(f.averageBalance, f.monthlyIncome);
  const deficitShare = f.monthsObserved === 0 ? 1 : f.negativeNetFlowMonths / f.monthsObserved;
  return [
    signal(
      'net_flow_volatility',
      CASH_FLOW.volatilityPoints,
      f.monthsObserved === 0 ? 0 : linearScale(f.netFlowCv, CASH_FLOW.volatilityWorst, CASH_FLOW.volatilityBest),
    ),
    signal(
      'balance_cushion',
      CASH_FLOW.cushionPoints,
      cushion === null ? 0 : linearScale(cushion, CASH_FLOW.cushionWorst, CASH_FLOW.cushionBest),
    ),
    signal('deficit_months', CASH_FLOW.deficitMonthsPoints, linearScale(deficitShare, CASH_FLOW.deficitMonthsWorst, 0)),
  ];
};

const incomeStability = (f: ScoringFeatures): Signal[] => {
  const salaryShare = f.salaryDetected ? f.salaryMonths / f.monthsObserved : 0;
  const incomeShare = f.monthsObserved === 0 ? 0 : f.incomeMonths / f.monthsObserved;
  return [
    signal('income_level', INCOME.levelPoints, incomeLevel(f.monthlyIncome)),
    signal(
      'income_regularity',
      INCOME.regularityPoints,
      Math.max(salaryShare, INCOME.nonSalaryRegularityWeight * incomeShare),
    ),
    signal(
      'income_steadiness',
      INCOME.steadinessPoints,
      f.incomeCv === null ? 0 : linearScale(f.incomeCv, INCOME.cvWorst, INCOME.cvBest),
    ),
  ];
};

const debtServiceCapacity = (f: ScoringFeatures, bureau: BureauSummary): Signal[] => {
  const freeCashFlow = ratio(f.netFlowMonthlyAverage, f.monthlyIncome);
  const existingRatio = ratio(existingMonthlyDebt(f, bureau), f.monthlyIncome);
  const stackingShare = f.digitalLoanShareOfIncome ?? (f.loanDisbursementsTotal > 0 ? DEBT_SERVICE.stackingWorst : 0);
  return [
    signal(
      'free_cash_flow',
      DEBT_SERVICE.freeCashFlowPoints,
      freeCashFlow === null
        ? 0
        : linearScale(freeCashFlow, DEBT_SERVICE.freeCashFlowWorst, DEBT_SERVICE.freeCashFlowBest),
    ),
    signal(
      'existing_debt_burden',
      DEBT_SERVICE.burdenPoints,
      existingRatio === null ? 0 : linearScale(existingRatio, DSR_CAP, 0),
    ),
    signal('loan_stacking', DEBT_SERVICE.stackingPoints, linearScale(stackingShare, DEBT_SERVICE.stackingWorst, 0)),
  ];
};

const accountBehavior = (f: ScoringFeatures): Signal[] => {
  const bouncedPerMonth =
    f.monthsObserved === 0 ? ACCOUNT_BEHAVIOR.bouncedPerMonthWorst : f.bouncedDebits / f.monthsObserved;
  const bettingShare = f.bettingShareOfIncome ?? (f.bettingDebitsMonthlyAverage > 0 ? 1 : 0);
  return [
    signal(
      'overdraft_days',
      ACCOUNT_BEHAVIOR.overdraftPoints,
      linearScale(f.overdraftDaysPerMonth, ACCOUNT_BEHAVIOR.overdraftDaysWorst, 0),
    ),
    signal(
      'bounced_debits',
      ACCOUNT_BEHAVIOR.bouncedPoints,
      linearScale(bouncedPerMonth, ACCOUNT_BEHAVIOR.bouncedPerMonthWorst, 0),
    ),
    signal(
      'betting_spend',
      ACCOUNT_BEHAVIOR.bettingPoints,
      linearScale(bettingShare, ACCOUNT_BEHAVIOR.bettingWorst, ACCOUNT_BEHAVIOR.bettingBest),
    ),
    signal(
      'statement_red_flags',
      ACCOUNT_BEHAVIOR.redFlagPoints,
      linearScale(f.redFlags.length, ACCOUNT_BEHAVIOR.redFlagsWorst, 0),
    ),
  ];
};

/** Bureau file: half its score, half its delinquency (worst days past due, overdue, write-offs). */
const bureauRecord = (bureau: BureauSummary): number => {
  const delinquency =
    bureau.writtenOffFacilities > 0
      ? 0
      : linearScale(bureau.maxDaysPastDue, CREDIT_HISTORY.delinquencyWorstDpd, 0) *
        (bureau.overdueAmount > 0 ? CREDIT_HISTORY.overduePenalty : 1);
  if (bureau.score === null) return delinquency;
  const score = linearScale(bureau.score, CREDIT_HISTORY.bureauScoreWorst, CREDIT_HISTORY.bureauScoreBest);
  return (score + delinquency) / 2;
};

/**
 * Without a bureau file (no BVN, no hit, bureau down) the statements speak: repaying what was
 * borrowed from digital lenders earns credit, capped below what a clean bureau file earns.
 * Repayments never earn more than no evidence once the existing debt fills the room under the
 * cap (or there is debt and no income): past that point the existing-debt signal has nothing
 * left to take, and more repaid would otherwise score better.
 */
const statementRecord = (f: ScoringFeatures, bureau: BureauSummary): number => {
  const repaymentRatio = ratio(f.loanRepaymentsTotal, f.loanDisbursementsTotal);
  const evidence =
    repaymentRatio === null
      ? CREDIT_HISTORY.noEvidence
      : linearScale(repaymentRatio, CREDIT_HISTORY.repaymentRatioWorst, CREDIT_HISTORY.repaymentRatioBest);
  const existingDebt = existingMonthlyDebt(f, bureau);
  const overCap = existingDebt > 0 && (ratio(existingDebt, f.monthlyIncome) ?? Infinity) >= DSR_CAP;
  return (overCap ? Math.min(evidence, CREDIT_HISTORY.noEvidence) : evidence) * CREDIT_HISTORY.statementOnlyCap;
};

const creditHistory = (f: ScoringFeatures, bureau: BureauSummary): Signal[] => [
  signal(
    bureau.status === 'HIT' ? 'bureau_record' : 'statement_credit_record',
    CREDIT_HISTORY.recordPoints,
    bureau.status === 'HIT' ? bureauRecord(bureau) : statementRecord(f, bureau),
  ),
  signal(
    'history_length',
    CREDIT_HISTORY.lengthPoints,
    linearScale(f.historyMonths, THIN_FILE_MIN_HISTORY_MONTHS, CREDIT_HISTORY.lengthBestMonths),
  ),
];

const scored = (component: ComponentName, signals: Signal[]): SignalScore[] =>
  signals.map(({ signal: name, maxPoints, fraction }) => ({
    component,
    signal: name,
    maxPoints,
    points: round2(maxPoints * fraction),
  }));

const componentTotal = (signals: SignalScore[], component: ComponentName): number =>
  round2(
    Math.min(
      COMPONENT_MAX_POINTS[component],
      sum(signals.filter((s) => s.component === component).map((s) => s.points)),
    ),
  );

/** Scores the five components; `total` is their sum and is the decision's `score`. */
export const scoreComponents = (features: ScoringFeatures, bureau: BureauSummary): ScoredComponents => {
  const signals = [
    ...scored('cash_flow_health', cashFlowHealth(features)),
    ...scored('income_stability', incomeStability(features)),
    ...scored('debt_service_capacity', debtServiceCapacity(features, bureau)),
    ...scored('account_behavior', accountBehavior(features)),
    ...scored('credit_history', creditHistory(features, bureau)),
  ];
  const parts = {
    cash_flow_health: componentTotal(signals, 'cash_flow_health'),
    income_stability: componentTotal(signals, 'income_stability'),
    debt_service_capacity: componentTotal(signals, 'debt_service_capacity'),
    account_behavior: componentTotal(signals, 'account_behavior'),
    credit_history: componentTotal(signals, 'credit_history'),
  };
  return { breakdown: { total: round2(sum(Object.values(parts))), ...parts }, signals };
};

/** Band of a total score (BAND_THRESHOLDS, lower bounds inclusive). */
export const scoreBandOf = (total: number): ScoreBand => {
  if (total >= BAND_THRESHOLDS.LOW_RISK) return 'LOW_RISK';
  if (total >= BAND_THRESHOLDS.MEDIUM_RISK) return 'MEDIUM_RISK';
  if (total >= BAND_THRESHOLDS.HIGH_RISK) return 'HIGH_RISK';
  return 'VERY_HIGH_RISK';
};
