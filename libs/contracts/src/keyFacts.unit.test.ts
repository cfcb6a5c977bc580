import { DEFAULT_DISCLOSURE, DisclosureTerms, keyFactsOf, type KeyFacts } from './keyFacts';

const kobo = (naira: number) => Math.round(naira * 100);
const sumKobo = (values: number[]) => values.reduce((sum, v) => sum + kobo(v), 0);

/**
 * The APR found independently of the code under test: Newton's method on the same cash flows
 * (the amount paid out on the disbursement day, each instalment on its due date), with the
 * derivative worked out by hand: d/da of A (1 + a)^-t is -t A (1 + a)^(-t - 1), t in years of 365 days.
 */
function newtonApr(facts: KeyFacts): number {
  const start = Date.parse(`${facts.disbursement_date}T00:00:00Z`);
  const flows = [
    { t: 0, amount: -facts.amount_disbursed },
    ...facts.schedule.map((s) => ({
      t: (Date.parse(`${s.due_date}T00:00:00Z`) - start) / 86_400_000 / 365,
      amount: s.amount,
    })),
  ];
  let a = 0.1;
  for (let i = 0; i < 100; i++) {
    const f = flows.reduce((sum, { t, amount }) => sum + amount * (1 + a) ** -t, 0);
    const df = flows.reduce((sum, { t, amount }) => sum - t * amount * (1 + a) ** (-t - 1), 0);
    const next = a - f / df;
    if (Math.abs(next - a) < 1e-14) return next * 100;
    a = next;
  }
  return a * 100;
}

const feesOf = (managementPercent: number, insurancePercent: number, collection: 'UPFRONT' | 'SPREAD') => ({
  fees: { managementPercent, insurancePercent, vatPercent: 7.5, collection },
  schedule: { alignToPayDay: true, daysAfterPayDay: 1 },
});

