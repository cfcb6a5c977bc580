import {
  DAY_MS,
  chronological,
  coefficientOfVariation,
  isOwnTransfer,
  isReversal,
  monthKey,
  signed,
  sum,
  time,
} from './analysis';
import type { MonoStatementInsights, MonoTransaction } from './types';

const RECURRING_MIN_MONTHS = 3;
const RECURRING_MAX_CV = 0.2;
const PASS_THROUGH_MIN = 1_000_000;

/** Narration with references, digits and month names removed, to spot the same payment each month. */
export function recurringKey(tx: MonoTransaction): string {
  return `${tx.type}:${tx.narration
    .toUpperCase()
    .replace(/\b(JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)[A-Z]*\b/g, '')
    .replace(/[A-Z]*\d[A-Z\d]*/g, '#')
    .replace(/\s+/g, ' ')
    .trim()}`;
}

function recurringTotals(transactions: readonly MonoTransaction[]): { credits: number; debits: number } {
  const groups = new Map<string, MonoTransaction[]>();
  for (const tx of transactions) {
    if (tx.category === 'bank_charges' || isReversal(tx)) continue;
    const key = recurringKey(tx);
    const group = groups.get(key);
    if (group) group.push(tx);
    else groups.set(key, [tx]);
  }
  let credits = 0;
  let debits = 0;
  for (const items of groups.values()) {
    const months = new Set(items.map((tx) => monthKey(tx.date))).size;
    if (months < RECURRING_MIN_MONTHS) continue;
    if (coefficientOfVariation(items.map((tx) => tx.amount)) > RECURRING_MAX_CV) continue;
    const total = sum(items.map((tx) => tx.amount));
    if (items[0]?.type === 'credit') credits += total;
    else debits += total;
  }
  return { credits, debits };
}

function averageEndOfDayBalance(lines: readonly Timed[], opening: number): number {
  const first = lines[0];
  const last = lines[lines.length - 1];
  if (!first || !last) return opening;
  const firstDay = Math.floor(first.at / DAY_MS);
  const lastDay = Math.floor(last.at / DAY_MS);
  let balance = opening;
  let index = 0;
  let total = 0;
  for (let day = firstDay; day <= lastDay; day += 1) {
    for (let line = lines[index]; line && Math.floor(line.at / DAY_MS) <= day; line = lines[index]) {
      balance = line.tx.balance;
      index += 1;
    }
    total += balance;
  }
  return Math.round(total / (lastDay - firstDay + 1));
}

/** A line with its time parsed once. */
interface Timed {
  tx: MonoTransaction;
  at: number;
}

/** Whether a debit matching `test` follows line `index` within `windowMs` (lines in time order). */
function debitFollows(
  lines: readonly Timed[],
  index: number,
  windowMs: number,
  test: (tx: MonoTransaction) => boolean,
): boolean {
  const start = lines[index]?.at ?? 0;
  for (let i = index + 1; i < lines.length; i += 1) {
    const line = lines[i] as Timed;
    if (line.at - start > windowMs) return false;
    if (line.tx.type === 'debit' && test(line.tx)) return true;
  }
  return false;
}

function largeWithdrawalAfterPayday(lines: readonly Timed[]): boolean {
  return lines.some(
    ({ tx: salary }, index) =>
      salary.category === 'salary' && debitFollows(lines, index, 2 * DAY_MS, (tx) => tx.amount >= salary.amount / 2),
  );
}

function identicalDebitAfterCredit(lines: readonly Timed[]): boolean {
  return lines.some(
    ({ tx: credit }, index) =>
      credit.type === 'credit' &&
      credit.amount >= PASS_THROUGH_MIN &&
      !isReversal(credit) &&
      !isOwnTransfer(credit.narration) &&
      debitFollows(lines, index, DAY_MS, (tx) => tx.amount === credit.amount),
  );
}

function cashDepositsExceedSalary(sorted: readonly MonoTransaction[]): boolean {
  const salaries = sorted.filter((tx) => tx.category === 'salary');
  if (salaries.length === 0) return false;
  const salaryMonths = new Set(salaries.map((tx) => monthKey(tx.date))).size;
  const monthlySalary = sum(salaries.map((tx) => tx.amount)) / salaryMonths;
  const cashByMonth = new Map<string, number>();
  for (const tx of sorted) {
    if (tx.type !== 'credit' || tx.category !== 'cash_deposit') continue;
    cashByMonth.set(monthKey(tx.date), (cashByMonth.get(monthKey(tx.date)) ?? 0) + tx.amount);
  }
  return [...cashByMonth.values()].some((total) => total > monthlySalary);
}

/** Statement insights as the provider computes them from the transactions. */
export function analyzeStatement(transactions: readonly MonoTransaction[]): MonoStatementInsights {
  const sorted = chronological(transactions);
  const lines: Timed[] = sorted.map((tx) => ({ tx, at: time(tx) }));
  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  const opening = first ? first.balance - signed(first) : 0;
  const credits = sorted.filter((tx) => tx.type === 'credit');
  const debits = sorted.filter((tx) => tx.type === 'debit');
  const overallCredits = sum(credits.map((tx) => tx.amount));
  const overallDebits = sum(debits.map((tx) => tx.amount));
  const recurring = recurringTotals(sorted);
  return {
    start_date: first?.date ?? '',
    end_date: last?.date ?? '',
    transaction_length: first && last ? Math.round((time(last) - time(first)) / DAY_MS) : 0,
    transaction_count: sorted.length,
    balance_after_expense: overallCredits - overallDebits,
    opening_balance: opening,
    closing_balance: last?.balance ?? opening,
    average_balance: averageEndOfDayBalance(lines, opening),
    debit_to_credit_ratio: overallCredits === 0 ? 0 : Math.round((overallDebits / overallCredits) * 10_000) / 10_000,
    overall_credits: overallCredits,
    overall_debits: overallDebits,
    number_of_credit_transactions: credits.length,
    number_of_debit_transactions: debits.length,
    total_recurring_credits: recurring.credits,
    total_recurring_debits: recurring.debits,
    immediate_large_withdrawal_post_payday: largeWithdrawalAfterPayday(lines),
    identical_debit_vs_credit: identicalDebitAfterCredit(lines),
    cash_deposits_larger_than_salary: cashDepositsExceedSalary(sorted),
    highest_debits: [...debits]
      .sort((a, b) => b.amount - a.amount)
      .slice(0, 3)
      .map((tx) => ({ amount: tx.amount, narration: tx.narration, date: tx.date })),
  };
}
