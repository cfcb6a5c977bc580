import type { ApprovalDetails, CounterOffer, CreditPolicy, ManualReviewReason, ScoreBand } from '@loan/contracts';
import type { AffordabilityAssessment, LoanAsk } from '../affordability';
import type { KnockOutHit } from '../policy/evaluate';
import { SEVERE_DELINQUENCY_DPD, type BureauSummary, type CodedRiskFactor, type ScoringFeatures } from '../scorecard';
import { round2 } from '../scorecard/math';

/**
 * Why an application goes to an analyst (docs/scoring.md): a data rule, the score band
 * (`HIGH_RISK_SCORE`, or `LOW_RISK_SCORE` / `MEDIUM_RISK_SCORE` where a lender refers those
 * bands), a HIGH-severity risk factor, or the code of one of the lender's knock-out rules.
 */
export type ManualReviewCode =
  'IDENTITY_MISMATCH' | 'THIN_FILE' | 'BUREAU_UNAVAILABLE' | 'HIGH_RISK_SCORE' | 'SEVERE_RISK_FACTOR' | (string & {});

/**
 * Why an application is declined: the primary reason of a DECLINED decision. Besides these, a
 * lender's policy may decline on a data rule (`IDENTITY_MISMATCH`, `THIN_FILE`,
 * `BUREAU_UNAVAILABLE`), on another band (`<band>_SCORE`) or on a knock-out rule (its code).
 */
export type DeclineCode =
  'SEVERE_BUREAU_DELINQUENCY' | 'VERY_HIGH_RISK_SCORE' | 'NOT_AFFORDABLE' | 'BELOW_MINIMUM_AMOUNT' | (string & {});

export interface CodedReviewReason extends ManualReviewReason {
  code: ManualReviewCode;
}

export type Outcome =
  | { decision: 'APPROVED' }
  | { decision: 'COUNTER_OFFER'; counterOffer: CounterOffer }
  | { decision: 'MANUAL_REVIEW'; reasons: CodedReviewReason[] }
  | {
      decision: 'DECLINED';
      declineCode: DeclineCode;
      /** The knock-out rule or data rule that declined, in the lender's words. */
      rule?: { code: string; description: string };
    };

export interface OutcomeInput {
  features: ScoringFeatures;
  bureau: BureauSummary;
  band: ScoreBand;
  affordability: AffordabilityAssessment;
  riskFactors: readonly CodedRiskFactor[];
  loan: LoanAsk;
  policy: CreditPolicy;
  /** The policy's knock-out rules that matched. */
  knockOuts: readonly KnockOutHit[];
}

const hasSevereDelinquency = (bureau: BureauSummary): boolean =>
  bureau.status === 'HIT' && (bureau.maxDaysPastDue >= SEVERE_DELINQUENCY_DPD || bureau.writtenOffFacilities > 0);

/** Reasons the data itself cannot be trusted to decide alone, each with what the policy makes of it. */
const dataReasons = ({ features, bureau, policy }: OutcomeInput): Array<CodedReviewReason & { action: string }> => {
  const reasons: CodedReviewReason[] = [];
  // The holder's name is a third party's personal data: a reason travels on Kafka and into the
  // lender's webhook and logs, so it names the bank, never the person.
  for (const mismatch of features.identity.mismatches) {
    reasons.push({
      code: 'IDENTITY_MISMATCH',
      description:
        mismatch.reason === 'NAME'
          ? `The ${mismatch.institution} account is in another person's name, not the applicant's.`
          : `The BVN on the ${mismatch.institution} account is not the applicant's BVN.`,
    });
  }
  if (features.thinFile) {
    reasons.push({
      code: 'THIN_FILE',
      description: `Too little statement history to score reliably (${features.monthsObserved} months, ${features.transactionCount} transactions).`,
    });
  }
  if (bureau.status === 'UNAVAILABLE') {
    reasons.push({
      code: 'BUREAU_UNAVAILABLE',
      description: `The credit bureau could not be reached (${bureau.unavailableReason ?? 'no reason given'}); credit history was scored from statements only.`,
    });
  }
  const actions = {
    IDENTITY_MISMATCH: policy.dataRules.identityMismatch,
    THIN_FILE: policy.dataRules.thinFile,
    BUREAU_UNAVAILABLE: policy.dataRules.bureauUnavailable,
  } as Record<string, string>;
  return reasons.map((reason) => ({ ...reason, action: actions[reason.code] ?? 'REVIEW' }));
};

/** The code of a band's reason: HIGH_RISK_SCORE for the two riskiest bands, as before policies. */
const bandCode = (band: ScoreBand): string => (band === 'VERY_HIGH_RISK' ? 'HIGH_RISK_SCORE' : `${band}_SCORE`);

/**
 * Reasons the risk itself needs a person: a band the policy does not approve outright, any
 * HIGH-severity factor, and the knock-out rules that refer.
 */
const riskReviewReasons = ({ band, riskFactors, policy, knockOuts }: OutcomeInput): CodedReviewReason[] => [
  ...(policy.bands.actions[band] !== 'APPROVE'
    ? [{ code: bandCode(band), description: `The score is in the ${band.replace(/_/g, ' ').toLowerCase()} band.` }]
    : []),
  ...riskFactors
    .filter((risk) => risk.severity === 'HIGH')
    .map((risk) => ({ code: 'SEVERE_RISK_FACTOR' as const, description: risk.description })),
  ...knockOuts
    .filter(({ rule }) => rule.action === 'REVIEW')
    .map(({ rule }) => ({ code: rule.code, description: rule.description })),
];

