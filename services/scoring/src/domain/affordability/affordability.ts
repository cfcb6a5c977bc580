import { BUILTIN_POLICY, monthlyPayment, type CounterOffer, type CreditPolicy } from '@loan/contracts';
import { formatNaira, round2 } from '../scorecard/math';

/**
 * What a lender's policy sets of affordability: the debt-service cap, the tenors offered,
 * counter-offers and loan limits. The constants below are the built-in policy's values; the
 * scorecard's own burden scale keeps DSR_CAP whatever the lender sets.
 */
export type AffordabilityRules = Pick<CreditPolicy, 'affordability' | 'loanLimits'>;

/**
 * Debt service ratio cap: all monthly loan repayments, the new one included, may take at most
 * one third of verified monthly net income (the CBN's prudential guideline for consumer
 * lending).
 */
export const DSR_CAP = 1 / 3;

/** Tenors, in months, that we assess and may counter-offer. */
export const TENOR_OPTIONS: readonly number[] = [3, 6, 9, 12, 18, 24, 36];

/** A longer-tenor counter-offer stretches the asked tenor at most this many times. */
export const MAX_TENOR_STRETCH = 2;

/** Counter-offered amounts are rounded down to a multiple of this, in Naira. */
export const COUNTER_OFFER_STEP = 5_000;

/**
 * A smaller-amount counter-offer is made only if it is at least this many Naira and this share
 * of the ask: below either, it would not meet the need the applicant asked for.
 */
export const MIN_COUNTER_OFFER_AMOUNT = 10_000;
export const MIN_COUNTER_OFFER_SHARE = 0.2;

// Floating-point slack, so that a payment exactly at the cap is affordable.
const EPSILON = 1e-6;

/** Loan terms: principal in Naira, rate in percent a month, tenor in months. */
export interface LoanAsk {
  amount: number;
  tenor: number;
  interestRate: number;
}

/** The scorecard's instalment formula, shared with the reviews of the applications service. */
export { monthlyPayment };

/** The largest principal a monthly `payment` repays over `months`: PMT solved for P. */
export const maxPrincipal = (payment: number, monthlyRatePercent: number, months: number): number => {
  if (payment <= 0) return 0;
  const rate = monthlyRatePercent / 100;
  if (rate === 0) return payment * months;
  return (payment * (1 - (1 + rate) ** -months)) / rate;
};

/**
 * Debt service ratio: (new payment + existing monthly repayments) / verified monthly net
 * income. Null without income: no repayment is affordable then.
 */
export const debtServiceRatio = (
  newPayment: number,
  existingMonthlyDebt: number,
  monthlyIncome: number,
): number | null => (monthlyIncome > 0 ? (newPayment + existingMonthlyDebt) / monthlyIncome : null);

/** Room left under the cap for a new monthly payment, in Naira. */
export const repaymentCapacity = (monthlyIncome: number, existingMonthlyDebt: number, cap: number = DSR_CAP): number =>
  Math.max(0, cap * monthlyIncome - existingMonthlyDebt);

const fits = (amount: number, rate: number, tenor: number, capacity: number): boolean =>
  amount > 0 && capacity > 0 && monthlyPayment(amount, rate, tenor) <= capacity + EPSILON;

/** Tenors offered by the rules, shortest first. */
const tenorsOf = (rules: AffordabilityRules): number[] => [...rules.affordability.tenors].sort((a, b) => a - b);

/**
 * The most the loan limits allow, in Naira: the maximum amount and the multiple of verified
 * monthly income, whichever is lower; Infinity without either.
 */
export const lendingLimit = (rules: AffordabilityRules, monthlyIncome: number): number => {
  const { maxAmount, maxIncomeMultiple } = rules.loanLimits;
  return Math.min(maxAmount ?? Infinity, maxIncomeMultiple === null ? Infinity : maxIncomeMultiple * monthlyIncome);
};

/** An amount the loan limits allow. */
const withinLimits = (amount: number, limit: number, rules: AffordabilityRules): boolean =>
  amount <= limit && amount >= rules.loanLimits.minAmount;

/** Tenors offered by the rules at which `amount` at `rate` fits within `capacity`. */
export const eligibleTenors = (
  amount: number,
  monthlyRatePercent: number,
  capacity: number,
  rules: AffordabilityRules = BUILTIN_POLICY,
  limit = Infinity,
): number[] =>
  withinLimits(amount, limit, rules)
    ? tenorsOf(rules).filter((tenor) => fits(amount, monthlyRatePercent, tenor, capacity))
    : [];

