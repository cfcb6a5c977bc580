import type { RiskFactor } from '@loan/contracts';
import type { BureauSummary } from './bureau';
import { MINIMUM_WAGE, RISK_THRESHOLDS as T, THIN_FILE_MIN_HISTORY_MONTHS } from './constants';
import { existingMonthlyDebt, type ScoringFeatures } from './features';
import { formatNaira, formatPercent, ratio } from './math';

/** Stable codes of the risk factors a decision may carry (docs/scoring.md). */
export type RiskFactorCode =
  | 'NO_VERIFIABLE_INCOME'
  | 'LOW_INCOME'
  | 'IRREGULAR_INCOME'
  | 'NEGATIVE_CASH_FLOW'
  | 'VOLATILE_CASH_FLOW'
  | 'LOW_BALANCE'
  | 'FREQUENT_OVERDRAFT'
  | 'BOUNCED_DEBITS'
  | 'HIGH_BETTING_SPEND'
  | 'EXISTING_DIGITAL_LOANS'
  | 'HIGH_DEBT_BURDEN'
  | 'STATEMENT_RED_FLAGS'
  | 'THIN_FILE'
  | 'BUREAU_DELINQUENCY'
  | 'LOW_BUREAU_SCORE'
  | 'RECENT_CREDIT_ENQUIRIES';

type Severity = RiskFactor['severity'];

export interface CodedRiskFactor extends RiskFactor {
  code: RiskFactorCode;
}

const SEVERITY_RANK: Record<Severity, number> = { HIGH: 0, MEDIUM: 1, LOW: 2 };

/** MEDIUM from the first threshold, HIGH from the second (lower = better for the value). */
const severityOf = (value: number, [medium, high]: readonly [number, number]): Severity | null => {
  if (value >= high) return 'HIGH';
  if (value >= medium) return 'MEDIUM';
  return null;
};

const factor = (code: RiskFactorCode, severity: Severity | null, description: string): CodedRiskFactor | null =>
  severity === null ? null : { code, severity, description };

const incomeFactors = (f: ScoringFeatures): Array<CodedRiskFactor | null> => [
  f.monthlyIncome <= 0
    ? factor('NO_VERIFIABLE_INCOME', 'HIGH', 'No salary or other earned income was found in the statements.')
    : factor(
        'LOW_INCOME',
        f.monthlyIncome < MINIMUM_WAGE ? 'MEDIUM' : null,
        `Verified income of ${formatNaira(f.monthlyIncome)} a month is below the national minimum wage.`,
      ),
  factor(
    'IRREGULAR_INCOME',
    f.salaryDetected || f.incomeCv === null ? null : severityOf(f.incomeCv, T.incomeCv),
    `No regular salary; monthly income varies by about ${formatPercent(f.incomeCv ?? 0)} around its average.`,
  ),
];

const cashFlowFactors = (f: ScoringFeatures): Array<CodedRiskFactor | null> => {
  const surplus = ratio(f.netFlowMonthlyAverage, f.monthlyIncome);
  const balanceShare = ratio(f.averageBalance, f.monthlyIncome);
  return [
    factor(
      'NEGATIVE_CASH_FLOW',
      f.netFlowMonthlyAverage >= 0 ? null : surplus === null || surplus < T.negativeNetFlowHigh ? 'HIGH' : 'MEDIUM',
      `More money leaves than arrives: ${formatNaira(-f.netFlowMonthlyAverage)} a month on average.`,
    ),
    factor(
      'VOLATILE_CASH_FLOW',
      f.monthsObserved > 0 && f.netFlowCv >= T.netFlowVolatility ? 'MEDIUM' : null,
      'Monthly net cash flow swings widely from month to month.',
    ),
    factor(
      'LOW_BALANCE',
      balanceShare !== null && balanceShare < T.lowBalanceShareOfIncome ? 'LOW' : null,
      f.averageBalance < 0
        ? `The average balance is overdrawn (${formatNaira(f.averageBalance)}).`
        : `Average balance of ${formatNaira(f.averageBalance)} leaves little cushion.`,
    ),
  ];
};

