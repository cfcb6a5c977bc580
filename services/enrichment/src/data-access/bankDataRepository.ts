import type { EnrichedAccount } from '@loan/contracts';
import { isDuplicateKey, rawCollection, type OutboxEntry, type Sealer } from '@loan/runtime';
import type { EnrichmentModels } from './models';

export interface StoredBankData {
  accountId: string;
  applicationId: string;
  applicantId: string;
  clientId: string;
  attempt: number;
  profile: EnrichedAccount;
  storedAt: Date;
}

/**
 * A profile with what names a person sealed: the holder's name, and the narrations income was
 * recognised by (which may name the applicant). Figures stay readable for the services that
 * score them. How a profile is stored, and how it leaves this service.
 */
export function sealedProfile(sealer: Sealer, profile: EnrichedAccount): EnrichedAccount {
  const seal = (value: string | null) => (value === null ? null : sealer.seal(value));
  return {
    ...profile,
    holderName: sealer.seal(profile.holderName),
    income: {
      ...profile.income,
      streams: profile.income.streams.map((s) => ({ ...s, lastIncomeDescription: seal(s.lastIncomeDescription) })),
    },
  };
}

/** A stored profile readable again; profiles stored before they were sealed pass through. */
function openedProfile(sealer: Sealer, profile: EnrichedAccount): EnrichedAccount {
  const reveal = (value: string | null) => (value === null ? null : sealer.reveal(value));
  return {
    ...profile,
    holderName: sealer.reveal(profile.holderName),
    income: {
      ...profile.income,
      streams: profile.income.streams.map((s) => ({ ...s, lastIncomeDescription: reveal(s.lastIncomeDescription) })),
    },
  };
}

/** The applicant's bank data (enriched profiles, stored sealed as `sealedProfile` has it), and the record of its deletion. */
export function createBankDataRepository(models: EnrichmentModels, sealer: Sealer) {
  // Profiles are large: written and read through the driver, as they are.
  const bankData = rawCollection<Omit<StoredBankData, 'accountId'> & { _id: string }>(models.bankData);
  return {
    /**
     * Stores the profile of an account, replacing an older attempt's but never a newer one
     * (a slow worker of a superseded attempt must not overwrite the current profile).
     */
    async put(data: StoredBankData): Promise<boolean> {
      const { accountId, ...rest } = data;
      const fields = { ...rest, profile: sealedProfile(sealer, data.profile) };
      try {
        const res = await bankData.updateOne(
          { _id: accountId, attempt: { $lte: data.attempt } },
          { $set: fields },
          { upsert: true },
        );
        return res.modifiedCount + res.upsertedCount > 0 || res.matchedCount > 0;
      } catch (error) {
        // A newer attempt's document exists: the upsert collided with it.
        if (isDuplicateKey(error)) return false;
        throw error;
      }
    },

    async get(accountId: string): Promise<StoredBankData | null> {
      const doc = await bankData.findOne({ _id: accountId });
      if (!doc) return null;
      const { _id, ...rest } = doc;
      return { accountId: _id, ...rest, profile: openedProfile(sealer, rest.profile) };
    },

    async deleteAccount(accountId: string): Promise<void> {
      await models.bankData.deleteOne({ _id: accountId });
    },

    async deleteApplication(applicationId: string): Promise<number> {
      const res = await models.bankData.deleteMany({ applicationId });
      return res.deletedCount ?? 0;
    },

    /**
     * Records that an application's bank data was deleted, with the message that says so.
     * False when it was recorded already (a redelivered fact).
     */
    async recordScrub(input: {
      scrubId: string;
      applicationId: string;
      accountIds: string[];
      at: Date;
      outbox: OutboxEntry[];
    }) {
      try {
        await models.scrubs.create({
          _id: input.scrubId,
          applicationId: input.applicationId,
          accountIds: input.accountIds,
          scrubbedAt: input.at,
          outbox: input.outbox,
          outboxPending: input.outbox.length > 0,
        });
        return true;
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
    },
  };
}
export type BankDataRepository = ReturnType<typeof createBankDataRepository>;
