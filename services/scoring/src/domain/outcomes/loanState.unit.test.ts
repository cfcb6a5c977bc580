import type { OutcomeReport } from '@loan/contracts';
import { applyOutcome, isBad, monthsBetween, replayOutcomes, type Granted, type LoanState } from './loanState';

const granted: Granted = { amount: 200_000, tenor: 6, day: '2026-01-05' };
const TODAY = '2026-12-01';
const disbursed: OutcomeReport = { type: 'DISBURSED', amount: 200_000, date: '2026-01-10', tenor: 6 };

function run(reports: OutcomeReport[]): LoanState {
  return replayOutcomes(reports, granted).at(-1)!;
}

const refusal = (state: LoanState | null, report: OutcomeReport) => {
  const result = applyOutcome(state, report, granted, TODAY);
  if (result.ok) throw new Error('accepted');
  return result.reason;
};

describe('a loan from its outcomes', () => {
  it('follows missed and paid instalments: days past due now, the most ever, and when 30+ and 90+ were first reached', () => {
    const loan = run([
      disbursed,
      { type: 'INSTALMENT_PAID', number: 1, amount: 40_000, date: '2026-02-10' },
      { type: 'INSTALMENT_MISSED', number: 2, daysPastDue: 31, date: '2026-04-11' },
      { type: 'INSTALMENT_MISSED', number: 2, daysPastDue: 95, date: '2026-06-14' },
      { type: 'INSTALMENT_PAID', number: 2, amount: 40_000, date: '2026-06-20' },
    ]);
    expect(loan).toMatchObject({
      status: 'OPEN',
      currentDaysPastDue: 0,
      maxDaysPastDue: 95,
      first30: '2026-04-11',
      first60: '2026-06-14',
      first90: '2026-06-14',
      instalmentsPaid: [1, 2],
      outcomes: 5,
    });
    expect(isBad(loan, { daysPastDue: 90, writtenOff: true, defaulted: true })).toBe(true);
    expect(isBad(loan, { daysPastDue: 120, writtenOff: true, defaulted: true })).toBe(false);
  });

  it('clears arrears on a restructuring but keeps what was reached', () => {
    const loan = run([
      disbursed,
      { type: 'INSTALMENT_MISSED', number: 1, daysPastDue: 40, date: '2026-03-12' },
      { type: 'RESTRUCTURED', tenor: 12, date: '2026-03-20' },
    ]);
    expect(loan).toMatchObject({
      tenor: 12,
      currentDaysPastDue: 0,
      maxDaysPastDue: 40,
      restructured: true,
      first30: '2026-03-12',
    });
  });

  it('counts a write-off and a default for the bad definition', () => {
    const loan = run([
      disbursed,
      { type: 'DEFAULTED', outstanding: 150_000, date: '2026-05-01' },
      { type: 'WRITTEN_OFF', outstanding: 150_000, date: '2026-08-01' },
    ]);
    expect(loan).toMatchObject({ status: 'WRITTEN_OFF', defaulted: true, writtenOff: true });
    expect(isBad(loan, { daysPastDue: 180, writtenOff: true, defaulted: false })).toBe(true);
    expect(isBad(loan, { daysPastDue: 180, writtenOff: false, defaulted: false })).toBe(false);
  });

  it('refuses outcomes out of order, each with its reason', () => {
    expect(refusal(null, { type: 'INSTALMENT_PAID', number: 1, amount: 1, date: '2026-02-01' })).toMatch(
      /no disbursement yet/,
    );
    expect(refusal(null, { ...disbursed, amount: 200_001 })).toMatch(/above the approved ₦200000: only a review/);
    expect(refusal(null, { ...disbursed, date: '2026-01-04' })).toMatch(/before the decision/);
    expect(refusal(null, { ...disbursed, date: '2026-12-02' })).toMatch(/after today/);
    const open = run([disbursed]);
    expect(refusal(open, disbursed)).toMatch(/already disbursed/);
    expect(refusal(open, { type: 'INSTALMENT_PAID', number: 7, amount: 1, date: '2026-02-01' })).toMatch(
      /past the tenor of 6/,
    );
    expect(refusal(open, { type: 'INSTALMENT_PAID', number: 1, amount: 1, date: '2026-01-09' })).toMatch(/date order/);
    const written = run([disbursed, { type: 'WRITTEN_OFF', outstanding: 100, date: '2026-06-01' }]);
    expect(refusal(written, { type: 'INSTALMENT_PAID', number: 1, amount: 1, date: '2026-07-01' })).toMatch(
      /written off: nothing follows/,
    );
    const repaid = run([disbursed, { type: 'REPAID', date: '2026-06-01' }]);
    expect(refusal(repaid, { type: 'DEFAULTED', outstanding: 1, date: '2026-07-01' })).toMatch(
      /repaid: nothing follows/,
    );
    const paid = run([disbursed, { type: 'INSTALMENT_PAID', number: 1, amount: 1, date: '2026-02-01' }]);
    expect(refusal(paid, { type: 'INSTALMENT_MISSED', number: 1, daysPastDue: 3, date: '2026-02-02' })).toMatch(
      /reported paid/,
    );
    const late = run([disbursed, { type: 'INSTALMENT_MISSED', number: 1, daysPastDue: 30, date: '2026-03-10' }]);
    expect(refusal(late, { type: 'INSTALMENT_MISSED', number: 1, daysPastDue: 10, date: '2026-03-11' })).toMatch(
      /only grow/,
    );
  });

  it('counts whole months on book', () => {
    expect(monthsBetween('2026-01-10', '2026-02-09')).toBe(0);
    expect(monthsBetween('2026-01-10', '2026-02-10')).toBe(1);
    expect(monthsBetween('2026-01-31', '2026-12-31')).toBe(11);
  });
});