const behaviourFactors = (f: ScoringFeatures): Array<CodedRiskFactor | null> => [
  factor(
    'FREQUENT_OVERDRAFT',
    severityOf(f.overdraftDaysPerMonth, T.overdraftDaysPerMonth),
    `Accounts end the day overdrawn about ${Math.round(f.overdraftDaysPerMonth)} days a month.`,
  ),
  factor(
    'BOUNCED_DEBITS',
    f.bouncedDebits <= 0 ? null : (severityOf(f.bouncedDebits, T.bouncedDebits) ?? 'LOW'),
    `${f.bouncedDebits} debit${f.bouncedDebits === 1 ? '' : 's'} bounced for lack of funds in ${f.monthsObserved} months.`,
  ),
  factor(
    'HIGH_BETTING_SPEND',
    f.bettingShareOfIncome === null
      ? f.bettingDebitsMonthlyAverage > 0
        ? 'HIGH'
        : null
      : severityOf(f.bettingShareOfIncome, T.bettingShareOfIncome),
    `Betting takes ${formatPercent(f.bettingShareOfIncome ?? 1)} of income (${formatNaira(f.bettingDebitsMonthlyAverage)} a month).`,
  ),
  factor(
    'STATEMENT_RED_FLAGS',
    f.redFlags.length === 0 ? null : f.redFlags.length >= T.redFlagsMedium ? 'MEDIUM' : 'LOW',
    `Statement red flags: ${f.redFlags.map((flag) => flag.toLowerCase().replace(/_/g, ' ')).join(', ')}.`,
  ),
];

const debtFactors = (f: ScoringFeatures, bureau: BureauSummary): Array<CodedRiskFactor | null> => {
  const existing = existingMonthlyDebt(f, bureau);
  const existingRatio = ratio(existing, f.monthlyIncome);
  const digitalSeverity =
    f.loanDisbursementsTotal <= 0
      ? null
      : f.digitalLoanShareOfIncome === null
        ? 'HIGH'
        : (severityOf(f.digitalLoanShareOfIncome, T.digitalLoanShareOfIncome) ?? 'LOW');
  return [
    factor(
      'EXISTING_DIGITAL_LOANS',
      digitalSeverity,
      `Borrowed from other lenders in ${f.loanDisbursementMonths} of ${f.monthsObserved} months (${formatNaira(f.loanDisbursementsTotal)} received, ${formatNaira(f.loanRepaymentsTotal)} repaid).`,
    ),
    factor(
      'HIGH_DEBT_BURDEN',
      existing <= 0 ? null : existingRatio === null ? 'HIGH' : severityOf(existingRatio, T.existingDebtServiceRatio),
      `Existing loan repayments of ${formatNaira(existing)} a month take ${formatPercent(existingRatio ?? 1)} of income.`,
    ),
  ];
};

const fileFactors = (f: ScoringFeatures, bureau: BureauSummary): Array<CodedRiskFactor | null> => [
  factor(
    'THIN_FILE',
    f.thinFile ? 'MEDIUM' : null,
    `Only ${f.monthsObserved} month${f.monthsObserved === 1 ? '' : 's'} of statement history (${THIN_FILE_MIN_HISTORY_MONTHS} needed) or too few transactions.`,
  ),
  factor(
    'BUREAU_DELINQUENCY',
    bureau.writtenOffFacilities > 0
      ? 'HIGH'
      : bureau.overdueAmount > 0 || bureau.delinquentFacilities > 0
        ? (severityOf(bureau.maxDaysPastDue, T.delinquencyDpd) ?? 'MEDIUM')
        : severityOf(bureau.maxDaysPastDue, T.delinquencyDpd),
    `Credit bureau: ${bureau.delinquentFacilities} delinquent facilit${bureau.delinquentFacilities === 1 ? 'y' : 'ies'}, up to ${bureau.maxDaysPastDue} days past due, ${formatNaira(bureau.overdueAmount)} overdue${bureau.writtenOffFacilities > 0 ? ', with write-offs' : ''}.`,
  ),
  factor(
    'LOW_BUREAU_SCORE',
    bureau.score !== null && bureau.score < T.lowBureauScore ? 'MEDIUM' : null,
    `Credit bureau score of ${bureau.score ?? 0} is in the ${bureau.scoreBand ?? 'POOR'} band.`,
  ),
  factor(
    'RECENT_CREDIT_ENQUIRIES',
    bureau.enquiriesLast3m >= T.recentEnquiries3m ? 'LOW' : null,
    `${bureau.enquiriesLast3m} lenders checked the credit file in the last 3 months.`,
  ),
];

/** Every risk factor that applies, most severe first. */
export const riskFactorsOf = (features: ScoringFeatures, bureau: BureauSummary): CodedRiskFactor[] =>
  [
    ...fileFactors(features, bureau),
    ...incomeFactors(features),
    ...cashFlowFactors(features),
    ...behaviourFactors(features),
    ...debtFactors(features, bureau),
  ]
    .filter((risk): risk is CodedRiskFactor => risk !== null)
    .sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity]);
