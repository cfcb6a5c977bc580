import type { EnrichedAccount } from '@loan/contracts';
import type { BureauSummary } from './bureau';
import {
  CASH_FLOW,
  DAYS_PER_MONTH,
  EXISTING_DEBT_LOOKBACK_MONTHS,
  SALARY_MIN_MONTHS,
  SALARY_MIN_MONTH_SHARE,
  THIN_FILE_MIN_HISTORY_MONTHS,
  THIN_FILE_MIN_TRANSACTIONS,
} from './constants';
import { checkIdentity, type ApplicantIdentity, type IdentityCheck } from './identity';
import { coefficientOfVariation, mean, ratio, round2, standardDeviation, sum } from './math';
import { applicantMonths, type ApplicantMonth } from './months';

/** Statement red flags from the provider's insights, by stable code. */
export type StatementRedFlag =
  'IMMEDIATE_LARGE_WITHDRAWAL_POST_PAYDAY' | 'IDENTICAL_DEBIT_VS_CREDIT' | 'CASH_DEPOSITS_LARGER_THAN_SALARY';

/**
 * The derived inputs of the scorecard: everything a decision is computed from besides the
 * bureau summary and the loan asked for. Money in Naira a month unless named a total; ratios
 * as fractions; null where a ratio has no meaning (no income).
 */
export interface ScoringFeatures {
  accountCount: number;
  /** Months in the scoring window, including months without any transaction. */
  monthsObserved: number;
  firstMonth: string | null;
  lastMonth: string | null;
  /** Account age as statements show it: the longest span between first and last transaction. */
  historyMonths: number;
  transactionCount: number;
  /** Verified monthly net income: average monthly income over the window. */
  monthlyIncome: number;
  /** The provider's own monthly income estimate, summed over accounts: for audit only. */
  providerMonthlyIncome: number;
  salaryMonthlyAverage: number;
  salaryMonths: number;
  salaryDetected: boolean;
  employer: string | null;
  incomeMonths: number;
  incomeCv: number | null;
  netFlowMonthlyAverage: number;
  /** Coefficient of variation of monthly net flow, its denominator floored (see CASH_FLOW). */
  netFlowCv: number;
  negativeNetFlowMonths: number;
  averageBalance: number;
  lowestBalance: number;
  overdraftDaysPerMonth: number;
  bouncedDebits: number;
  bettingDebitsMonthlyAverage: number;
  /** Betting debits over income; null when there is no income. */
  bettingShareOfIncome: number | null;
  /** Repayments to other lenders in the latest months: the statements' view of existing debt. */
  statementMonthlyRepayments: number;
  loanRepaymentsTotal: number;
  loanDisbursementsTotal: number;
  /** Months with a repayment to, or a disbursement from, another lender. */
  loanActivityMonths: number;
  /** Months in which another lender paid out a loan. */
  loanDisbursementMonths: number;
  /** Digital-loan disbursements over income; null when there is no income. */
  digitalLoanShareOfIncome: number | null;
  /** Money moved in from the applicant's own accounts, kept out of income. */
  ownTransfersExcluded: number;
  redFlags: StatementRedFlag[];
  identity: IdentityCheck;
  thinFile: boolean;
  /**
   * Day of the month a regular monthly salary is paid, from the provider's income streams (the
   * largest monthly SALARY stream seen at least three times, by its last date); null without one.
   * Absent from decisions made before it was kept. Instalments are dated from it, not scored.
   */
  payDayOfMonth?: number | null;
}

/** The inputs of one decision, enough to audit it and to score it again. */
export interface ScoringAudit {
  scorecardVersion: string;
  features: ScoringFeatures;
  bureauSummary: BureauSummary;
}

export interface FeatureInput {
  applicant: ApplicantIdentity;
  accounts: readonly EnrichedAccount[];
  now: Date;
}

const historyMonthsOf = (accounts: readonly EnrichedAccount[]): number =>
  Math.max(0, ...accounts.map((account) => account.insights.transactionDays / DAYS_PER_MONTH));

const employerOf = (accounts: readonly EnrichedAccount[]): string | null =>
  accounts.map((account) => account.income.employer?.trim() ?? '').find((employer) => employer.length > 0) ?? null;

const redFlagsOf = (accounts: readonly EnrichedAccount[]): StatementRedFlag[] => {
  const raised = (pick: (account: EnrichedAccount) => boolean) => accounts.some(pick);
  const flags: Array<[StatementRedFlag, boolean]> = [
    ['IMMEDIATE_LARGE_WITHDRAWAL_POST_PAYDAY', raised((a) => a.insights.redFlags.immediateLargeWithdrawalPostPayday)],
    ['IDENTICAL_DEBIT_VS_CREDIT', raised((a) => a.insights.redFlags.identicalDebitVsCredit)],
    ['CASH_DEPOSITS_LARGER_THAN_SALARY', raised((a) => a.insights.redFlags.cashDepositsLargerThanSalary)],
  ];
  return flags.filter(([, isRaised]) => isRaised).map(([flag]) => flag);
};

/**
 * Spread of monthly net flow over its mean, the mean floored at a share of income. A negative
 * mean takes the floor: dividing by the size of a deficit would make the flow look steadier
 * the more the applicant spends beyond their means.
 */
const netFlowVolatility = (netFlows: readonly number[], monthlyIncome: number): number => {
  const denominator = Math.max(mean(netFlows), CASH_FLOW.volatilityFloorShareOfIncome * monthlyIncome, 1);
  return standardDeviation(netFlows) / denominator;
};