/**
 * The decision rules under a lender's policy, first match wins (with the built-in policy,
 * exactly the rules before policies):
 * 1. a serious default on the bureau file (90+ days past due or a write-off) declines;
 * 2. a knock-out rule whose action is DECLINE declines, with its code;
 * 3. data that cannot be trusted alone (identity mismatch, thin file, bureau down) declines or
 *    goes to an analyst as the policy's data rules say (an unavailable bureau may also proceed);
 * 4. a band whose action is DECLINE declines (VERY_HIGH_RISK in the built-in policy);
 * 5. an ask below the policy's minimum amount, or nothing affordable (neither the ask nor a
 *    counter-offer), declines;
 * 6. a band whose action is REVIEW (HIGH_RISK built in), any HIGH-severity risk factor, or a
 *    knock-out rule whose action is REVIEW goes to an analyst;
 * 7. an affordable ask is approved, otherwise the counter-offer is made.
 */
export const outcomeOf = (input: OutcomeInput): Outcome => {
  const { bureau, band, affordability, policy, knockOuts, loan } = input;
  if (hasSevereDelinquency(bureau)) return { decision: 'DECLINED', declineCode: 'SEVERE_BUREAU_DELINQUENCY' };
  const knockOut = knockOuts.find(({ rule }) => rule.action === 'DECLINE');
  if (knockOut) return { decision: 'DECLINED', declineCode: knockOut.rule.code, rule: knockOut.rule };
  const data = dataReasons(input);
  const dataDecline = data.find((reason) => reason.action === 'DECLINE');
  if (dataDecline)
    return {
      decision: 'DECLINED',
      declineCode: dataDecline.code,
      rule: { code: dataDecline.code, description: dataDecline.description },
    };
  const dataReview = data
    .filter((reason) => reason.action === 'REVIEW')
    .map(({ code, description }) => ({ code, description }));
  const riskReasons = riskReviewReasons(input);
  if (dataReview.length > 0) return { decision: 'MANUAL_REVIEW', reasons: [...dataReview, ...riskReasons] };
  if (policy.bands.actions[band] === 'DECLINE') return { decision: 'DECLINED', declineCode: `${band}_SCORE` };
  if (loan.amount < policy.loanLimits.minAmount) return { decision: 'DECLINED', declineCode: 'BELOW_MINIMUM_AMOUNT' };
  const offer = affordability.counterOffer;
  if (!affordability.affordable && offer === null) return { decision: 'DECLINED', declineCode: 'NOT_AFFORDABLE' };
  if (riskReasons.length > 0) return { decision: 'MANUAL_REVIEW', reasons: riskReasons };
  if (affordability.affordable || offer === null) return { decision: 'APPROVED' };
  return { decision: 'COUNTER_OFFER', counterOffer: offer };
};

const NO_TERMS: ApprovalDetails = {
  approved_amount: 0,
  approved_tenor: 0,
  approved_interest: 0,
  monthly_payment: 0,
};

const askTerms = (loan: LoanAsk, affordability: AffordabilityAssessment): ApprovalDetails => ({
  approved_amount: loan.amount,
  approved_tenor: loan.tenor,
  approved_interest: loan.interestRate,
  monthly_payment: round2(affordability.askPayment),
});

const offeredTerms = (offer: CounterOffer): ApprovalDetails => ({
  approved_amount: offer.amount,
  approved_tenor: offer.tenor,
  approved_interest: offer.interest_rate,
  monthly_payment: offer.monthly_payment,
});

export interface Terms {
  approvalDetails: ApprovalDetails;
  counterOffer: CounterOffer | null;
  eligibleTenors: number[];
}

/**
 * Terms carried by each outcome:
 * - APPROVED: the ask.
 * - COUNTER_OFFER: the counter-offer, in both `approval_details` and `counter_offer`.
 * - MANUAL_REVIEW: what the analyst would grant: the ask if affordable, else the counter-offer
 *   (also in `counter_offer`), else zeros.
 * - DECLINED: zeros, no counter-offer, no eligible tenors.
 */
export const termsOf = (outcome: Outcome, loan: LoanAsk, affordability: AffordabilityAssessment): Terms => {
  const eligibleTenors = affordability.eligibleTenors;
  switch (outcome.decision) {
    case 'APPROVED':
      return { approvalDetails: askTerms(loan, affordability), counterOffer: null, eligibleTenors };
    case 'COUNTER_OFFER':
      return {
        approvalDetails: offeredTerms(outcome.counterOffer),
        counterOffer: outcome.counterOffer,
        eligibleTenors,
      };
    case 'MANUAL_REVIEW': {
      if (affordability.affordable)
        return { approvalDetails: askTerms(loan, affordability), counterOffer: null, eligibleTenors };
      const offer = affordability.counterOffer;
      return {
        approvalDetails: offer === null ? NO_TERMS : offeredTerms(offer),
        counterOffer: offer,
        eligibleTenors,
      };
    }
    case 'DECLINED':
      return { approvalDetails: NO_TERMS, counterOffer: null, eligibleTenors: [] };
  }
};
