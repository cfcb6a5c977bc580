import {
  DEFAULT_DISCLOSURE,
  keyFactsOn,
  monthlyPayment,
  roundToKobo,
  type KeyFacts,
  type ApprovalDetails,
  type ContestView,
  type ReviewQueueItem,
  type ReviewRequest,
  type ReviewView,
} from '@loan/contracts';
import {
  type Application,
  type Contest,
  type Effect,
  type Outcome,
  type Review,
  event,
  fact,
  reject,
} from '../application';

// Floating-point slack, so that a payment exactly at the capacity is within it (as the scorecard has it).
const EPSILON = 1e-6;

const naira = (amount: number) => `₦${amount.toLocaleString('en-NG', { maximumFractionDigits: 2 })}`;

/** Staff ids are compared as people type them: case and surrounding spaces aside. */
const sameReviewer = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** What the review queue and the application's detail show of a review. */
export function toReviewView(review: Review): ReviewView {
  return {
    outcome: review.outcome,
    status: review.status,
    approval_details: review.terms ? { ...review.terms } : null,
    reasonCode: review.reasonCode,
    note: review.note,
    override: review.override,
    reviewer: review.reviewer,
    confirmedBy: review.confirmedBy,
    confirmationRequired: review.confirmationRequired,
    madeAt: review.madeAt.toISOString(),
    reviewedAt: review.reviewedAt ? review.reviewedAt.toISOString() : null,
    contestId: review.contestId ?? null,
    key_facts: review.keyFacts ?? null,
  };
}

/**
 * The key facts of the terms a review grants, disclosed as the decision's were: its fees and
 * schedule terms, and the applicant's pay day when it dated the schedule by it.
 */
function reviewKeyFacts(state: Application, terms: ApprovalDetails | null, now: Date): KeyFacts | null {
  if (!terms) return null;
  const decided = state.decision?.key_facts ?? null;
  return keyFactsOn(now, {
    principal: terms.approved_amount,
    tenorMonths: terms.approved_tenor,
    monthlyRatePercent: terms.approved_interest,
    terms: decided?.terms ?? DEFAULT_DISCLOSURE,
    payDayOfMonth: decided?.schedule_basis.pay_day_of_month ?? null,
  });
}

/** The contest as the application's detail and the review queue show it. */
export function toContestView(contest: Contest): ContestView {
  return {
    contestId: contest.contestId,
    status: contest.status,
    contestedOutcome: contest.contestedOutcome,
    statement: contest.statement,
    openedAt: contest.openedAt.toISOString(),
    resolvedAt: contest.resolvedAt ? contest.resolvedAt.toISOString() : null,
    priorReview: contest.priorReview ? toReviewView(contest.priorReview) : null,
  };
}

/** An application in the review queue, its age counted to `now`. */
export function toQueueItem(state: Application, now: Date): ReviewQueueItem | null {
  const decision = state.decision;
  if (!decision) return null;
  return {
    applicationId: state.applicationId,
    applicantId: state.applicantId,
    applicantName: `${state.applicant.firstName} ${state.applicant.lastName}`,
    loan: { amount: state.loan.amount, tenor: state.loan.tenor, interestRate: state.loan.interestRate },
    score: decision.score,
    score_band: decision.score_band,
    manual_review_reasons: decision.manual_review_reasons.map((r) => ({ ...r })),
    approval_details: { ...decision.approval_details },
    decidedAt: decision.timestamp,
    ageSeconds: Math.max(0, Math.floor((now.getTime() - Date.parse(decision.timestamp)) / 1000)),
    review: state.review ? toReviewView(state.review) : null,
    contest: state.contest ? toContestView(state.contest) : null,
  };
}

/** The `application.review_completed` of a final review. */
function completed(state: Application, review: Review): Effect {
  return event('application.review_completed', {
    applicationId: state.applicationId,
    applicantId: state.applicantId,
    outcome: review.outcome,
    approval_details: review.terms ? { ...review.terms } : null,
    reviewer: review.reviewer,
    reasonCode: review.reasonCode,
    note: review.note,
    reviewedAt: (review.reviewedAt ?? review.madeAt).toISOString(),
    ...(review.contestId ? { contestId: review.contestId } : {}),
    ...(review.keyFacts ? { key_facts: review.keyFacts } : {}),
  });
}