const isThinFile = (months: readonly ApplicantMonth[], historyMonths: number, transactions: number): boolean =>
  months.length < THIN_FILE_MIN_HISTORY_MONTHS ||
  historyMonths < THIN_FILE_MIN_HISTORY_MONTHS ||
  transactions < THIN_FILE_MIN_TRANSACTIONS;

const roundOrNull = (value: number | null): number | null => (value === null ? null : round2(value));

/**
 * Derives the scorecard's inputs from the applicant's linked accounts, scored as one person.
 * Pure: `now` decides which month is still open and therefore left out.
 */
export const deriveFeatures = ({ applicant, accounts, now }: FeatureInput): ScoringFeatures => {
  const months = applicantMonths(accounts, now);
  const pluck = (field: keyof Omit<ApplicantMonth, 'month'>) => months.map((month) => month[field]);
  const incomes = pluck('income');
  const netFlows = pluck('netFlow');
  const monthlyIncome = mean(incomes);
  const totalIncome = sum(incomes);
  const salaryMonths = months.filter((month) => month.salary > 0).length;
  const historyMonths = historyMonthsOf(accounts);
  const transactionCount = sum(pluck('transactionCount'));
  const recent = months.slice(-EXISTING_DEBT_LOOKBACK_MONTHS);
  const loanDisbursementsTotal = sum(pluck('loanDisbursements'));
  return {
    accountCount: accounts.length,
    monthsObserved: months.length,
    firstMonth: months[0]?.month ?? null,
    lastMonth: months.at(-1)?.month ?? null,
    historyMonths: Math.round(historyMonths * 10) / 10,
    transactionCount,
    monthlyIncome: round2(monthlyIncome),
    providerMonthlyIncome: round2(sum(accounts.map((account) => account.income.monthlyIncome))),
    salaryMonthlyAverage: round2(mean(pluck('salary'))),
    salaryMonths,
    salaryDetected:
      salaryMonths >= SALARY_MIN_MONTHS && months.length > 0 && salaryMonths / months.length >= SALARY_MIN_MONTH_SHARE,
    employer: employerOf(accounts),
    incomeMonths: incomes.filter((income) => income > 0).length,
    incomeCv: roundOrNull(coefficientOfVariation(incomes)),
    netFlowMonthlyAverage: round2(mean(netFlows)),
    netFlowCv: round2(netFlowVolatility(netFlows, monthlyIncome)),
    negativeNetFlowMonths: netFlows.filter((netFlow) => netFlow < 0).length,
    averageBalance: round2(mean(pluck('averageBalance'))),
    lowestBalance: round2(months.length === 0 ? 0 : Math.min(...pluck('minBalance'))),
    overdraftDaysPerMonth: round2(mean(pluck('overdraftDays'))),
    bouncedDebits: sum(pluck('bouncedDebits')),
    bettingDebitsMonthlyAverage: round2(mean(pluck('bettingDebits'))),
    bettingShareOfIncome: roundOrNull(ratio(sum(pluck('bettingDebits')), totalIncome)),
    statementMonthlyRepayments: round2(mean(recent.map((month) => month.loanRepayments))),
    loanRepaymentsTotal: round2(sum(pluck('loanRepayments'))),
    loanDisbursementsTotal: round2(loanDisbursementsTotal),
    loanActivityMonths: months.filter((month) => month.loanRepayments > 0 || month.loanDisbursements > 0).length,
    loanDisbursementMonths: months.filter((month) => month.loanDisbursements > 0).length,
    digitalLoanShareOfIncome: roundOrNull(ratio(loanDisbursementsTotal, totalIncome)),
    ownTransfersExcluded: round2(sum(pluck('ownTransfersIn'))),
    redFlags: redFlagsOf(accounts),
    identity: checkIdentity(applicant, accounts),
    thinFile: isThinFile(months, historyMonths, transactionCount),
    payDayOfMonth: payDayOf(accounts),
  };
};

/** The pay day of the largest regular monthly salary of the accounts, or null (see ScoringFeatures). */
function payDayOf(accounts: FeatureInput['accounts']): number | null {
  const salaries = accounts
    .flatMap((account) => account.income.streams)
    .filter(
      (stream) =>
        stream.incomeType.toUpperCase() === 'SALARY' &&
        stream.frequency.toUpperCase() === 'MONTHLY' &&
        stream.numberOfIncomes >= 3 &&
        dayOfMonth(stream.lastIncomeDate) !== null,
    )
    .sort((a, b) => b.monthlyAverage - a.monthlyAverage);
  return salaries.length === 0 ? null : dayOfMonth(salaries[0]!.lastIncomeDate);
}

/** The day of the month of a date as the provider writes it (`YYYY-MM-DD…` or `DD-MM-YYYY`); null when it is none. */
function dayOfMonth(date: string | null): number | null {
  const match = date ? (/^\d{4}-\d{2}-(\d{2})/.exec(date) ?? /^(\d{2})-\d{2}-\d{4}/.exec(date)) : null;
  const day = match ? Number(match[1]) : NaN;
  return day >= 1 && day <= 31 ? day : null;
}

/**
 * Monthly repayments already owed to other lenders. Statements and the bureau see the same
 * loans (a bank loan is repaid from an account and reported to the bureau), so the larger of
 * the two is taken rather than their sum, which would count such a loan twice.
 */
export const existingMonthlyDebt = (features: ScoringFeatures, bureau: BureauSummary): number =>
  round2(Math.max(features.statementMonthlyRepayments, bureau.monthlyInstalment));
