import type { EnrichedAccount } from '@loan/contracts';
import { isDuplicateKey, rawCollection } from '@loan/runtime';
import type { ProfileDoc, ProfileModel } from './models';

/**
 * Scoring's projection of enriched accounts: each account's profile as enrichment last
 * announced it. The per-message reads and writes go through the driver: profiles are large, and
 * are stored as they are.
 */
export function createProfileRepository(model: ProfileModel) {
  const profiles = rawCollection<ProfileDoc>(model);

  return {
    /**
     * The stored profiles of these accounts (those not stored yet are left out). One lookup by
     * id per account rather than `$in`: FerretDB answers `_id` equality from its index but
     * scans the whole collection of (large) profiles for `$in`.
     */
    async find(accountIds: readonly string[]): Promise<ProfileDoc[]> {
      const found = await Promise.all(accountIds.map((accountId) => profiles.findOne({ _id: accountId })));
      return found.filter((doc): doc is NonNullable<typeof doc> => doc !== null);
    },

    /** Stores an account's profile unless a newer attempt is already stored. */
    async save(
      account: { accountId: string; applicationId: string; attempt: number; profile: EnrichedAccount },
      now: Date,
    ) {
      await profiles
        .updateOne(
          { _id: account.accountId, $or: [{ attempt: { $lte: account.attempt } }] },
          {
            $set: {
              applicationId: account.applicationId,
              attempt: account.attempt,
              profile: account.profile,
              updatedAt: now,
            },
          },
          { upsert: true },
        )
        .catch((error: unknown) => {
          // A newer attempt is already stored: the upsert's insert collides, which is fine.
          if (!isDuplicateKey(error)) throw error;
        });
    },

    /** Deletes an application's profiles. */
    async deleteOf(applicationId: string) {
      await model.deleteMany({ applicationId });
    },
  };
}
export type ProfileRepository = ReturnType<typeof createProfileRepository>;