/** The fact of a final review, for scoring to measure the loan's outcomes against the terms granted. */
function reviewed(state: Application, review: Review): Effect {
  const terms = review.terms;
  return fact({
    type: 'DecisionReviewed',
    applicantId: state.applicantId,
    outcome: review.outcome,
    terms: terms
      ? { amount: terms.approved_amount, tenor: terms.approved_tenor, interestRate: terms.approved_interest }
      : null,
    reviewedAt: (review.reviewedAt ?? review.madeAt).toISOString(),
  });
}

/** The state once `review` is final: a contest it answers is resolved with it. */
function finalized(state: Application, review: Review, now: Date): Application {
  const contest = state.contest;
  const resolves = contest && contest.status === 'OPEN' && review.contestId === contest.contestId;
  return {
    ...state,
    review,
    ...(resolves ? { contest: { ...contest, status: 'RESOLVED' as const, resolvedAt: now } } : {}),
    updatedAt: now,
  };
}

/** A contest awaiting its review: what a review made now answers. */
const openContest = (state: Application): Contest | null => (state.contest?.status === 'OPEN' ? state.contest : null);

const resultOf = (state: Application, review: Review) => ({
  applicationId: state.applicationId,
  status: state.status,
  review: toReviewView(review),
});

/** Only a COMPLETED application whose decision is MANUAL_REVIEW, or was contested, is reviewed. */
function checkReviewable(state: Application) {
  if (state.status !== 'COMPLETED' || !state.decision) {
    return reject('INVALID_STATE', `Cannot review application with status: ${state.status}`);
  }
  if (state.decision.decision !== 'MANUAL_REVIEW' && !state.contest) {
    return reject(
      'INVALID_STATE',
      `Only a MANUAL_REVIEW decision is reviewed; this application's decision is ${state.decision.decision}`,
    );
  }
  return null;
}

/** The same review sent again (a retry after a timeout): answered as it was, nothing changes. */
function isResent(review: Review, request: ReviewRequest, terms: ApprovalDetails | null): boolean {
  const note = request.note?.trim() || null;
  return (
    sameReviewer(review.reviewer, request.reviewer) &&
    review.outcome === request.outcome &&
    review.reasonCode === request.reasonCode &&
    review.note === note &&
    JSON.stringify(review.terms) === JSON.stringify(terms)
  );
}

/** The terms a review grants, priced by the scorecard's formula; a refusal when they break a rule. */
function termsOf(state: Application, request: ReviewRequest) {
  const { outcome, terms } = request;
  if (outcome === 'DECLINED') {
    if (terms) return reject('INVALID_REVIEW', 'A DECLINED review grants no terms; leave terms out');
    return { ok: true as const, terms: null, payment: 0 };
  }
  const ask = { amount: state.loan.amount, tenor: state.loan.tenor, interestRate: state.loan.interestRate };
  if (outcome === 'COUNTER_OFFER') {
    if (!terms) return reject('INVALID_REVIEW', 'A COUNTER_OFFER review needs terms: amount, tenor and interestRate');
    if (terms.amount === ask.amount && terms.tenor === ask.tenor && terms.interestRate === ask.interestRate) {
      return reject('INVALID_REVIEW', 'The counter-offer is the ask itself; review it as APPROVED instead');
    }
  }
  const granted = terms ?? ask;
  // Shown to the kobo; compared with the capacity unrounded, as the scorecard compares.
  const payment = monthlyPayment(granted.amount, granted.interestRate, granted.tenor);
  return {
    ok: true as const,
    payment,
    terms: {
      approved_amount: granted.amount,
      approved_tenor: granted.tenor,
      approved_interest: granted.interestRate,
      monthly_payment: roundToKobo(payment),
    },
  };
}

/**
 * review: a lender's reviewer concludes a MANUAL_REVIEW decision. Terms are priced by the
 * scorecard's own formula; a payment beyond the applicant's repayment capacity (or any, when
 * scoring recorded none) needs `override` and a note. A review granting more than
 * `confirmationAbove` Naira awaits a second reviewer (maker-checker); any other is final at once
 * and sends `application.review_completed`. While one review awaits confirmation, another is a
 * conflict; once one is final, no other is taken. The status stays COMPLETED.
 */
