/** An account as the provider describes it (money in kobo, as the provider speaks). */
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

/** One statement line (Mono transaction item; amount and balance in kobo). */
export interface ProviderTransaction {
  id: string;
  narration: string;
  amount: number;
  type: 'debit' | 'credit';
  balance: number | null;
  date: string;
  category?: string | null;
}

/** The income job's result in Mono's shape (snake_case, kobo). */
export type ProviderIncome = Record<string, unknown>;

export type InsightsRecord = { status: 'processing' } | { status: 'finished'; result: Record<string, unknown> };

export interface InitiateLinkInput {
  /** Our reference, echoed back in the provider's webhooks: the application id. */
  ref: string;
  customerName: string;
  customerEmail: string;
  /** The applicant's BVN when given: lets the provider match the accounts to the person. */
  customerBvn?: string;
  redirectUrl: string;
  /** Set to re-link (re-authorise) an account already linked. */
  reauthAccountId?: string;
}

/**
 * The account-linking provider, as the services use it. Every call takes the lender's own
 * provider secret key.
 */
export interface AccountLinkingProvider {
  initiateLink(secretKey: string, input: InitiateLinkInput): Promise<{ widgetUrl: string }>;
  getAccount(secretKey: string, accountId: string): Promise<ProviderAccount>;
  getTransactions(secretKey: string, accountId: string): Promise<ProviderTransaction[]>;
  startIncomeAnalysis(secretKey: string, accountId: string, periodMonths: number): Promise<void>;
  getLatestIncome(secretKey: string, accountId: string): Promise<ProviderIncome | null>;
  startStatementInsights(secretKey: string, accountId: string): Promise<{ jobId: string }>;
  getInsightsRecord(secretKey: string, jobId: string): Promise<InsightsRecord>;
}
