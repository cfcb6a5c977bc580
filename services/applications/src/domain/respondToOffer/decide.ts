import {
  DEFAULT_OFFER_TERMS,
  endOfWorkingDaysAfter,
  offerExpiresAt,
  type ApprovalDetails,
  type Decision,
  type DeadlinePassed,
  type KeyFacts,
  type OfferTerms,
  type OfferView,
} from '@loan/contracts';
import { type Application, type Effect, type OfferResponse, type Outcome, event, fact, reject } from '../application';

/**
 * The offer a decision makes, as it stands: the final review's terms, otherwise the scorecard's,
 * with the validity and cooling-off of the policy version that made the decision.
 */
export interface StandingOffer {
  terms: ApprovalDetails;
  keyFacts: KeyFacts | null;
  madeAt: Date;
  expiresAt: Date;
  offerTerms: OfferTerms;
}

/**
 * What the decision's policy version said of its offer when it decided; a decision made before
 * lenders set it gets the defaults (7 days, 3 working days). A later policy change moves nothing.
 */
export function offerTermsOf(decision: Pick<Decision, 'offer_terms'>): OfferTerms {
  const terms = decision.offer_terms;
  return terms
    ? { validityDays: terms.validity_days, coolingOffWorkingDays: terms.cooling_off_working_days }
    : DEFAULT_OFFER_TERMS;
}

/**
 * The offer of a COMPLETED application whose decision stands APPROVED or COUNTER_OFFER: the
 * final review's when it granted terms, otherwise the scorecard's; none while a review or a
 * contest is under way, or when the decision stands DECLINED.
 */
export function standingOffer(state: Application): StandingOffer | null {
  const decision = state.decision;
  if (state.status !== 'COMPLETED' || !decision || state.contest?.status === 'OPEN') return null;
  const review = state.review;
  let offer: { terms: ApprovalDetails; keyFacts: KeyFacts | null; madeAt: Date } | null = null;
  if (review) {
    if (review.status === 'FINAL' && review.terms) {
      offer = { terms: review.terms, keyFacts: review.keyFacts ?? null, madeAt: review.reviewedAt ?? review.madeAt };
    }
  } else if (decision.decision === 'APPROVED' || decision.decision === 'COUNTER_OFFER') {
    offer = {
      terms: decision.approval_details,
      keyFacts: decision.key_facts ?? null,
      madeAt: new Date(decision.timestamp),
    };
  }
  if (!offer || offer.terms.approved_amount <= 0) return null;
  const offerTerms = offerTermsOf(decision);
  return { ...offer, offerTerms, expiresAt: offerExpiresAt(offer.madeAt, offerTerms.validityDays) };
}

/** When the standing offer was recorded as expired; null when it was not (or another offer was). */
function expiredAt(state: Application, offer: StandingOffer): Date | null {
  const expired = state.offerExpired;
  return expired && expired.madeAt.getTime() === offer.madeAt.getTime() ? expired.at : null;
}

/** The offer as every read of the application shows it, its status at `now`; null when there is none. */
export function toOfferView(state: Application, now: Date): OfferView | null {
  const offer = standingOffer(state);
  if (!offer) return null;
  const answer = state.offerResponse ?? null;
  const status = answer
    ? answer.withdrawnAt
      ? 'WITHDRAWN'
      : answer.response
    : expiredAt(state, offer) || now.getTime() > offer.expiresAt.getTime()
      ? 'EXPIRED'
      : 'OPEN';
  const iso = (at: Date | null | undefined) => (at ? at.toISOString() : null);
  return {
    status,
    terms: { ...offer.terms },
    key_facts: offer.keyFacts,
    madeAt: offer.madeAt.toISOString(),
    expiresAt: offer.expiresAt.toISOString(),
    acceptedAt: answer?.response === 'ACCEPTED' ? answer.at.toISOString() : null,
    declinedAt: answer?.response === 'DECLINED' ? answer.at.toISOString() : null,
    coolingOffEndsAt: iso(answer?.coolingOffEndsAt),
    withdrawnAt: iso(answer?.withdrawnAt),
    expiredAt: answer ? null : iso(expiredAt(state, offer)),
    validityDays: offer.offerTerms.validityDays,
    coolingOffWorkingDays: offer.offerTerms.coolingOffWorkingDays,
  };
}

const resultOf = (state: Application, now: Date) => ({
  applicationId: state.applicationId,
  status: state.status,
  offer: toOfferView(state, now),
});

/**
 * respond: the applicant's answer to the offer, taken by the lender. ACCEPTED or DECLINED while
 * the offer is open (not after it expired); WITHDRAWN after an acceptance, until the end of its
 * cooling-off period (the offer's working days in Lagos, 3 by default, public holidays counted out). Each sends its
 * event. The same answer sent again is answered as it was; any other once answered is a 400.
 * Nothing is accepted automatically.
 */
