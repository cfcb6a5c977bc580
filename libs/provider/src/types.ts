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
  /** What the widget names to the applicant: who asks for the link, and for which loan. */
  purpose?: LinkPurpose;
}

/** The lender and the loan an applicant links an account for. */
export interface LinkPurpose {
  lenderName: string | null;
  /** Whole Naira, as asked at initiate. */
  loanAmount: number;
  tenorMonths: number;
}

/** Why an application takes no more accounts: the widget tells the applicant. */
export type LinksClosedReason = 'linking_finalized' | 'decided' | 'failed' | 'abandoned';

/**
 * The account-linking provider, as the services use it. Every call takes the lender's own
 * provider secret key.
 */
export interface AccountLinkingProvider {
  initiateLink(secretKey: string, input: InitiateLinkInput): Promise<{ widgetUrl: string }>;
  /**
   * Ends the widget sessions of `ref` made before `before`: their pages and links refuse from
   * then on. False when the provider has no such operation (the late account is then refused
   * on our side when its webhook arrives).
   */
  closeLinks(secretKey: string, input: { ref: string; reason: LinksClosedReason; before: Date }): Promise<boolean>;
  getAccount(secretKey: string, accountId: string): Promise<ProviderAccount>;
  getTransactions(secretKey: string, accountId: string): Promise<ProviderTransaction[]>;
  startIncomeAnalysis(secretKey: string, accountId: string, periodMonths: number): Promise<void>;
  getLatestIncome(secretKey: string, accountId: string): Promise<ProviderIncome | null>;
  startStatementInsights(secretKey: string, accountId: string): Promise<{ jobId: string }>;
  getInsightsRecord(secretKey: string, jobId: string): Promise<InsightsRecord>;
  /**
   * Unlinks the account at the provider (Mono's `POST /v2/accounts/{id}/unlink`): no data can be
   * read from it afterwards. An account the provider no longer knows is unlinked already.
   */
  unlinkAccount(secretKey: string, accountId: string): Promise<'unlinked' | 'already_unlinked'>;
}
