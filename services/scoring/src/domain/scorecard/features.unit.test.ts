import { bureauSummary, cleanFeatures } from '../__tests__/features';
import { persona } from '../__tests__/personas';
import { FIXTURE_NOW, buildAccount, type MonthPlan } from '../__tests__/statements';
import { deriveFeatures, existingMonthlyDebt } from './features';

const applicant = { firstName: 'Chinedu', lastName: 'Okafor', bvn: null };

const featuresOf = (months: MonthPlan[], firstMonth = '2025-11') =>
  deriveFeatures({
    applicant,
    accounts: [
      buildAccount({
        accountId: 'a0000000-0000-4000-9000-000000000001',
        institution: 'GTBank',
        bankCode: '058',
        accountNumber: '0123456785',
        holderName: 'CHINEDU OKAFOR',
        openingBalance: 50_000,
        firstMonth,
        months,
      }),
    ],
    now: FIXTURE_NOW,
  });

const twelve = (plan: (index: number) => MonthPlan): MonthPlan[] =>
  Array.from({ length: 12 }, (_, index) => plan(index));

describe('deriveFeatures', () => {
  it('when the salaried persona has two accounts, then income is salary and other income only, without own transfers', () => {
    const features = cleanFeatures();

    expect(features).toMatchObject({
      accountCount: 2,
      monthsObserved: 12,
      firstMonth: '2025-11',
      lastMonth: '2026-10',
      salaryDetected: true,
      salaryMonths: 12,
      employer: 'ZENITH LOGISTICS LTD',
      ownTransfersExcluded: 480_000,
      thinFile: false,
      identity: { verified: true, mismatches: [] },
    });
    expect(features.monthlyIncome).toBeGreaterThan(350_000);
    expect(features.monthlyIncome).toBeLessThan(365_000);
  });

  it('when salary arrives in 9 of 12 months, then a salary is detected', () => {
    expect(featuresOf(twelve((i) => ({ salary: i < 3 ? 0 : 200_000, spending: 150_000 }))).salaryDetected).toBe(true);
  });

  it('when salary arrives in 8 of 12 months, then no salary is detected', () => {
    expect(featuresOf(twelve((i) => ({ salary: i < 4 ? 0 : 200_000, spending: 150_000 }))).salaryDetected).toBe(false);
  });

  it('when income alternates between ₦100k and ₦300k, then its coefficient of variation is 0.5', () => {
    expect(featuresOf(twelve((i) => ({ otherIncome: i % 2 === 0 ? 100_000 : 300_000 }))).incomeCv).toBe(0.5);
  });

  it('when betting takes ₦50k of ₦200k income each month, then the betting share is 25%', () => {
    const features = featuresOf(twelve(() => ({ salary: 200_000, betting: 50_000, spending: 100_000 })));

    expect(features.bettingShareOfIncome).toBe(0.25);
    expect(features.bettingDebitsMonthlyAverage).toBe(50_000);
  });

  it('when someone spends what they earn, then net-flow volatility stays finite thanks to the income floor', () => {
    const features = featuresOf(twelve((i) => ({ salary: 200_000, spending: i % 2 === 0 ? 195_000 : 205_000 })));

    expect(features.netFlowMonthlyAverage).toBe(0);
    // standard deviation 5,000 over a floor of 10% of ₦200k
    expect(features.netFlowCv).toBe(0.25);
  });

  it('when the same spending pattern runs deeper into deficit, then net-flow volatility does not fall', () => {
    const plan = (extra: number) =>
      featuresOf(twelve((i) => ({ salary: 200_000, spending: (i % 2 === 0 ? 195_000 : 205_000) + extra })));
    const deficit = plan(50_000);
    const deeper = plan(150_000);

    expect(deficit.netFlowMonthlyAverage).toBe(-50_000);
    // standard deviation 5,000 over the floor of 10% of ₦200k, however deep the deficit
    expect(deficit.netFlowCv).toBe(0.25);
    expect(deeper.netFlowCv).toBe(0.25);
  });

  it('when loan repayments stopped before the last three months, then they are not an existing obligation', () => {
    const features = featuresOf(
      twelve((i) => ({ salary: 200_000, spending: 100_000, loanRepayments: i < 9 ? 30_000 : 0 })),
    );

    expect(features.statementMonthlyRepayments).toBe(0);
    expect(features.loanRepaymentsTotal).toBe(270_000);
    expect(features.loanActivityMonths).toBe(9);
  });

  it('when there is no income, then income ratios are undefined rather than infinite', () => {
    const features = featuresOf(twelve(() => ({ betting: 5_000, loanDisbursements: 10_000 })));

    expect(features.monthlyIncome).toBe(0);
    expect(features.bettingShareOfIncome).toBeNull();
    expect(features.digitalLoanShareOfIncome).toBeNull();
    expect(features.incomeCv).toBeNull();
  });

  it('when there are only two months of statements, then the file is thin', () => {
    expect(featuresOf([{ salary: 200_000 }, { salary: 200_000 }], '2026-09').thinFile).toBe(true);
  });

  it('when there are twelve months but fewer than 30 transactions, then the file is thin', () => {
    expect(featuresOf(twelve(() => ({ salary: 200_000, transactions: 2 }))).thinFile).toBe(true);
  });

  it('when a provider red flag is raised on any account, then it is listed once', () => {
    const { applicant: babatunde, accounts } = persona('heavy_betting');

    expect(
      deriveFeatures({ applicant: babatunde, accounts: [...accounts, ...accounts], now: FIXTURE_NOW }).redFlags,
    ).toEqual(['IMMEDIATE_LARGE_WITHDRAWAL_POST_PAYDAY']);
  });
});

describe('existingMonthlyDebt', () => {
  it('when the bureau reports a larger instalment than the statements show, then the bureau figure is used', () => {
    expect(
      existingMonthlyDebt(
        cleanFeatures({ statementMonthlyRepayments: 20_000 }),
        bureauSummary({ monthlyInstalment: 45_000 }),
      ),
    ).toBe(45_000);
  });

  it('when the statements show more than the bureau, then the statements are used, not the sum', () => {
    expect(
      existingMonthlyDebt(
        cleanFeatures({ statementMonthlyRepayments: 60_000 }),
        bureauSummary({ monthlyInstalment: 45_000 }),
      ),
    ).toBe(60_000);
  });
});