export function respondToOffer(
  state: Application,
  input: { response: 'ACCEPTED' | 'DECLINED' | 'WITHDRAWN'; now: Date },
): Outcome {
  const { response, now } = input;
  const offer = standingOffer(state);
  if (!offer) {
    const why =
      state.status !== 'COMPLETED' || !state.decision
        ? `status: ${state.status}`
        : state.contest?.status === 'OPEN'
          ? 'its decision is contested and under review'
          : state.review && state.review.status !== 'FINAL'
            ? 'its review awaits confirmation'
            : !state.review && state.decision.decision === 'MANUAL_REVIEW'
              ? 'its decision awaits the lender\u2019s review'
              : 'its decision grants no terms';
    return reject('INVALID_STATE', `This application has no offer to answer (${why})`);
  }
  const answer = state.offerResponse ?? null;
  if (response === 'WITHDRAWN') {
    if (!answer || answer.response !== 'ACCEPTED') {
      return reject('INVALID_STATE', 'Only an accepted offer can be withdrawn');
    }
    if (answer.withdrawnAt) return { ok: true, state, effects: [], result: resultOf(state, now) };
    if (now.getTime() > answer.coolingOffEndsAt!.getTime()) {
      return reject(
        'INVALID_STATE',
        `The cooling-off period ended at ${answer.coolingOffEndsAt!.toISOString()}; the acceptance can no longer be withdrawn`,
      );
    }
    const next: Application = { ...state, offerResponse: { ...answer, withdrawnAt: now }, updatedAt: now };
    return {
      ok: true,
      state: next,
      effects: [
        event('application.offer_withdrawn', {
          applicationId: state.applicationId,
          applicantId: state.applicantId,
          acceptedAt: answer.at.toISOString(),
          withdrawnAt: now.toISOString(),
        }),
        answered(state, 'WITHDRAWN', now),
      ],
      result: resultOf(next, now),
    };
  }
  if (answer) {
    if (answer.response === response && !answer.withdrawnAt) {
      return { ok: true, state, effects: [], result: resultOf(state, now) };
    }
    return reject(
      'INVALID_STATE',
      `The offer was already ${answer.withdrawnAt ? 'accepted and withdrawn' : answer.response.toLowerCase()} on ${answer.at.toISOString()}`,
    );
  }
  if (expiredAt(state, offer) || now.getTime() > offer.expiresAt.getTime()) {
    return reject('INVALID_STATE', `The offer expired at ${offer.expiresAt.toISOString()}`);
  }
  const coolingOff = offer.offerTerms.coolingOffWorkingDays;
  const recorded: OfferResponse =
    response === 'ACCEPTED'
      ? { response, at: now, coolingOffEndsAt: endOfWorkingDaysAfter(now, coolingOff), withdrawnAt: null }
      : { response, at: now, coolingOffEndsAt: null, withdrawnAt: null };
  const next: Application = { ...state, offerResponse: recorded, updatedAt: now };
  const ids = { applicationId: state.applicationId, applicantId: state.applicantId };
  const effect =
    response === 'ACCEPTED'
      ? event('application.offer_accepted', {
          ...ids,
          approval_details: { ...offer.terms },
          key_facts: offer.keyFacts,
          acceptedAt: now.toISOString(),
          coolingOffEndsAt: recorded.coolingOffEndsAt!.toISOString(),
        })
      : event('application.offer_declined', { ...ids, declinedAt: now.toISOString() });
  return { ok: true, state: next, effects: [effect, answered(state, response, now)], result: resultOf(next, now) };
}

/** The fact of the applicant's answer, for scoring: a loan is disbursed only on an accepted offer. */
const answered = (state: Application, response: 'ACCEPTED' | 'DECLINED' | 'WITHDRAWN', now: Date): Effect =>
  fact({ type: 'OfferAnswered', applicantId: state.applicantId, response, answeredAt: now.toISOString() });

/**
 * The offer's expiry deadline passed: an offer still standing unanswered, the one the deadline
 * was armed for (its `since` is the offer's making), is recorded as expired and the lender told.
 * Anything else (answered, replaced by another offer, suspended by a contest, recorded already:
 * a redelivery) changes nothing. Nothing is ever accepted on the applicant's behalf.
 */
export function expireOffer(
  state: Application,
  deadline: DeadlinePassed,
  now: Date,
): { state: Application; effects: Effect[] } | null {
  const offer = standingOffer(state);
  if (!offer || offer.madeAt.toISOString() !== deadline.since) return null;
  if (state.offerResponse || expiredAt(state, offer)) return null;
  const next: Application = { ...state, offerExpired: { madeAt: offer.madeAt, at: now }, updatedAt: now };
  return {
    state: next,
    effects: [
      event('application.offer_expired', {
        applicationId: state.applicationId,
        applicantId: state.applicantId,
        madeAt: offer.madeAt.toISOString(),
        expiresAt: offer.expiresAt.toISOString(),
        expiredAt: now.toISOString(),
      }),
    ],
  };
}

/**
 * The fact that tells the janitor an offer was made and until when it stands, when a change
 * makes one (a decision, a final review, a contest's outcome): none when the standing offer is
 * the one before it, or there is none.
 */
export function offerMadeBy(before: Application, after: Application): Effect[] {
  const made = standingOffer(after);
  if (!made || after.offerResponse || expiredAt(after, made)) return [];
  const previous = standingOffer(before);
  if (previous && previous.madeAt.getTime() === made.madeAt.getTime()) return [];
  return [
    fact({
      type: 'OfferMade',
      applicantId: after.applicantId,
      madeAt: made.madeAt.toISOString(),
      expiresAt: made.expiresAt.toISOString(),
    }),
  ];
}
