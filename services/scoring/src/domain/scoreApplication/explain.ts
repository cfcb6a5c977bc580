import type { Decision, ScoreBand } from '@loan/contracts';
import type { AffordabilityAssessment, LoanAsk } from '../affordability';
import { existingMonthlyDebt, type BureauSummary, type CodedRiskFactor, type ScoringFeatures } from '../scorecard';
import { formatNaira, formatPercent, ratio } from '../scorecard/math';
import type { Outcome } from './outcome';

/** How many strengths and weaknesses a decision lists. */
export const MAX_EXPLANATIONS = 4;

const GOOD_BUREAU_SCORE = 670;
const HIGH_INCOME = 500_000;
const STEADY_INCOME_CV = 0.35;
const SAVER_SURPLUS = 0.1;
const HEALTHY_CUSHION = 0.5;
const LONG_HISTORY_MONTHS = 12;

export interface ExplainInput {
  outcome: Outcome;
  features: ScoringFeatures;
  bureau: BureauSummary;
  score: number;
  band: ScoreBand;
  affordability: AffordabilityAssessment;
  loan: LoanAsk;
  riskFactors: CodedRiskFactor[];
}

const bandWords = (band: ScoreBand): string => band.replace(/_/g, ' ').toLowerCase();

/** Plain-words strengths, most telling first; each applies only when its condition holds. */
const strengthsOf = (f: ScoringFeatures, bureau: BureauSummary): string[] => {
  const surplus = ratio(f.netFlowMonthlyAverage, f.monthlyIncome) ?? 0;
  const cushion = ratio(f.averageBalance, f.monthlyIncome) ?? 0;
  const cleanBureau = bureau.status === 'HIT' && bureau.maxDaysPastDue === 0 && bureau.overdueAmount === 0;
  const candidates: Array<[boolean, string]> = [
    [
      f.salaryDetected,
      `Regular salary${f.employer ? ` from ${f.employer}` : ''} in ${f.salaryMonths} of ${f.monthsObserved} months.`,
    ],
    [f.monthlyIncome >= HIGH_INCOME, `High verified income of ${formatNaira(f.monthlyIncome)} a month.`],
    [
      !f.salaryDetected && f.monthlyIncome > 0 && f.incomeCv !== null && f.incomeCv <= STEADY_INCOME_CV,
      `Steady income of ${formatNaira(f.monthlyIncome)} a month.`,
    ],
    [
      cleanBureau && (bureau.score === null || bureau.score >= GOOD_BUREAU_SCORE),
      bureau.score === null
        ? 'No arrears on the credit bureau file.'
        : `Good credit bureau record (score ${bureau.score}).`,
    ],
    [existingMonthlyDebt(f, bureau) === 0 && f.loanActivityMonths === 0, 'No repayments owed to other lenders.'],
    [surplus >= SAVER_SURPLUS, `Keeps about ${formatPercent(surplus)} of income each month.`],
    [
      f.monthsObserved > 0 && f.overdraftDaysPerMonth === 0 && f.bouncedDebits === 0,
      'Never overdrawn and no bounced debits.',
    ],
    [f.monthsObserved > 0 && f.bettingDebitsMonthlyAverage === 0, 'No betting spend.'],
    [cushion >= HEALTHY_CUSHION, `Healthy average balance of ${formatNaira(f.averageBalance)}.`],
    [f.historyMonths >= LONG_HISTORY_MONTHS, `${Math.floor(f.historyMonths)} months of account history.`],
  ];
  return candidates
    .filter(([applies]) => applies)
    .map(([, text]) => text)
    .slice(0, MAX_EXPLANATIONS);
};

const declineReason = (input: ExplainInput, outcome: Extract<Outcome, { decision: 'DECLINED' }>): string => {
  const { bureau, score, band, features, riskFactors, affordability, loan } = input;
  const cap = formatPercent(affordability.maxDebtServiceRatio);
  if (outcome.rule) return `Declined (${outcome.rule.code}): ${outcome.rule.description}`;
  const code = outcome.declineCode;
  if (code === `${band}_SCORE` && code !== 'VERY_HIGH_RISK_SCORE')
    return `Declined: score ${score} is in the ${bandWords(band)} band, which this lender declines.`;
  switch (code) {
    case 'SEVERE_BUREAU_DELINQUENCY':
      return bureau.writtenOffFacilities > 0
        ? 'Declined: the credit bureau shows a written-off loan.'
        : `Declined: the credit bureau shows a loan ${bureau.maxDaysPastDue} days past due.`;
    case 'VERY_HIGH_RISK_SCORE': {
      const main = riskFactors[0];
      const concern = main
        ? `; main concern: ${main.description.charAt(0).toLowerCase()}${main.description.slice(1)}`
        : '.';
      return `Declined: score ${score} is in the ${bandWords(band)} band${concern}`;
    }
    case 'NOT_AFFORDABLE':
      return features.monthlyIncome <= 0
        ? 'Declined: no verifiable income to repay a loan from.'
        : `Declined: no amount is affordable; repayments may take at most ${cap} of verified income of ${formatNaira(features.monthlyIncome)} a month.`;
    case 'BELOW_MINIMUM_AMOUNT':
      return `Declined: ${formatNaira(loan.amount)} is below the smallest loan this lender makes.`;
    default:
      return `Declined (${code}).`;
  }
};

const askShare = (affordability: AffordabilityAssessment): string =>
  affordability.debtServiceRatio === null ? 'all' : formatPercent(affordability.debtServiceRatio);

const primaryReasonOf = (input: ExplainInput): string => {
  const { outcome, score, band, affordability, loan } = input;
  switch (outcome.decision) {
    case 'DECLINED':
      return declineReason(input, outcome);
    case 'MANUAL_REVIEW':
      return `Referred for manual review: ${outcome.reasons.map((reason) => reason.description).join(' ')}`;
    case 'COUNTER_OFFER':
      return `${formatNaira(loan.amount)} over ${loan.tenor} months would take ${askShare(affordability)} of income in repayments (cap ${formatPercent(affordability.maxDebtServiceRatio)}). ${outcome.counterOffer.reason}`;
    case 'APPROVED':
      return `Approved: score ${score} (${bandWords(band)}) and repayments would take ${askShare(affordability)} of verified income, within the ${formatPercent(affordability.maxDebtServiceRatio)} cap.`;
  }
};

export const explain = (input: ExplainInput): Decision['explainability'] => ({
  primary_reason: primaryReasonOf(input),
  key_strengths: strengthsOf(input.features, input.bureau),
  key_weaknesses: input.riskFactors.slice(0, MAX_EXPLANATIONS).map((risk) => risk.description),
});
