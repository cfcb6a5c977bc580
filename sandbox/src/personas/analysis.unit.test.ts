import { analyzeIncome } from './income';
import { analyzeStatement, recurringKey } from './insights';
import type { MonoTransaction, TransactionCategory } from './types';

const ACCOUNT = { id: 'acc-1', name: 'SAMUEL OLAMIDE', account_number: '0123456785' };
const NOW = new Date('2026-11-21T10:00:00.000Z');

/** Builds statement lines oldest first with running balances from an opening balance. */
function statement(
  opening: number,
  lines: Array<[string, string, number, 'credit' | 'debit', TransactionCategory]>,
): MonoTransaction[] {
  let balance = opening;
  return lines.map(([date, narration, amount, type, category], index) => {
    balance += type === 'credit' ? amount : -amount;
    return { id: String(index), narration, amount, type, balance, date: `${date}T10:00:00.000Z`, category };
  });
}

const salaryMonths = ['2026-05-26', '2026-06-26', '2026-07-24', '2026-08-26', '2026-09-25', '2026-10-26'];
const MONTH_NAMES = ['MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT'];

describe('income analysis', () => {
  it('when one payer credits the same amount every month, then it is a salary stream naming the employer', () => {
    const lines = statement(
      10_000_00,
      salaryMonths.flatMap((date, i) => [
        [date, `NIP/FBN/DANGOTE CEMENT PLC/SALARY ${MONTH_NAMES[i]} 2026`, 350_000_00, 'credit', 'salary'] as const,
        [date.replace(/-2\d$/, '-28'), 'MC Loc POS Prch-1--SHOPRITE', 20_000_00, 'debit', 'food'] as const,
      ]),
    );
    const income = analyzeIncome({ account: ACCOUNT, transactions: lines, now: NOW });
    expect(income.income_summary).toEqual({ total_income: 6 * 350_000_00, employer: 'DANGOTE CEMENT PLC' });
    expect(income.income_streams).toEqual([
      expect.objectContaining({
        income_type: 'SALARY',
        frequency: 'MONTHLY',
        stability: 1,
        number_of_incomes: 6,
        average_income_amount: 350_000_00,
      }),
    ]);
    expect(income.total_regular_income_amount).toBe(6 * 350_000_00);
    expect(income.total_irregular_income_amount).toBe(0);
    expect(income.annual_income).toBe(income.monthly_income * 12);
  });

  it('when credits are loans, betting payouts, reversals or own transfers, then they are not income', () => {
    const lines = statement(0, [
      ['2026-06-01', 'NIP/CARBON/CARBON/LOAN DISB CA1', 50_000_00, 'credit', 'loan_disbursement'],
      ['2026-06-10', 'NIP/WEMA/BET9JA/WITHDRAWAL 1', 30_000_00, 'credit', 'betting_payout'],
      ['2026-07-01', 'TRF FRM SAMUEL OLAMIDE TO SAMUEL OLAMIDE|top up', 20_000_00, 'credit', 'transfer'],
      ['2026-08-01', 'REV-DD/CARBON/LOAN REPAYMENT/CA1 INSUFFICIENT FUNDS', 10_000_00, 'credit', 'reversal'],
    ]);
    expect(analyzeIncome({ account: ACCOUNT, transactions: lines, now: NOW }).total_income).toBe(0);
  });

  it('when there is less than four weeks of history, then no income is reported', () => {
    const lines = statement(0, [
      ['2026-11-01', 'NIP/FBN/ACME LTD/SALARY NOV 2026', 200_000_00, 'credit', 'salary'],
      ['2026-11-15', 'MC Loc POS Prch-1--SPAR', 5_000_00, 'debit', 'food'],
    ]);
    const income = analyzeIncome({ account: ACCOUNT, transactions: lines, now: NOW });
    expect(income.income_summary).toEqual({ total_income: 0, employer: '' });
    expect(income.income_streams).toEqual([]);
  });

  it('when a period is asked for, then only that many months before now are analyzed', () => {
    const lines = statement(
      0,
      salaryMonths.map(
        (date, i) => [date, `NIP/FBN/ACME LTD/SALARY ${MONTH_NAMES[i]} 2026`, 100_000_00, 'credit', 'salary'] as const,
      ),
    );
    const income = analyzeIncome({ account: ACCOUNT, transactions: lines, periodMonths: 3, now: NOW });
    expect(income.period).toBe(3);
    expect(income.total_income).toBe(3 * 100_000_00);
  });
});

describe('statement insights', () => {
  it('when a statement is analyzed, then totals, balances and counts follow from its lines', () => {
    const lines = statement(1_000_00, [
      ['2026-10-01', 'NIP/GTB/ADA OBI/gift', 5_000_00, 'credit', 'transfer'],
      ['2026-10-02', 'MC Loc POS Prch-1--SPAR', 2_000_00, 'debit', 'food'],
      ['2026-10-04', 'ATM WDL 1 GTB MARINA', 1_000_00, 'debit', 'cash_withdrawal'],
    ]);
    const insights = analyzeStatement([...lines].reverse());
    expect(insights).toMatchObject({
      transaction_length: 3,
      transaction_count: 3,
      opening_balance: 1_000_00,
      closing_balance: 3_000_00,
      overall_credits: 5_000_00,
      overall_debits: 3_000_00,
      balance_after_expense: 2_000_00,
      debit_to_credit_ratio: 0.6,
      number_of_credit_transactions: 1,
      number_of_debit_transactions: 2,
      highest_debits: [
        { amount: 2_000_00, narration: 'MC Loc POS Prch-1--SPAR', date: '2026-10-02T10:00:00.000Z' },
        { amount: 1_000_00, narration: 'ATM WDL 1 GTB MARINA', date: '2026-10-04T10:00:00.000Z' },
      ],
    });
    // End-of-day balances 6,000 / 4,000 / 4,000 / 3,000 naira over four days.
    expect(insights.average_balance).toBe(4_250_00);
  });

  it('when the same payment recurs monthly at the same amount, then it counts as recurring', () => {
    const lines = statement(
      500_000_00,
      ['2026-07-05', '2026-08-05', '2026-09-05'].map(
        (date, i) => [date, `DStv SUBSCRIPTION/70${i}/COMPACT`, 15_700_00, 'debit', 'bills_and_utilities'] as const,
      ),
    );
    expect(recurringKey(lines[0] as MonoTransaction)).toBe(recurringKey(lines[2] as MonoTransaction));
    expect(analyzeStatement(lines).total_recurring_debits).toBe(3 * 15_700_00);
  });

  it('when money is received and sent on in the same amount, or most of a salary leaves at once, then the red flags are raised', () => {
    const lines = statement(0, [
      ['2026-10-01', 'NIP/GTB/ADA OBI/for onward transfer', 50_000_00, 'credit', 'transfer'],
      ['2026-10-01', 'NIP CR/EMEKA EZE/UBA', 50_000_00, 'debit', 'transfer'],
      ['2026-10-25', 'NIP/FBN/ACME LTD/SALARY OCT 2026', 200_000_00, 'credit', 'salary'],
      ['2026-10-26', 'NIP CR/SPORTYBET NIGERIA/PAYSTACK-TITAN', 150_000_00, 'debit', 'betting_deposit'],
      ['2026-10-27', 'CASH DEPOSIT/BY SAMUEL OLAMIDE', 250_000_00, 'credit', 'cash_deposit'],
    ]);
    expect(analyzeStatement(lines)).toMatchObject({
      identical_debit_vs_credit: true,
      immediate_large_withdrawal_post_payday: true,
      cash_deposits_larger_than_salary: true,
    });
  });
});
