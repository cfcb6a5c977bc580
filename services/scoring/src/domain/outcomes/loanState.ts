import type { BadDefinition, LoanStatus, OutcomeReport } from '@loan/contracts';

/** A loan's state, derived from its outcomes in the order they were accepted. */
export interface LoanState {
  status: LoanStatus;
  disbursed: { amount: number; date: string; tenor: number };
  tenor: number;
  instalmentsPaid: number[];
  /** Instalments reported missed and not paid since, with their days past due. */
  missed: Record<string, number>;
  currentDaysPastDue: number;
  maxDaysPastDue: number;
  /** The day the loan first stood this many days past due, or null. */
  first30: string | null;
  first60: string | null;
  first90: string | null;
  restructured: boolean;
  defaulted: boolean;
  writtenOff: boolean;
  lastDate: string;
  outcomes: number;
}

/** What the loan may be measured against: the terms granted and the day they were granted. */
export interface Granted {
  amount: number;
  tenor: number;
  /** The decision's (or the final review's) day, YYYY-MM-DD. */
  day: string;
}

export type OutcomeResult = { ok: true; state: LoanState } | { ok: false; reason: string };

const refuse = (reason: string): OutcomeResult => ({ ok: false, reason });

/**
 * Applies one reported outcome to a loan (null before its disbursement), or says why it cannot
 * be: the first outcome is the disbursement, at most the granted amount, on or after the day of
 * the decision; outcomes come in date order; nothing follows a repayment or a write-off;
 * instalment numbers lie within the tenor; an instalment paid is not missed afterwards; the days
 * past due of an instalment only grow. `today` bounds the dates (nothing is reported ahead).
 */
export function applyOutcome(
  state: LoanState | null,
  report: OutcomeReport,
  granted: Granted,
  today: string,
): OutcomeResult {
  if (report.date > today) return refuse(`date ${report.date} is after today (${today})`);
  if (!state) {
    if (report.type !== 'DISBURSED')
      return refuse(`the loan has no disbursement yet: report DISBURSED before ${report.type}`);
    if (report.date < granted.day) return refuse(`disbursed on ${report.date}, before the decision of ${granted.day}`);
    if (report.amount > granted.amount)
      return refuse(`disbursed ₦${report.amount}, above the approved ₦${granted.amount}: only a review can grant more`);
    return {
      ok: true,
      state: {
        status: 'OPEN',
        disbursed: { amount: report.amount, date: report.date, tenor: report.tenor },
        tenor: report.tenor,
        instalmentsPaid: [],
        missed: {},
        currentDaysPastDue: 0,
        maxDaysPastDue: 0,
        first30: null,
        first60: null,
        first90: null,
        restructured: false,
        defaulted: false,
        writtenOff: false,
        lastDate: report.date,
        outcomes: 1,
      },
    };
  }
  if (report.type === 'DISBURSED') return refuse(`the loan was already disbursed on ${state.disbursed.date}`);
  if (state.status === 'REPAID' || state.status === 'WRITTEN_OFF')
    return refuse(`the loan was ${state.status === 'REPAID' ? 'repaid' : 'written off'}: nothing follows`);
  if (report.date < state.lastDate)
    return refuse(`dated ${report.date}, before the loan's last outcome (${state.lastDate}): report in date order`);

  const next: LoanState = {
    ...state,
    instalmentsPaid: [...state.instalmentsPaid],
    missed: { ...state.missed },
    lastDate: report.date,
    outcomes: state.outcomes + 1,
  };
  switch (report.type) {
    case 'INSTALMENT_PAID': {
      if (report.number > state.tenor) return refuse(`instalment ${report.number} is past the tenor of ${state.tenor}`);
      if (!next.instalmentsPaid.includes(report.number)) next.instalmentsPaid.push(report.number);
      next.instalmentsPaid.sort((a, b) => a - b);
      delete next.missed[report.number];
      break;
    }
    case 'INSTALMENT_MISSED': {
      if (report.number > state.tenor) return refuse(`instalment ${report.number} is past the tenor of ${state.tenor}`);
      if (state.instalmentsPaid.includes(report.number)) return refuse(`instalment ${report.number} was reported paid`);
      const before = state.missed[report.number] ?? 0;
      if (report.daysPastDue < before)
        return refuse(
          `instalment ${report.number} was already ${before} days past due; days past due only grow until it is paid`,
        );
      next.missed[report.number] = report.daysPastDue;
      break;
    }
    case 'RESTRUCTURED':
      if (report.tenor < state.instalmentsPaid.length)
        return refuse(
          `a tenor of ${report.tenor} is shorter than the ${state.instalmentsPaid.length} instalments paid`,
        );
      // The new schedule replaces the arrears: what was past due is due again.
      next.tenor = report.tenor;
      next.missed = {};
      next.restructured = true;
      break;
    case 'REPAID':
      next.status = 'REPAID';
      next.missed = {};
      break;
    case 'DEFAULTED':
      if (state.defaulted) return refuse('the loan was already reported defaulted');
      next.status = 'DEFAULTED';
      next.defaulted = true;
      break;
    case 'WRITTEN_OFF':
      next.status = 'WRITTEN_OFF';
      next.writtenOff = true;
      break;
  }
  next.currentDaysPastDue = Math.max(0, ...Object.values(next.missed));
  next.maxDaysPastDue = Math.max(state.maxDaysPastDue, next.currentDaysPastDue);
  for (const [days, field] of [
    [30, 'first30'],
    [60, 'first60'],
    [90, 'first90'],
  ] as const)
    if (!next[field] && next.currentDaysPastDue >= days) next[field] = report.date;
  return { ok: true, state: next };
}

/** Replays outcomes in order; the state after each (for answering a repeat as it was answered). */
export function replayOutcomes(reports: readonly OutcomeReport[], granted: Granted): LoanState[] {
  const states: LoanState[] = [];
  let state: LoanState | null = null;
  for (const report of reports) {
    // Stored outcomes were accepted in this order: `today` does not bound them again.
    const result = applyOutcome(state, report, granted, '9999-12-31');
    if (!result.ok) throw new Error(`stored outcome ${states.length + 1} no longer applies: ${result.reason}`);
    state = result.state;
    states.push(state);
  }
  return states;
}

/** Whether a loan is bad by the lender's definition. */
export const isBad = (loan: Pick<LoanState, 'maxDaysPastDue' | 'writtenOff' | 'defaulted'>, bad: BadDefinition) =>
  loan.maxDaysPastDue >= bad.daysPastDue || (bad.writtenOff && loan.writtenOff) || (bad.defaulted && loan.defaulted);

/** Whole months from one day to another (a month is on book once its day of month is reached). */
export function monthsBetween(from: string, to: string): number {
  const [fy, fm, fd] = from.split('-').map(Number) as [number, number, number];
  const [ty, tm, td] = to.split('-').map(Number) as [number, number, number];
  return Math.max(0, (ty - fy) * 12 + (tm - fm) - (td < fd ? 1 : 0));
}
