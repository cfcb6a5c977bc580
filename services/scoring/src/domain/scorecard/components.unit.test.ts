import { bureauSummary, cleanFeatures } from '../__tests__/features';
import { PERSONA_NAMES, persona } from '../__tests__/personas';
import { FIXTURE_NOW } from '../__tests__/statements';
import { summariseBureau } from './bureau';
import { scoreBandOf, scoreComponents } from './components';
import { BAND_THRESHOLDS, COMPONENT_MAX_POINTS, CREDIT_HISTORY, type ComponentName } from './constants';
import { deriveFeatures } from './features';

const COMPONENTS = Object.keys(COMPONENT_MAX_POINTS) as ComponentName[];

describe('scoreBandOf', () => {
  it.each([
    [100, 'LOW_RISK'],
    [BAND_THRESHOLDS.LOW_RISK, 'LOW_RISK'],
    [84.99, 'MEDIUM_RISK'],
    [BAND_THRESHOLDS.MEDIUM_RISK, 'MEDIUM_RISK'],
    [69.99, 'HIGH_RISK'],
    [BAND_THRESHOLDS.HIGH_RISK, 'HIGH_RISK'],
    [54.99, 'VERY_HIGH_RISK'],
    [0, 'VERY_HIGH_RISK'],
  ])('when the total is %p, then the band is %p', (total, band) => {
    expect(scoreBandOf(total)).toBe(band);
  });
});

describe('scoreComponents', () => {
  it('when the component maxima are added, then they make 100', () => {
    expect(Object.values(COMPONENT_MAX_POINTS).reduce((a, b) => a + b, 0)).toBe(100);
  });

  it.each(PERSONA_NAMES)(
    'when %s is scored, then each component is within its range and they add up to the total',
    (name) => {
      const { applicant, accounts, bureau } = persona(name);
      const { breakdown, signals } = scoreComponents(
        deriveFeatures({ applicant, accounts, now: FIXTURE_NOW }),
        summariseBureau(bureau),
      );

      for (const component of COMPONENTS) {
        expect(breakdown[component]).toBeGreaterThanOrEqual(0);
        expect(breakdown[component]).toBeLessThanOrEqual(COMPONENT_MAX_POINTS[component]);
        const maxOfSignals = signals
          .filter((s) => s.component === component)
          .reduce((total, s) => total + s.maxPoints, 0);
        expect(maxOfSignals).toBe(COMPONENT_MAX_POINTS[component]);
      }
      const sum = COMPONENTS.reduce((total, component) => total + breakdown[component], 0);
      expect(breakdown.total).toBeCloseTo(sum, 8);
    },
  );

  it('when the bureau file is clean with a very good score, then the credit record earns full points', () => {
    const { signals } = scoreComponents(cleanFeatures(), summariseBureau(persona('salaried').bureau));

    expect(signals.find((s) => s.signal === 'bureau_record')?.points).toBe(CREDIT_HISTORY.recordPoints);
  });

  it('when the bureau shows 90+ days past due and a poor score, then the credit record earns almost nothing', () => {
    const { signals } = scoreComponents(cleanFeatures(), summariseBureau(persona('debt_stressed').bureau));

    expect(signals.find((s) => s.signal === 'bureau_record')?.points).toBeLessThan(1);
  });

  it('when there is no bureau file and no loans, then the statement record earns the neutral share under the cap', () => {
    const features = cleanFeatures({ loanRepaymentsTotal: 0, loanDisbursementsTotal: 0 });
    const { signals } = scoreComponents(features, bureauSummary({ status: 'NOT_CHECKED' }));

    expect(signals.find((s) => s.signal === 'statement_credit_record')?.points).toBeCloseTo(
      CREDIT_HISTORY.recordPoints * CREDIT_HISTORY.noEvidence * CREDIT_HISTORY.statementOnlyCap,
      2,
    );
  });

  it('when digital loans were repaid in full with interest, then the statement record is capped below a clean bureau file', () => {
    const features = cleanFeatures({ loanDisbursementsTotal: 100_000, loanRepaymentsTotal: 115_000 });
    const { signals } = scoreComponents(features, bureauSummary());

    expect(signals.find((s) => s.signal === 'statement_credit_record')?.points).toBeCloseTo(
      CREDIT_HISTORY.recordPoints * CREDIT_HISTORY.statementOnlyCap,
      2,
    );
  });

  it('when loans are repaid without any disbursement in the window, then the statement record earns no more than no loans', () => {
    const noLoans = scoreComponents(
      cleanFeatures({ loanRepaymentsTotal: 0, loanDisbursementsTotal: 0, statementMonthlyRepayments: 0 }),
      bureauSummary({ status: 'NOT_CHECKED' }),
    );
    const repaying = scoreComponents(
      cleanFeatures({ loanRepaymentsTotal: 300_000, loanDisbursementsTotal: 0, statementMonthlyRepayments: 25_000 }),
      bureauSummary({ status: 'NOT_CHECKED' }),
    );
    const record = (scored: typeof noLoans) => scored.signals.find((s) => s.signal === 'statement_credit_record');

    expect(record(repaying)?.points).toBe(record(noLoans)?.points);
    expect(repaying.breakdown.total).toBeLessThan(noLoans.breakdown.total);
  });

  it('when repayments already take a third of income, then repaying more never raises the statement record', () => {
    const income = cleanFeatures().monthlyIncome;
    const recordAt = (repaymentsTotal: number) =>
      scoreComponents(
        cleanFeatures({
          loanDisbursementsTotal: 1_000_000,
          loanRepaymentsTotal: repaymentsTotal,
          statementMonthlyRepayments: income / 2,
        }),
        bureauSummary({ status: 'NOT_CHECKED' }),
      ).signals.find((s) => s.signal === 'statement_credit_record')?.points;

    expect(recordAt(1_100_000)).toBeCloseTo(
      CREDIT_HISTORY.recordPoints * CREDIT_HISTORY.noEvidence * CREDIT_HISTORY.statementOnlyCap,
      2,
    );
    expect(recordAt(1_100_000)).toBeLessThanOrEqual(recordAt(900_000)!);
  });

  it('when digital loans were barely repaid, then the statement record earns nothing', () => {
    const features = cleanFeatures({ loanDisbursementsTotal: 100_000, loanRepaymentsTotal: 40_000 });
    const { signals } = scoreComponents(features, bureauSummary());

    expect(signals.find((s) => s.signal === 'statement_credit_record')?.points).toBe(0);
  });

  it('when betting rises from none to a quarter of income, then account behaviour loses all betting points', () => {
    const clean = scoreComponents(cleanFeatures(), bureauSummary()).breakdown;
    const betting = scoreComponents(
      cleanFeatures({ bettingShareOfIncome: 0.25, bettingDebitsMonthlyAverage: 90_000 }),
      bureauSummary(),
    ).breakdown;

    expect(clean.account_behavior - betting.account_behavior).toBe(8);
  });

  it('when existing repayments reach the one-third cap, then the debt burden earns nothing', () => {
    const features = cleanFeatures({ statementMonthlyRepayments: cleanFeatures().monthlyIncome / 3 });
    const { signals } = scoreComponents(features, bureauSummary());

    expect(signals.find((s) => s.signal === 'existing_debt_burden')?.points).toBe(0);
  });
});
