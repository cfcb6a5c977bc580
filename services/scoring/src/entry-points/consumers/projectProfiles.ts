import type { EnrichmentResult } from '@loan/contracts';
import type { Clock, InboundMessage } from '@loan/runtime';
import type { ProfileRepository } from '../../data-access/profileRepository';

/**
 * Scoring's projection of enriched accounts: each account's profile as enrichment last
 * announced it (a newer attempt replaces an older one, never the reverse), gone with the
 * applicant's bank data.
 */
export function createProfileHandlers(deps: { profiles: ProfileRepository; clock: Clock }) {
  const { profiles, clock } = deps;

  async function onEnrichmentResult(message: InboundMessage) {
    const result = message.value as EnrichmentResult;
    if (result.type === 'AccountEnriched') {
      await profiles.save(result, clock.now());
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
    await profiles.deleteOf(applicationId);
  }

  return { onEnrichmentResult, scrub };
}