export function reviewApplication(
  state: Application,
  input: { request: ReviewRequest; confirmationAbove: number | null; now: Date },
): Outcome {
  const { request, confirmationAbove, now } = input;
  const refused = checkReviewable(state);
  if (refused) return refused;
  const priced = termsOf(state, request);
  if (!priced.ok) return priced;
  const { terms, payment } = priced;
  const existing = state.review;
  if (existing) {
    if (isResent(existing, request, terms)) return { ok: true, state, effects: [], result: resultOf(state, existing) };
    if (existing.status === 'FINAL') {
      return reject(
        'INVALID_STATE',
        `Application has already been reviewed (${existing.outcome}); a final review is not changed`,
      );
    }
    return reject(
      'REVIEW_CONFLICT',
      `A review of this application by ${existing.reviewer} awaits confirmation; confirm it or wait for it`,
    );
  }
  const note = request.note?.trim() || null;
  const capacity = state.repaymentCapacity;
  const beyond = terms !== null && (capacity === null || payment > capacity + EPSILON);
  if (beyond) {
    const why =
      capacity === null
        ? 'the applicant\u2019s repayment capacity was not recorded with this decision'
        : `the monthly payment of ${naira(terms.monthly_payment)} is beyond the applicant\u2019s repayment capacity of ${naira(roundToKobo(capacity))}`;
    if (request.override !== true) return reject('INVALID_REVIEW', `The terms need override: true and a note: ${why}`);
    if (!note) return reject('INVALID_REVIEW', `An override needs a note saying why: ${why}`);
  }
  // A contest's answer is always made and checked by two people, whatever it grants.
  const contest = openContest(state);
  const confirmationRequired =
    contest !== null || (terms !== null && confirmationAbove !== null && terms.approved_amount > confirmationAbove);
  const review: Review = {
    outcome: request.outcome,
    status: confirmationRequired ? 'PENDING_CONFIRMATION' : 'FINAL',
    terms,
    reasonCode: request.reasonCode,
    note,
    override: beyond,
    reviewer: request.reviewer.trim(),
    ...(contest ? { contestId: contest.contestId } : {}),
    keyFacts: reviewKeyFacts(state, terms, now),
    confirmedBy: null,
    confirmationRequired,
    madeAt: now,
    reviewedAt: confirmationRequired ? null : now,
  };
  const next: Application =
    review.status === 'FINAL' ? finalized(state, review, now) : { ...state, review, updatedAt: now };
  return {
    ok: true,
    state: next,
    effects: review.status === 'FINAL' ? [completed(next, review), reviewed(next, review)] : [],
    result: resultOf(next, review),
  };
}

/**
 * confirm: a second reviewer, not the one who made it, makes a review awaiting confirmation
 * final, which sends `application.review_completed`. The maker confirming their own review is a
 * conflict (409); the same confirmation sent again is answered as it was.
 */
export function confirmReview(state: Application, input: { reviewer: string; now: Date }): Outcome {
  const refused = checkReviewable(state);
  if (refused) return refused;
  const review = state.review;
  if (!review) return reject('INVALID_STATE', 'Application has no review to confirm');
  if (review.status === 'FINAL') {
    if (review.confirmedBy && sameReviewer(review.confirmedBy, input.reviewer)) {
      return { ok: true, state, effects: [], result: resultOf(state, review) };
    }
    return reject('INVALID_STATE', 'The review of this application is already final');
  }
  if (sameReviewer(review.reviewer, input.reviewer)) {
    return reject('REVIEW_CONFLICT', 'The reviewer who made a review cannot confirm it; another reviewer must');
  }
  const confirmed: Review = { ...review, status: 'FINAL', confirmedBy: input.reviewer.trim(), reviewedAt: input.now };
  const next = finalized(state, confirmed, input.now);
  return {
    ok: true,
    state: next,
    effects: [completed(next, confirmed), reviewed(next, confirmed)],
    result: resultOf(next, confirmed),
  };
}
