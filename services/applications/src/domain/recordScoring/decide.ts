import type { ScoringResult } from '@loan/contracts';
import { type Application, type Effect, closedFact, event } from '../application';
import { transition } from '../stateMachine';

/** The scoring outcome of the current analysis: COMPLETED with a decision, or FAILED. */
export function recordScoring(
  state: Application,
  result: ScoringResult,
  now: Date,
): { state: Application; effects: Effect[] } | null {
  if (state.analysis?.analysisId !== result.analysisId) return null;
  const trigger = result.type === 'ApplicationScored' ? 'analysis_completed' : 'analysis_failed';
  const next = transition(state.status, trigger);
  if (!next) return null;
  const closed = closedFact(state, next, null);
  if (result.type === 'ApplicationScored') {
    return {
      state: {
        ...state,
        status: next,
        decision: result.decision,
        repaymentCapacity: result.repaymentCapacity ?? null,
        updatedAt: now,
      },
      effects: [
        event('application.decision', {
          applicationId: state.applicationId,
          applicantId: state.applicantId,
          status: 'COMPLETED',
          score: result.decision.score,
          decision: result.decision,
        }),
        closed,
      ],
    };
  }
  return {
    state: { ...state, status: next, failureReason: result.reason, updatedAt: now },
    effects: [
      event('application.failed', {
        applicationId: state.applicationId,
        applicantId: state.applicantId,
        status: 'FAILED',
        reason: result.reason,
      }),
      closed,
    ],
  };
}
