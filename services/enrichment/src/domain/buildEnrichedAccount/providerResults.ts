import type { IncomeAnalysis, StatementInsights } from '@loan/contracts';

/**
 * The provider's income and statement-insights results, read defensively (a third party's
 * JSON: missing or mistyped fields become zero or null) and converted from kobo to Naira.
 */

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function num(value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return 0;
}

const int = (value: unknown): number => Math.round(num(value));
const str = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);
const bool = (value: unknown): boolean => value === true || value === 'true';

/** Kobo to Naira, exact to the kobo. */
export const toNaira = (kobo: number): number => Math.round(kobo) / 100;

/** The object that carries the fields, whether given bare or wrapped in `data` / `result`. */
function unwrap(raw: Json | null | undefined, marker: string[]): Json {
  let current: unknown = raw;
  for (let depth = 0; depth < 3 && isObject(current); depth++) {
    if (marker.some((key) => key in (current as Json))) return current as Json;
    const inner = (current as Json).data ?? (current as Json).result ?? (current as Json).insights;
    if (!isObject(inner)) break;
    current = inner;
  }
  return isObject(raw) ? raw : {};
}

/** Mono's income result (`income_summary`, `income_streams`, monthly figures in kobo). */
export function toIncomeAnalysis(raw: Json | null | undefined, fallbackPeriodMonths: number): IncomeAnalysis {
  const income = unwrap(raw, ['income_streams', 'income_summary', 'total_income', 'monthly_income']);
  const summary = isObject(income.income_summary) ? income.income_summary : {};
  const streams = Array.isArray(income.income_streams) ? income.income_streams.filter(isObject) : [];
  const monthly = num(income.monthly_income ?? income.aggregated_monthly_average);
  const period = int(income.period);
  return {
    employer: str(summary.employer) ?? str(income.employer),
    monthlyIncome: toNaira(monthly),
    annualIncome: toNaira(income.annual_income === undefined ? monthly * 12 : num(income.annual_income)),
    totalIncome: toNaira(num(income.total_income ?? summary.total_income)),
    regularMonthlyAverage: toNaira(num(income.aggregated_monthly_average_regular)),
    irregularMonthlyAverage: toNaira(num(income.aggregated_monthly_average_irregular)),
    streams: streams.map((s) => ({
      incomeType: str(s.income_type) ?? 'UNKNOWN',
      frequency: str(s.frequency) ?? 'UNKNOWN',
      monthlyAverage: toNaira(num(s.monthly_average)),
      stability: Math.min(1, Math.max(0, num(s.stability))),
      firstIncomeDate: str(s.first_income_date),
      lastIncomeDate: str(s.last_income_date),
      lastIncomeDescription: str(s.last_income_description),
      numberOfIncomes: int(s.number_of_incomes),
      numberOfMonths: int(s.number_of_months),
    })),
    periodMonths: period > 0 ? period : fallbackPeriodMonths,
  };
}

/** Mono's statement insights (balances and totals in kobo, red flags as booleans). */
export function toStatementInsights(raw: Json | null | undefined): StatementInsights {
  const insights = unwrap(raw, ['overall_credits', 'transaction_count', 'start_date', 'average_balance']);
  return {
    startDate: str(insights.start_date) ?? '',
    endDate: str(insights.end_date) ?? '',
    transactionDays: int(insights.transaction_length),
    transactionCount: int(insights.transaction_count),
    openingBalance: toNaira(num(insights.opening_balance)),
    closingBalance: toNaira(num(insights.closing_balance)),
    averageBalance: toNaira(num(insights.average_balance)),
    debitToCreditRatio: num(insights.debit_to_credit_ratio),
    overallCredits: toNaira(num(insights.overall_credits)),
    overallDebits: toNaira(num(insights.overall_debits)),
    totalRecurringCredits: toNaira(num(insights.total_recurring_credits)),
    totalRecurringDebits: toNaira(num(insights.total_recurring_debits)),
    redFlags: {
      immediateLargeWithdrawalPostPayday: bool(insights.immediate_large_withdrawal_post_payday),
      identicalDebitVsCredit: bool(insights.identical_debit_vs_credit),
      cashDepositsLargerThanSalary: bool(insights.cash_deposits_larger_than_salary),
    },
  };
}

/** Whether a provider answer looks like an income result (and not an empty acknowledgement). */
export const looksLikeIncome = (raw: unknown): raw is Json =>
  isObject(raw) &&
  Object.keys(unwrap(raw, ['income_streams', 'income_summary', 'total_income', 'monthly_income'])).some((k) =>
    ['income_streams', 'income_summary', 'total_income', 'monthly_income'].includes(k),
  );
