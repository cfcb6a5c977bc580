import { DEFAULT_BAD_DEFINITION } from '@loan/contracts';
import type { LoanState } from '../outcomes/loanState';
import { count, type Cells, type MeasuredLoan } from './cells';
import {
  areaUnderCurve,
  expectedBadRate,
  giniOf,
  kolmogorovSmirnov,
  populationStabilityIndex,
  psiFlag,
} from './metrics';
import { MINIMUM, performanceReport } from './report';

/*
 * The fixture: six loans, three bad (scores 40, 50, 60) and three good (50, 70, 80).
 *
 * AUC: of the 3 x 3 (good, bad) pairs, the good loan at 50 beats the bad one at 40 (1), ties the
 * bad one at 50 (1/2) and loses to the one at 60 (0); the good loans at 70 and 80 beat all three
 * bad ones (3 + 3). (1 + 0.5 + 0 + 3 + 3) / 9 = 7.5 / 9 = 0.8333; Gini = 2 x 0.8333 - 1 = 0.6667.
 *
 * KS: shares at or below each score, bad against good: 40: 1/3 - 0 = 0.333; 50: 2/3 - 1/3 = 0.333;
 * 60: 3/3 - 1/3 = 0.667; 70: 1 - 2/3 = 0.333; 80: 1 - 1 = 0. The widest gap is 0.6667, at 60.
 */
const fixture = [
  { score: 40, good: 0, bad: 1 },
  { score: 50, good: 1, bad: 1 },
  { score: 60, good: 0, bad: 1 },
  { score: 70, good: 1, bad: 0 },
  { score: 80, good: 1, bad: 0 },
];

describe('discrimination', () => {
  it('gives the AUC and Gini worked out by hand, ties counting half', () => {
    const auc = areaUnderCurve(fixture)!;
    expect(auc).toBeCloseTo(7.5 / 9, 10);
    expect(giniOf(auc)).toBeCloseTo(2 * (7.5 / 9) - 1, 10);
  });

  it('gives the KS worked out by hand and the score where the gap is widest', () => {
    const ks = kolmogorovSmirnov(fixture)!;
    expect(ks.ks).toBeCloseTo(2 / 3, 10);
    expect(ks.atScore).toBe(60);
  });

  it('does not depend on the order of the rows', () => {
    expect(areaUnderCurve([...fixture].reverse())).toBeCloseTo(7.5 / 9, 10);
  });

  it('is 1 for perfect separation, 0.5 for none, and undefined without both kinds', () => {
    expect(
      areaUnderCurve([
        { score: 10, good: 0, bad: 5 },
        { score: 90, good: 5, bad: 0 },
      ]),
    ).toBe(1);
    expect(areaUnderCurve([{ score: 50, good: 4, bad: 4 }])).toBe(0.5);
    expect(areaUnderCurve([{ score: 50, good: 4, bad: 0 }])).toBeNull();
    expect(kolmogorovSmirnov([{ score: 50, good: 0, bad: 3 }])).toBeNull();
  });
});

describe('population stability', () => {
  /*
   * Baseline shares 0.5 / 0.3 / 0.2, current 0.3 / 0.3 / 0.4 (counts 50/30/20 and 30/30/40):
   * (0.3 - 0.5) ln(0.3 / 0.5) = -0.2 x -0.5108 = 0.10217; the middle bin adds 0;
   * (0.4 - 0.2) ln(0.4 / 0.2) = 0.2 x 0.6931 = 0.13863. PSI = 0.24079: a shift to watch.
   */
  it('gives the PSI worked out by hand, and its reading', () => {
    const psi = populationStabilityIndex([50, 30, 20], [30, 30, 40])!;
    expect(psi).toBeCloseTo(0.2 * Math.log(5 / 3) + 0.2 * Math.log(2), 10);
    expect(psi).toBeCloseTo(0.24079, 5);
    expect(psiFlag(psi)).toBe('WATCH');
  });

  it('is 0 for the same spread, flags at 0.1 and 0.25, and counts an empty bin as 0.01 %', () => {
    expect(populationStabilityIndex([10, 20, 30], [20, 40, 60])).toBeCloseTo(0, 12);
    expect(psiFlag(0.1)).toBe('STABLE');
    expect(psiFlag(0.1001)).toBe('WATCH');
    expect(psiFlag(0.26)).toBe('ACT');
    // Baseline 1/2, 1/2, current 1, 0 (0 counted as 0.0001): (1 - 0.5) ln(2) + (0.0001 - 0.5) ln(0.0002).
    expect(populationStabilityIndex([1, 1], [2, 0])).toBeCloseTo(
      0.5 * Math.log(2) + (0.0001 - 0.5) * Math.log(0.0002),
      10,
    );
    expect(populationStabilityIndex([0, 0], [1, 1])).toBeNull();
  });
});

describe('expected bad rate', () => {
  it('is 10 % at 70 points and the odds double every 10 points', () => {
    expect(expectedBadRate(70)).toBeCloseTo(0.1, 12);
    // Odds of good to bad: 9 at 70, 18 at 80, 4.5 at 60.
    expect(expectedBadRate(80)).toBeCloseTo(1 / 19, 12);
    expect(expectedBadRate(60)).toBeCloseTo(1 / 5.5, 12);
  });
});

