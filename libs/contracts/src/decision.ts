import { z } from 'zod';
import { KeyFacts } from './keyFacts';
import { IsoTimestamp, Uuid } from './primitives';

/**
 * Outcome of the scorecard.
 * - APPROVED: the amount and tenor asked for are affordable and the risk is acceptable.
 * - COUNTER_OFFER: the ask is not affordable, but a smaller amount or a longer tenor is; the
 *   terms are in `counter_offer` and `approval_details` carries them too.
 * - MANUAL_REVIEW: an analyst must look (identity mismatch, bureau unavailable, thin file...);
 *   the reasons are in `manual_review_reasons`.
 * - DECLINED: too risky, or nothing affordable.
 */
export const DecisionOutcome = z.enum(['APPROVED', 'COUNTER_OFFER', 'MANUAL_REVIEW', 'DECLINED']);
export type DecisionOutcome = z.infer<typeof DecisionOutcome>;

/** Risk band of the total score, best first. */
export const ScoreBand = z.enum(['LOW_RISK', 'MEDIUM_RISK', 'HIGH_RISK', 'VERY_HIGH_RISK']);
export type ScoreBand = z.infer<typeof ScoreBand>;

export const Severity = z.enum(['LOW', 'MEDIUM', 'HIGH']);

/** One reason the applicant is risky: a stable code for machines, text for people. */
export const RiskFactor = z.object({
  code: z.string(),
  severity: Severity,
  description: z.string(),
});
export type RiskFactor = z.infer<typeof RiskFactor>;

/** Why an analyst must look at the application before money moves. */
export const ManualReviewReason = z.object({
  code: z.string(),
  description: z.string(),
});
export type ManualReviewReason = z.infer<typeof ManualReviewReason>;

/** Loan terms, as approved or counter-offered. Money in whole Naira, rate in % a month. */
export const ApprovalDetails = z.object({
  approved_amount: z.number(),
  approved_tenor: z.number(),
  approved_interest: z.number(),
  monthly_payment: z.number(),
});
export type ApprovalDetails = z.infer<typeof ApprovalDetails>;

/** Terms the lender may offer instead of the ask. */
export const CounterOffer = z.object({
  amount: z.number(),
  tenor: z.number(),
  interest_rate: z.number(),
  monthly_payment: z.number(),
  reason: z.string(),
});
export type CounterOffer = z.infer<typeof CounterOffer>;

export const ScoreBreakdown = z.object({
  total: z.number(),
  cash_flow_health: z.number(),
  income_stability: z.number(),
  debt_service_capacity: z.number(),
  account_behavior: z.number(),
  credit_history: z.number(),
});
export type ScoreBreakdown = z.infer<typeof ScoreBreakdown>;

/**
 * The most points each part of `score_breakdown` can earn (the scorecard's components,
 * docs/scoring.md "Components"); they add up to the total's 100.
 */
export const SCORE_BREAKDOWN_MAX = {
  cash_flow_health: 20,
  income_stability: 20,
  debt_service_capacity: 25,
  account_behavior: 20,
  credit_history: 15,
} as const satisfies Record<Exclude<keyof ScoreBreakdown, 'total'>, number>;

/** The decision object of spec section 2, carried in `application.decision`. */
export const Decision = z.object({
  score: z.number(),
  decision: DecisionOutcome,
  score_band: ScoreBand,
  timestamp: IsoTimestamp,
  applicant_id: Uuid,
  approval_details: ApprovalDetails,
  counter_offer: CounterOffer.nullable(),
  risk_factors: z.array(RiskFactor),
  score_breakdown: ScoreBreakdown,
  explainability: z.object({
    primary_reason: z.string(),
    key_strengths: z.array(z.string()),
    key_weaknesses: z.array(z.string()),
  }),
  eligible_tenors: z.array(z.number()),
  manual_review_reasons: z.array(ManualReviewReason),
  regulatory_compliance: z.object({
    thin_file: z.boolean(),
    identity_verified: z.boolean(),
    credit_bureau_checked: z.boolean(),
    affordability_assessed: z.boolean(),
  }),
  /** Version of the scorecard that produced this decision (docs/scoring.md). */
  scorecard_version: z.string(),
  /**
   * Version of the lender's credit policy that made this decision; 0 is the built-in policy
   * (docs/scoring.md, "Credit policies"). Absent on decisions made before policies existed.
   */
  policy_version: z.number().int().min(0).optional(),
  /**
   * Not in the original contract: the Key Facts Statement of the terms in approval_details
   * (fees, total repayable, cost of credit, APR, the schedule), for APPROVED and COUNTER_OFFER,
   * and for MANUAL_REVIEW what approving those terms would disclose; null for DECLINED.
   */
  key_facts: KeyFacts.nullable().optional(),
  /**
   * Not in the original contract: what the policy version of the decision says of its offer,
   * fixed with it: days it stands unanswered, working days of cooling-off after acceptance.
   * Absent on decisions made before lenders set them (7 days, 3 working days).
   */
  offer_terms: z.object({ validity_days: z.number().int(), cooling_off_working_days: z.number().int() }).optional(),
});
export type Decision = z.infer<typeof Decision>;
