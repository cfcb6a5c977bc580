import { isDuplicateKey, rawCollection } from '@loan/runtime';
import { LRUCache } from 'lru-cache';
import type { EnrichmentModels } from './models';

type IndexModel = EnrichmentModels['providerAccounts'];
type IndexDoc = { _id: string; accountIds?: string[] };

export interface IndexEntry {
  accountId: string;
  applicationId: string;
  providerAccountId: string;
}

/** Provider accounts whose lookup this process remembers, and for how long. */
const REMEMBERED_PROVIDER_ACCOUNTS = 10_000;
const PROVIDER_ACCOUNT_TTL_MS = 10 * 60_000;

/**
 * Finds the jobs a message is about by `_id` alone: provider account -> our accounts, and
 * application -> our accounts. Entries are added (never removed) before the job they lead to
 * is written, so a job is always reachable; a reader checks the job itself (its provider
 * account, its application), since an entry may outlive what it pointed to.
 *
 * The provider account's lookup (each webhook reads it) is remembered for a while, as this
 * process last read or wrote it: the write of an entry answers the whole list. What it can
 * miss is an account another replica linked to the same provider account since; a webhook
 * about that account's job handled here then leaves it to be polled (as a lost webhook would),
 * never to a wrong result. The application's lookup (which jobs a closing stops) is always read.
 */
export function createAccountIndex(models: EnrichmentModels) {
  const providerAccounts = new LRUCache<string, string[]>({
    max: REMEMBERED_PROVIDER_ACCOUNTS,
    ttl: PROVIDER_ACCOUNT_TTL_MS,
  });

  async function add(model: IndexModel, key: string, accountId: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const collection = rawCollection<IndexDoc>(model);
        const update = { $addToSet: { accountIds: accountId } };
        if (model !== models.providerAccounts) {
          await collection.updateOne({ _id: key }, update, { upsert: true });
          return;
        }
        const doc = await collection.findOneAndUpdate({ _id: key }, update, { upsert: true, returnDocument: 'after' });
        providerAccounts.set(key, doc?.accountIds ?? [accountId]);
        return;
      } catch (error) {
        // Two upserts of a new key at once: one inserts, the other adds to what it inserted.
        if (!isDuplicateKey(error) || attempt >= 2) throw error;
      }
    }
  }

  async function read(model: IndexModel, key: string): Promise<string[]> {
    const doc = await rawCollection<IndexDoc>(model).findOne({ _id: key });
    return doc?.accountIds ?? [];
  }

  async function all(model: IndexModel): Promise<Map<string, Set<string>>> {
    const docs = await model.find({}).lean<{ _id: string; accountIds?: string[] }[]>();
    return new Map(docs.map((d) => [d._id, new Set(d.accountIds ?? [])]));
  }

  async function addEntry(entry: IndexEntry): Promise<void> {
    await Promise.all([
      add(models.providerAccounts, entry.providerAccountId, entry.accountId),
      add(models.applicationAccounts, entry.applicationId, entry.accountId),
    ]);
  }

  return {
    /** Makes the account's job reachable from its provider account and its application. */
    add: addEntry,
    async byProviderAccount(providerAccountId: string): Promise<string[]> {
      const remembered = providerAccounts.get(providerAccountId);
      if (remembered) return remembered;
      const ids = await read(models.providerAccounts, providerAccountId);
      if (ids.length > 0) providerAccounts.set(providerAccountId, ids);
      return ids;
    },
    byApplication: (applicationId: string) => read(models.applicationAccounts, applicationId),

    /**
     * Adds the entries missing for the given jobs (jobs written before these lookups existed,
     * or by a process that stopped between the two writes). Reads both collections whole:
     * for a start of the process, not for a message. Returns how many jobs it added.
     */
    async backfill(entries: IndexEntry[]): Promise<number> {
      if (entries.length === 0) return 0;
      const [byProvider, byApplication] = await Promise.all([
        all(models.providerAccounts),
        all(models.applicationAccounts),
      ]);
      let added = 0;
      for (const e of entries) {
        const known =
          byProvider.get(e.providerAccountId)?.has(e.accountId) && byApplication.get(e.applicationId)?.has(e.accountId);
        if (known) continue;
        await addEntry(e);
        added += 1;
      }
      return added;
    },
  };
}
export type AccountIndex = ReturnType<typeof createAccountIndex>;
