import { COMMERCIAL_BANKS, type GenerateAccountInput } from '../personas';
import { createProviderStore, DEFAULT_STORE_OPTIONS, INCOME_RECORDS_KEPT, type LinkSession } from './store';

const hour = 60 * 60_000;
const linkedAt = new Date('2026-11-01T10:00:00Z');

function input(n: number): GenerateAccountInput {
  return {
    persona: 'salaried',
    seed: `session-${n}:0`,
    holderName: 'Ada Obi',
    institution: COMMERCIAL_BANKS[0]!,
    now: linkedAt,
  };
}

const fields = (n: number) => ({
  sessionId: `session-${n}`,
  customerId: `customer-${n}`,
  ref: null,
  persona: 'salaried' as const,
  institution: COMMERCIAL_BANKS[0]!,
  authMethod: 'internet_banking' as const,
  linkedAt,
});

function session(n: number, expiresAt: Date, linkedAccountIds: string[]): LinkSession {
  return {
    id: `session-${n}`,
    scope: 'auth',
    customer: { id: `customer-${n}`, name: 'Ada Obi', email: 'ada@example.com', bvn: null },
    ref: null,
    redirectUrl: null,
    accountId: null,
    createdAt: new Date(expiresAt.getTime() - 24 * hour),
    expiresAt,
    linkedAccountIds,
    tickets: new Map(),
    purpose: null,
    closed: null,
  };
}

describe('the sandbox provider store', () => {
  it('when more accounts are linked than the cache holds, then only that many keep their statements in memory, and an evicted account reads the same data again', () => {
    const store = createProviderStore({ ...DEFAULT_STORE_OPTIONS, accountCacheSize: 3 });
    const first = store.addAccount(fields(0), input(0));
    const firstData = JSON.parse(JSON.stringify(first.data));
    for (let n = 1; n < 10; n++) store.addAccount(fields(n), input(n));
    expect(store.accounts.size).toBe(10);
    expect(store.cachedAccounts()).toBe(3);
    expect(JSON.parse(JSON.stringify(store.accounts.get(first.id)!.data))).toEqual(firstData);
    expect(store.cachedAccounts()).toBe(3);
  });

  it('when an account gets more income results than are kept, then the newest are kept, oldest first', () => {
    const store = createProviderStore();
    const results = Array.from({ length: INCOME_RECORDS_KEPT + 3 }, (_, i) => ({ n: i }) as never);
    for (const result of results) store.addIncomeRecord('account-1', result);
    expect(store.incomeRecords.get('account-1')).toEqual(results.slice(-INCOME_RECORDS_KEPT));
  });

  it('when time passes, then finished jobs past their retention and sessions long expired are forgotten with their accounts, and nothing younger', () => {
    const store = createProviderStore({ ...DEFAULT_STORE_OPTIONS, accountCacheSize: 10, jobRetentionMs: hour });
    const now = new Date('2026-11-20T10:00:00Z');
    const old = store.addAccount(fields(1), input(1));
    const recent = store.addAccount(fields(2), input(2));
    store.sessions.set('session-1', session(1, new Date(now.getTime() - 9 * 24 * hour), [old.id]));
    store.sessions.set('session-2', session(2, new Date(now.getTime() - 7 * 24 * hour), [recent.id]));
    store.addIncomeRecord(old.id, {} as never);
    const job = (id: string, createdAt: Date, status: 'processing' | 'finished') =>
      store.addJob({ id, kind: 'statement_insights', accountId: recent.id, status, createdAt, result: null });
    job('done-long-ago', new Date(now.getTime() - 2 * hour), 'finished');
    job('done-just-now', new Date(now.getTime() - 10 * 60_000), 'finished');
    job('never-finishes', new Date(now.getTime() - 48 * hour), 'processing');

    expect(store.prune(now)).toEqual({ jobs: 1, sessions: 1, accounts: 1 });
    expect([...store.jobs.keys()].sort()).toEqual(['done-just-now', 'never-finishes']);
    expect([...store.sessions.keys()]).toEqual(['session-2']);
    expect([...store.accounts.keys()]).toEqual([recent.id]);
    expect(store.incomeRecords.has(old.id)).toBe(false);
  });

  it('when more sessions are opened than are kept, then the oldest are forgotten with the accounts linked through them and their jobs, and the newest stay whole', () => {
    const store = createProviderStore({ ...DEFAULT_STORE_OPTIONS, maxSessions: 3 });
    const expiresAt = new Date('2026-11-02T10:00:00Z');
    const linked: string[] = [];
    const evicted: number[] = [];
    for (let n = 1; n <= 5; n++) {
      const account = store.addAccount(fields(n), input(n));
      store.addIncomeRecord(account.id, {} as never);
      store.addJob({
        id: `job-${n}`,
        kind: 'statement_insights',
        accountId: account.id,
        status: 'finished',
        createdAt: expiresAt,
        result: null,
      });
      linked.push(account.id);
      evicted.push(store.addSession(session(n, expiresAt, [account.id])));
    }
    // A reauth session re-links an account it does not own: pushing it out forgets no account.
    evicted.push(store.addSession({ ...session(6, expiresAt, [linked[4]!]), scope: 'reauth', accountId: linked[4]! }));

    expect(evicted).toEqual([0, 0, 0, 1, 1, 1]);
    expect([...store.sessions.keys()]).toEqual(['session-4', 'session-5', 'session-6']);
    expect([...store.accounts.keys()]).toEqual(linked.slice(3));
    expect([...store.incomeRecords.keys()]).toEqual(linked.slice(3));
    expect([...store.jobs.keys()]).toEqual(['job-4', 'job-5']);
    expect(store.cachedAccounts()).toBe(2);
  });
});
