import type { MonthSummary } from '@loan/contracts';
import {
  type CreditKind,
  type DebitKind,
  type StatementLine,
  classifyCredit,
  classifyDebit,
  payerKey,
  reversedDebit,
} from './narrations';
import { toNaira } from './providerResults';

/** A statement line with its time and running balance (kobo; balance may be missing). */
export interface DatedLine extends StatementLine {
  date: string;
  balance: number | null;
}

const DAY_MS = 86_400_000;
/** A credit this small is not a salary, however regular (kobo: ₦10,000). */
const MIN_REGULAR_CREDIT = 1_000_000;
const MIN_REGULAR_MONTHS = 3;
const MAX_REGULAR_AMOUNT_CV = 0.15;
/** Share of the months between a payer's first and last credit in which it paid. */
const MIN_REGULAR_COVERAGE = 0.6;

interface Posted extends DatedLine {
  at: number;
  day: number;
  month: string;
  /** Balance after the line, kobo. */
  after: number;
}

const monthOf = (at: number): string => new Date(at).toISOString().slice(0, 7);
const monthIndex = (month: string): number => Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1;
const signed = (line: StatementLine): number => (line.type === 'credit' ? line.amount : -line.amount);

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function coefficientOfVariation(values: number[]): number {
  if (values.length < 2) return 0;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  if (mean === 0) return 0;
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length;
  return Math.sqrt(variance) / Math.abs(mean);
}

/**
 * Lines oldest first with a balance after each. The provider lists newest first; lines at the
 * same instant keep the provider's order. Missing balances are rebuilt backwards from the
 * account's current balance.
 */
function post(lines: readonly DatedLine[], currentBalance: number): Posted[] {
  const dated = lines
    .map((line, index) => ({ line, index, at: Date.parse(line.date) }))
    .filter((x) => Number.isFinite(x.at) && Number.isFinite(x.line.amount));
  const newestFirst = dated.length > 1 && (dated[0]?.at ?? 0) > (dated[dated.length - 1]?.at ?? 0);
  const ordered = (newestFirst ? [...dated].reverse() : dated).map((x, order) => ({ ...x, order }));
  ordered.sort((a, b) => a.at - b.at || a.order - b.order);
  const complete = ordered.every((x) => typeof x.line.balance === 'number' && Number.isFinite(x.line.balance));
  const after: number[] = new Array<number>(ordered.length);
  if (complete) {
    ordered.forEach((x, i) => (after[i] = x.line.balance as number));
  } else {
    let balance = currentBalance;
    for (let i = ordered.length - 1; i >= 0; i--) {
      after[i] = balance;
      balance -= signed(ordered[i]!.line);
    }
  }
  return ordered.map((x, i) => ({
    ...x.line,
    amount: Math.abs(x.line.amount),
    at: x.at,
    day: Math.floor(x.at / DAY_MS),
    month: monthOf(x.at),
    after: after[i] ?? 0,
  }));
}

/**
 * Payers who credit the account once a month, every month, with about the same amount:
 * salaries whose narration does not say so. Returns the keys of such payers.
 */
function regularMonthlyPayers(credits: Posted[]): Set<string> {
  const groups = new Map<string, Posted[]>();
  for (const credit of credits) {
    if (credit.amount < MIN_REGULAR_CREDIT) continue;
    const key = payerKey(credit);
    if (!key) continue;
    groups.set(key, [...(groups.get(key) ?? []), credit]);
  }
  const regular = new Set<string>();
  for (const [key, items] of groups) {
    const months = new Set(items.map((c) => c.month)).size;
    if (months < MIN_REGULAR_MONTHS || items.length > months + 1) continue;
    const first = items[0]!;
    const last = items[items.length - 1]!;
    if (months / (monthIndex(last.month) - monthIndex(first.month) + 1) < MIN_REGULAR_COVERAGE) continue;
    // Days between credits per calendar month between them: a skipped month does not break the rhythm.
    const gaps = items.slice(1).map((c, i) => {
      const prev = items[i] ?? c;
      return (c.at - prev.at) / DAY_MS / Math.max(1, monthIndex(c.month) - monthIndex(prev.month));
    });
    const gap = median(gaps);
    if (gap < 25 || gap > 35) continue;
    if (coefficientOfVariation(items.map((c) => c.amount)) > MAX_REGULAR_AMOUNT_CV) continue;
    regular.add(key);
  }
  return regular;
}

interface Totals {
  credits: number;
  debits: number;
  salaryCredits: number;
  otherIncomeCredits: number;
  bettingDebits: number;
  bettingCredits: number;
  loanRepayments: number;
  loanDisbursements: number;
  ownTransfersIn: number;
  ownTransfersOut: number;
  bouncedDebits: number;
  transactionCount: number;
}

const zero = (): Totals => ({
  credits: 0,
  debits: 0,
  salaryCredits: 0,
  otherIncomeCredits: 0,
  bettingDebits: 0,
  bettingCredits: 0,
  loanRepayments: 0,
  loanDisbursements: 0,
  ownTransfersIn: 0,
  ownTransfersOut: 0,
  bouncedDebits: 0,
  transactionCount: 0,
});

