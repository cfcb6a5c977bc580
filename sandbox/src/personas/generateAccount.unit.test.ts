import { generateAccount, type GenerateAccountInput } from './generateAccount';
import { COMMERCIAL_BANKS, findInstitution, INSTITUTIONS, type Institution } from './institutions';
import { listPersonas, PERSONA_IDS, type PersonaId } from './catalog';
import { isValidNuban } from './nuban';
import type { MonoTransaction } from './types';

const NOW = new Date('2026-11-21T10:00:00.000Z');
const DAY_MS = 86_400_000;
const GTBANK = findInstitution('gtbank') as Institution;

const generate = (persona: PersonaId, seed: string, overrides: Partial<GenerateAccountInput> = {}) =>
  generateAccount({ persona, seed, holderName: 'Samuel Olamide', institution: GTBANK, now: NOW, ...overrides });

const SEEDS = Array.from({ length: 12 }, (_, i) => `session-${i}:0`);

const oldestFirst = (transactions: readonly MonoTransaction[]) => [...transactions].reverse();
const totalOf = (transactions: readonly MonoTransaction[]) => transactions.reduce((sum, tx) => sum + tx.amount, 0);
const historyDays = (transactions: readonly MonoTransaction[]) => {
  const dates = transactions.map((tx) => Date.parse(tx.date));
  return (Math.max(...dates) - Math.min(...dates)) / DAY_MS;
};

describe('persona catalogue', () => {
  it('when the personas are listed, then each has an id and a one-line description', () => {
    const personas = listPersonas();
    expect(personas.map((p) => p.id)).toEqual([
      'salaried',
      'salaried_high',
      'gig',
      'heavy_betting',
      'debt_stressed',
      'overdrawn',
      'thin_file',
      'name_mismatch',
      'never_completes',
    ]);
    for (const persona of personas) expect(persona.description).toMatch(/^[^\n]{20,140}$/);
  });
});