/** The largest multiple of COUNTER_OFFER_STEP whose instalment fits, never above the ask. */
const largestFittingAmount = (ask: LoanAsk, capacity: number): number => {
  const estimate =
    Math.floor(maxPrincipal(capacity, ask.interestRate, ask.tenor) / COUNTER_OFFER_STEP) * COUNTER_OFFER_STEP;
  // Floating-point error can land the estimate one step either side of the true answer.
  const amount = fits(estimate + COUNTER_OFFER_STEP, ask.interestRate, ask.tenor, capacity)
    ? estimate + COUNTER_OFFER_STEP
    : fits(estimate, ask.interestRate, ask.tenor, capacity)
      ? estimate
      : estimate - COUNTER_OFFER_STEP;
  return Math.min(amount, ask.amount);
};

const offer = (amount: number, tenor: number, rate: number, reason: string): CounterOffer => ({
  amount,
  tenor,
  interest_rate: rate,
  monthly_payment: round2(monthlyPayment(amount, rate, tenor)),
  reason,
});

/**
 * Terms to offer when the ask does not fit: first the same amount over the shortest longer
 * tenor from TENOR_OPTIONS (at most MAX_TENOR_STRETCH times the ask), so the applicant gets
 * what they need; otherwise the largest amount that fits at the asked tenor, rounded down to
 * COUNTER_OFFER_STEP, if at least MIN_COUNTER_OFFER_AMOUNT and MIN_COUNTER_OFFER_SHARE of the
 * ask. Null when the ask fits or nothing does.
 */
export const counterOffer = (
  ask: LoanAsk,
  capacity: number,
  rules: AffordabilityRules = BUILTIN_POLICY,
  limit = Infinity,
): CounterOffer | null => {
  const askAllowed = withinLimits(ask.amount, limit, rules);
  if (askAllowed && fits(ask.amount, ask.interestRate, ask.tenor, capacity)) return null;
  const { enabled, minAmount, minShareOfAsk } = rules.affordability.counterOffers;
  if (!enabled) return null;
  const longer = askAllowed
    ? tenorsOf(rules).find(
        (tenor) =>
          tenor > ask.tenor &&
          tenor <= ask.tenor * MAX_TENOR_STRETCH &&
          fits(ask.amount, ask.interestRate, tenor, capacity),
      )
    : undefined;
  if (longer !== undefined) {
    return offer(
      ask.amount,
      longer,
      ask.interestRate,
      `${formatNaira(ask.amount)} is affordable over ${longer} months instead of ${ask.tenor}.`,
    );
  }
  const smaller = Math.min(
    largestFittingAmount(ask, capacity),
    Math.floor(limit / COUNTER_OFFER_STEP) * COUNTER_OFFER_STEP,
  );
  if (
    smaller < minAmount ||
    smaller < minShareOfAsk * ask.amount ||
    smaller < rules.loanLimits.minAmount ||
    smaller <= 0
  )
    return null;
  return offer(
    smaller,
    ask.tenor,
    ask.interestRate,
    `${formatNaira(smaller)} is the largest amount affordable over ${ask.tenor} months.`,
  );
};

/** Affordability of a loan ask against verified income and existing repayments. */
export interface AffordabilityAssessment {
  /** Monthly payment of the ask, unrounded. */
  askPayment: number;
  /** Room under the cap for the new payment. */
  capacity: number;
  /** Debt service ratio with the ask; null without income. */
  debtServiceRatio: number | null;
  /** Debt service ratio of existing repayments alone; null without income. */
  existingDebtServiceRatio: number | null;
  affordable: boolean;
  eligibleTenors: number[];
  counterOffer: CounterOffer | null;
  /** The debt-service cap the ask was assessed under. */
  maxDebtServiceRatio: number;
}

/** Assesses the ask under a policy's affordability rules (the built-in policy's by default). */
export const assessAffordability = (
  ask: LoanAsk,
  monthlyIncome: number,
  existingMonthlyDebt: number,
  rules: AffordabilityRules = BUILTIN_POLICY,
): AffordabilityAssessment => {
  const askPayment = monthlyPayment(ask.amount, ask.interestRate, ask.tenor);
  const capacity = repaymentCapacity(monthlyIncome, existingMonthlyDebt, rules.affordability.maxDebtServiceRatio);
  const limit = lendingLimit(rules, monthlyIncome);
  return {
    askPayment,
    capacity,
    debtServiceRatio: debtServiceRatio(askPayment, existingMonthlyDebt, monthlyIncome),
    existingDebtServiceRatio: debtServiceRatio(0, existingMonthlyDebt, monthlyIncome),
    affordable: withinLimits(ask.amount, limit, rules) && fits(ask.amount, ask.interestRate, ask.tenor, capacity),
    eligibleTenors: eligibleTenors(ask.amount, ask.interestRate, capacity, rules, limit),
    counterOffer: counterOffer(ask, capacity, rules, limit),
    maxDebtServiceRatio: rules.affordability.maxDebtServiceRatio,
  };
};
