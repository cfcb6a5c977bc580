import type { EnrichedAccount, MonthSummary } from '@loan/contracts';
import { SCORING_WINDOW_MONTHS } from './constants';

/**
 * One calendar month of the applicant as one person: every linked account added up, with
 * transfers between the applicant's own accounts left out. Money in Naira.
 */
export interface ApplicantMonth {
  /** `YYYY-MM` */
  month: string;
  /**
   * Verified income: salary plus other income, less betting payouts and loan disbursements
   * (neither is earned), and never counting transfers from the applicant's own accounts.
   */
  income: number;
  salary: number;
  /** Money in that is not the applicant's own money moving, nor borrowed. */
  inflow: number;
  /** Money out that is not the applicant's own money moving. */
  outflow: number;
  netFlow: number;
  bettingDebits: number;
  loanRepayments: number;
  loanDisbursements: number;
  /** Transfers received from the applicant's own accounts, left out of income and inflow. */
  ownTransfersIn: number;
  ownTransfersOut: number;
  bouncedDebits: number;
  /**
   * Days in the month that ended overdrawn in some account: the worst account's count, since
   * without daily balances days in different accounts cannot be told apart.
   */
  overdraftDays: number;
  averageBalance: number;
  /** Sum of the accounts' lowest balances: a floor, as the lows may fall on different days. */
  minBalance: number;
  transactionCount: number;
}

/** `YYYY-MM` of a date, in UTC. */
export const monthOf = (date: Date): string => date.toISOString().slice(0, 7);

const addMonths = (month: string, count: number): string => {
  const [year = 0, monthNumber = 1] = month.split('-').map(Number);
  return monthOf(new Date(Date.UTC(year, monthNumber - 1 + count, 1)));
};

/** Every month from `first` to `last`, both included. */
export const monthRange = (first: string, last: string): string[] => {
  const months: string[] = [];
  for (let month = first; month <= last; month = addMonths(month, 1)) months.push(month);
  return months;
};

const EMPTY_MONTH: Omit<ApplicantMonth, 'month'> = {
  income: 0,
  salary: 0,
  inflow: 0,
  outflow: 0,
  netFlow: 0,
  bettingDebits: 0,
  loanRepayments: 0,
  loanDisbursements: 0,
  ownTransfersIn: 0,
  ownTransfersOut: 0,
  bouncedDebits: 0,
  overdraftDays: 0,
  averageBalance: 0,
  minBalance: 0,
  transactionCount: 0,
};

/**
 * One account's month seen from the applicant. `otherIncomeCredits` already leaves out own
 * transfers, betting payouts, loan disbursements and reversals (see the contract).
 */
const fromAccountMonth = (summary: MonthSummary): ApplicantMonth => {
  const earnedOther = Math.max(0, summary.otherIncomeCredits);
  const inflow = Math.max(0, summary.credits - summary.ownTransfersIn - summary.loanDisbursements);
  const outflow = Math.max(0, summary.debits - summary.ownTransfersOut);
  return {
    month: summary.month,
    income: summary.salaryCredits + earnedOther,
    salary: summary.salaryCredits,
    inflow,
    outflow,
    netFlow: inflow - outflow,
    bettingDebits: summary.bettingDebits,
    loanRepayments: summary.loanRepayments,
    loanDisbursements: summary.loanDisbursements,
    ownTransfersIn: summary.ownTransfersIn,
    ownTransfersOut: summary.ownTransfersOut,
    bouncedDebits: summary.bouncedDebits,
    overdraftDays: summary.overdraftDays,
    averageBalance: summary.averageBalance,
    minBalance: summary.minBalance,
    transactionCount: summary.transactionCount,
  };
};

const addMonth = (total: ApplicantMonth, next: ApplicantMonth): ApplicantMonth => ({
  month: total.month,
  income: total.income + next.income,
  salary: total.salary + next.salary,
  inflow: total.inflow + next.inflow,
  outflow: total.outflow + next.outflow,
  netFlow: total.netFlow + next.netFlow,
  bettingDebits: total.bettingDebits + next.bettingDebits,
  loanRepayments: total.loanRepayments + next.loanRepayments,
  loanDisbursements: total.loanDisbursements + next.loanDisbursements,
  ownTransfersIn: total.ownTransfersIn + next.ownTransfersIn,
  ownTransfersOut: total.ownTransfersOut + next.ownTransfersOut,
  bouncedDebits: total.bouncedDebits + next.bouncedDebits,
  overdraftDays: Math.max(total.overdraftDays, next.overdraftDays),
  averageBalance: total.averageBalance + next.averageBalance,
  minBalance: total.minBalance + next.minBalance,
  transactionCount: total.transactionCount + next.transactionCount,
});

/**
 * The applicant's months across all linked accounts, oldest first: the last
 * SCORING_WINDOW_MONTHS complete months before `now` that hold data, with months between
 * them that no account reports counted as empty (no money moved is itself a signal).
 * Transfers between the linked accounts cancel out because every own transfer is left out
 * of income, inflow and outflow on both sides.
 */
export const applicantMonths = (accounts: readonly EnrichedAccount[], now: Date): ApplicantMonth[] => {
  const currentMonth = monthOf(now);
  const byMonth = new Map<string, ApplicantMonth>();
  for (const summary of accounts.flatMap((account) => account.months)) {
    if (summary.month >= currentMonth) continue;
    const month = fromAccountMonth(summary);
    const total = byMonth.get(month.month);
    byMonth.set(month.month, total === undefined ? month : addMonth(total, month));
  }
  const reported = [...byMonth.keys()].sort();
  const last = reported.at(-1);
  const first = reported[0];
  if (last === undefined || first === undefined) return [];
  const windowStart = addMonths(last, 1 - SCORING_WINDOW_MONTHS);
  return monthRange(first > windowStart ? first : windowStart, last).map(
    (month) => byMonth.get(month) ?? { month, ...EMPTY_MONTH },
  );
};
