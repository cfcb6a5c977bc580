import type { Decision, EnrichedAccount } from '@loan/contracts';
import type { BureauOutcome } from '../bureauReport';
import { assessAffordability, repaymentCapacity, type LoanAsk } from '../affordability';
import {
  SCORECARD_VERSION,
  bureauChecked,
  deriveFeatures,
  existingMonthlyDebt,
  riskFactorsOf,
  scoreBandOf,
  scoreComponents,
  summariseBureau,
  type ApplicantIdentity,
  type ScoringAudit,
} from '../scorecard';
import { NoEnrichedAccountsError } from './errors';
import { explain } from './explain';
import { outcomeOf, termsOf } from './outcome';

/** Everything one decision is made from. */
export interface ScoreApplicationInput {
  applicantId: string;
  applicant: ApplicantIdentity;
  /** The ask: amount in Naira, tenor in months, interest in percent a month. */
  loan: LoanAsk;
  /** The applicant's enriched linked accounts, scored together as one person. */
  accounts: readonly EnrichedAccount[];
  bureau: BureauOutcome;
  now: Date;
}

/** What re-scoring needs besides the audit record. */
export interface DecisionContext {
  applicantId: string;
  loan: LoanAsk;
  now: Date;
}

/** The audit record of a decision: the scorecard version and every input it was made from. */
export const buildScoringAudit = (input: ScoreApplicationInput): ScoringAudit => {
  if (input.accounts.length === 0) throw new NoEnrichedAccountsError(input.applicantId);
  return {
    scorecardVersion: SCORECARD_VERSION,
    features: deriveFeatures(input),
    bureauSummary: summariseBureau(input.bureau),
  };
};

/**
 * Makes the decision from an audit record: how scoreApplication decides, and how a stored
 * decision is re-scored (with the current scorecard; compare `scorecardVersion`).
 */
export const decideFromAudit = (
  audit: ScoringAudit,
  { applicantId, loan, now }: DecisionContext,
): Decision => {
  const { features, bureauSummary: bureau } = audit;
  const { breakdown } = scoreComponents(features, bureau);
  const band = scoreBandOf(breakdown.total);
  const affordability = assessAffordability(
    loan,
    features.monthlyIncome,
    existingMonthlyDebt(features, bureau),
  );
  const riskFactors = riskFactorsOf(features, bureau);
  const outcome = outcomeOf({ features, bureau, band, affordability, riskFactors });
  const terms = termsOf(outcome, loan, affordability);
  return {
    score: breakdown.total,
    decision: outcome.decision,
    score_band: band,
    timestamp: now.toISOString(),
    applicant_id: applicantId,
    approval_details: terms.approvalDetails,
    counter_offer: terms.counterOffer,
    risk_factors: riskFactors.map(({ code, severity, description }) => ({ code, severity, description })),
    score_breakdown: breakdown,
    explainability: explain({
      outcome,
      features,
      bureau,
      score: breakdown.total,
      band,
      affordability,
      loan,
      riskFactors,
    }),
    eligible_tenors: terms.eligibleTenors,
    manual_review_reasons:
      outcome.decision === 'MANUAL_REVIEW'
        ? outcome.reasons.map(({ code, description }) => ({ code, description }))
        : [],
    regulatory_compliance: {
      thin_file: features.thinFile,
      identity_verified: features.identity.verified,
      credit_bureau_checked: bureauChecked(bureau),
      affordability_assessed: features.monthsObserved > 0,
    },
    scorecard_version: SCORECARD_VERSION,
  };
};

/**
 * Room under the debt service cap for a new monthly payment, in Naira, as the decision of this
 * audit record assessed it: what a reviewer's terms are checked against.
 */
export const repaymentCapacityOf = (audit: ScoringAudit): number =>
  repaymentCapacity(audit.features.monthlyIncome, existingMonthlyDebt(audit.features, audit.bureauSummary));

/** Scores one application and returns the audit record with the decision, for storage. */
export const scoreApplicationWithAudit = (
  input: ScoreApplicationInput,
): { decision: Decision; audit: ScoringAudit } => {
  const audit = buildScoringAudit(input);
  return { decision: decideFromAudit(audit, input), audit };
};

/**
 * The scorecard: a pure function from an application's enriched accounts, bureau outcome
 * and ask to the decision of `application.decision`. Throws NoEnrichedAccountsError when
 * there is no account (the caller fails the application instead).
 */
export const scoreApplication = (input: ScoreApplicationInput): Decision =>
  scoreApplicationWithAudit(input).decision;
