import { z } from 'zod';
import { monthlyPayment } from './loanMath';
import { DEFAULT_TIME_ZONE, dayIn } from './zonedDays';

/**
 * The Key Facts Statement of an offer (FCCPC 2025, CBN disclosure guidelines): the principal,
 * every fee, the total repayable, the cost of credit, the APR and the schedule. Pure: computed
 * the same by scoring (with the decision) and by a review (with its own terms). Money is worked
 * in kobo so that the schedule sums exactly; shown in Naira to the kobo.
 */

/** How the lender takes its fees: deducted from the amount paid out, or spread over the instalments. */
export const FeeCollection = z.enum(['UPFRONT', 'SPREAD']);
export type FeeCollection = z.infer<typeof FeeCollection>;

/** Nigeria's VAT rate (Finance Act 2019), charged on fees, not on interest. */
export const NIGERIAN_VAT_PERCENT = 7.5;

/** The first instalment falls at least this many days after disbursement. */
export const MIN_DAYS_TO_FIRST_INSTALMENT = 14;

const percent = (field: string, max: number) =>
  z
    .number({ error: `${field} must be a number (percent)` })
    .min(0, `${field} must be between 0 and ${max}`)
    .max(max, `${field} must be between 0 and ${max}`);

/** What a policy version says its offers cost besides interest, and when instalments fall due. */
export const DisclosureTerms = z
  .object({
    fees: z
      .object({
        /** Management (processing) fee, percent of the principal. */
        managementPercent: percent('managementPercent', 50),
        /** Credit life insurance, percent of the principal. */
        insurancePercent: percent('insurancePercent', 50),
        /** VAT on the fees (not on interest). */
        vatPercent: percent('vatPercent', 100),
        collection: FeeCollection,
      })
      .strict(),
    schedule: z
      .object({
        /** Instalments fall after the applicant's detected monthly pay date, when there is one. */
        alignToPayDay: z.boolean(),
        /** How many days after the pay date an instalment falls (0-10). */
        daysAfterPayDay: z
          .number({ error: 'daysAfterPayDay must be whole days' })
          .int('daysAfterPayDay must be whole days')
          .min(0, 'daysAfterPayDay must be between 0 and 10')
          .max(10, 'daysAfterPayDay must be between 0 and 10'),
      })
      .strict(),
  })
  .strict()
  .refine(
    ({ fees }) =>
      fees.collection !== 'UPFRONT' ||
      (fees.managementPercent + fees.insurancePercent) * (1 + fees.vatPercent / 100) < 100,
    {
      path: ['fees'],
      message:
        'Fees taken up front, with their VAT, must stay under 100% of the principal: nothing would be paid out and the APR is undefined',
    },
  );
export type DisclosureTerms = z.infer<typeof DisclosureTerms>;

/** What a policy without disclosure terms discloses: no fees, instalments a day after a detected pay date. */
export const DEFAULT_DISCLOSURE: DisclosureTerms = Object.freeze({
  fees: { managementPercent: 0, insurancePercent: 0, vatPercent: NIGERIAN_VAT_PERCENT, collection: 'UPFRONT' },
  schedule: { alignToPayDay: true, daysAfterPayDay: 1 },
}) as DisclosureTerms;

const CalendarDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const Instalment = z.object({
  number: z.number().int(),
  due_date: CalendarDate,
  principal: z.number(),
  interest: z.number(),
  fees: z.number(),
  /** principal + interest + fees. */
  amount: z.number(),
});
export type Instalment = z.infer<typeof Instalment>;

export const KeyFacts = z.object({
  principal: z.number(),
  tenor_months: z.number().int(),
  /** As given: percent a month on the reducing balance. */
  interest_rate_monthly_percent: z.number(),
  fees: z.array(
    z.object({ code: z.enum(['MANAGEMENT', 'INSURANCE', 'VAT']), description: z.string(), amount: z.number() }),
  ),
  fee_collection: FeeCollection,
  total_fees: z.number(),
  total_interest: z.number(),
  /** Paid to the applicant: the principal less fees taken up front. */
  amount_disbursed: z.number(),
  /** Every instalment together. */
  total_repayable: z.number(),
  /** Interest and fees: total_repayable less amount_disbursed. */
  total_cost_of_credit: z.number(),
  /** Annualised internal rate of return of the cash flows (what is paid out, each instalment on its date), percent, two decimals. */
  apr_percent: z.number(),
  /** The disbursement day the schedule assumes (the decision's day in Lagos); the dates move with the actual one. */
  disbursement_date: CalendarDate,
  schedule_basis: z.object({
    kind: z.enum(['PAY_DATE', 'MONTHLY_FROM_DISBURSEMENT']),
    reason: z.string(),
    pay_day_of_month: z.number().int().nullable(),
    days_after_pay_day: z.number().int().nullable(),
  }),
  schedule: z.array(Instalment),
  /** The fee and schedule terms used, so that another set of terms (a review's) is disclosed the same way. */
  terms: DisclosureTerms,
});
export type KeyFacts = z.infer<typeof KeyFacts>;

