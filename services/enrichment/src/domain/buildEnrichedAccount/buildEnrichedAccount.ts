import type { EnrichedAccount, ProviderAccount, ProviderTransaction } from '@loan/contracts';
import { summariseMonths } from './monthSummaries';
import { toIncomeAnalysis, toNaira, toStatementInsights } from './providerResults';

export interface EnrichmentInputs {
  accountId: string;
  providerAccountId: string;
  /** What the applications service recorded at linking; the provider's account details win. */
  linked: { institution: string | null; accountNumber: string | null };
  account: ProviderAccount;
  transactions: readonly ProviderTransaction[];
  /** The provider's income result, as received (kobo). */
  income: Record<string, unknown> | null;
  /** The provider's statement insights, as received (kobo). */
  insights: Record<string, unknown> | null;
  /** Months the income analysis was asked to cover. */
  periodMonths: number;
  now: Date;
}

/**
 * The enriched profile of one account: the provider's income analysis and statement insights
 * in Naira, and our own month-by-month reading of the statement (salary, other income, own
 * transfers, betting, digital loans, returned debits, overdrawn days, balances). Pure.
 */
export function buildEnrichedAccount(input: EnrichmentInputs): EnrichedAccount {
  const { account } = input;
  const holderName = account.holderName.trim();
  return {
    accountId: input.accountId,
    providerAccountId: input.providerAccountId,
    institution:
      account.institution.name && account.institution.name !== 'Unknown bank'
        ? account.institution.name
        : (input.linked.institution ?? account.institution.name),
    bankCode: account.institution.bankCode,
    accountNumber: account.accountNumber || input.linked.accountNumber || '',
    holderName,
    bvnLast4: account.bvnLast4,
    currency: account.currency || 'NGN',
    balance: toNaira(account.balanceKobo),
    income: toIncomeAnalysis(input.income, input.periodMonths),
    insights: toStatementInsights(input.insights),
    months: summariseMonths({
      lines: input.transactions.map((t) => ({
        narration: String(t.narration ?? ''),
        type: t.type === 'credit' ? 'credit' : 'debit',
        amount: Number(t.amount),
        balance: t.balance === null || t.balance === undefined ? null : Number(t.balance),
        date: String(t.date),
        category: t.category ?? null,
      })),
      holderName,
      currentBalance: account.balanceKobo,
    }),
    enrichedAt: input.now.toISOString(),
  };
}
