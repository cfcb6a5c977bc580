import type { EnrichmentResult, MonthlyFlow, MonthSummary } from '@loan/contracts';
import { type Application, type Effect, type LinkedAccount, remember } from '../application';
import { type ConsentTerms, DEFAULT_CONSENT_TERMS, consentUsed, recordErasure } from '../consent/decide';
import { announceReadiness } from '../readiness';

const DAY = /^(\d{4})-(\d{2})-(\d{2})/;

/** Days in a `YYYY-MM` month. */
const daysIn = (month: string) =>
  new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).getUTCDate();

/**
 * Whether the statement covers only part of `month`: it starts after the month's first day or
 * ends before its last. Unknown (undefined) when the statement's period is not known.
 */
function partOfMonth(month: string, period: { startDate?: string; endDate?: string } | undefined): boolean | undefined {
  const start = DAY.exec(period?.startDate ?? '');
  const end = DAY.exec(period?.endDate ?? '');
  if (!start || !end) return undefined;
  const startsWithin = `${start[1]}-${start[2]}` === month && Number(start[3]) > 1;
  const endsWithin = `${end[1]}-${end[2]}` === month && Number(end[3]) < daysIn(month);
  return startsWithin || endsWithin;
}

/**
 * The statement's months as the lender's charts show them: money in and out, oldest first; the
 * month the statement starts or ends within is marked partial (its totals are not a whole month's).
 */
export const flowsOf = (months: MonthSummary[], period?: { startDate?: string; endDate?: string }): MonthlyFlow[] =>
  months
    .map((m) => {
      const partial = partOfMonth(m.month, period);
      return { month: m.month, inflow: m.credits, outflow: m.debits, ...(partial === undefined ? {} : { partial }) };
    })
    .sort((a, b) => a.month.localeCompare(b.month));

/** The enrichment service deleted the accounts' bank data: their monthly flows go too. */
function forgetFlows(
  state: Application,
  accountIds: string[],
  now: Date,
): { state: Application; effects: Effect[] } | null {
  const scrubbed = (a: LinkedAccount) => accountIds.includes(a.accountId) && a.monthlyFlows.length > 0;
  if (!state.accounts.some(scrubbed)) return null;
  return {
    state: {
      ...state,
      accounts: state.accounts.map((a) => (scrubbed(a) ? { ...a, monthlyFlows: [] } : a)),
      updatedAt: now,
    },
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
  consentTerms: ConsentTerms = DEFAULT_CONSENT_TERMS,
): { state: Application; effects: Effect[] } | null {
  if (result.type === 'BankDataScrubbed')
    return result.consent ? recordErasure(state, result, now) : forgetFlows(state, result.accountIds, now);
  if (state.handled.includes(result.factId)) return null;
  const account = state.accounts.find((a) => a.accountId === result.accountId);
  if (!account) return null;
  const status = result.type === 'AccountEnriched' ? 'READY' : 'FAILED';
  if (account.enrichmentStatus === status) return null;
  if (status === 'FAILED' && account.enrichmentStatus === 'READY') return null;
  // Reading the account's statement is a use of its consent: its 180 days start again, from
  // the enrichment's own time, as the janitor reads it from the same fact.
  const used = status === 'READY' ? consentUsed(account, new Date(result.at), consentTerms) : account;
  const updated: Application = {
    ...state,
    handled: remember(state.handled, result.factId),
    accounts: state.accounts.map((a) =>
      a.accountId === account.accountId
        ? {
            ...used,
            enrichmentStatus: status,
            enrichedAt: status === 'READY' ? now : null,
            monthlyFlows:
              result.type === 'AccountEnriched'
                ? flowsOf(result.profile.months, result.profile.insights)
                : a.monthlyFlows,
          }
        : a,
    ),
    updatedAt: now,
  };
  return announceReadiness(updated);
}