const state = (over: Partial<LoanState>): LoanState => ({
  status: 'OPEN',
  disbursed: { amount: 100_000, date: '2026-01-10', tenor: 6 },
  tenor: 6,
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
  lastDate: '2026-01-10',
  outcomes: 1,
  ...over,
});

const loan = (score: number, band: MeasuredLoan['band'], over: Partial<LoanState>, extra: Partial<MeasuredLoan> = {}) =>
  ({
    score,
    band,
    decision: 'APPROVED',
    policyVersion: 1,
    challenger: null,
    state: state(over),
    ...extra,
  }) as MeasuredLoan;

describe('the performance report', () => {
  it('counts bad by the lender definition, and says a rate of too few loans means nothing', () => {
    const cells: Cells = {};
    count(cells, loan(80, 'MEDIUM_RISK', { maxDaysPastDue: 95, first30: '2026-03-01', first90: '2026-05-01' }));
    count(cells, loan(82, 'MEDIUM_RISK', { maxDaysPastDue: 45, first30: '2026-02-20' }));
    count(cells, loan(90, 'LOW_RISK', { writtenOff: true, status: 'WRITTEN_OFF' }));
    count(cells, loan(91, 'LOW_RISK', { status: 'REPAID' }, { challenger: { version: 2, decision: 'DECLINED' } }));

    const report = performanceReport(cells, DEFAULT_BAD_DEFINITION, '2026-06-15');
    // 90+ DPD or written off: the first and the third.
    expect(report).toMatchObject({ loans: 4, bad: 2, badRate: 0.5 });
    const strict = performanceReport(cells, { daysPastDue: 30, writtenOff: false, defaulted: false }, '2026-06-15');
    expect(strict).toMatchObject({ loans: 4, bad: 2 });
    expect(strict.byBand.find((b) => b.band === 'MEDIUM_RISK')).toMatchObject({ loans: 2, bad: 2, badRate: null });
    expect(report.byBand[0]!.note).toMatch(/at least 30/);
    expect(report.discrimination).toMatchObject({ gini: null, auc: null, ks: null });
    expect(report.discrimination.note).toMatch(/at least 200/);
    expect(report.challengers).toEqual([
      expect.objectContaining({ version: 2, decision: 'DECLINED', loans: 1, bad: 0 }),
    ]);
  });

  it('draws vintage curves by months on book from the first day past due', () => {
    const cells: Cells = {};
    // Disbursed 10 January: 30+ on 1 March (1 whole month on book), 90+ on 1 May (3 months).
    count(cells, loan(80, 'MEDIUM_RISK', { maxDaysPastDue: 95, first30: '2026-03-01', first90: '2026-05-01' }));
    // 30+ on 20 February: 1 month.
    count(cells, loan(82, 'MEDIUM_RISK', { maxDaysPastDue: 45, first30: '2026-02-20' }));
    count(cells, loan(90, 'LOW_RISK', {}));
    count(cells, loan(91, 'LOW_RISK', {}));
    const [vintage] = performanceReport(cells, DEFAULT_BAD_DEFINITION, '2026-06-15').vintages;
    // From 31 January to 15 June: 4 whole months on book.
    expect(vintage).toEqual({
      vintage: '2026-01',
      loans: 4,
      monthsOnBook: 4,
      ever30: [0, 0.5, 0.5, 0.5, 0.5],
      ever90: [0, 0, 0, 0.25, 0.25],
    });
  });

  it('gives Gini, KS and calibration once enough loans have outcomes', () => {
    const cells: Cells = {};
    // 100 loans at 60 points of which 40 bad, 150 at 90 of which 15 bad.
    for (let i = 0; i < 100; i++) count(cells, loan(60, 'HIGH_RISK', { maxDaysPastDue: i < 40 ? 90 : 0 }));
    for (let i = 0; i < 150; i++) count(cells, loan(90, 'LOW_RISK', { maxDaysPastDue: i < 15 ? 120 : 0 }));
    const report = performanceReport(cells, DEFAULT_BAD_DEFINITION, '2026-06-15');
    // Pairs (good, bad): goods at 90 (135) beat bads at 60 (40); goods at 60 (60) tie bads at 60,
    // goods at 90 tie bads at 90 (15). (135 x 40 + 0.5 x 60 x 40 + 0.5 x 135 x 15) / (195 x 55).
    const auc = (135 * 40 + 0.5 * 60 * 40 + 0.5 * 135 * 15) / (195 * 55);
    expect(report.discrimination.auc).toBeCloseTo(auc, 4);
    expect(report.discrimination.gini).toBeCloseTo(2 * auc - 1, 4);
    // At 60: 40/55 of the bad and 60/195 of the good.
    expect(report.discrimination.ks).toBeCloseTo(40 / 55 - 60 / 195, 4);
    expect(report.discrimination.note).toBeNull();
    // Expected: at 90 points odds of 9 x 2^2 = 36 to 1, 1/37 = 0.0270; at 60, 4.5 to 1, 1/5.5 = 0.1818.
    expect(report.calibration).toEqual([
      { band: 'LOW_RISK', loans: 150, bad: 15, expectedBadRate: 0.027, observedBadRate: 0.1, note: null },
      { band: 'HIGH_RISK', loans: 100, bad: 40, expectedBadRate: 0.1818, observedBadRate: 0.4, note: null },
    ]);
    expect(report.loans).toBeGreaterThanOrEqual(MINIMUM.discrimination.loans);
  });
});
