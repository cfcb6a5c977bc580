import { SCORE_BREAKDOWN_MAX } from '@loan/contracts';

/**
 * The scorecard's version, written into every decision. Bump it whenever a weight, a threshold
 * or a rule below changes, and record the change in docs/scoring.md.
 */
export const SCORECARD_VERSION = '2026.11-2';

/** Complete calendar months of statement read, the latest first; the current month is partial. */
export const SCORING_WINDOW_MONTHS = 12;

/** Loan repayments seen in the latest months stand for today's obligations to other lenders. */
export const EXISTING_DEBT_LOOKBACK_MONTHS = 3;

/** Days in an average month, to turn a statement span in days into months. */
export const DAYS_PER_MONTH = 30.44;

/** Points each component can earn; they add up to the total score of 0-100 (the decision's `score_breakdown`). */
export const COMPONENT_MAX_POINTS = SCORE_BREAKDOWN_MAX;
export type ComponentName = keyof typeof COMPONENT_MAX_POINTS;

/** Lowest total score of each band, best first; below HIGH_RISK is VERY_HIGH_RISK. */
export const BAND_THRESHOLDS = {
  LOW_RISK: 85,
  MEDIUM_RISK: 70,
  HIGH_RISK: 55,
} as const;

/**
 * Thin file: too little statement history to judge. Fewer months than this, or fewer
 * transactions, sends the application to an analyst.
 */
export const THIN_FILE_MIN_HISTORY_MONTHS = 3;
export const THIN_FILE_MIN_TRANSACTIONS = 30;

/** A salary is detected when payroll credits arrive in this share of months, and at least this often. */
export const SALARY_MIN_MONTH_SHARE = 0.75;
export const SALARY_MIN_MONTHS = 3;

/** Nigeria's national minimum wage (2024), in Naira a month: the floor of the income scale. */
export const MINIMUM_WAGE = 70_000;

/** Cash flow health: steadiness of net flow, balance cushion, months in deficit. */
export const CASH_FLOW = {
  volatilityPoints: 8,
  volatilityBest: 0.5,
  volatilityWorst: 2,
  /**
   * The coefficient of variation of net flow explodes when the average net flow is near zero,
   * which is normal for someone who spends what they earn; the denominator is therefore at
   * least this share of monthly income. A negative mean counts as zero, so a deeper deficit
   * never makes the flow look steadier.
   */
  volatilityFloorShareOfIncome: 0.1,
  cushionPoints: 7,
  cushionWorst: 0,
  cushionBest: 0.5,
  deficitMonthsPoints: 5,
  /** Share of months with negative net flow that earns nothing. */
  deficitMonthsWorst: 0.5,
} as const;

/** Income stability: level, regularity and steadiness. */
export const INCOME = {
  levelPoints: 6,
  /** Full marks at ten times the minimum wage, on a logarithmic scale from the minimum wage. */
  levelBest: 700_000,
  regularityPoints: 8,
  /** Income that is not salary earns at most this share of the regularity points. */
  nonSalaryRegularityWeight: 0.6,
  steadinessPoints: 6,
  cvBest: 0.15,
  cvWorst: 0.8,
} as const;

/** Debt service capacity: free cash flow, burden of existing loans, reliance on new ones. */
export const DEBT_SERVICE = {
  freeCashFlowPoints: 10,
  /** Average monthly net flow (after existing repayments) as a share of income. */
  freeCashFlowWorst: -0.05,
  freeCashFlowBest: 0.2,
  burdenPoints: 10,
  stackingPoints: 5,
  /** Digital-loan disbursements received, as a share of income, that earn no stacking points. */
  stackingWorst: 0.5,
} as const;

/** Account behaviour: overdrafts, bounced debits, betting and statement red flags. */
export const ACCOUNT_BEHAVIOR = {
  overdraftPoints: 5,
  overdraftDaysWorst: 8,
  bouncedPoints: 5,
  bouncedPerMonthWorst: 0.5,
  bettingPoints: 8,
  bettingBest: 0.02,
  bettingWorst: 0.25,
  redFlagPoints: 2,
  redFlagsWorst: 2,
} as const;

/** Credit history: the bureau record (or statement evidence without one) and history length. */
export const CREDIT_HISTORY = {
  recordPoints: 12,
  lengthPoints: 3,
  lengthBestMonths: 12,
  bureauScoreWorst: 500,
  bureauScoreBest: 750,
  /** Days past due at which the delinquency part earns nothing. */
  delinquencyWorstDpd: 90,
  /** An overdue amount today halves the delinquency part. */
  overduePenalty: 0.5,
  /** Without a bureau file, statements earn at most this share of the record points. */
  statementOnlyCap: 0.8,
  /**
   * No bureau file and no digital loan taken in the window: no evidence either way. Also the
   * most that repayments earn when none was taken in the window (an older loan being repaid
   * is a debt, not proof of repaying), or when the repayments already take the whole room
   * under DSR_CAP: more repaid then shows more debt, not a better record.
   */
  noEvidence: 0.5,
  repaymentRatioWorst: 0.5,
  repaymentRatioBest: 1.1,
} as const;

/** Risk-factor thresholds: [MEDIUM, HIGH] unless named otherwise. */
export const RISK_THRESHOLDS = {
  bettingShareOfIncome: [0.1, 0.25],
  overdraftDaysPerMonth: [3, 10],
  /** Bounced debits in the window: LOW from 1, then MEDIUM, HIGH. */
  bouncedDebits: [3, 6],
  /** Digital-loan disbursements as a share of income. */
  digitalLoanShareOfIncome: [0.2, 0.4],
  existingDebtServiceRatio: [0.2, 1 / 3],
  incomeCv: [0.35, 0.7],
  /** Average monthly net flow as a share of income: below 0 MEDIUM, below this HIGH. */
  negativeNetFlowHigh: -0.1,
  netFlowVolatility: 1.5,
  lowBalanceShareOfIncome: 0.05,
  /** Statement red flags: one is LOW, this many MEDIUM. */
  redFlagsMedium: 2,
  delinquencyDpd: [30, 90],
  /** Below CRC's FAIR band. */
  lowBureauScore: 580,
  recentEnquiries3m: 3,
} as const;

/**
 * Days past due (or a write-off) on the bureau file at which the application is declined
 * whatever the score: a current serious default is not outweighed by good statements.
 */
export const SEVERE_DELINQUENCY_DPD = 90;
