import { DPD_THRESHOLDS } from '@loan/contracts';
import type { LoanOutcomesView, OutcomeUpload, PerformanceReportView } from './api';
import {
  badDefinitionWords,
  count,
  DPD_CHOICES,
  inOrder,
  measureName,
  monthsOnBookAxis,
  outcomeWords,
  performanceQuery,
  rateCell,
  refusedRows,
  uploadSummary,
  versionName,
  vintageRows,
} from './performanceModel';

type Outcome = LoanOutcomesView['outcomes'][number];
const stamp = { outcomeId: '6f1c7a0e-5a4e-4c39-9a43-5b0e0f7f6d11', recordedAt: '2026-11-27T09:00:00.000Z' };

describe('the performance in words', () => {
  it('when the lender counts a loan bad, then the definition reads as a sentence of what makes it bad', () => {
    expect(badDefinitionWords({ daysPastDue: 90, writtenOff: true, defaulted: true })).toBe(
      '90 or more days past due at any time, written off or declared defaulted',
    );
    expect(badDefinitionWords({ daysPastDue: 30, writtenOff: false, defaulted: false })).toBe(
      '30 or more days past due at any time',
    );
    expect(badDefinitionWords({ daysPastDue: 1, writtenOff: true, defaulted: false })).toBe(
      'past due at any time (a day or more) or written off',
    );
    expect([...DPD_CHOICES]).toEqual([...DPD_THRESHOLDS]);
  });

  it('when a figure is from too few loans, then its cell is the reason in words, never a number', () => {
    expect(rateCell({ badRate: 0.125, note: null })).toBe('13%');
    expect(rateCell({ badRate: 0, note: null })).toBe('0%');
    const note = '2 loans with outcomes: at least 30 are needed before a bad rate means anything';
    expect(rateCell({ badRate: null, note })).toEqual({ note });
    expect(rateCell({ badRate: null, note: null })).toEqual({ note: 'Too few loans for a bad rate' });
  });

  it('when versions, measures and counts are named, then they read as words', () => {
    expect(versionName(0)).toBe('Version 0 (built-in)');
    expect(versionName(3)).toBe('Version 3');
    expect(measureName('total')).toBe('Total score');
    expect(measureName('debt_service_capacity')).toBe('Debt-service capacity');
    expect(count(1, 'loan')).toBe('1 loan');
    expect(count(1200, 'loan')).toBe('1,200 loans');
  });

  it('when vintages are tabled, then each month on book is a row and the axis reaches the longest curve', () => {
    const vintages: PerformanceReportView['vintages'] = [
      { vintage: '2026-09', loans: 40, monthsOnBook: 2, ever30: [0, 0.05, 0.1], ever90: [0, 0, 0.025] },
      { vintage: '2026-10', loans: 10, monthsOnBook: 1, ever30: [0, 0.1], ever90: [0, 0] },
    ];
    expect(vintageRows(vintages)).toEqual([
      ['Sept 2026', 0, 40, '0%', '0%'],
      ['Sept 2026', 1, 40, '5%', '0%'],
      ['Sept 2026', 2, 40, '10%', '3%'],
      ['Oct 2026', 0, 10, '0%', '0%'],
      ['Oct 2026', 1, 10, '10%', '0%'],
    ]);
    expect(monthsOnBookAxis(vintages)).toEqual(['0', '1', '2']);
    expect(monthsOnBookAxis([])).toEqual([]);
  });

  it('when an upload is answered, then it says the counts and lists each refused row by line with its reason', () => {
    const upload: OutcomeUpload = {
      rows: 3,
      accepted: 1,
      repeated: 1,
      refused: 1,
      results: [
        { line: 2, status: 201, outcomeId: stamp.outcomeId, sequence: 1 },
        { line: 3, status: 200, outcomeId: stamp.outcomeId, sequence: 2 },
        { line: 4, status: 400, message: 'amount: Too small: expected number to be >0' },
      ],
    };
    expect(uploadSummary(upload)).toBe('3 rows: 1 taken, 1 taken before, 1 refused');
    expect(refusedRows(upload)).toEqual([{ line: 4, reason: 'amount: Too small: expected number to be >0' }]);
    expect(refusedRows({ ...upload, results: [{ line: 9, status: 404 }] })).toEqual([
      { line: 9, reason: 'refused with 404' },
    ]);
  });

  it("when a loan's outcomes are listed, then each reads in words, money in Naira, in the loan's order", () => {
    const outcomes: Outcome[] = [
      { ...stamp, sequence: 3, type: 'REPAID', date: '2026-11-27', early: true },
      { ...stamp, sequence: 1, type: 'DISBURSED', amount: 450_000, date: '2026-11-01', tenor: 6 },
      { ...stamp, sequence: 2, type: 'INSTALMENT_MISSED', number: 1, daysPastDue: 45, date: '2026-11-20' },
    ];
    expect(inOrder(outcomes).map(outcomeWords)).toEqual([
      'Disbursed ₦450,000 over 6 months',
      'Instalment 1 missed, 45 days past due',
      'Repaid early',
    ]);
    expect(
      outcomeWords({ ...stamp, sequence: 4, type: 'WRITTEN_OFF', date: '2026-11-27', outstanding: 120_000 }),
    ).toMatch(/^Written off with ₦120,000 outstanding$/);
  });

  it('when the address carries days, then only those written as days are asked for', () => {
    expect(
      performanceQuery(new URLSearchParams('from=2026-10-01&to=2026-10-31&baselineFrom=soon&asOf=&other=1')),
    ).toEqual({ from: '2026-10-01', to: '2026-10-31' });
  });
});
