import type { ApprovalDetails, CounterOffer, ManualReviewReason, ScoreBand } from '@loan/contracts';
import type { AffordabilityAssessment, LoanAsk } from '../affordability';
import {
  SEVERE_DELINQUENCY_DPD,
  type BureauSummary,
  type CodedRiskFactor,
  type ScoringFeatures,
} from '../scorecard';
import { round2 } from '../scorecard/math';

/** Why an application goes to an analyst (docs/scoring.md). */
export type ManualReviewCode =
  'IDENTITY_MISMATCH' | 'THIN_FILE' | 'BUREAU_UNAVAILABLE' | 'HIGH_RISK_SCORE' | 'SEVERE_RISK_FACTOR';

/** Why an application is declined: the primary reason of a DECLINED decision. */
export type DeclineCode = 'SEVERE_BUREAU_DELINQUENCY' | 'VERY_HIGH_RISK_SCORE' | 'NOT_AFFORDABLE';

export interface CodedReviewReason extends ManualReviewReason {
  code: ManualReviewCode;
}

export type Outcome =
  | { decision: 'APPROVED' }
  | { decision: 'COUNTER_OFFER'; counterOffer: CounterOffer }
  | { decision: 'MANUAL_REVIEW'; reasons: CodedReviewReason[] }
  | { decision: 'DECLINED'; declineCode: DeclineCode };

export interface OutcomeInput {
  features: ScoringFeatures;
  bureau: BureauSummary;
  band: ScoreBand;
  affordability: AffordabilityAssessment;
  riskFactors: readonly CodedRiskFactor[];
}

const hasSevereDelinquency = (bureau: BureauSummary): boolean =>
  bureau.status === 'HIT' &&
  (bureau.maxDaysPastDue >= SEVERE_DELINQUENCY_DPD || bureau.writtenOffFacilities > 0);

/** Reasons the data itself cannot be trusted to decide alone. */
const dataReviewReasons = ({ features, bureau }: OutcomeInput): CodedReviewReason[] => {
  const reasons: CodedReviewReason[] = [];
  for (const mismatch of features.identity.mismatches) {
    reasons.push({
      code: 'IDENTITY_MISMATCH',
      description:
        mismatch.reason === 'NAME'
          ? `The ${mismatch.institution} account is held by "${mismatch.holderName}", not the applicant.`
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
  return reasons;
};

/** Reasons the risk itself needs a person: a HIGH_RISK score or any HIGH-severity factor. */
const riskReviewReasons = (band: ScoreBand, riskFactors: readonly CodedRiskFactor[]): CodedReviewReason[] => [
  ...(band === 'HIGH_RISK' || band === 'VERY_HIGH_RISK'
    ? [
        {
          code: 'HIGH_RISK_SCORE' as const,
          description: `The score is in the ${band.replace(/_/g, ' ').toLowerCase()} band.`,
        },
      ]
    : []),
  ...riskFactors
    .filter((risk) => risk.severity === 'HIGH')
    .map((risk) => ({ code: 'SEVERE_RISK_FACTOR' as const, description: risk.description })),
];

/**
 * The decision rules, first match wins:
 * 1. a serious default on the bureau file (90+ days past due or a write-off) declines;
 * 2. data that cannot be trusted alone (identity mismatch, thin file, bureau down) goes to an
 *    analyst;
 * 3. VERY_HIGH_RISK declines;
 * 4. nothing affordable (neither the ask nor a counter-offer) declines;
 * 5. HIGH_RISK, or any HIGH-severity risk factor, goes to an analyst;
 * 6. an affordable ask is approved, otherwise the counter-offer is made.
 */
export const outcomeOf = (input: OutcomeInput): Outcome => {
  const { bureau, band, affordability, riskFactors } = input;
  if (hasSevereDelinquency(bureau)) return { decision: 'DECLINED', declineCode: 'SEVERE_BUREAU_DELINQUENCY' };
  const dataReasons = dataReviewReasons(input);
  const riskReasons = riskReviewReasons(band, riskFactors);
  if (dataReasons.length > 0) return { decision: 'MANUAL_REVIEW', reasons: [...dataReasons, ...riskReasons] };
  if (band === 'VERY_HIGH_RISK') return { decision: 'DECLINED', declineCode: 'VERY_HIGH_RISK_SCORE' };
  const offer = affordability.counterOffer;
  if (!affordability.affordable && offer === null)
    return { decision: 'DECLINED', declineCode: 'NOT_AFFORDABLE' };
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
