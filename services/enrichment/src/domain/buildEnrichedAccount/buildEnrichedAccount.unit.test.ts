import { EnrichedAccount, type MonthSummary, type ProviderAccount, type ProviderTransaction } from '@loan/contracts';
import { findInstitution, generateAccount, type GeneratedAccount, type PersonaId } from '@loan/sandbox';
import { buildEnrichedAccount } from './buildEnrichedAccount';

const NOW = new Date('2026-03-15T10:00:00.000Z');
const HOLDER = 'Chidi Okafor';

function persona(id: PersonaId, seed = `fixture-${id}`): GeneratedAccount {
  const institution = findInstitution('gtbank');
  if (!institution) throw new Error('no GTBank in the sandbox');
  return generateAccount({ persona: id, seed, holderName: HOLDER, institution, now: NOW });
}

/** The account as the provider client maps `GET /v2/accounts/:id`. */
function providerAccount(generated: GeneratedAccount): ProviderAccount {
  const a = generated.account;
  return {
    id: a.id,
    holderName: a.name,
    accountNumber: a.account_number,
    currency: a.currency,
    type: a.type,
    balanceKobo: a.balance,
    bvnLast4: a.bvn,
    institution: { name: a.institution.name, bankCode: a.institution.bank_code, type: a.institution.type },
  };
}

function build(generated: GeneratedAccount, options: { withoutCategories?: boolean; withoutBalances?: boolean } = {}) {
  const transactions: ProviderTransaction[] = generated.transactions.map((t) => ({
    ...t,
    category: options.withoutCategories ? 'unknown' : t.category,
    balance: options.withoutBalances ? null : t.balance,
  }));
  return buildEnrichedAccount({
    accountId: '2b0d3c1e-3f4a-4c8e-9a51-0c7d8e9f1a2b',
    providerAccountId: generated.account.id,
    linked: { institution: 'GTBank', accountNumber: generated.account.account_number },
    account: providerAccount(generated),
    transactions,
    income: generated.income as unknown as Record<string, unknown>,
    insights: generated.insights as unknown as Record<string, unknown>,
    periodMonths: 12,
    now: NOW,
  });
}

const naira = (kobo: number) => kobo / 100;
const total = (months: MonthSummary[], field: keyof MonthSummary) =>
  months.reduce((sum, m) => sum + (m[field] as number), 0);

/** Sum per `YYYY-MM` of the generated lines that match, in Naira: the ground truth. */
function truthByMonth(generated: GeneratedAccount, match: (t: GeneratedAccount['transactions'][number]) => boolean) {
  const out = new Map<string, number>();
  for (const t of generated.transactions) {
    if (!match(t)) continue;
    const month = t.date.slice(0, 7);
    out.set(month, (out.get(month) ?? 0) + t.amount);
  }
  return new Map([...out].map(([m, kobo]) => [m, naira(kobo)]));
}

function expectMonthsToMatch(months: MonthSummary[], field: keyof MonthSummary, truth: Map<string, number>) {
  for (const m of months) expect([m.month, m[field]]).toEqual([m.month, expect.closeTo(truth.get(m.month) ?? 0, 2)]);
}

const isOwn = (narration: string) => {
  const match = /^TRF FRM (.+?) TO (.+?)(\||$)/.exec(narration);
  return match !== null && match[1] === match[2];
};