// ---- Calendar days (UTC dates standing for days) ----

const parseDay = (day: string) => new Date(`${day}T00:00:00.000Z`);
const dayOf = (date: Date) => date.toISOString().slice(0, 10);
const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
const addDays = (date: Date, days: number) => new Date(date.getTime() + days * 86_400_000);
const daysBetween = (a: Date, b: Date) => Math.round((b.getTime() - a.getTime()) / 86_400_000);

/** The same day `months` later, the month's last day when it has no such day (31 January + 1 is 28 or 29 February). */
function addMonths(date: Date, months: number): Date {
  const total = date.getUTCMonth() + months;
  const year = date.getUTCFullYear() + Math.floor(total / 12);
  const month = ((total % 12) + 12) % 12;
  return new Date(Date.UTC(year, month, Math.min(date.getUTCDate(), daysInMonth(year, month))));
}

/** Due dates: `daysAfter` days after the pay day of each month (its last day when shorter), the first at least 14 days out. */
function payDateSchedule(disbursed: Date, payDay: number, daysAfter: number, count: number): Date[] {
  const earliest = addDays(disbursed, MIN_DAYS_TO_FIRST_INSTALMENT);
  const dates: Date[] = [];
  for (let offset = 0; dates.length < count; offset++) {
    const total = disbursed.getUTCMonth() + offset;
    const year = disbursed.getUTCFullYear() + Math.floor(total / 12);
    const month = total % 12;
    const due = addDays(new Date(Date.UTC(year, month, Math.min(payDay, daysInMonth(year, month)))), daysAfter);
    if (due >= earliest) dates.push(due);
  }
  return dates;
}

// ---- The APR ----

/**
 * The annual rate `a` at which the cash flows are worth nothing today:
 * sum of flow / (1 + a)^(days since the first / 365) = 0 (the XIRR convention). Bisection
 * between a rate where the sum has one sign and one where it has the other: with money paid out
 * first and more paid back later, the sum moves one way as the rate rises, so the root is one.
 */
