/**
 * A bank account and its statement lines as the account-linking provider reports them: what
 * the services' decisions read, whichever adapter fetched it (`@loan/provider` for Mono).
 * Money is in kobo, as the provider gives it.
 */
export interface ProviderAccount {
  id: string;
  /** Account holder's name as the bank has it. */
  holderName: string;
  accountNumber: string;
  currency: string;
  type: string;
  balanceKobo: number;
  bvnLast4: string | null;
  institution: { name: string; bankCode: string | null; type: string };
}

/** One statement line (a Mono transaction item; amount and balance in kobo). */
export interface ProviderTransaction {
  id: string;
  narration: string;
  amount: number;
  type: 'debit' | 'credit';
  balance: number | null;
  date: string;
  category?: string | null;
}