describe('buildEnrichedAccount', () => {
  it('when the statement is a salaried persona, then every salary credit is found in its month and nothing else is taken for salary', () => {
    const generated = persona('salaried');
    const profile = build(generated, { withoutCategories: true });
    expect(EnrichedAccount.parse(profile)).toEqual(profile);
    const truth = truthByMonth(generated, (t) => t.category === 'salary');
    expect(truth.size).toBeGreaterThanOrEqual(5);
    expectMonthsToMatch(profile.months, 'salaryCredits', truth);
    expect(total(profile.months, 'bettingDebits')).toBe(0);
    expect(profile.income.employer).toBeTruthy();
    expect(profile.income.streams.some((s) => s.incomeType === 'SALARY')).toBe(true);
  });

  it('when a senior salary is paid, then the monthly salary credits are near the provider monthly income', () => {
    const generated = persona('salaried_high');
    const profile = build(generated);
    const paidMonths = profile.months.filter((m) => m.salaryCredits > 0);
    expect(paidMonths.length).toBeGreaterThanOrEqual(5);
    for (const m of paidMonths) expect(m.salaryCredits).toBeGreaterThan(1_000_000);
  });

  it('when the holder bets heavily, then deposits to and payouts from betting platforms are counted even without provider categories', () => {
    const generated = persona('heavy_betting');
    const profile = build(generated, { withoutCategories: true });
    const deposits = truthByMonth(generated, (t) => t.category === 'betting_deposit');
    const payouts = truthByMonth(generated, (t) => t.category === 'betting_payout');
    expect(deposits.size).toBeGreaterThan(3);
    expectMonthsToMatch(profile.months, 'bettingDebits', deposits);
    expectMonthsToMatch(profile.months, 'bettingCredits', payouts);
    // Payouts are not income.
    const other = truthByMonth(
      generated,
      (t) => t.type === 'credit' && ['income', 'transfer', 'cash_deposit'].includes(t.category) && !isOwn(t.narration),
    );
    expectMonthsToMatch(profile.months, 'otherIncomeCredits', other);
  });

  it('when the account runs into its overdraft, then the days that ended overdrawn and the returned debits are counted per month', () => {
    const generated = persona('overdrawn');
    const profile = build(generated);
    const chronological = [...generated.transactions].reverse();
    const endOfDay = new Map<string, number>();
    for (const t of chronological) endOfDay.set(t.date.slice(0, 10), t.balance);
    const first = Date.parse(chronological[0]!.date.slice(0, 10));
    const last = Date.parse(chronological[chronological.length - 1]!.date.slice(0, 10));
    const overdrawn = new Map<string, number>();
    let balance = chronological[0]!.balance;
    for (let day = first; day <= last; day += 86_400_000) {
      const key = new Date(day).toISOString().slice(0, 10);
      balance = endOfDay.get(key) ?? balance;
      if (balance < 0) overdrawn.set(key.slice(0, 7), (overdrawn.get(key.slice(0, 7)) ?? 0) + 1);
    }
    expect(total(profile.months, 'overdraftDays')).toBeGreaterThan(10);
    for (const m of profile.months) expect([m.month, m.overdraftDays]).toEqual([m.month, overdrawn.get(m.month) ?? 0]);
    expect(Math.min(...profile.months.map((m) => m.minBalance))).toBeLessThan(0);

    const bounced = new Map<string, number>();
    for (const t of generated.transactions) {
      if (t.category === 'reversal' || t.narration.startsWith('DD RETURNED')) {
        bounced.set(t.date.slice(0, 7), (bounced.get(t.date.slice(0, 7)) ?? 0) + 1);
      }
    }
    for (const m of profile.months) expect([m.month, m.bouncedDebits]).toEqual([m.month, bounced.get(m.month) ?? 0]);
  });

  it('when money moves between the holder own accounts, then it is counted as own transfers and not as income', () => {
    const generated = persona('salaried');
    const profile = build(generated, { withoutCategories: true });
    const ownIn = truthByMonth(generated, (t) => t.type === 'credit' && isOwn(t.narration));
    const ownOut = truthByMonth(generated, (t) => t.type === 'debit' && isOwn(t.narration));
    expect(ownOut.size).toBeGreaterThan(3);
    expectMonthsToMatch(profile.months, 'ownTransfersIn', ownIn);
    expectMonthsToMatch(profile.months, 'ownTransfersOut', ownOut);
    const other = truthByMonth(generated, (t) => t.type === 'credit' && t.category !== 'salary' && !isOwn(t.narration));
    expectMonthsToMatch(profile.months, 'otherIncomeCredits', other);
  });

  it('when the bank names someone else as holder, then transfers between that person own accounts are still own transfers', () => {
    const generated = persona('name_mismatch');
    const profile = build(generated);
    expect(profile.holderName).not.toBe(HOLDER.toUpperCase());
    const ownOut = truthByMonth(generated, (t) => t.type === 'debit' && isOwn(t.narration));
    expectMonthsToMatch(profile.months, 'ownTransfersOut', ownOut);
  });

  it('when the holder lives on digital loans, then disbursements and repayments are counted, less repayments that were reversed', () => {
    const generated = persona('debt_stressed');
    const profile = build(generated, { withoutCategories: true });
    const disbursed = truthByMonth(generated, (t) => t.category === 'loan_disbursement');
    expect(disbursed.size).toBeGreaterThan(3);
    expectMonthsToMatch(profile.months, 'loanDisbursements', disbursed);
    const repaid = truthByMonth(generated, (t) => t.category === 'loan_repayment');
    const reversed = truthByMonth(generated, (t) => t.category === 'reversal' && /LOAN REPAYMENT/.test(t.narration));
    const net = new Map([...repaid].map(([m, v]) => [m, Math.max(0, v - (reversed.get(m) ?? 0))]));
    expectMonthsToMatch(profile.months, 'loanRepayments', net);
    expect(total(profile.months, 'loanDisbursements')).toBeGreaterThan(0);
  });

  it('when the income is irregular gig work, then nothing is taken for salary and the earnings are other income', () => {
    const generated = persona('gig');
    const profile = build(generated, { withoutCategories: true });
    expect(total(profile.months, 'salaryCredits')).toBe(0);
    const earnings = truthByMonth(generated, (t) => ['income', 'cash_deposit'].includes(t.category));
    for (const m of profile.months)
      expect(m.otherIncomeCredits).toBeGreaterThanOrEqual((earnings.get(m.month) ?? 0) - 0.01);
  });

  it('when the provider speaks kobo, then every amount of the profile is in Naira', () => {
    const generated = persona('salaried');
    const profile = build(generated);
    expect(profile.balance).toBe(naira(generated.account.balance));
    expect(profile.income.monthlyIncome).toBe(naira(generated.income.monthly_income));
    expect(profile.income.totalIncome).toBe(naira(generated.income.total_income));
    expect(profile.income.streams[0]?.monthlyAverage).toBe(naira(generated.income.income_streams[0]!.monthly_average));
    expect(profile.insights.overallCredits).toBe(naira(generated.insights.overall_credits));
    expect(profile.insights.averageBalance).toBe(naira(generated.insights.average_balance));
    expect(profile.insights.transactionCount).toBe(generated.transactions.length);
    expect(total(profile.months, 'credits')).toBeCloseTo(naira(generated.insights.overall_credits), 2);
    expect(total(profile.months, 'debits')).toBeCloseTo(naira(generated.insights.overall_debits), 2);
    expect(total(profile.months, 'transactionCount')).toBe(generated.transactions.length);
    expect(profile.months[0]!.openingBalance).toBe(naira(generated.insights.opening_balance));
    expect(profile.months[profile.months.length - 1]!.closingBalance).toBe(naira(generated.insights.closing_balance));
  });

  it('when the provider leaves out running balances, then they are rebuilt from the current balance', () => {
    const generated = persona('overdrawn');
    const withBalances = build(generated);
    const without = build(generated, { withoutBalances: true });
    expect(without.months).toEqual(withBalances.months);
  });

  it('when the history is thin, then only its months are listed', () => {
    const generated = persona('thin_file');
    const profile = build(generated);
    expect(profile.months.length).toBeGreaterThanOrEqual(2);
    expect(profile.months.length).toBeLessThanOrEqual(4);
    expect(total(profile.months, 'salaryCredits')).toBeGreaterThan(0);
  });
});

