import { type Application, type Outcome, fact, reject } from '../application';
import { announceReadiness } from '../readiness';
import { transition } from '../stateMachine';

/**
 * finalize-linking: the applicant has linked every account. Locks the application against
 * more links; repeating it changes nothing.
 */
export function finalizeLinking(state: Application, now: Date): Outcome {
  if (state.status === 'PENDING_LINKING' && state.accounts.length === 0) {
    return reject('INVALID_STATE', `Cannot finalize linking for application with status: ${state.status}`);
  }
  if (!transition(state.status, 'finalize_linking')) {
    return reject('INVALID_STATE', `Cannot finalize linking for application with status: ${state.status}`);
  }
  if (state.accounts.length === 0) return reject('NO_ACCOUNTS', 'No accounts linked yet');
  const result = {
    applicationId: state.applicationId,
    status: 'LINKED' as const,
    message: 'Linking finalized; application.ready_for_analysis follows once every account is enriched',
  };
  if (state.linkingLocked) return { ok: true, state, effects: [], result };
  const locked: Application = { ...state, linkingLocked: true, linkingLockedAt: now, updatedAt: now };
  const ready = announceReadiness(locked);
  return {
    ok: true,
    state: ready.state,
    effects: [fact({ type: 'LinkingFinalized', applicantId: state.applicantId }), ...ready.effects],
    result,
  };
}
