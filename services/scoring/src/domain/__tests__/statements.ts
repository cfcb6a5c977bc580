import type { EnrichedAccount, MonthSummary, StatementInsights } from '@loan/contracts';

/** Fixed clock of the fixtures: statements run from 2025-11 to 2026-10, November is open. */
export const FIXTURE_NOW = new Date('2026-11-15T09:00:00.000Z');
export const FIXTURE_FIRST_MONTH = '2025-11';

/** One month of an account, in Naira; everything not given is zero. */
export interface MonthPlan {
  salary?: number;
  /** Earned credits that are not salary (trade, gig payouts, interest). */
  otherIncome?: number;
  /** Ordinary spending: bills, food, transport, transfers to other people. */
  spending?: number;
  betting?: number;
  bettingWins?: number;
  loanRepayments?: number;
  loanDisbursements?: number;
  ownIn?: number;
  ownOut?: number;
  bounced?: number;
  overdraftDays?: number;
  transactions?: number;
}

export interface AccountPlan {
  accountId: string;
  institution: string;
  bankCode: string | null;
  accountNumber: string;
  holderName: string;
  bvnLast4?: string | null;
  employer?: string | null;
  openingBalance: number;
  firstMonth?: string;
  months: MonthPlan[];
  redFlags?: Partial<StatementInsights['redFlags']>;
}

const DEFAULT_TRANSACTIONS_PER_MONTH = 45;

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32), so fixtures never change. */
export const seededRandom = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};

/** `value` moved by up to ±`spread` (a fraction), rounded to whole Naira. */
export const jitter = (random: () => number, value: number, spread: number): number =>
  Math.round(value * (1 + (random() * 2 - 1) * spread));

export const addMonths = (month: string, count: number): string => {
  const [year = 0, monthNumber = 1] = month.split('-').map(Number);
  return new Date(Date.UTC(year, monthNumber - 1 + count, 1)).toISOString().slice(0, 7);
};

const lastDayOf = (month: string): string => {
  const [year = 0, monthNumber = 1] = month.split('-').map(Number);
  return new Date(Date.UTC(year, monthNumber, 0)).toISOString().slice(0, 10);
};

const round2 = (value: number): number => Math.round(value * 100) / 100;

const monthSummary = (month: string, plan: MonthPlan, openingBalance: number): MonthSummary => {
  const p = {
    salary: 0,
    otherIncome: 0,
    spending: 0,
    betting: 0,
    bettingWins: 0,
    loanRepayments: 0,
    loanDisbursements: 0,
    ownIn: 0,
    ownOut: 0,
    bounced: 0,
    overdraftDays: 0,
    ...plan,
  };
  const credits = p.salary + p.otherIncome + p.bettingWins + p.loanDisbursements + p.ownIn;
  const debits = p.spending + p.betting + p.loanRepayments + p.ownOut;
  const closingBalance = openingBalance + credits - debits;
  const low = Math.min(openingBalance, closingBalance);
  // Before payday the balance dips; overdrawn days push it below zero.
  const minBalance =
    p.overdraftDays > 0 ? -Math.max(5_000, Math.round(0.1 * p.spending)) : Math.round(Math.max(0, low) * 0.4);
  return {
    month,
    credits,
    debits,
    salaryCredits: p.salary,
    otherIncomeCredits: p.otherIncome,
    bettingDebits: p.betting,
    bettingCredits: p.bettingWins,
    loanRepayments: p.loanRepayments,
    loanDisbursements: p.loanDisbursements,
    ownTransfersIn: p.ownIn,
    ownTransfersOut: p.ownOut,
    bouncedDebits: p.bounced,
    overdraftDays: p.overdraftDays,
    openingBalance,
    closingBalance,
    minBalance,
    averageBalance: round2((openingBalance + closingBalance) / 2),
    transactionCount: plan.transactions ?? DEFAULT_TRANSACTIONS_PER_MONTH,
  };
};

