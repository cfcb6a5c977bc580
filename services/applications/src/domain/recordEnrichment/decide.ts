import type { EnrichmentResult } from '@loan/contracts';
import { type Application, type Effect, remember } from '../application';
import { announceReadiness } from '../readiness';

/**
 * What the enrichment service reported about an account: READY (and maybe the application is
 * now ready for analysis) or FAILED after the 20-minute timeout.
 */
export function recordEnrichment(
  state: Application,
  result: EnrichmentResult,
  now: Date,
): { state: Application; effects: Effect[] } | null {
  if (result.type === 'BankDataScrubbed') return null;
  if (state.handled.includes(result.factId)) return null;
  const account = state.accounts.find((a) => a.accountId === result.accountId);
  if (!account) return null;
  const status = result.type === 'AccountEnriched' ? 'READY' : 'FAILED';
  if (account.enrichmentStatus === status) return null;
  if (status === 'FAILED' && account.enrichmentStatus === 'READY') return null;
  const updated: Application = {
    ...state,
    handled: remember(state.handled, result.factId),
    accounts: state.accounts.map((a) =>
      a.accountId === account.accountId
        ? { ...a, enrichmentStatus: status, enrichedAt: status === 'READY' ? now : null }
        : a,
    ),
    updatedAt: now,
  };
  return announceReadiness(updated);
}
