import type { GeneratedAccount, Institution, MonoIncome, MonoStatementInsights, PersonaId } from '../personas';

/** A hosted-link session: the widget address handed to the applicant and what it linked. */
export interface LinkSession {
  id: string;
  /** `auth` links new accounts; `reauth` re-links `accountId`. */
  scope: 'auth' | 'reauth';
  customer: { id: string; name: string; email: string; bvn: string | null };
  /** The caller's reference (`meta.ref`), echoed in the account webhooks. */
  ref: string | null;
  redirectUrl: string | null;
  /** The account a reauth session re-links. */
  accountId: string | null;
  createdAt: Date;
  expiresAt: Date;
  /** Accounts linked through this session, in the order they were linked. */
  linkedAccountIds: string[];
  /** Widget sign-ins that have not been used yet: ticket -> institution id. */
  tickets: Map<string, string>;
}

/** An account linked through the provider, with its synthetic data. */
export interface LinkedAccount {
  id: string;
  sessionId: string;
  customerId: string;
  ref: string | null;
  persona: PersonaId;
  institution: Institution;
  authMethod: 'internet_banking' | 'mobile_banking';
  data: GeneratedAccount;
  linkedAt: Date;
}

export type JobKind = 'income' | 'statement_insights';

/** An asynchronous analysis job (income or statement insights). */
export type Job =
  | {
      id: string;
      kind: 'income';
      accountId: string;
      status: 'processing' | 'finished';
      createdAt: Date;
      periodMonths: number | undefined;
      result: MonoIncome | null;
    }
  | {
      id: string;
      kind: 'statement_insights';
      accountId: string;
      status: 'processing' | 'finished';
      createdAt: Date;
      result: MonoStatementInsights | null;
    };

/** The provider's in-memory state; one per sandbox instance. */
export interface ProviderStore {
  sessions: Map<string, LinkSession>;
  accounts: Map<string, LinkedAccount>;
  jobs: Map<string, Job>;
  /** Finished income results per account, oldest first. */
  incomeRecords: Map<string, MonoIncome[]>;
}

export function createProviderStore(): ProviderStore {
  return { sessions: new Map(), accounts: new Map(), jobs: new Map(), incomeRecords: new Map() };
}