describe('generating an account', () => {
  it('when the same input is generated twice, then the output is identical', () => {
    expect(generate('gig', 'abc:0')).toEqual(generate('gig', 'abc:0'));
  });

  it('when the seed changes, then the account and its statement change', () => {
    const a = generate('salaried', 'abc:0');
    const b = generate('salaried', 'abc:1');
    expect(a.account.id).not.toBe(b.account.id);
    expect(a.transactions).not.toEqual(b.transactions);
  });

  it.each(PERSONA_IDS)(
    'when a %s account is generated, then every running balance follows from the amounts',
    (persona) => {
      for (const seed of SEEDS.slice(0, 4)) {
        const { account, transactions, insights } = generate(persona, seed);
        const lines = oldestFirst(transactions);
        let balance = insights.opening_balance;
        for (const tx of lines) {
          expect(Number.isInteger(tx.amount) && tx.amount > 0).toBe(true);
          balance += tx.type === 'credit' ? tx.amount : -tx.amount;
          expect(tx.balance).toBe(balance);
        }
        expect(account.balance).toBe(balance);
        expect(insights.closing_balance).toBe(balance);
      }
    },
  );

  it.each(PERSONA_IDS)(
    'when a %s account is generated, then its lines are dated newest first and before now',
    (persona) => {
      const { transactions } = generate(persona, 'dates:0');
      const times = transactions.map((tx) => Date.parse(tx.date));
      expect(times.every((t, i) => i === 0 || t <= (times[i - 1] ?? t))).toBe(true);
      expect(Math.max(...times)).toBeLessThan(NOW.getTime());
      expect(new Set(transactions.map((tx) => tx.id)).size).toBe(transactions.length);
    },
  );

  it('when accounts are generated at banks, then every account number is a valid NUBAN for the bank', () => {
    for (const institution of INSTITUTIONS.filter((i) => i.numbering === 'nuban')) {
      for (const seed of SEEDS.slice(0, 5)) {
        const { account } = generate('salaried', seed, { institution });
        expect(account.account_number).toMatch(/^\d{10}$/);
        expect(isValidNuban(institution.cbnCode as string, account.account_number)).toBe(true);
        expect(account.institution).toEqual({
          name: institution.name,
          bank_code: institution.cbnCode,
          type: 'PERSONAL_BANKING',
        });
      }
    }
  });

  it('when an account is generated at a wallet, then its number is the phone number without the leading zero', () => {
    const opay = findInstitution('opay') as Institution;
    const { account, identity } = generate('gig', 'wallet:0', { institution: opay });
    expect(account.account_number).toBe(identity.phone.slice(1));
    expect(account.institution.bank_code).toBe('100004');
  });

  it('when the applicant gives a BVN, then the account reports its last four digits', () => {
    const { account, identity } = generate('salaried', 'bvn:0', { bvn: '22212345678' });
    expect(account.bvn).toBe('5678');
    expect(identity.bvn).toBe('22212345678');
  });

  it('when transfers go out, then each is followed by a NIP fee of 10.75, 26.88 or 53.75 naira', () => {
    const lines = oldestFirst(generate('gig', 'fees:0').transactions);
    const transfers = lines
      .map((tx, i) => ({ tx, next: lines[i + 1] }))
      .filter(({ tx }) => tx.narration.startsWith('NIP CR/'));
    expect(transfers.length).toBeGreaterThan(10);
    for (const { tx, next } of transfers) {
      expect(tx.narration).toMatch(/^NIP CR\/[^/]+\/[^/]+$/);
      expect(next?.narration).toBe('NIP Charge + VAT');
      const expected = tx.amount <= 500_000 ? 1_075 : tx.amount <= 5_000_000 ? 2_688 : 5_375;
      expect(next?.amount).toBe(expected);
    }
  });

  it('when a statement is generated, then it carries the bank charges and texture of a Nigerian statement', () => {
    const narrations = SEEDS.slice(0, 4).flatMap((seed) =>
      generate('salaried', seed).transactions.map((tx) => tx.narration),
    );
    const has = (pattern: RegExp) => narrations.some((n) => pattern.test(n));
    expect(has(/^SMS ALERT CHARGES$/)).toBe(true);
    expect(has(/^STAMP DUTY CHARGE$/)).toBe(true);
    expect(has(/^CARD MAINT FEE$/)).toBe(true);
    expect(has(/^MC Loc POS Prch-\d+--.+/)).toBe(true);
    expect(has(/^Airtime\/\/0\d{10}\/(MTN|AIRTEL|GLO|9MOBILE)$/)).toBe(true);
    expect(has(/^(DStv|GOtv) SUBSCRIPTION\//)).toBe(true);
    expect(has(/^NIP\/[A-Z]+\/[^/]+\/.+/)).toBe(true);
    expect(has(/^TRF FRM SAMUEL OLAMIDE TO SAMUEL OLAMIDE\|/)).toBe(true);
  });
});

describe('persona signals', () => {
  it('when the persona is salaried, then one employer pays a steady salary every month, named with the month', () => {
    for (const seed of SEEDS) {
      const { transactions, income } = generate('salaried', seed);
      const salaries = transactions.filter((tx) => tx.category === 'salary');
      const months = historyDays(transactions) / 30.44;
      expect(salaries.length).toBeGreaterThanOrEqual(Math.floor(months));
      for (const salary of salaries)
        expect(salary.narration).toMatch(/(JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)/);
      expect(income.income_summary.employer).not.toBe('');
      const stream = income.income_streams.find((s) => s.income_type === 'SALARY');
      expect(stream).toMatchObject({ frequency: 'MONTHLY' });
      expect(stream?.stability).toBeGreaterThanOrEqual(0.9);
      expect(transactions.every((tx) => tx.balance >= 0)).toBe(true);
    }
  });

  it('when the persona is salaried_high, then the salary is about 1.2 million naira a month', () => {
    for (const seed of SEEDS) {
      const stream = generate('salaried_high', seed).income.income_streams.find((s) => s.income_type === 'SALARY');
      expect(stream?.average_income_amount).toBeGreaterThanOrEqual(110_000_000);
      expect(stream?.average_income_amount).toBeLessThanOrEqual(135_000_000);
    }
  });

  it('when the persona is gig, then income comes from many payers with no salary stream', () => {
    for (const seed of SEEDS) {
      const { transactions, income } = generate('gig', seed);
      const payers = new Set(
        transactions.filter((tx) => tx.category === 'income').map((tx) => tx.narration.split('/')[2]),
      );
      expect(payers.size).toBeGreaterThan(20);
      expect(income.income_streams.some((s) => s.income_type === 'SALARY')).toBe(false);
      expect(income.income_summary.employer).toBe('');
      expect(income.total_irregular_income_amount).toBeGreaterThan(0);
    }
  });

  it('when the persona is heavy_betting, then at least a quarter of the money out goes to betting platforms', () => {
    for (const seed of SEEDS) {
      const { transactions } = generate('heavy_betting', seed);
      const debits = transactions.filter((tx) => tx.type === 'debit');
      const bets = debits.filter((tx) => tx.category === 'betting_deposit');
      expect(totalOf(bets) / totalOf(debits)).toBeGreaterThanOrEqual(0.25);
      expect(bets.every((tx) => /BET9JA|SPORTYBET|BETKING|1XBET|NAIRABET|MSPORT/.test(tx.narration))).toBe(true);
      expect(transactions.some((tx) => tx.category === 'betting_payout')).toBe(true);
    }
  });

  it('when the persona is debt_stressed, then several digital-lender repayments go out every month', () => {
    for (const seed of SEEDS) {
      const { transactions } = generate('debt_stressed', seed);
      const repayments = transactions.filter((tx) => tx.category === 'loan_repayment');
      const disbursements = transactions.filter((tx) => tx.category === 'loan_disbursement');
      expect(repayments.length / (historyDays(transactions) / 30.44)).toBeGreaterThanOrEqual(3);
      expect(repayments.every((tx) => tx.narration.includes('LOAN REPAYMENT'))).toBe(true);
      expect(disbursements.every((tx) => tx.narration.includes('LOAN DISB'))).toBe(true);
      const lenders = new Set(disbursements.map((tx) => tx.narration.split('/')[2]));
      expect(lenders.size).toBeGreaterThanOrEqual(3);
    }
  });

  it('when the persona is overdrawn, then the balance is often negative and debits bounce', () => {
    for (const seed of SEEDS) {
      const { transactions, insights } = generate('overdrawn', seed);
      const negative = transactions.filter((tx) => tx.balance < 0);
      expect(negative.length / transactions.length).toBeGreaterThanOrEqual(0.2);
      const bounced = transactions.filter((tx) => /INSUFF/.test(tx.narration));
      expect(bounced.length).toBeGreaterThanOrEqual(1);
      expect(insights.average_balance).toBeLessThan(insights.overall_credits / 6);
    }
  });

  it('when the persona is thin_file, then the history is under three months', () => {
    for (const seed of SEEDS) {
      const { transactions } = generate('thin_file', seed);
      expect(historyDays(transactions)).toBeLessThan(90);
      expect(transactions.length).toBeGreaterThan(5);
    }
  });

  it('when the persona is name_mismatch, then the bank names someone other than the applicant', () => {
    for (const seed of SEEDS) {
      const { account, identity } = generate('name_mismatch', seed);
      expect(account.name).not.toBe('SAMUEL OLAMIDE');
      expect(identity.full_name).toBe(account.name);
    }
  });

  it('when the persona is not name_mismatch, then the holder is the applicant', () => {
    expect(generate('salaried', 'x:0', { holderName: '  ngozi   eze ' }).account.name).toBe('NGOZI EZE');
  });

  it('when no institution is given to the link, then the commercial bank list has a bank for each seed', () => {
    expect(COMMERCIAL_BANKS.length).toBe(15);
  });
});