describe('buildEnrichedAccount on a hand-written statement', () => {
  const account: ProviderAccount = {
    id: 'acc-1',
    holderName: 'ADAEZE NGOZI OKAFOR',
    accountNumber: '0123456785',
    currency: 'NGN',
    type: 'SAVINGS_ACCOUNT',
    balanceKobo: 0,
    bvnLast4: '0003',
    institution: { name: 'GTBank', bankCode: '058', type: 'PERSONAL_BANKING' },
  };
  let n = 0;
  const line = (date: string, type: 'credit' | 'debit', naira: number, narration: string): ProviderTransaction => ({
    id: `t${++n}`,
    narration,
    amount: Math.round(naira * 100),
    type,
    balance: null,
    date,
    category: null,
  });
  // Oldest first here; given to the builder newest first, as the provider lists them.
  const lines = [
    line('2026-01-02T09:00:00.000Z', 'credit', 50_000, 'CASH DEPOSIT/BY ADAEZE OKAFOR'),
    line('2026-01-27T08:00:00.000Z', 'credit', 300_000, 'NIP/ZENITH/ACME LOGISTICS LTD/JAN PAY'),
    line('2026-01-28T12:00:00.000Z', 'debit', 40_000, 'NIP CR/OKAFOR ADAEZE/KUDA'),
    line('2026-01-28T12:00:01.000Z', 'debit', 26.88, 'NIP Charge + VAT'),
    line('2026-01-29T19:00:00.000Z', 'debit', 5_000, 'MC Loc Web Prch-123456789012--SPORTYBET NIGERIA'),
    line('2026-01-30T20:00:00.000Z', 'credit', 12_000, 'NIP/WEMA/SPORTYBET NIGERIA/WITHDRAWAL 998877'),
    line('2026-01-31T06:00:00.000Z', 'debit', 400_000, 'ATM WDL 12345678 GTB ALLEN AVE'),
    // February: nothing at all (a quiet month).
    line('2026-03-02T09:00:00.000Z', 'credit', 30_000, 'NIP/FAIRMONEY MFB/FAIRMONEY/LOAN DISB FA12345678'),
    line('2026-03-05T07:00:00.000Z', 'debit', 20_000, 'DD/FAIRMONEY/LOAN REPAYMENT/FA12345678'),
    line('2026-03-05T07:01:00.000Z', 'credit', 20_000, 'REV-DD/FAIRMONEY/LOAN REPAYMENT/FA12345678 INSUFFICIENT FUNDS'),
    line('2026-03-06T07:00:00.000Z', 'debit', 53.75, 'DD RETURNED - INSUFF FUNDS/RENT/SO1234567'),
    line('2026-03-26T08:00:00.000Z', 'credit', 300_000, 'NIP/ZENITH/ACME LOGISTICS LTD/MAR PAY'),
    line('2026-03-27T10:00:00.000Z', 'credit', 15_000, 'TRF FRM OKAFOR ADAEZE NGOZI TO ADAEZE NGOZI OKAFOR|top up'),
  ];
  const build2 = (extra: ProviderTransaction[] = []) =>
    buildEnrichedAccount({
      accountId: '2b0d3c1e-3f4a-4c8e-9a51-0c7d8e9f1a2b',
      providerAccountId: 'acc-1',
      linked: { institution: null, accountNumber: null },
      account,
      transactions: [...lines, ...extra].reverse(),
      income: null,
      insights: null,
      periodMonths: 12,
      now: NOW,
    });

  it('when months are quiet, then they are listed with the balance carried', () => {
    const profile = build2();
    expect(profile.months.map((m) => m.month)).toEqual(['2026-01', '2026-02', '2026-03']);
    const feb = profile.months[1]!;
    expect(feb.transactionCount).toBe(0);
    expect(feb.openingBalance).toBe(feb.closingBalance);
    expect(feb.overdraftDays).toBe(28);
  });

  it('when each line is read, then it lands in the bucket a lender expects', () => {
    const [jan, , mar] = build2().months;
    expect(jan).toMatchObject({
      credits: 362_000,
      debits: 445_026.88,
      otherIncomeCredits: 350_000, // cash deposit and the employer's pay (two months only: not yet regular)
      salaryCredits: 0,
      bettingDebits: 5_000,
      bettingCredits: 12_000,
      ownTransfersOut: 40_000,
      transactionCount: 7,
    });
    expect(mar).toMatchObject({
      loanDisbursements: 30_000,
      loanRepayments: 0, // the repayment was reversed
      bouncedDebits: 2,
      ownTransfersIn: 15_000,
      otherIncomeCredits: 300_000,
    });
  });

  it('when a payer credits the same amount month after month, then it is salary even without the word', () => {
    const april = line('2026-04-27T08:00:00.000Z', 'credit', 300_000, 'NIP/ZENITH/ACME LOGISTICS LTD/APR PAY');
    const profile = build2([april]);
    const salary = profile.months.map((m) => [m.month, m.salaryCredits]);
    expect(salary).toEqual([
      ['2026-01', 300_000],
      ['2026-02', 0],
      ['2026-03', 300_000],
      ['2026-04', 300_000],
    ]);
  });

  it('when balances are rebuilt from the current balance, then opening, closing, minimum and average follow the lines', () => {
    const [jan] = build2().months;
    // Current balance 0 and the lines sum to the movement: the statement opened at minus the net movement.
    const net = lines.reduce((sum, l) => sum + (l.type === 'credit' ? l.amount : -l.amount), 0) / 100;
    expect(jan!.openingBalance).toBeCloseTo(-net, 2);
    expect(jan!.minBalance).toBeLessThanOrEqual(jan!.closingBalance);
    expect(jan!.averageBalance).toBeGreaterThanOrEqual(jan!.minBalance);
  });

  it('when the provider results are missing, then the profile still parses with zeros', () => {
    const profile = build2();
    expect(EnrichedAccount.parse(profile)).toEqual(profile);
    expect(profile.income).toMatchObject({ monthlyIncome: 0, streams: [], employer: null, periodMonths: 12 });
    expect(profile.insights.overallCredits).toBe(0);
  });
});
