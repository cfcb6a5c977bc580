import type { CreditPolicy, KnockOutOperator, KnockOutRule, PolicyFeature, ScoreBand } from '@loan/contracts';
import { existingMonthlyDebt, type BureauSummary, type ScoringFeatures } from '../scorecard';
import { ratio } from '../scorecard/math';

/** Band of a total score under a policy's thresholds (lower bounds inclusive). */
export const bandUnder = (total: number, policy: Pick<CreditPolicy, 'bands'>): ScoreBand => {
  const { LOW_RISK, MEDIUM_RISK, HIGH_RISK } = policy.bands.thresholds;
  if (total >= LOW_RISK) return 'LOW_RISK';
  if (total >= MEDIUM_RISK) return 'MEDIUM_RISK';
  if (total >= HIGH_RISK) return 'HIGH_RISK';
  return 'VERY_HIGH_RISK';
};

/**
 * The value of every feature of the catalogue (POLICY_FEATURES) for one analysis, from its
 * audit record alone; null where there is none (no income, no bureau file).
 */
export const policyFeatureValues = (
  features: ScoringFeatures,
  bureau: BureauSummary,
): Record<PolicyFeature, number | null> => {
  const hit = bureau.status === 'HIT';
  const months = features.monthsObserved;
  return {
    bettingShareOfIncome: features.bettingShareOfIncome,
    bouncedDebitsPerMonth: months > 0 ? features.bouncedDebits / months : null,
    overdraftDaysPerMonth: features.overdraftDaysPerMonth,
    historyMonths: features.historyMonths,
    monthsObserved: months,
    monthlyIncome: features.monthlyIncome,
    incomeCv: features.incomeCv,
    netFlowShareOfIncome: ratio(features.netFlowMonthlyAverage, features.monthlyIncome),
    negativeNetFlowMonths: features.negativeNetFlowMonths,
    averageBalance: features.averageBalance,
    existingDebtToIncome: ratio(existingMonthlyDebt(features, bureau), features.monthlyIncome),
    digitalLoanShareOfIncome: features.digitalLoanShareOfIncome,
    loanDisbursementMonths: features.loanDisbursementMonths,
    statementRedFlags: features.redFlags.length,
    bureauScore: hit ? bureau.score : null,
    worstDaysPastDue: hit ? bureau.maxDaysPastDue : null,
    bureauOverdueAmount: hit ? bureau.overdueAmount : null,
    delinquentFacilities: hit ? bureau.delinquentFacilities : null,
    writtenOffFacilities: hit ? bureau.writtenOffFacilities : null,
    bureauEnquiriesLast3m: hit ? bureau.enquiriesLast3m : null,
  };
};

const compare: Record<KnockOutOperator, (a: number, b: number) => boolean> = {
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '==': (a, b) => a === b,
  '!=': (a, b) => a !== b,
};

/** A knock-out rule that matched, with the value that matched it. */
export interface KnockOutHit {
  rule: KnockOutRule;
  value: number;
}

/** The policy's knock-out rules that match, in the policy's order; a feature without a value matches none. */
export const knockOutsHit = (
  policy: Pick<CreditPolicy, 'knockOuts'>,
  values: Record<PolicyFeature, number | null>,
): KnockOutHit[] =>
  policy.knockOuts.flatMap((rule) => {
    const value = values[rule.feature];
    return value !== null && value !== undefined && compare[rule.operator](value, rule.value) ? [{ rule, value }] : [];
  });
