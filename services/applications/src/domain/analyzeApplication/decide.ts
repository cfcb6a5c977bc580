import { type Application, type Outcome, fact, reject } from '../application';
import { transition } from '../stateMachine';

/**
 * analyze: queue the scoring of an application whose accounts are all enriched and whose
 * `application.ready_for_analysis` went out. Repeating it while PROCESSING changes nothing.
 */
export function analyzeApplication(state: Application, input: { analysisId: string; now: Date }): Outcome {
  const result = {
    applicationId: state.applicationId,
    status: 'PROCESSING' as const,
    message: 'Analysis queued; the result is delivered as application.decision or application.failed',
  };
  if (state.status === 'PROCESSING') return { ok: true, state, effects: [], result };
  if (state.accounts.length === 0) {
    return reject('NO_ACCOUNTS', 'Application has no linked bank accounts');
  }
  if (!transition(state.status, 'analyze')) {
    return reject('INVALID_STATE', `Cannot analyze application with status: ${state.status}`);
  }
  if (!state.readyAnnounced) {
    return reject(
      'NO_ACCOUNTS',
      'Application has no enriched linked bank accounts yet: call finalize-linking and wait for application.ready_for_analysis',
    );
  }
  const next: Application = {
    ...state,
    status: 'PROCESSING',
    analysis: { analysisId: input.analysisId, requestedAt: input.now },
    updatedAt: input.now,
  };
  return {
    ok: true,
    state: next,
    effects: [
      fact({
        type: 'AnalysisRequested',
        applicantId: state.applicantId,
        analysisId: input.analysisId,
        applicant: {
          firstName: state.applicant.firstName,
          lastName: state.applicant.lastName,
          bvn: state.applicant.bvnSealed,
        },
        loan: {
          amount: state.loan.amount,
          tenor: state.loan.tenor,
          interestRate: state.loan.interestRate,
          ...(state.loan.purpose ? { purpose: state.loan.purpose } : {}),
        },
        accountIds: state.accounts.filter((a) => a.enrichmentStatus === 'READY').map((a) => a.accountId),
      }),
    ],
    result,
  };
}
