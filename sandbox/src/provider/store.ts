import {
  generateAccount,
  type GenerateAccountInput,
  type GeneratedAccount,
  type Institution,
  type MonoIncome,
  type PersonaId,
} from '../personas';

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
  /**
   * Who asks the applicant to link and for what, as the caller's `meta` gave it (the widget
   * names them); null when not given.
   */
  purpose: LinkPurpose | null;
  /** Set when the caller closed the session (`POST /v2/accounts/initiate/close`): no more links. */
  closed: { reason: LinkClosedReason; at: Date } | null;
}

/** What the widget tells the applicant they link for: the lender, and the loan asked for. */
export interface LinkPurpose {
  lenderName: string | null;
  /** Kobo, as Mono's amounts are. */
  loanAmount: number | null;
  loanTenorMonths: number | null;
}

/** Why a caller stopped a session's links: the page the applicant sees says it. */
export const LINK_CLOSED_REASONS = ['linking_finalized', 'decided', 'failed', 'abandoned', 'closed'] as const;
export type LinkClosedReason = (typeof LINK_CLOSED_REASONS)[number];

/**
 * An account linked through the provider, with its synthetic data. The data (statements of a
 * year, a few hundred kilobytes) is a pure function of how the account was generated, so the
 * store keeps only that and the most recently used accounts' data (`accountCacheSize`);
 * reading `data` of another account generates it again, identical.
 */
export interface LinkedAccount {
  id: string;
  sessionId: string;
  customerId: string;
  ref: string | null;
  persona: PersonaId;
  institution: Institution;
  authMethod: 'internet_banking' | 'mobile_banking';
  readonly data: GeneratedAccount;
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
      /** Read from the account's data once finished (not held, so it leaves memory with it). */
      result: null;
    };

/** The provider's in-memory state; one per sandbox instance. */
export interface ProviderStore {
  sessions: Map<string, LinkSession>;
  accounts: Map<string, LinkedAccount>;
  jobs: Map<string, Job>;
  /** Finished income results per account, oldest first (the newest `INCOME_RECORDS_KEPT`). */
  incomeRecords: Map<string, MonoIncome[]>;
  /**
   * Stores a new session. Beyond `maxSessions`, the oldest sessions are forgotten with the
   * accounts linked through them, as `prune` forgets expired ones; returns how many.
   */
  addSession(session: LinkSession): number;
  /** Stores a job; it goes with its account when that is forgotten. */
  addJob(job: Job): void;
  /** Stores a newly linked account, generated from `input`; its data is cached. */
  addAccount(fields: Omit<LinkedAccount, 'id' | 'data'>, input: GenerateAccountInput): LinkedAccount;
  /** Keeps an income result of an account, dropping the oldest beyond `INCOME_RECORDS_KEPT`. */
  addIncomeRecord(accountId: string, record: MonoIncome): void;
  /**
   * Forgets what a provider would have expired by `now`: finished jobs older than the job
   * retention, and sessions that expired longer than the retention ago, with the accounts linked
   * through them. Returns how many of each were removed.
   */
  prune(now: Date): { jobs: number; sessions: number; accounts: number };
  /** Accounts whose generated data is held in memory now. */
  cachedAccounts(): number;
}

/** Income results kept per account: a lender reads the latest. */
export const INCOME_RECORDS_KEPT = 5;

export interface ProviderStoreOptions {
  /** Accounts whose generated data stays in memory (least recently used first out). */
  accountCacheSize: number;
  /** How long a finished job is kept. */
  jobRetentionMs: number;
  /** How long a session is kept past its expiry, with the accounts linked through it. */
  retentionMs: number;
  /**
   * Sessions kept at most, with what was linked through them (about 6 KiB each with an account
   * and its jobs, in a soak): memory stays bounded however fast applications come, where
   * retention alone bounds it only by time.
   */
  maxSessions: number;
}

