import {
  AVERAGE_MONTH_DAYS,
  DAY_MS,
  chronological,
  coefficientOfVariation,
  median,
  monthKey,
  round2,
  sum,
  time,
} from './analysis';
import type { IncomeFrequency, IncomeType, MonoAccount, MonoIncome, MonoIncomeStream, MonoTransaction } from './types';

export interface IncomeAnalysisInput {
  account: Pick<MonoAccount, 'id' | 'name' | 'account_number'>;
  transactions: readonly MonoTransaction[];
  /** Months to look back from `now`; all history when absent. */
  periodMonths?: number;
  now: Date;
}

/** Less history than this and the analysis reports no income at all. */
const MIN_HISTORY_DAYS = 28;
const INCOME_CATEGORIES = new Set(['salary', 'income', 'cash_deposit']);

/** Who paid a credit, read from its narration; null for cash and card settlements. */
export function payerOf(narration: string): string | null {
  const nip = /^NIP\/[^/]+\/([^/]+)\//.exec(narration);
  if (nip?.[1]) return nip[1];
  const salaryFor = /^(.+?) SALARY FOR /.exec(narration);
  if (salaryFor?.[1]) return salaryFor[1];
  const sal = /^SAL\/[^/]+\/(.+)$/.exec(narration);
  if (sal?.[1]) return sal[1];
  return null;
}

interface Group {
  payer: string;
  credits: MonoTransaction[];
}

/** Credits grouped by payer; credits with no identifiable payer come back ungrouped. */
function groupByPayer(credits: readonly MonoTransaction[]): { groups: Group[]; anonymous: MonoTransaction[] } {
  const groups = new Map<string, MonoTransaction[]>();
  const anonymous: MonoTransaction[] = [];
  for (const credit of credits) {
    const payer = payerOf(credit.narration);
    const group = payer === null ? anonymous : groups.get(payer);
    if (group) group.push(credit);
    else if (payer !== null) groups.set(payer, [credit]);
  }
  return { groups: [...groups.entries()].map(([payer, items]) => ({ payer, credits: items })), anonymous };
}

function intervalsInDays(credits: readonly MonoTransaction[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < credits.length; i += 1) {
    const prev = credits[i - 1];
    const next = credits[i];
    if (prev && next) out.push((time(next) - time(prev)) / DAY_MS);
  }
  return out;
}

/** A payer whose credits come on a monthly or weekly rhythm with steady amounts. */
function regularity(group: Group): { type: IncomeType; frequency: IncomeFrequency } | null {
  const { credits } = group;
  if (credits.length < 2) return null;
  const gap = median(intervalsInDays(credits));
  const amountsCv = coefficientOfVariation(credits.map((c) => c.amount));
  const months = new Set(credits.map((c) => monthKey(c.date))).size;
  if (gap >= 25 && gap <= 35 && amountsCv <= 0.15 && months >= 2) {
    const salary = credits.some((c) => /\bSAL(ARY)?\b/.test(c.narration) || c.category === 'salary');
    return { type: salary ? 'SALARY' : 'WAGES', frequency: 'MONTHLY' };
  }
  if (credits.length >= 4 && gap >= 5 && gap <= 9 && amountsCv <= 0.5) return { type: 'WAGES', frequency: 'WEEKLY' };
  return null;
}

function stream(
  type: IncomeType,
  frequency: IncomeFrequency,
  credits: readonly MonoTransaction[],
  months: number,
  monthKeys: readonly string[],
): MonoIncomeStream {
  const total = sum(credits.map((c) => c.amount));
  const last = credits[credits.length - 1];
  const periods = new Set(credits.map((c) => monthKey(c.date))).size;
  let stability: number;
  if (frequency === 'VARIABLE') {
    const perMonth = monthKeys.map((key) => sum(credits.filter((c) => monthKey(c.date) === key).map((c) => c.amount)));
    // Many unrelated payers promise nothing about next month, so variable income tops out at 0.75.
    stability =
      0.75 * (1 - Math.min(1, coefficientOfVariation(perMonth))) * Math.min(1, periods / Math.max(1, monthKeys.length));
  } else {
    const expected = frequency === 'WEEKLY' ? (months * AVERAGE_MONTH_DAYS) / 7 : months;
    const coverage = Math.min(1, (frequency === 'WEEKLY' ? credits.length : periods) / Math.max(1, expected));
    stability = (1 - Math.min(1, coefficientOfVariation(credits.map((c) => c.amount)))) * coverage;
  }
  return {
    income_type: type,
    frequency,
    monthly_average: Math.round(total / months),
    average_income_amount: Math.round(total / Math.max(1, credits.length)),
    currency: 'NGN',
    stability: round2(stability),
    first_income_date: credits[0]?.date ?? null,
    last_income_date: last?.date ?? null,
    last_income_amount: last?.amount ?? 0,
    last_income_description: last?.narration ?? null,
    periods_with_income: periods,
    number_of_incomes: credits.length,
    number_of_months: months,
  };
}

