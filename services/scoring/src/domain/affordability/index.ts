export {
  COUNTER_OFFER_STEP,
  DSR_CAP,
  MAX_TENOR_STRETCH,
  MIN_COUNTER_OFFER_AMOUNT,
  MIN_COUNTER_OFFER_SHARE,
  TENOR_OPTIONS,
  assessAffordability,
  counterOffer,
  debtServiceRatio,
  eligibleTenors,
  lendingLimit,
  maxPrincipal,
  monthlyPayment,
  repaymentCapacity,
} from './affordability';
export type { AffordabilityAssessment, AffordabilityRules, LoanAsk } from './affordability';
