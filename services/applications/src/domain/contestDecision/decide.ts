import { CONTESTABLE_OUTCOMES, type ContestableOutcome, type ContestAvailability } from '@loan/contracts';
import { type Application, type Contest, type Outcome, reject } from '../application';
import { toContestView } from '../reviewApplication/decide';

/** The lender's call that opens a contest, as the decision's reader is told. */
export const contestCall = (applicationId: string) => `POST /api/applications/${applicationId}/contest`;

/**
 * The decision as it stands: the final review's outcome when one was made, otherwise the
 * scorecard's. Null while a MANUAL_REVIEW decision awaits its review.
 */
function standingOutcome(state: Application): string | null {
  if (!state.decision) return null;
  if (state.review?.status === 'FINAL') return state.review.outcome;
  return state.decision.decision === 'MANUAL_REVIEW' ? null : state.decision.decision;
}

const isContestable = (outcome: string | null): outcome is ContestableOutcome =>
  (CONTESTABLE_OUTCOMES as readonly string[]).includes(outcome ?? '');

/** Why the decision cannot be contested now; null when it can. */
function whyNot(state: Application): string | null {
  if (state.status !== 'COMPLETED' || !state.decision) {
    return `Cannot contest application with status: ${state.status}; only a decided (COMPLETED) application is contested`;
  }
  const contest = state.contest;
  if (contest) {
    return `The decision was contested on ${contest.openedAt.toISOString()} (contest ${contest.contestId}, ${contest.status}); a decision is contested once`;
  }
  const answer = state.offerResponse;
  if (answer?.response === 'ACCEPTED' && !answer.withdrawnAt) {
    return 'The applicant accepted the offer; an accepted offer is not contested (it can be withdrawn within its cooling-off period)';
  }
  const outcome = standingOutcome(state);
  if (outcome === null) {
    return 'The decision awaits the lender\u2019s review (MANUAL_REVIEW); it can be contested once the review is final';
  }
  if (!isContestable(outcome)) {
    return `Only a DECLINED or COUNTER_OFFER decision is contested; this application's decision is ${outcome}`;
  }
  return null;
}

/** What every read of a decided application says about contesting it. */
export function contestAvailabilityOf(state: Application): ContestAvailability {
  const reason = whyNot(state);
  return { available: reason === null, reason, how: contestCall(state.applicationId) };
}

/**
 * contest: the lender, for the applicant, contests a DECLINED or COUNTER_OFFER decision (the
 * scorecard's, or a final review's) with the applicant's statement. The decision goes back to
 * the review queue: the review it had is kept in the contest and a new one is made, always
 * confirmed by a second reviewer; its `application.review_completed` names the contest. A
 * decision is contested once: the same statement sent again (a retry) is answered as it was,
 * another is a conflict. No event is sent on opening: the lender opened it and has the answer.
 */
export function contestDecision(
  state: Application,
  input: { contestId: string; statement: string; sameStatement: (stored: string) => boolean; now: Date },
): Outcome {
  const existing = state.contest;
  if (existing) {
    if (input.sameStatement(existing.statement)) {
      return { ok: true, state, effects: [], result: resultOf(state, { ...existing, statement: input.statement }) };
    }
    return reject('REVIEW_CONFLICT', whyNot(state)!);
  }
  const refused = whyNot(state);
  if (refused) return reject('INVALID_STATE', refused);
  const contest: Contest = {
    contestId: input.contestId,
    statement: input.statement,
    contestedOutcome: standingOutcome(state) as ContestableOutcome,
    status: 'OPEN',
    openedAt: input.now,
    resolvedAt: null,
    priorReview: state.review,
  };
  const next: Application = { ...state, contest, review: null, updatedAt: input.now };
  return { ok: true, state: next, effects: [], result: resultOf(next, contest) };
}

const resultOf = (state: Application, contest: Contest) => ({
  applicationId: state.applicationId,
  status: state.status,
  contest: toContestView(contest),
});