/** Calendar months strictly inside the span (partial first and last months left out). */
function wholeMonthKeys(first: number, last: number): string[] {
  const keys: string[] = [];
  const start = new Date(first);
  let year = start.getUTCFullYear();
  let month = start.getUTCMonth() + 1;
  for (;;) {
    if (month === 12) {
      month = 0;
      year += 1;
    }
    if (Date.UTC(year, month + 1, 1) > last) break;
    keys.push(`${year}-${String(month + 1).padStart(2, '0')}`);
    month += 1;
  }
  return keys;
}

/**
 * Income analysis as the provider computes it: credits from payers on a steady monthly rhythm
 * are salary (or wages), a weekly payer is wages, and the remaining earnings (transfers from
 * customers, POS settlements, cash deposits) form one variable business stream. Loan
 * disbursements, betting payouts, reversals, own-account and person-to-person transfers are
 * not income.
 */
export function analyzeIncome(input: IncomeAnalysisInput): MonoIncome {
  const { account, now } = input;
  const from =
    input.periodMonths === undefined
      ? Number.NEGATIVE_INFINITY
      : Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - input.periodMonths, now.getUTCDate());
  const window = chronological(input.transactions).filter((tx) => time(tx) >= from);
  const first = window[0];
  const last = window[window.length - 1];
  const spanDays = first && last ? (time(last) - time(first)) / DAY_MS : 0;
  const months = Math.max(1, Math.round(spanDays / AVERAGE_MONTH_DAYS));
  const base: MonoIncome = {
    account: account.id,
    account_name: account.name,
    account_number: account.account_number,
    income_summary: { total_income: 0, employer: '' },
    income_streams: [],
    first_transaction_date: first?.date ?? null,
    last_transaction_date: last?.date ?? null,
    period: input.periodMonths ?? months,
    number_of_income_streams: 0,
    total_income: 0,
    annual_income: 0,
    monthly_income: 0,
    aggregated_monthly_average: 0,
    aggregated_monthly_average_regular: 0,
    aggregated_monthly_average_irregular: 0,
    total_regular_income_amount: 0,
    total_irregular_income_amount: 0,
  };
  if (!first || !last || spanDays < MIN_HISTORY_DAYS) return base;

  const credits = window.filter((tx) => tx.type === 'credit' && INCOME_CATEGORIES.has(tx.category));
  const monthKeys = wholeMonthKeys(time(first), time(last));
  const streams: MonoIncomeStream[] = [];
  const payers = groupByPayer(credits);
  const irregular: MonoTransaction[] = [...payers.anonymous];
  let regular = 0;
  let employer = '';
  let employerTotal = 0;
  for (const group of payers.groups) {
    const rhythm = regularity(group);
    if (!rhythm) {
      irregular.push(...group.credits);
      continue;
    }
    const found = stream(rhythm.type, rhythm.frequency, group.credits, months, monthKeys);
    streams.push(found);
    const total = sum(group.credits.map((c) => c.amount));
    regular += total;
    if (rhythm.type === 'SALARY' && total > employerTotal) {
      employer = group.payer;
      employerTotal = total;
    }
  }
  if (irregular.length > 0) {
    streams.push(stream('BUSINESS', 'VARIABLE', chronological(irregular), months, monthKeys));
  }

  const variable = sum(irregular.map((c) => c.amount));
  const total = regular + variable;
  const monthly = Math.round(total / months);
  return {
    ...base,
    income_summary: { total_income: total, employer },
    income_streams: streams,
    number_of_income_streams: streams.length,
    total_income: total,
    annual_income: monthly * 12,
    monthly_income: monthly,
    aggregated_monthly_average: monthly,
    aggregated_monthly_average_regular: Math.round(regular / months),
    aggregated_monthly_average_irregular: Math.round(variable / months),
    total_regular_income_amount: regular,
    total_irregular_income_amount: variable,
  };
}
