import type { EnrichmentResult } from '@loan/contracts';
import { isDuplicateKey, type Clock, type InboundMessage } from '@loan/runtime';
import type { ProfileModel, RawCollections } from '../../data-access/models';

/**
 * Scoring's projection of enriched accounts: each account's profile as enrichment last
 * announced it (a newer attempt replaces an older one, never the reverse), gone with the
 * applicant's bank data.
 */
export function createProfileHandlers(deps: {
  profiles: ProfileModel;
  raw: Pick<RawCollections, 'profiles'>;
  clock: Clock;
}) {
  const { profiles, raw, clock } = deps;

  async function onEnrichmentResult(message: InboundMessage) {
    const result = message.value as EnrichmentResult;
    if (result.type === 'AccountEnriched') {
      await raw.profiles
        .updateOne(
          { _id: result.accountId, $or: [{ attempt: { $lte: result.attempt } }] },
          {
            $set: {
              applicationId: result.applicationId,
              attempt: result.attempt,
              profile: result.profile,
              updatedAt: clock.now(),
            },
          },
          { upsert: true },
        )
        .catch((error: unknown) => {
          // A newer attempt is already stored: the upsert's insert collides, which is fine.
          if (!isDuplicateKey(error)) throw error;
        });
    } else if (result.type === 'BankDataScrubbed') {
      await scrub(result.applicationId);
    }
  }

  /**
   * The applicant's bank data goes (a no_analyze abandonment, or the end of a decided
   * application's retention): the enriched profiles. A decision and its audit record (derived
   * features and the bureau summary, no statements) stay: they explain the decision.
   */
  async function scrub(applicationId: string) {
    await profiles.deleteMany({ applicationId });
  }

  return { onEnrichmentResult, scrub };
}