describe('the key facts of an offer', () => {
  // The worked example of docs/scoring.md ("Key facts"): ₦100,000 over 3 months at 5% a month,
  // a 1% management fee and 0.5% insurance taken up front with VAT at 7.5%, paid out on
  // 15 January 2026 to an applicant with no detected salary.
  //   fees: 1,000 + 500 + 7.5% of 1,500 = 112.50 -> 1,612.50; paid out 98,387.50
  //   instalment: PMT(5%, 3, 100,000) = 36,720.8564 -> 36,720.86
  //   month 1: interest 5% of 100,000 = 5,000.00, principal 31,720.86, balance 68,279.14
  //   month 2: interest 5% of 68,279.14 = 3,413.957 -> 3,413.96, principal 33,306.90, balance 34,972.24
  //   month 3: interest 5% of 34,972.24 = 1,748.612 -> 1,748.61, principal 34,972.24 (the rest): 36,720.85
  //   repayable 110,162.57; cost of credit 110,162.57 - 98,387.50 = 11,775.07
  //   APR: the a with 98,387.50 = sum of each instalment / (1 + a)^(days / 365), the days being
  //   31, 59 and 90: a = 100.18%.
  it('when the worked example is computed, then every figure is the one worked out by hand and the APR the independent one', () => {
    const facts = keyFactsOf({
      principal: 100_000,
      tenorMonths: 3,
      monthlyRatePercent: 5,
      terms: feesOf(1, 0.5, 'UPFRONT'),
      disbursementDate: '2026-01-15',
      payDayOfMonth: null,
    });
    expect(facts.fees.map((f) => [f.code, f.amount])).toEqual([
      ['MANAGEMENT', 1000],
      ['INSURANCE', 500],
      ['VAT', 112.5],
    ]);
    expect(facts).toMatchObject({
      total_fees: 1612.5,
      amount_disbursed: 98_387.5,
      total_interest: 10_162.57,
      total_repayable: 110_162.57,
      total_cost_of_credit: 11_775.07,
      apr_percent: 100.18,
      schedule_basis: { kind: 'MONTHLY_FROM_DISBURSEMENT', pay_day_of_month: null },
    });
    expect(facts.schedule).toEqual([
      { number: 1, due_date: '2026-02-15', principal: 31_720.86, interest: 5000, fees: 0, amount: 36_720.86 },
      { number: 2, due_date: '2026-03-15', principal: 33_306.9, interest: 3413.96, fees: 0, amount: 36_720.86 },
      { number: 3, due_date: '2026-04-15', principal: 34_972.24, interest: 1748.61, fees: 0, amount: 36_720.85 },
    ]);
    expect(newtonApr(facts).toFixed(2)).toBe('100.18');
    // Without fees, over the same dates: 81.02% (the docs' comparison with (1.05)^12 - 1 = 79.59%).
    const feeless = keyFactsOf({
      principal: 100_000,
      tenorMonths: 3,
      monthlyRatePercent: 5,
      terms: DEFAULT_DISCLOSURE,
      disbursementDate: '2026-01-15',
      payDayOfMonth: null,
    });
    expect([feeless.apr_percent, newtonApr(feeless).toFixed(2)]).toEqual([81.02, '81.02']);
  });

  it('when terms vary widely, then the schedule sums to the kobo and the APR agrees with the independent one to two decimals', () => {
    let seed = 7;
    const next = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    for (let i = 0; i < 200; i++) {
      const principal = Math.round(10_000 + next() * 4_990_000) + Math.round(next() * 100) / 100;
      const tenorMonths = 1 + Math.floor(next() * 36);
      const rate = Math.round(next() * 1000) / 100;
      const collection = next() < 0.5 ? 'UPFRONT' : 'SPREAD';
      const payDay = next() < 0.5 ? null : 1 + Math.floor(next() * 31);
      const facts = keyFactsOf({
        principal,
        tenorMonths,
        monthlyRatePercent: rate,
        terms: feesOf(Math.round(next() * 500) / 100, Math.round(next() * 200) / 100, collection),
        disbursementDate: `2026-${String(1 + Math.floor(next() * 12)).padStart(2, '0')}-${String(1 + Math.floor(next() * 28)).padStart(2, '0')}`,
        payDayOfMonth: payDay,
      });
      const { schedule } = facts;
      expect(schedule).toHaveLength(tenorMonths);
      expect(sumKobo(schedule.map((s) => s.principal))).toBe(kobo(principal));
      expect(sumKobo(schedule.map((s) => s.interest))).toBe(kobo(facts.total_interest));
      expect(sumKobo(schedule.map((s) => s.fees))).toBe(collection === 'SPREAD' ? kobo(facts.total_fees) : 0);
      expect(sumKobo(schedule.map((s) => s.amount))).toBe(kobo(facts.total_repayable));
      for (const s of schedule) expect(kobo(s.amount)).toBe(kobo(s.principal) + kobo(s.interest) + kobo(s.fees));
      expect(kobo(facts.total_cost_of_credit)).toBe(kobo(facts.total_interest) + kobo(facts.total_fees));
      const dates = schedule.map((s) => s.due_date);
      expect([...dates].sort()).toEqual(dates);
      expect(new Set(dates).size).toBe(dates.length);
      expect(Math.abs(facts.apr_percent - newtonApr(facts))).toBeLessThan(0.005 + 1e-9);
    }
  });

  it('when the pay day is the 29th to the 31st, then February’s instalment falls on its last day, in a leap year and not', () => {
    const datesOf = (payDay: number, disbursementDate: string, daysAfterPayDay = 0) =>
      keyFactsOf({
        principal: 300_000,
        tenorMonths: 3,
        monthlyRatePercent: 4,
        terms: { ...DEFAULT_DISCLOSURE, schedule: { alignToPayDay: true, daysAfterPayDay } },
        disbursementDate,
        payDayOfMonth: payDay,
      }).schedule.map((s) => s.due_date);
    expect(datesOf(31, '2028-01-05')).toEqual(['2028-01-31', '2028-02-29', '2028-03-31']);
    expect(datesOf(31, '2027-01-05')).toEqual(['2027-01-31', '2027-02-28', '2027-03-31']);
    expect(datesOf(29, '2027-01-05')).toEqual(['2027-01-29', '2027-02-28', '2027-03-29']);
    // Paid on the 30th, due two days later: February's falls on 2 March, after its last day.
    expect(datesOf(30, '2027-01-05', 2)).toEqual(['2027-02-01', '2027-03-02', '2027-04-01']);
    // The first instalment is at least 14 days after disbursement: 20 January to the 30th is not.
    expect(datesOf(30, '2027-01-20')).toEqual(['2027-02-28', '2027-03-30', '2027-04-30']);
    const facts = keyFactsOf({
      principal: 300_000,
      tenorMonths: 3,
      monthlyRatePercent: 4,
      terms: DEFAULT_DISCLOSURE,
      disbursementDate: '2027-01-05',
      payDayOfMonth: 25,
    });
    expect(facts.schedule_basis).toMatchObject({ kind: 'PAY_DATE', pay_day_of_month: 25, days_after_pay_day: 1 });
    expect(facts.schedule_basis.reason).toMatch(/day 25 of the month/);
  });

  it('when the policy does not align to pay dates, or a monthly date has no such day, then instalments fall monthly from disbursement, on the month’s last day when shorter', () => {
    const facts = keyFactsOf({
      principal: 90_000,
      tenorMonths: 3,
      monthlyRatePercent: 0,
      terms: { ...DEFAULT_DISCLOSURE, schedule: { alignToPayDay: false, daysAfterPayDay: 0 } },
      disbursementDate: '2027-01-31',
      payDayOfMonth: 25,
    });
    expect(facts.schedule.map((s) => s.due_date)).toEqual(['2027-02-28', '2027-03-31', '2027-04-30']);
    expect(facts.schedule_basis).toMatchObject({ kind: 'MONTHLY_FROM_DISBURSEMENT' });
    expect(facts.schedule_basis.reason).toMatch(/does not align/);
    // No interest and no fees: what is paid back is what was paid out, at an APR of 0.
    expect(facts).toMatchObject({ total_repayable: 90_000, total_cost_of_credit: 0, apr_percent: 0, fees: [] });
  });

  it('when fees taken up front would leave nothing to pay out, then the terms are refused: the APR would be undefined', () => {
    const refused = DisclosureTerms.safeParse(feesOf(50, 43.1, 'UPFRONT'));
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((i) => i.message)).toEqual([
      'Fees taken up front, with their VAT, must stay under 100% of the principal: nothing would be paid out and the APR is undefined',
    ]);
    // Spread over the instalments the same fees leave the whole principal paid out: defined.
    expect(DisclosureTerms.safeParse(feesOf(50, 43.1, 'SPREAD')).success).toBe(true);
    for (const [terms, message] of [
      [feesOf(-1, 0, 'UPFRONT'), 'managementPercent must be between 0 and 50'],
      [
        { ...feesOf(1, 0, 'UPFRONT'), schedule: { alignToPayDay: true, daysAfterPayDay: 1.5 } },
        'daysAfterPayDay must be whole days',
      ],
      [{ ...feesOf(1, 0, 'UPFRONT'), extra: 1 }, 'Unrecognized key: "extra"'],
    ] as const) {
      const parsed = DisclosureTerms.safeParse(terms);
      expect(parsed.error?.issues.map((i) => i.message)).toContain(message);
    }
  });
});