const summariseMonths = (plans: MonthPlan[], firstMonth: string, openingBalance: number): MonthSummary[] => {
  const months: MonthSummary[] = [];
  let balance = openingBalance;
  plans.forEach((plan, index) => {
    const summary = monthSummary(addMonths(firstMonth, index), plan, balance);
    months.push(summary);
    balance = summary.closingBalance;
  });
  return months;
};

const mean = (values: number[]): number =>
  values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;

/** An enriched account as the enrichment service would produce it from the plan. */
export const buildAccount = (plan: AccountPlan): EnrichedAccount => {
  const firstMonth = plan.firstMonth ?? FIXTURE_FIRST_MONTH;
  const months = summariseMonths(plan.months, firstMonth, plan.openingBalance);
  const first = months[0];
  const last = months.at(-1);
  const startDate = `${firstMonth}-01`;
  const endDate = last === undefined ? startDate : lastDayOf(last.month);
  const salaries = months.map((month) => month.salaryCredits);
  const others = plan.months.map((month) => month.otherIncome ?? 0);
  const monthlyIncome = round2(mean(salaries) + mean(others));
  const salaryMonths = salaries.filter((salary) => salary > 0).length;
  const credits = months.reduce((total, month) => total + month.credits, 0);
  const debits = months.reduce((total, month) => total + month.debits, 0);
  return {
    accountId: plan.accountId,
    providerAccountId: `prov_${plan.accountId.slice(0, 8)}`,
    institution: plan.institution,
    bankCode: plan.bankCode,
    accountNumber: plan.accountNumber,
    holderName: plan.holderName,
    bvnLast4: plan.bvnLast4 ?? null,
    currency: 'NGN',
    balance: last?.closingBalance ?? plan.openingBalance,
    income: {
      employer: plan.employer ?? null,
      monthlyIncome,
      annualIncome: round2(monthlyIncome * 12),
      totalIncome: round2(salaries.reduce((a, b) => a + b, 0) + others.reduce((a, b) => a + b, 0)),
      regularMonthlyAverage: round2(mean(salaries)),
      irregularMonthlyAverage: round2(mean(others)),
      streams:
        salaryMonths > 0
          ? [
              {
                incomeType: 'SALARY',
                frequency: 'MONTHLY',
                monthlyAverage: round2(mean(salaries.filter((salary) => salary > 0))),
                stability: round2(salaryMonths / months.length),
                firstIncomeDate: `${first?.month ?? firstMonth}-25`,
                lastIncomeDate: `${last?.month ?? firstMonth}-25`,
                lastIncomeDescription: plan.employer ? `SALARY ${plan.employer}` : null,
                numberOfIncomes: salaryMonths,
                numberOfMonths: months.length,
              },
            ]
          : [],
      periodMonths: months.length,
    },
    insights: {
      startDate,
      endDate,
      transactionDays: Math.round((Date.parse(endDate) - Date.parse(startDate)) / 86_400_000),
      transactionCount: months.reduce((total, month) => total + month.transactionCount, 0),
      openingBalance: plan.openingBalance,
      closingBalance: last?.closingBalance ?? plan.openingBalance,
      averageBalance: round2(mean(months.map((month) => month.averageBalance))),
      debitToCreditRatio: credits > 0 ? round2(debits / credits) : 0,
      overallCredits: credits,
      overallDebits: debits,
      totalRecurringCredits: salaries.reduce((a, b) => a + b, 0),
      totalRecurringDebits: months.reduce((total, month) => total + month.loanRepayments, 0),
      redFlags: {
        immediateLargeWithdrawalPostPayday: false,
        identicalDebitVsCredit: false,
        cashDepositsLargerThanSalary: false,
        ...plan.redFlags,
      },
    },
    months,
    enrichedAt: FIXTURE_NOW.toISOString(),
  };
};

/** `count` month plans from a generator given the month index and a seeded random source. */
export const planMonths = (
  count: number,
  seed: number,
  plan: (index: number, random: () => number) => MonthPlan,
): MonthPlan[] => {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, index) => plan(index, random));
};