export function annualisedIrr(flows: readonly { on: Date; amount: number }[]): number {
  const start = flows[0]!.on;
  const value = (rate: number) =>
    flows.reduce((sum, f) => sum + f.amount / (1 + rate) ** (daysBetween(start, f.on) / 365), 0);
  let low = -0.99;
  let high = 1;
  const lowSign = Math.sign(value(low));
  while (Math.sign(value(high)) === lowSign) {
    high *= 2;
    if (high > 1e9) throw new RangeError('The APR is beyond any meaningful rate');
  }
  for (let i = 0; i < 300 && high - low > 1e-13; i++) {
    const mid = (low + high) / 2;
    if (Math.sign(value(mid)) === lowSign) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

const toNaira = (kobo: number) => kobo / 100;
const daysAfter = (days: number) => (days === 0 ? 'on it' : `${days} day${days === 1 ? '' : 's'} after it`);

/**
 * The key facts of lending `principal` Naira over `tenorMonths` at `monthlyRatePercent` a
 * month on the reducing balance, under `terms`, paid out on `disbursementDate` (YYYY-MM-DD).
 * The instalment is the scorecard's (PMT to the kobo); each month's interest is the balance's
 * to the kobo and the last instalment clears what is left, so principal, interest and fees sum
 * exactly to the totals. `payDayOfMonth` is the applicant's detected monthly pay day, or null.
 */
export function keyFactsOf(input: {
  principal: number;
  tenorMonths: number;
  monthlyRatePercent: number;
  terms: DisclosureTerms;
  disbursementDate: string;
  payDayOfMonth: number | null;
}): KeyFacts {
  const { tenorMonths: n, monthlyRatePercent, terms } = input;
  const principal = Math.round(input.principal * 100);
  const { fees: feeTerms, schedule: scheduleTerms } = terms;
  const management = Math.round((principal * feeTerms.managementPercent) / 100);
  const insurance = Math.round((principal * feeTerms.insurancePercent) / 100);
  const vat = Math.round(((management + insurance) * feeTerms.vatPercent) / 100);
  const totalFees = management + insurance + vat;

  const disbursed = parseDay(input.disbursementDate);
  const payDay = input.payDayOfMonth;
  const byPayDate = scheduleTerms.alignToPayDay && payDay !== null && payDay >= 1 && payDay <= 31;
  const dates = byPayDate
    ? payDateSchedule(disbursed, payDay, scheduleTerms.daysAfterPayDay, n)
    : Array.from({ length: n }, (_, i) => addMonths(disbursed, i + 1));

  const rate = monthlyRatePercent / 100;
  const level = Math.round(monthlyPayment(principal, monthlyRatePercent, n));
  const spread = feeTerms.collection === 'SPREAD';
  const feeShare = spread ? Math.floor(totalFees / n) : 0;
  let balance = principal;
  const schedule: Instalment[] = dates.map((due, i) => {
    const last = i === n - 1;
    const interest = Math.round(balance * rate);
    const repaid = last ? balance : Math.min(balance, level - interest);
    balance -= repaid;
    const fees = spread ? (last ? totalFees - feeShare * (n - 1) : feeShare) : 0;
    return {
      number: i + 1,
      due_date: dayOf(due),
      principal: repaid,
      interest,
      fees,
      amount: repaid + interest + fees,
    };
  });
  const totalInterest = schedule.reduce((sum, s) => sum + s.interest, 0);
  const totalRepayable = schedule.reduce((sum, s) => sum + s.amount, 0);
  const amountDisbursed = spread ? principal : principal - totalFees;
  if (amountDisbursed <= 0 || n < 1) throw new RangeError('Nothing is paid out: the APR is undefined');
  const apr = annualisedIrr([
    { on: disbursed, amount: amountDisbursed },
    ...schedule.map((s) => ({ on: parseDay(s.due_date), amount: -s.amount })),
  ]);
  const feeLines = [
    ['MANAGEMENT', `Management fee, ${feeTerms.managementPercent}% of the principal`, management],
    ['INSURANCE', `Credit life insurance, ${feeTerms.insurancePercent}% of the principal`, insurance],
    ['VAT', `VAT at ${feeTerms.vatPercent}% on the fees`, vat],
  ] as const;
  return {
    principal: toNaira(principal),
    tenor_months: n,
    interest_rate_monthly_percent: monthlyRatePercent,
    fees: feeLines
      .filter(([, , amount]) => amount > 0)
      .map(([code, description, amount]) => ({ code, description, amount: toNaira(amount) })),
    fee_collection: feeTerms.collection,
    total_fees: toNaira(totalFees),
    total_interest: toNaira(totalInterest),
    amount_disbursed: toNaira(amountDisbursed),
    total_repayable: toNaira(totalRepayable),
    total_cost_of_credit: toNaira(totalRepayable - amountDisbursed),
    apr_percent: Math.round(apr * 10_000) / 100,
    disbursement_date: input.disbursementDate,
    schedule_basis: byPayDate
      ? {
          kind: 'PAY_DATE',
          reason: `A monthly salary is paid on day ${payDay} of the month: each instalment falls ${daysAfter(scheduleTerms.daysAfterPayDay)} (on the month's last day when it is shorter), the first at least ${MIN_DAYS_TO_FIRST_INSTALMENT} days after disbursement`,
          pay_day_of_month: payDay,
          days_after_pay_day: scheduleTerms.daysAfterPayDay,
        }
      : {
          kind: 'MONTHLY_FROM_DISBURSEMENT',
          reason:
            payDay === null
              ? 'No regular monthly salary was found in the bank data: instalments fall monthly from disbursement'
              : 'The policy does not align instalments to pay dates: they fall monthly from disbursement',
          pay_day_of_month: null,
          days_after_pay_day: null,
        },
    schedule: schedule.map((s) => ({
      ...s,
      principal: toNaira(s.principal),
      interest: toNaira(s.interest),
      fees: toNaira(s.fees),
      amount: toNaira(s.amount),
    })),
    terms,
  };
}

/**
 * The key facts of terms as a decision or a review discloses them: paid out on the day of `now`
 * in Lagos. Null when nothing would be paid out, where the APR has no meaning.
 */
export function keyFactsOn(
  now: Date,
  input: Omit<Parameters<typeof keyFactsOf>[0], 'disbursementDate'>,
): KeyFacts | null {
  try {
    return keyFactsOf({ ...input, disbursementDate: dayIn(now, DEFAULT_TIME_ZONE) });
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
}
