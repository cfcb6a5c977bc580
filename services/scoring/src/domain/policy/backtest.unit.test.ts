import { DEFAULT_BAD_DEFINITION, type Decision } from '@loan/contracts';
import type { LoanState } from '../outcomes/loanState';
import type { ScoringAudit } from '../scorecard';
import { backtest, stressApprovals } from './backtest';

const decision = (outcome: Decision['decision'], monthlyPayment = 0) =>
  ({ decision: outcome, approval_details: { monthly_payment: monthlyPayment } }) as Decision;

const audit = (monthlyIncome: number, netFlowMonthlyAverage: number, statementMonthlyRepayments: number) =>
  ({
    features: { monthlyIncome, netFlowMonthlyAverage, statementMonthlyRepayments },
    bureauSummary: { monthlyInstalment: 0 },
  }) as unknown as ScoringAudit;

const loan = (maxDaysPastDue: number) => ({ maxDaysPastDue, writtenOff: false, defaulted: false }) as LoanState;

describe('stress', () => {
  /*
   * Income ₦300,000, net flow ₦60,000 (so ₦240,000 spent a month, repayments included), existing
   * repayments ₦20,000, the new payment ₦60,000, a debt service cap of 1/3.
   * CPI 20 %: income 300,000 / 1.2 = 250,000; the cap is 83,333, and 20,000 + 60,000 = 80,000
   * stays under it. Spending up 10 %: 264,000; 250,000 - 264,000 - 60,000 < 0: it fails on spending.
   * The second: income ₦1,000,000, net flow ₦700,000 (₦300,000 spent): 833,333 after CPI, spending
   * 330,000, payment 100,000, no debt: under the cap (277,777) and 403,333 left: it passes.
   * The third: the same income with a payment of ₦300,000 passes spending but not the cap.
   */
  it('counts the approvals that fail affordability under the shock, and why', () => {
    const result = stressApprovals(
      [
        { audit: audit(300_000, 60_000, 20_000), draft: decision('APPROVED', 60_000), maxDebtServiceRatio: 1 / 3 },
        { audit: audit(1_000_000, 700_000, 0), draft: decision('COUNTER_OFFER', 100_000), maxDebtServiceRatio: 1 / 3 },
        { audit: audit(1_000_000, 700_000, 0), draft: decision('APPROVED', 300_000), maxDebtServiceRatio: 1 / 3 },
        { audit: audit(100, 0, 0), draft: decision('DECLINED'), maxDebtServiceRatio: 1 / 3 },
      ],
      { cpiPercent: 20, expenseIncreasePercent: 10 },
    );
    expect(result).toEqual({
      cpiPercent: 20,
      expenseIncreasePercent: 10,
      approvals: 3,
      failing: 2,
      failingShare: 0.6667,
      overDebtServiceCap: 1,
      expensesExceedIncome: 1,
    });
  });

  it('fails nothing without a shock when every approval fits', () => {
    const result = stressApprovals(
      [{ audit: audit(1_000_000, 700_000, 0), draft: decision('APPROVED', 100_000), maxDebtServiceRatio: 1 / 3 }],
      { cpiPercent: 0, expenseIncreasePercent: 0 },
    );
    expect(result).toMatchObject({ approvals: 1, failing: 0, failingShare: 0 });
  });
});

describe('back-test', () => {
  it('gives the observed bad rate of loans both versions grant and of those the draft declines, and says what it cannot know', () => {
    const loans = new Map<string, LoanState>();
    const replays: { applicationId: string; draft: Decision }[] = [];
    // 40 loans the draft grants, 4 of them 90+ days past due; 30 it declines, 9 of them bad;
    // 5 it refers (in neither); 10 applications without a loan.
    for (let i = 0; i < 40; i++) {
      loans.set(`g${i}`, loan(i < 4 ? 95 : 0));
      replays.push({ applicationId: `g${i}`, draft: decision('APPROVED') });
    }
    for (let i = 0; i < 30; i++) {
      loans.set(`d${i}`, loan(i < 9 ? 120 : 10));
      replays.push({ applicationId: `d${i}`, draft: decision('DECLINED') });
    }
    for (let i = 0; i < 5; i++) {
      loans.set(`r${i}`, loan(0));
      replays.push({ applicationId: `r${i}`, draft: decision('MANUAL_REVIEW') });
    }
    for (let i = 0; i < 10; i++) replays.push({ applicationId: `n${i}`, draft: decision('APPROVED') });

    const result = backtest(replays, loans, DEFAULT_BAD_DEFINITION);
    expect(result).toMatchObject({
      withOutcomes: 75,
      bothApproved: { loans: 40, bad: 4, badRate: 0.1, note: null },
      draftWouldDecline: { loans: 30, bad: 9, badRate: 0.3, note: null },
    });
    expect(result.limits[0]).toMatch(/reject inference is out of scope/);
  });

  it('gives no rate from too few loans', () => {
    const result = backtest(
      [{ applicationId: 'a', draft: decision('APPROVED') }],
      new Map([['a', loan(100)]]),
      DEFAULT_BAD_DEFINITION,
    );
    expect(result.bothApproved).toEqual({
      loans: 1,
      bad: 1,
      badRate: null,
      note: '1 loan with outcomes: at least 30 are needed before a bad rate means anything',
    });
  });
});
