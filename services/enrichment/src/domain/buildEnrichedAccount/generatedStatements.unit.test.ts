import type { ProviderTransaction } from '@loan/contracts';
import { findInstitution, generateAccount, PERSONA_IDS, type GeneratedAccount } from '@loan/sandbox';
import { buildEnrichedAccount } from './buildEnrichedAccount';

const NOW = new Date('2026-03-15T10:00:00.000Z');
/** Not a name the generator gives anyone else, so no stranger shares the holder's name. */
const HOLDER = 'Zebulon Quartey';
const SEEDS = ['a', 'b', 'c', 'd', 'e'];

const isOwn = (narration: string) => {
  const match = /^TRF FRM (.+?) TO (.+?)(\||$)/.exec(narration);
  return match !== null && match[1] === match[2];
};

function read(g: GeneratedAccount) {
  return buildEnrichedAccount({
    accountId: '2b0d3c1e-3f4a-4c8e-9a51-0c7d8e9f1a2b',
    providerAccountId: g.account.id,
    linked: { institution: null, accountNumber: null },
    account: {
      id: g.account.id,
      holderName: g.account.name,
      accountNumber: g.account.account_number,
      currency: g.account.currency,
      type: g.account.type,
      balanceKobo: g.account.balance,
      bvnLast4: g.account.bvn,
      institution: {
        name: g.account.institution.name,
        bankCode: g.account.institution.bank_code,
        type: g.account.institution.type,
      },
    },
    // The real provider's categories are coarse: read the narrations alone.
    transactions: g.transactions.map((t) => ({ ...t, category: 'unknown' })) as ProviderTransaction[],
    income: g.income as unknown as Record<string, unknown>,
    insights: g.insights as unknown as Record<string, unknown>,
    periodMonths: 12,
    now: NOW,
  });
}

describe('buildEnrichedAccount across generated statements', () => {
  const cases = PERSONA_IDS.filter((p) => p !== 'name_mismatch').flatMap((persona) =>
    SEEDS.map((seed, i) => [persona, seed, i % 2 === 0 ? 'access' : 'opay'] as const),
  );

  it.each(cases)(
    'when a %s statement (seed %s, %s) is read from its narrations alone, then every line lands where the generator meant it',
    (persona, seed, bank) => {
      const g = generateAccount({ persona, seed, holderName: HOLDER, institution: findInstitution(bank)!, now: NOW });
      const profile = read(g);
      const sum = (match: (t: GeneratedAccount['transactions'][number]) => boolean) =>
        g.transactions.filter(match).reduce((s, t) => s + t.amount, 0) / 100;
      const total = (
        field:
          | 'salaryCredits'
          | 'bettingDebits'
          | 'bettingCredits'
          | 'loanDisbursements'
          | 'loanRepayments'
          | 'ownTransfersIn'
          | 'ownTransfersOut'
          | 'otherIncomeCredits'
          | 'bouncedDebits',
      ) => profile.months.reduce((s, m) => s + m[field], 0);
      expect(total('salaryCredits')).toBeCloseTo(
        sum((t) => t.category === 'salary'),
        2,
      );
      expect(total('bettingDebits')).toBeCloseTo(
        sum((t) => t.category === 'betting_deposit'),
        2,
      );
      expect(total('bettingCredits')).toBeCloseTo(
        sum((t) => t.category === 'betting_payout'),
        2,
      );
      expect(total('loanDisbursements')).toBeCloseTo(
        sum((t) => t.category === 'loan_disbursement'),
        2,
      );
      expect(total('loanRepayments')).toBeCloseTo(
        sum((t) => t.category === 'loan_repayment') -
          sum((t) => t.category === 'reversal' && /LOAN REPAY/.test(t.narration)),
        2,
      );
      expect(total('ownTransfersIn')).toBeCloseTo(
        sum((t) => t.type === 'credit' && isOwn(t.narration)),
        2,
      );
      expect(total('ownTransfersOut')).toBeCloseTo(
        sum((t) => t.type === 'debit' && isOwn(t.narration)),
        2,
      );
      expect(total('otherIncomeCredits')).toBeCloseTo(
        sum(
          (t) =>
            t.type === 'credit' && ['income', 'transfer', 'cash_deposit'].includes(t.category) && !isOwn(t.narration),
        ),
        2,
      );
      expect(total('bouncedDebits')).toBe(
        g.transactions.filter((t) => t.category === 'reversal' || t.narration.startsWith('DD RETURNED')).length,
      );
    },
  );
});
