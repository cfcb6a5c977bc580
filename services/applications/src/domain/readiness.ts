import { type Application, type Effect, event } from './application';

/**
 * `application.ready_for_analysis` goes out once, when linking was finalized and every linked
 * account is enriched, whichever of the two happens last.
 */
export function announceReadiness(state: Application): { state: Application; effects: Effect[] } {
  const allEnriched = state.accounts.length > 0 && state.accounts.every((a) => a.enrichmentStatus === 'READY');
  if (state.readyAnnounced || !state.linkingLocked || !allEnriched || state.status !== 'LINKED') {
    return { state, effects: [] };
  }
  return {
    state: { ...state, readyAnnounced: true },
    effects: [
      event('application.ready_for_analysis', {
        applicationId: state.applicationId,
        applicantId: state.applicantId,
        accountCount: state.accounts.length,
        message: `All ${state.accounts.length} linked account(s) are enriched; the application is ready for analysis`,
      }),
    ],
  };
}
