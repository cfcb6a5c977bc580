import { DEFAULT_TIME_ZONE, dayIn, type Decision, type OutcomeReport } from '@loan/contracts';
import type { MeasuredLoan } from '../performance/cells';
import { applyOutcome, type Granted, type LoanState } from './loanState';

/** What a final review and the applicant's answer to the offer said (facts from applications). */
export interface Grant {
  review: {
    outcome: 'APPROVED' | 'COUNTER_OFFER' | 'DECLINED';
    terms: { amount: number; tenor: number } | null;
    reviewedAt: string;
  } | null;
  offer: { response: 'ACCEPTED' | 'DECLINED' | 'WITHDRAWN'; answeredAt: string } | null;
}

/** The decided analysis an application's outcomes are measured against. */
export interface DecidedAnalysis {
  analysisId: string;
  clientId: string;
  decision: Decision;
  decidedAt: Date;
  policyVersion: number | null;
  challenger: { version: number; decision: string } | null;
}

/** What a loan is measured against: the decision, and the terms granted in the end. */
export interface Basis {
  analysisId: string;
  measured: Omit<MeasuredLoan, 'state'>;
  reviewed: boolean;
  granted: Granted;
}

export type Refusal = { ok: false; status: 400 | 404 | 409; reason: string };

/**
 * What a loan may be measured against, or why it has none: a DECLINED decision that no review
 * granted has no loan, nor a MANUAL_REVIEW not yet reviewed; otherwise the terms are the
 * decision's, or the final review's when one granted terms.
 */
export function basisOf(analysis: DecidedAnalysis, grant: Grant | null): { ok: true; basis: Basis } | Refusal {
  const decision = analysis.decision;
  const review = grant?.review ?? null;
  const measured = {
    score: decision.score,
    band: decision.score_band,
    decision: decision.decision,
    policyVersion: analysis.policyVersion,
    challenger: analysis.challenger,
  };
  if (review) {
    if (review.outcome === 'DECLINED' || !review.terms)
      return {
        ok: false,
        status: 400,
        reason: 'The application was declined on review: there is no loan to report on',
      };
    const day = dayIn(new Date(review.reviewedAt), DEFAULT_TIME_ZONE);
    return {
      ok: true,
      basis: { analysisId: analysis.analysisId, measured, reviewed: true, granted: { ...review.terms, day } },
    };
  }
  if (decision.decision === 'DECLINED')
    return { ok: false, status: 400, reason: 'The application was declined: there is no loan to report on' };
  if (decision.decision === 'MANUAL_REVIEW')
    return { ok: false, status: 400, reason: 'The decision awaits its review: there is no loan to report on yet' };
  const terms = decision.approval_details;
  return {
    ok: true,
    basis: {
      analysisId: analysis.analysisId,
      measured,
      reviewed: false,
      granted: {
        amount: terms.approved_amount,
        tenor: terms.approved_tenor,
        day: dayIn(analysis.decidedAt, DEFAULT_TIME_ZONE),
      },
    },
  };
}

/**
 * Whether an outcome applies to the loan: the disbursement needs an offer the applicant
 * accepted (and did not withdraw); the rest follows the loan's own order (`applyOutcome`).
 */
export function decideOutcome(
  state: LoanState | null,
  basis: Basis,
  grant: Grant | null,
  report: OutcomeReport,
  today: string,
): { ok: true; state: LoanState } | Refusal {
  if (!state && report.type === 'DISBURSED') {
    const offer = grant?.offer ?? null;
    if (!offer || offer.response === 'DECLINED')
      return {
        ok: false,
        status: 400,
        reason: offer
          ? 'The applicant declined the offer: nothing is disbursed'
          : 'The applicant has not accepted the offer: nothing is disbursed before POST /api/applications/{id}/offer with ACCEPTED',
      };
    if (offer.response === 'WITHDRAWN')
      return { ok: false, status: 400, reason: 'The applicant withdrew the acceptance within the cooling-off period' };
  }
  const result = applyOutcome(state, report, basis.granted, today);
  return result.ok ? result : { ok: false, status: 400, reason: result.reason };
}
