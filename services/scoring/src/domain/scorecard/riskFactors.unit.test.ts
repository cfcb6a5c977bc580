import type { RiskFactor } from '@loan/contracts';
import { bureauSummary, cleanFeatures } from '../__tests__/features';
import type { BureauSummary } from './bureau';
import type { ScoringFeatures } from './features';
import { riskFactorsOf, type RiskFactorCode } from './riskFactors';

const INCOME = 300_000;

const base = (overrides: Partial<ScoringFeatures>): ScoringFeatures =>
  cleanFeatures({ monthlyIncome: INCOME, statementMonthlyRepayments: 0, ...overrides });

type Case = [RiskFactorCode, RiskFactor['severity'], Partial<ScoringFeatures>, Partial<BureauSummary>?];

const CASES: Case[] = [
  [
    'NO_VERIFIABLE_INCOME',
    'HIGH',
    { monthlyIncome: 0, incomeCv: null, bettingShareOfIncome: null, digitalLoanShareOfIncome: null },
  ],
  ['LOW_INCOME', 'MEDIUM', { monthlyIncome: 60_000 }],
  ['IRREGULAR_INCOME', 'MEDIUM', { salaryDetected: false, incomeCv: 0.4 }],
  ['IRREGULAR_INCOME', 'HIGH', { salaryDetected: false, incomeCv: 0.75 }],
  ['NEGATIVE_CASH_FLOW', 'MEDIUM', { netFlowMonthlyAverage: -10_000 }],
  ['NEGATIVE_CASH_FLOW', 'HIGH', { netFlowMonthlyAverage: -40_000 }],
  ['VOLATILE_CASH_FLOW', 'MEDIUM', { netFlowCv: 1.6 }],
  ['LOW_BALANCE', 'LOW', { averageBalance: 10_000 }],
  ['FREQUENT_OVERDRAFT', 'MEDIUM', { overdraftDaysPerMonth: 3 }],
  ['FREQUENT_OVERDRAFT', 'HIGH', { overdraftDaysPerMonth: 10 }],
  ['BOUNCED_DEBITS', 'LOW', { bouncedDebits: 1 }],
  ['BOUNCED_DEBITS', 'MEDIUM', { bouncedDebits: 3 }],
  ['BOUNCED_DEBITS', 'HIGH', { bouncedDebits: 6 }],
  ['HIGH_BETTING_SPEND', 'MEDIUM', { bettingShareOfIncome: 0.1, bettingDebitsMonthlyAverage: 30_000 }],
  ['HIGH_BETTING_SPEND', 'HIGH', { bettingShareOfIncome: 0.3, bettingDebitsMonthlyAverage: 90_000 }],
  [
    'EXISTING_DIGITAL_LOANS',
    'LOW',
    { loanDisbursementsTotal: 50_000, loanDisbursementMonths: 1, digitalLoanShareOfIncome: 0.01 },
  ],
  [
    'EXISTING_DIGITAL_LOANS',
    'MEDIUM',
    { loanDisbursementsTotal: 720_000, loanDisbursementMonths: 8, digitalLoanShareOfIncome: 0.2 },
  ],
  [
    'EXISTING_DIGITAL_LOANS',
    'HIGH',
    { loanDisbursementsTotal: 1_500_000, loanDisbursementMonths: 12, digitalLoanShareOfIncome: 0.42 },
  ],
  ['HIGH_DEBT_BURDEN', 'MEDIUM', { statementMonthlyRepayments: 60_000 }],
  ['HIGH_DEBT_BURDEN', 'HIGH', { statementMonthlyRepayments: 100_000 }],
  ['HIGH_DEBT_BURDEN', 'HIGH', {}, { monthlyInstalment: 100_000 }],
  ['STATEMENT_RED_FLAGS', 'LOW', { redFlags: ['IDENTICAL_DEBIT_VS_CREDIT'] }],
  ['STATEMENT_RED_FLAGS', 'MEDIUM', { redFlags: ['IDENTICAL_DEBIT_VS_CREDIT', 'CASH_DEPOSITS_LARGER_THAN_SALARY'] }],
  ['THIN_FILE', 'MEDIUM', { thinFile: true }],
  ['BUREAU_DELINQUENCY', 'MEDIUM', {}, { status: 'HIT', maxDaysPastDue: 30, delinquentFacilities: 1 }],
  ['BUREAU_DELINQUENCY', 'MEDIUM', {}, { status: 'HIT', overdueAmount: 5_000, delinquentFacilities: 1 }],
  [
    'BUREAU_DELINQUENCY',
    'HIGH',
    {},
    { status: 'HIT', maxDaysPastDue: 96, overdueAmount: 187_500, delinquentFacilities: 2 },
  ],
  ['BUREAU_DELINQUENCY', 'HIGH', {}, { status: 'HIT', writtenOffFacilities: 1 }],
  ['LOW_BUREAU_SCORE', 'MEDIUM', {}, { status: 'HIT', score: 521, scoreBand: 'POOR' }],
  ['RECENT_CREDIT_ENQUIRIES', 'LOW', {}, { status: 'HIT', enquiriesLast3m: 3 }],
];

describe('riskFactorsOf', () => {
  it('when the applicant is clean, then there is no risk factor', () => {
    expect(riskFactorsOf(base({}), bureauSummary())).toEqual([]);
  });

  it.each(CASES)('when %s applies, then it is raised with severity %s', (code, severity, features, bureau = {}) => {
    const raised = riskFactorsOf(base(features), bureauSummary(bureau));

    expect(raised).toContainEqual(expect.objectContaining({ code, severity }));
    expect(raised.find((risk) => risk.code === code)?.description.length).toBeGreaterThan(10);
  });

  it('when below every threshold, then nothing is raised', () => {
    const raised = riskFactorsOf(
      base({
        overdraftDaysPerMonth: 2.9,
        bettingShareOfIncome: 0.09,
        bettingDebitsMonthlyAverage: 27_000,
        netFlowCv: 1.49,
      }),
      bureauSummary({ status: 'HIT', score: 580, enquiriesLast3m: 2, maxDaysPastDue: 29 }),
    );

    expect(raised).toEqual([]);
  });

  it('when several factors apply, then the most severe come first', () => {
    const raised = riskFactorsOf(
      base({ bouncedDebits: 1, overdraftDaysPerMonth: 12, thinFile: true }),
      bureauSummary(),
    );

    expect(raised.map((risk) => risk.severity)).toEqual(['HIGH', 'MEDIUM', 'LOW']);
  });
});