export const DEFAULT_STORE_OPTIONS: ProviderStoreOptions = {
  accountCacheSize: 100,
  jobRetentionMs: 60 * 60_000,
  retentionMs: 8 * 24 * 60 * 60_000,
  maxSessions: 10_000,
};

export function createProviderStore(options: ProviderStoreOptions = DEFAULT_STORE_OPTIONS): ProviderStore {
  const sessions = new Map<string, LinkSession>();
  const accounts = new Map<string, LinkedAccount>();
  const jobs = new Map<string, Job>();
  const incomeRecords = new Map<string, MonoIncome[]>();
  /** Generated data by account id, in order of use (a Map keeps insertion order). */
  const cache = new Map<string, GeneratedAccount>();
  /** The jobs of each account, so that they leave with it. */
  const jobsOf = new Map<string, Set<string>>();

  function dropJob(job: Job): void {
    jobs.delete(job.id);
    const ofAccount = jobsOf.get(job.accountId);
    ofAccount?.delete(job.id);
    if (ofAccount?.size === 0) jobsOf.delete(job.accountId);
  }

  function cached(id: string, input: GenerateAccountInput): GeneratedAccount {
    let data = cache.get(id);
    if (data) cache.delete(id);
    else data = generateAccount(input);
    cache.set(id, data);
    while (cache.size > options.accountCacheSize) cache.delete(cache.keys().next().value as string);
    return data;
  }

  /**
   * Forgets a session and the accounts it linked, with their jobs (a reauth session linked none
   * of its own).
   */
  function forget(session: LinkSession): number {
    sessions.delete(session.id);
    let forgotten = 0;
    if (session.scope !== 'auth') return forgotten;
    for (const accountId of session.linkedAccountIds) {
      if (!accounts.delete(accountId)) continue;
      incomeRecords.delete(accountId);
      cache.delete(accountId);
      for (const jobId of jobsOf.get(accountId) ?? []) jobs.delete(jobId);
      jobsOf.delete(accountId);
      forgotten++;
    }
    return forgotten;
  }

  return {
    sessions,
    accounts,
    jobs,
    incomeRecords,
    addSession(session) {
      sessions.set(session.id, session);
      let evicted = 0;
      // A Map iterates in insertion order: the first session is the oldest.
      for (const oldest of sessions.values()) {
        if (sessions.size <= options.maxSessions) break;
        forget(oldest);
        evicted++;
      }
      return evicted;
    },
    addJob(job) {
      jobs.set(job.id, job);
      const ofAccount = jobsOf.get(job.accountId) ?? new Set<string>();
      ofAccount.add(job.id);
      jobsOf.set(job.accountId, ofAccount);
    },
    addAccount(fields, input) {
      const generated = generateAccount(input);
      const id = generated.account.id;
      cache.set(id, generated);
      const account: LinkedAccount = {
        ...fields,
        id,
        get data() {
          return cached(id, input);
        },
      };
      accounts.set(id, account);
      // Within the bound from the start: the data is regenerated on its next read if evicted.
      cached(id, input);
      return account;
    },
    addIncomeRecord(accountId, record) {
      const kept = [...(incomeRecords.get(accountId) ?? []), record];
      incomeRecords.set(accountId, kept.slice(-INCOME_RECORDS_KEPT));
    },
    prune(now) {
      const before = now.getTime() - options.retentionMs;
      const jobsBefore = now.getTime() - options.jobRetentionMs;
      let [prunedJobs, prunedSessions, prunedAccounts] = [0, 0, 0];
      for (const job of jobs.values()) {
        if (job.status === 'finished' && job.createdAt.getTime() < jobsBefore) {
          dropJob(job);
          prunedJobs++;
        }
      }
      for (const session of sessions.values()) {
        if (session.expiresAt.getTime() >= before) continue;
        prunedAccounts += forget(session);
        prunedSessions++;
      }
      return { jobs: prunedJobs, sessions: prunedSessions, accounts: prunedAccounts };
    },
    cachedAccounts: () => cache.size,
  };
}
