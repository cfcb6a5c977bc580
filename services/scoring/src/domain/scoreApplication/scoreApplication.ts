import {
  BUILTIN_POLICY,
  BUILTIN_POLICY_VERSION,
  DEFAULT_DISCLOSURE,
  DEFAULT_OFFER_TERMS,
  keyFactsOn,
  type ApprovalDetails,
  type CreditPolicy,
  type Decision,
  type DecisionOutcome,
  type EnrichedAccount,
  type KeyFacts,
} from '@loan/contracts';
import type { BureauOutcome } from '../bureauReport';
import { assessAffordability, repaymentCapacity, type LoanAsk } from '../affordability';
import {
  SCORECARD_VERSION,
  bureauChecked,
  deriveFeatures,
  existingMonthlyDebt,
  riskFactorsOf,
  scoreComponents,
  summariseBureau,
  type ApplicantIdentity,
  type ScoringAudit,
} from '../scorecard';
import { bandUnder, knockOutsHit, policyFeatureValues } from '../policy/evaluate';
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
  /** The lender's credit policy in force for this analysis; the built-in one by default. */
  policy?: AppliedPolicy;
}

/** A credit policy with the version the decision names. */
export interface AppliedPolicy {
  version: number;
  policy: CreditPolicy;
}

export const BUILTIN: AppliedPolicy = { version: BUILTIN_POLICY_VERSION, policy: BUILTIN_POLICY };

/** What re-scoring needs besides the audit record. */
export interface DecisionContext {
  applicantId: string;
  loan: LoanAsk;
  now: Date;
  /** The policy to decide under; the built-in one by default. */
  policy?: AppliedPolicy;
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
  { applicantId, loan, now, policy: applied = BUILTIN }: DecisionContext,
): Decision => {
  const { features, bureauSummary: bureau } = audit;
  const { policy } = applied;
  const { breakdown } = scoreComponents(features, bureau);
  const band = bandUnder(breakdown.total, policy);
  const affordability = assessAffordability(
    loan,
    features.monthlyIncome,
    existingMonthlyDebt(features, bureau),
    policy,
  );
  const knockOuts = knockOutsHit(policy, policyFeatureValues(features, bureau));
  const scored = riskFactorsOf(features, bureau);
  const outcome = outcomeOf({ features, bureau, band, affordability, riskFactors: scored, loan, policy, knockOuts });
  // A knock-out that declines is the decision's first risk factor, under the lender's code.
  const riskFactors =
    outcome.decision === 'DECLINED' && outcome.rule && knockOuts.some(({ rule }) => rule.code === outcome.declineCode)
      ? [{ code: outcome.rule.code, severity: 'HIGH' as const, description: outcome.rule.description }, ...scored]
      : scored;
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
      riskFactors: scored,
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
    policy_version: applied.version,
    key_facts: offerKeyFacts(
      outcome.decision,
      terms.approvalDetails,
      loan,
      policy,
      features.payDayOfMonth ?? null,
      now,
    ),
    ...(outcome.decision === 'DECLINED' ? {} : { offer_terms: offerTermsFor(policy) }),
  };
};

/** What the policy version says of the offer its decision makes, fixed with the decision. */
function offerTermsFor(policy: CreditPolicy): NonNullable<Decision['offer_terms']> {
  const terms = policy.offer ?? DEFAULT_OFFER_TERMS;
  return { validity_days: terms.validityDays, cooling_off_working_days: terms.coolingOffWorkingDays };
}

/**
 * The Key Facts Statement of the terms a decision grants under the policy's fees; for
 * MANUAL_REVIEW, of what approving them (or the ask, when scoring grants none) would disclose,
 * which a reviewer's terms are disclosed like. Null for DECLINED.
 */
function offerKeyFacts(
  decision: DecisionOutcome,
  granted: ApprovalDetails,
  loan: LoanAsk,
  policy: CreditPolicy,
  payDayOfMonth: number | null,
  now: Date,
): KeyFacts | null {
  if (decision === 'DECLINED') return null;
  const terms =
    granted.approved_amount > 0
      ? { amount: granted.approved_amount, tenor: granted.approved_tenor, rate: granted.approved_interest }
      : { amount: loan.amount, tenor: loan.tenor, rate: loan.interestRate };
  return keyFactsOn(now, {
    principal: terms.amount,
    tenorMonths: terms.tenor,
    monthlyRatePercent: terms.rate,
    terms: policy.disclosure ?? DEFAULT_DISCLOSURE,
    payDayOfMonth,
  });
}

/**
 * Room under the debt service cap (the lender's policy's, or the built-in one third) for a new
 * monthly payment, in Naira, as the decision of this audit record assessed it: what a
 * reviewer's terms are checked against.
 */
export const repaymentCapacityOf = (audit: ScoringAudit, maxDebtServiceRatio?: number): number =>
  repaymentCapacity(
    audit.features.monthlyIncome,
    existingMonthlyDebt(audit.features, audit.bureauSummary),
    ...(maxDebtServiceRatio === undefined ? [] : [maxDebtServiceRatio]),
  );

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
export const scoreApplication = (input: ScoreApplicationInput): Decision => scoreApplicationWithAudit(input).decision;
