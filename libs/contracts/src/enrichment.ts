import { z } from 'zod';

/**
 * One calendar month of an account's statement, summarised by the enrichment service from the
 * provider's transactions. Money in whole Naira (the provider speaks kobo; we convert once).
 */
export const MonthSummary = z.object({
  /** `YYYY-MM` */
  month: z.string().regex(/^\d{4}-\d{2}$/),
  credits: z.number(),
  debits: z.number(),
  /** Credits recognised as salary (employer payroll narrations, regular amount and day). */
  salaryCredits: z.number(),
  /**
   * Earned credits besides salary: every credit except salary, transfers from the applicant's
   * own accounts, betting payouts, loan disbursements and reversals.
   */
  otherIncomeCredits: z.number(),
  /** Deposits to betting platforms (Bet9ja, SportyBet, BetKing, ...). */
  bettingDebits: z.number(),
  bettingCredits: z.number(),
  /** Repayments to digital lenders and banks' loan accounts. */
  loanRepayments: z.number(),
  /** Disbursements received from digital lenders. */
  loanDisbursements: z.number(),
  /** Transfers in from / out to accounts in the applicant's own name. */
  ownTransfersIn: z.number(),
  ownTransfersOut: z.number(),
  /** Debits that bounced or were reversed for lack of funds. */
  bouncedDebits: z.number().int(),
  /** Days that ended with a negative balance. */
  overdraftDays: z.number().int(),
  openingBalance: z.number(),
  closingBalance: z.number(),
  minBalance: z.number(),
  averageBalance: z.number(),
  transactionCount: z.number().int(),
});
export type MonthSummary = z.infer<typeof MonthSummary>;

/** An income stream as the provider's income analysis reports it (Mono `income_streams`). */
export const IncomeStream = z.object({
  incomeType: z.string(),
  frequency: z.string(),
  monthlyAverage: z.number(),
  stability: z.number(),
  firstIncomeDate: z.string().nullable(),
  lastIncomeDate: z.string().nullable(),
  lastIncomeDescription: z.string().nullable(),
  numberOfIncomes: z.number().int(),
  numberOfMonths: z.number().int(),
});

/** Income analysis of one account (Mono's income job, in Naira). */
export const IncomeAnalysis = z.object({
  employer: z.string().nullable(),
  monthlyIncome: z.number(),
  annualIncome: z.number(),
  totalIncome: z.number(),
  regularMonthlyAverage: z.number(),
  irregularMonthlyAverage: z.number(),
  streams: z.array(IncomeStream),
  periodMonths: z.number().int(),
});
export type IncomeAnalysis = z.infer<typeof IncomeAnalysis>;

/** Statement insights of one account (Mono's statement insights, in Naira). */
export const StatementInsights = z.object({
  startDate: z.string(),
  endDate: z.string(),
  /** Days between the first and the last transaction. */
  transactionDays: z.number().int(),
  transactionCount: z.number().int(),
  openingBalance: z.number(),
  closingBalance: z.number(),
  averageBalance: z.number(),
  debitToCreditRatio: z.number(),
  overallCredits: z.number(),
  overallDebits: z.number(),
  totalRecurringCredits: z.number(),
  totalRecurringDebits: z.number(),
  redFlags: z.object({
    immediateLargeWithdrawalPostPayday: z.boolean(),
    identicalDebitVsCredit: z.boolean(),
    cashDepositsLargerThanSalary: z.boolean(),
  }),
});
export type StatementInsights = z.infer<typeof StatementInsights>;

/** Everything the scorecard needs of one linked account. */
export const EnrichedAccount = z.object({
  accountId: z.string(),
  providerAccountId: z.string(),
  institution: z.string(),
  /** Bank code of the institution (CBN or NIP code) when known. */
  bankCode: z.string().nullable(),
  accountNumber: z.string(),
  /** Account holder's name as the bank has it, for the identity check. */
  holderName: z.string(),
  /** Last four digits of the holder's BVN as the provider reports it, when it does. */
  bvnLast4: z.string().nullable(),
  currency: z.string(),
  balance: z.number(),
  income: IncomeAnalysis,
  insights: StatementInsights,
  months: z.array(MonthSummary),
  enrichedAt: z.string(),
});
export type EnrichedAccount = z.infer<typeof EnrichedAccount>;
