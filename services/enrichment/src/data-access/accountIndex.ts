import { isDuplicateKey, rawCollection } from '@loan/runtime';
import type { EnrichmentModels } from './models';

type IndexModel = EnrichmentModels['providerAccounts'];
type IndexDoc = { _id: string; accountIds?: string[] };

export interface IndexEntry {
  accountId: string;
  applicationId: string;
  providerAccountId: string;
}

/**
 * Finds the jobs a message is about by `_id` alone: provider account -> our accounts, and
 * application -> our accounts. Entries are added (never removed) before the job they lead to
 * is written, so a job is always reachable; a reader checks the job itself (its provider
 * account, its application), since an entry may outlive what it pointed to.
 */
export function createAccountIndex(models: EnrichmentModels) {
  async function add(model: IndexModel, key: string, accountId: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await rawCollection<IndexDoc>(model).updateOne({ _id: key }, { $addToSet: { accountIds: accountId } }, { upsert: true });
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
    byProviderAccount: (providerAccountId: string) => read(models.providerAccounts, providerAccountId),
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
