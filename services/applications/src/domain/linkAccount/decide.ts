import { type Application, type Effect, type Outcome, fact, reject } from '../application';
import { TERMINAL_STATUSES, transition } from '../stateMachine';

/**
 * Which accounts a link-account call re-links: the one named, or else every account whose
 * enrichment is not complete (the remedy after `account.enrichment_failed`).
 */
export function accountsToRelink(state: Application, accountId: string | null) {
  if (accountId) return state.accounts.filter((a) => a.accountId === accountId);
  return state.accounts.filter((a) => a.enrichmentStatus !== 'READY');
}

/** Checks a link-account call before the provider is asked for a widget address. */
export function checkRelink(state: Application, accountId: string | null): Outcome<never> | null {
  if (TERMINAL_STATUSES.includes(state.status) || !transition(state.status, 'relink')) {
    return reject('INVALID_STATE', `Cannot link accounts for application with status: ${state.status}`);
  }
  if (accountId && !state.accounts.some((a) => a.accountId === accountId)) {
    return reject('NOT_FOUND', `Account ${accountId} is not linked to this application`);
  }
  return null;
}

/**
 * link-account: a fresh widget address, and enrichment restarted for the account(s) being
 * re-linked (their 20-minute clock starts again).
 */
export function relinkAccount(
  state: Application,
  input: { accountId: string | null; widgetUrl: string; providerKeySealed: string; now: Date },
): Outcome {
  const refused = checkRelink(state, input.accountId);
  if (refused) return refused;
  const targets = new Set(accountsToRelink(state, input.accountId).map((a) => a.accountId));
  const effects: Effect[] = [];
  const accounts = state.accounts.map((a) => {
    if (!targets.has(a.accountId)) return a;
    effects.push(
      fact({
        type: 'EnrichmentRestartRequested',
        applicantId: state.applicantId,
        accountId: a.accountId,
        providerAccountId: a.providerAccountId,
        providerKey: input.providerKeySealed,
      }),
    );
    return { ...a, enrichmentStatus: 'PENDING' as const, enrichedAt: null };
  });
  const next: Application = {
    ...state,
    accounts,
    // An account whose enrichment restarts is not enriched any more: the application is ready
    // for analysis again (and says so again) only once it is.
    readyAnnounced: targets.size > 0 ? false : state.readyAnnounced,
    widgetUrl: input.widgetUrl,
    providerKeySealed: input.providerKeySealed,
    updatedAt: input.now,
  };
  return {
    ok: true,
    state: next,
    effects,
    result: {
      applicationId: state.applicationId,
      accountId: input.accountId,
      widgetUrl: input.widgetUrl,
      status: state.status,
      message:
        targets.size > 0
          ? `Enrichment restarted for ${targets.size} account(s); present the widget to the applicant to re-link`
          : 'Present the widget to the applicant to link an account',
    },
  };
}
