import type { ProviderAccount, ProviderTransaction } from '@loan/contracts';

export type { ProviderAccount, ProviderTransaction };

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