const CREDIT_BUCKET: Record<CreditKind, keyof Totals | null> = {
  reversal: null,
  own_transfer: 'ownTransfersIn',
  loan_disbursement: 'loanDisbursements',
  betting: 'bettingCredits',
  salary: 'salaryCredits',
  other: 'otherIncomeCredits',
};
const DEBIT_BUCKET: Record<DebitKind, keyof Totals | null> = {
  returned: null,
  own_transfer: 'ownTransfersOut',
  betting: 'bettingDebits',
  loan_repayment: 'loanRepayments',
  other: null,
};

/** Every calendar month from the first to the last, `YYYY-MM`. */
function monthsBetween(first: number, last: number): string[] {
  const out: string[] = [];
  const start = new Date(first);
  let y = start.getUTCFullYear();
  let m = start.getUTCMonth();
  const end = monthOf(last);
  for (;;) {
    const key = `${y}-${String(m + 1).padStart(2, '0')}`;
    out.push(key);
    if (key >= end) return out;
    m += 1;
    if (m === 12) {
      m = 0;
      y += 1;
    }
  }
}

/**
 * Summarises a statement per calendar month (UTC): money in and out by what it was, returned
 * debits, days that ended overdrawn, and the balances. Every month from the first line to the
 * last is listed, quiet months included. Money in Naira.
 */
export function summariseMonths(input: {
  lines: readonly DatedLine[];
  holderName: string;
  /** Balance of the account now (kobo), to rebuild running balances the provider left out. */
  currentBalance: number;
}): MonthSummary[] {
  const posted = post(input.lines, input.currentBalance);
  const first = posted[0];
  const last = posted[posted.length - 1];
  if (!first || !last) return [];

  const creditKinds = new Map<Posted, CreditKind>();
  const debitKinds = new Map<Posted, DebitKind>();
  for (const line of posted) {
    if (line.type === 'credit') creditKinds.set(line, classifyCredit(line, input.holderName));
    else debitKinds.set(line, classifyDebit(line, input.holderName));
  }
  const regular = regularMonthlyPayers(posted.filter((l) => creditKinds.get(l) === 'other'));

  const totals = new Map<string, Totals>();
  const totalsOf = (month: string): Totals => {
    let t = totals.get(month);
    if (!t) totals.set(month, (t = zero()));
    return t;
  };
  for (const line of posted) {
    const t = totalsOf(line.month);
    t.transactionCount += 1;
    if (line.type === 'credit') {
      t.credits += line.amount;
      let kind = creditKinds.get(line) ?? 'other';
      if (kind === 'other' && line.amount >= MIN_REGULAR_CREDIT && regular.has(payerKey(line))) kind = 'salary';
      const bucket = CREDIT_BUCKET[kind];
      if (bucket) t[bucket] += line.amount;
      if (kind === 'reversal') {
        // A debit sent back: it bounced, and what it paid for did not happen.
        t.bouncedDebits += 1;
        const undone = reversedDebit(line.narration);
        const undoneBucket = undone ? DEBIT_BUCKET[undone] : null;
        if (undoneBucket) t[undoneBucket] = Math.max(0, t[undoneBucket] - line.amount);
      }
    } else {
      t.debits += line.amount;
      const kind = debitKinds.get(line) ?? 'other';
      const bucket = DEBIT_BUCKET[kind];
      if (bucket) t[bucket] += line.amount;
      if (kind === 'returned') t.bouncedDebits += 1;
    }
  }

  // End-of-day balances from the first day of the statement to the last.
  const opening = first.after - signed(first);
  const endOfDay = new Map<number, number>();
  for (const line of posted) endOfDay.set(line.day, line.after);

  const summaries: MonthSummary[] = [];
  let balance = opening;
  let day = first.day;
  let index = 0;
  for (const month of monthsBetween(first.at, last.at)) {
    const monthOpening = balance;
    let min = balance;
    let sum = 0;
    let days = 0;
    let overdrawn = 0;
    while (day <= last.day && monthOf(day * DAY_MS) === month) {
      while (index < posted.length && posted[index]!.day === day) {
        min = Math.min(min, posted[index]!.after);
        index += 1;
      }
      balance = endOfDay.get(day) ?? balance;
      sum += balance;
      days += 1;
      if (balance < 0) overdrawn += 1;
      day += 1;
    }
    const t = totalsOf(month);
    summaries.push({
      month,
      credits: toNaira(t.credits),
      debits: toNaira(t.debits),
      salaryCredits: toNaira(t.salaryCredits),
      otherIncomeCredits: toNaira(t.otherIncomeCredits),
      bettingDebits: toNaira(t.bettingDebits),
      bettingCredits: toNaira(t.bettingCredits),
      loanRepayments: toNaira(t.loanRepayments),
      loanDisbursements: toNaira(t.loanDisbursements),
      ownTransfersIn: toNaira(t.ownTransfersIn),
      ownTransfersOut: toNaira(t.ownTransfersOut),
      bouncedDebits: t.bouncedDebits,
      overdraftDays: overdrawn,
      openingBalance: toNaira(monthOpening),
      closingBalance: toNaira(balance),
      minBalance: toNaira(min),
      averageBalance: toNaira(days > 0 ? sum / days : balance),
      transactionCount: t.transactionCount,
    });
  }
  return summaries;
}
