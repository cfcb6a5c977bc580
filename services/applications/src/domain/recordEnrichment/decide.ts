import type { EnrichmentResult, MonthlyFlow, MonthSummary } from '@loan/contracts';
import { type Application, type Effect, type LinkedAccount, remember } from '../application';
import { announceReadiness } from '../readiness';

/** The statement's months as the lender's charts show them: money in and out, oldest first. */
export const flowsOf = (months: MonthSummary[]): MonthlyFlow[] =>
  months
    .map((m) => ({ month: m.month, inflow: m.credits, outflow: m.debits }))
    .sort((a, b) => a.month.localeCompare(b.month));

/** The enrichment service deleted the accounts' bank data: their monthly flows go too. */
function forgetFlows(state: Application, accountIds: string[], now: Date): { state: Application; effects: Effect[] } | null {
  const scrubbed = (a: LinkedAccount) => accountIds.includes(a.accountId) && a.monthlyFlows.length > 0;
  if (!state.accounts.some(scrubbed)) return null;
  return {
    state: { ...state, accounts: state.accounts.map((a) => (scrubbed(a) ? { ...a, monthlyFlows: [] } : a)), updatedAt: now },
    effects: [],
  };
}

/**
 * What the enrichment service reported about an account: READY with its monthly flows (and
 * maybe the application is now ready for analysis), FAILED after the 20-minute timeout, or its
 * bank data scrubbed.
 */
export function recordEnrichment(
  state: Application,
  result: EnrichmentResult,
  now: Date,
): { state: Application; effects: Effect[] } | null {
  if (result.type === 'BankDataScrubbed') return forgetFlows(state, result.accountIds, now);
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
        ? {
            ...a,
            enrichmentStatus: status,
            enrichedAt: status === 'READY' ? now : null,
            monthlyFlows: result.type === 'AccountEnriched' ? flowsOf(result.profile.months) : a.monthlyFlows,
          }
        : a,
    ),
    updatedAt: now,
  };
  return announceReadiness(updated);
}
