import { FIXTURE_NOW, buildAccount, type AccountPlan, type MonthPlan } from '../__tests__/statements';
import { SCORING_WINDOW_MONTHS } from './constants';
import { applicantMonths, monthOf, monthRange } from './months';

const account = (id: string, months: MonthPlan[], overrides: Partial<AccountPlan> = {}) =>
  buildAccount({
    accountId: `${id}0000000-0000-4000-9000-000000000001`,
    institution: 'GTBank',
    bankCode: '058',
    accountNumber: '0123456785',
    holderName: 'CHINEDU OKAFOR',
    openingBalance: 50_000,
    firstMonth: '2026-08',
    months,
    ...overrides,
  });

describe('applicantMonths', () => {
  it('when two accounts report the same month, then their money is added and the transfer between them is not income', () => {
    const salary = account('a', [{ salary: 300_000, spending: 150_000, ownOut: 100_000 }]);
    const savings = account('b', [{ ownIn: 100_000, otherIncome: 5_000, spending: 20_000 }]);

    const [month] = applicantMonths([salary, savings], FIXTURE_NOW);

    expect(month).toMatchObject({
      month: '2026-08',
      income: 305_000,
      salary: 300_000,
      inflow: 305_000,
      outflow: 170_000,
      netFlow: 135_000,
      ownTransfersIn: 100_000,
      ownTransfersOut: 100_000,
    });
  });

  it('when money only moves between own accounts, then the applicant looks the same as with one account', () => {
    const single = account('a', [{ salary: 300_000, spending: 170_000 }]);
    const split = [
      account('a', [{ salary: 300_000, spending: 150_000, ownOut: 120_000 }]),
      account('b', [{ ownIn: 120_000, spending: 20_000, ownOut: 50_000 }]),
      account('c', [{ ownIn: 50_000 }]),
    ];

    const [alone] = applicantMonths([single], FIXTURE_NOW);
    const [together] = applicantMonths(split, FIXTURE_NOW);

    expect(together?.income).toBe(alone?.income);
    expect(together?.inflow).toBe(alone?.inflow);
    expect(together?.outflow).toBe(alone?.outflow);
    expect(together?.netFlow).toBe(alone?.netFlow);
  });

  it('when betting payouts and loan disbursements arrive, then they are not income and borrowed money is not inflow', () => {
    const [month] = applicantMonths(
      [account('a', [{ salary: 200_000, bettingWins: 30_000, loanDisbursements: 50_000, spending: 100_000 }])],
      FIXTURE_NOW,
    );

    expect(month).toMatchObject({ income: 200_000, inflow: 230_000, loanDisbursements: 50_000 });
  });

  it('when both accounts were overdrawn in a month, then the worst account’s days count, not their sum', () => {
    const [month] = applicantMonths(
      [account('a', [{ salary: 100_000, overdraftDays: 6 }]), account('b', [{ overdraftDays: 4 }])],
      FIXTURE_NOW,
    );

    expect(month?.overdraftDays).toBe(6);
  });

  it('when an account reports the current month, then that open month is left out', () => {
    const months = applicantMonths(
      [account('a', [{ salary: 1 }, { salary: 2 }, { salary: 3 }, { salary: 4 }], { firstMonth: '2026-09' })],
      FIXTURE_NOW,
    );

    expect(months.map((month) => month.month)).toEqual(['2026-09', '2026-10']);
  });

  it('when no account reports a month between others, then it counts as an empty month', () => {
    const early = account('a', [{ salary: 100_000 }], { firstMonth: '2026-07' });
    const late = account('b', [{ salary: 100_000 }], { firstMonth: '2026-10' });

    const months = applicantMonths([early, late], FIXTURE_NOW);

    expect(months.map((month) => [month.month, month.income])).toEqual([
      ['2026-07', 100_000],
      ['2026-08', 0],
      ['2026-09', 0],
      ['2026-10', 100_000],
    ]);
  });

  it('when statements run longer than the window, then only the latest months are kept', () => {
    const long = account(
      'a',
      Array.from({ length: 18 }, () => ({ salary: 100_000 })),
      { firstMonth: '2025-05' },
    );

    const months = applicantMonths([long], FIXTURE_NOW);

    expect(months).toHaveLength(SCORING_WINDOW_MONTHS);
    expect(months[0]?.month).toBe('2025-11');
    expect(months.at(-1)?.month).toBe('2026-10');
  });

  it('when there are no months at all, then there is nothing to score', () => {
    expect(applicantMonths([account('a', [])], FIXTURE_NOW)).toEqual([]);
  });
});

describe('monthRange and monthOf', () => {
  it('when a range crosses a year end, then every month is listed once', () => {
    expect(monthRange('2025-11', '2026-02')).toEqual(['2025-11', '2025-12', '2026-01', '2026-02']);
  });

  it('when a date is given, then its UTC month is used', () => {
    expect(monthOf(new Date('2026-10-31T23:30:00.000Z'))).toBe('2026-10');
  });
});
