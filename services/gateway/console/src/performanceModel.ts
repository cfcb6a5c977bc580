import type { BadDefinition, LoanOutcomesView, OutcomeUpload, PerformanceQuery, PerformanceReportView } from './api';
import type { Cell } from './figures';
import { say } from './labels';
import { BREAKDOWN_PARTS, money, monthLabel } from './model';
import { percent } from './portfolioModel';

/** What the Performance page says of its figures, in words: pure, so that it is tested on its own. */

/** The days past due a lender may count a loan bad from (the contracts' DPD_THRESHOLDS; a unit test holds them equal). */
export const DPD_CHOICES = [1, 30, 60, 90, 120, 180] as const;

/** The columns of an outcomes upload, in the order the template has them. */
export const OUTCOME_CSV_HEADER =
  'applicationId,idempotencyKey,type,date,amount,tenor,number,daysPastDue,outstanding,early' as const;

const listOf = (parts: string[]) =>
  parts.length > 1 ? `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}` : (parts[0] ?? '');

/** The lender's bad definition in words: `90 or more days past due at any time, written off or declared defaulted`. */
export function badDefinitionWords(bad: BadDefinition): string {
  return listOf([
    bad.daysPastDue === 1
      ? 'past due at any time (a day or more)'
      : `${bad.daysPastDue} or more days past due at any time`,
    ...(bad.writtenOff ? ['written off'] : []),
    ...(bad.defaulted ? ['declared defaulted'] : []),
  ]);
}

/** A bad rate, or the report's reason for giving none. */
export function rateCell(row: { badRate: number | null; note: string | null }): Cell {
  if (row.badRate !== null) return percent(row.badRate);
  return { note: row.note ?? 'Too few loans for a bad rate' };
}

/** `0.4312` -> `0.43`: Gini, AUC and KS as a reader of a model report expects them. */
export const twoPlaces = (value: number) => value.toFixed(2);

/** The policy version a figure is of: version 0 is the built-in policy. */
export const versionName = (version: number) => (version === 0 ? 'Version 0 (built-in)' : `Version ${version}`);

/** What the drift is measured on: the total score, or one of its parts. */
export function measureName(measure: string): string {
  if (measure === 'total') return 'Total score';
  return BREAKDOWN_PARTS.find(([key]) => key === measure)?.[1] ?? say(measure);
}

/** `1 loan`, `2 loans`: a count with its noun. */
export const count = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString('en-NG')} ${n === 1 ? one : many}`;

/** Each vintage's curves as rows: a vintage month, its months on book, loans, and the shares ever 30+ and ever 90+. */
export function vintageRows(vintages: PerformanceReportView['vintages']): Cell[][] {
  return vintages.flatMap((v) =>
    v.ever30.map((share30, month) => [
      monthLabel(v.vintage),
      month,
      v.loans,
      percent(share30),
      percent(v.ever90[month] ?? null),
    ]),
  );
}

/** The months on book the longest curve reaches, 0 first: the vintage chart's axis. */
export const monthsOnBookAxis = (vintages: PerformanceReportView['vintages']) =>
  Array.from({ length: Math.max(0, ...vintages.map((v) => v.ever30.length)) }, (_, month) => String(month));

/** What an upload came to, in a line: `5 rows: 4 taken, 0 taken before, 1 refused`. */
export function uploadSummary(upload: OutcomeUpload): string {
  return `${count(upload.rows, 'row')}: ${upload.accepted} taken, ${upload.repeated} taken before, ${upload.refused} refused`;
}

/** The rows an upload refused, by line, with the reason. */
export function refusedRows(upload: OutcomeUpload): { line: number; reason: string }[] {
  return upload.results
    .filter((r) => r.status >= 400)
    .map((r) => ({ line: r.line, reason: r.message ?? `refused with ${r.status}` }));
}

type Outcome = LoanOutcomesView['outcomes'][number];

/** One reported outcome in words: `Disbursed ₦450,000 over 6 months`, `Instalment 2 missed, 45 days past due`. */
export function outcomeWords(outcome: Outcome): string {
  switch (outcome.type) {
    case 'DISBURSED':
      return `Disbursed ${money(outcome.amount)} over ${count(outcome.tenor, 'month')}`;
    case 'INSTALMENT_PAID':
      return `Instalment ${outcome.number} paid: ${money(outcome.amount)}`;
    case 'INSTALMENT_MISSED':
      return `Instalment ${outcome.number} missed, ${count(outcome.daysPastDue, 'day')} past due`;
    case 'RESTRUCTURED':
      return `Restructured to ${count(outcome.tenor, 'month')} from disbursement`;
    case 'REPAID':
      return outcome.early ? 'Repaid early' : 'Repaid';
    case 'DEFAULTED':
      return `Declared defaulted with ${money(outcome.outstanding)} outstanding`;
    case 'WRITTEN_OFF':
      return `Written off with ${money(outcome.outstanding)} outstanding`;
  }
}

/** Whether a loan is bad by the lender's definition, in words. */
export const badnessWords = (bad: boolean) => (bad ? 'Bad' : 'Not bad');

/** The outcomes in the order they apply to the loan. */
export const inOrder = (outcomes: Outcome[]) => [...outcomes].sort((a, b) => a.sequence - b.sequence);

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The report's days from the page's address: only those written as days are asked for. */
export function performanceQuery(params: URLSearchParams): PerformanceQuery {
  const query: PerformanceQuery = {};
  for (const name of ['asOf', 'from', 'to', 'baselineFrom', 'baselineTo'] as const) {
    const value = params.get(name)?.trim();
    if (value && DAY.test(value)) query[name] = value;
  }
  return query;
}
