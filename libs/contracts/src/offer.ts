import { z } from 'zod';
import { ApprovalDetails } from './decision';
import { KeyFacts } from './keyFacts';
import { IsoTimestamp } from './primitives';
import { DEFAULT_TIME_ZONE, addDays, dayIn, startOfDayIn } from './zonedDays';

/**
 * An approved offer is not a loan (FCCPC 2025: no automatic lending; CBN: time to review the
 * contract, a cooling-off period): the applicant, through the lender's API, accepts or declines
 * it before it expires, and may withdraw an acceptance without cost until the cooling-off
 * period ends.
 */

/** How long an offer stands by default, in days: a lender's policy may set its own (`offer.validityDays`). */
export const OFFER_VALIDITY_DAYS = 7;
/** The cooling-off period after acceptance by default, in working days (CBN consumer-protection guidelines). */
export const COOLING_OFF_WORKING_DAYS = 3;

/** The working days the CBN gives an applicant to review a contract: no offer stands less. */
export const MIN_REVIEW_WORKING_DAYS = 2;
export const MIN_OFFER_VALIDITY_DAYS = 2;
export const MAX_OFFER_VALIDITY_DAYS = 30;
/** The CBN's 3 working days are the least a lender may give; more is the lender's choice, up to this. */
export const MAX_COOLING_OFF_WORKING_DAYS = 14;

const wholeDays = (field: string, min: number, max: number, unit: string) =>
  z
    .number({ error: `${field} must be a whole number of ${unit}` })
    .int(`${field} must be a whole number of ${unit}`)
    .min(min, `${field} must be between ${min} and ${max} ${unit}`)
    .max(max, `${field} must be between ${min} and ${max} ${unit}`);

/**
 * What a lender's policy version says of its offers: how long one stands unanswered, and how
 * long an applicant who accepted may still withdraw without cost. Fixed on each offer when it
 * is made, so a later policy change never moves an offer's dates.
 */
export const OfferTerms = z
  .object({
    /**
     * Days an offer stands after it is made, 2 to 30; never less than the end of the second
     * working day in Lagos after it was made (the CBN's time to review a contract).
     */
    validityDays: wholeDays('validityDays', MIN_OFFER_VALIDITY_DAYS, MAX_OFFER_VALIDITY_DAYS, 'days'),
    /** Working days in Lagos (public holidays counted out) after acceptance in which it may be withdrawn, 3 to 14. */
    coolingOffWorkingDays: wholeDays(
      'coolingOffWorkingDays',
      COOLING_OFF_WORKING_DAYS,
      MAX_COOLING_OFF_WORKING_DAYS,
      'working days',
    ),
  })
  .strict();
export type OfferTerms = z.infer<typeof OfferTerms>;

/** What a policy without offer terms (and a decision made before they were kept) gives: 7 days, 3 working days. */
export const DEFAULT_OFFER_TERMS: OfferTerms = Object.freeze({
  validityDays: OFFER_VALIDITY_DAYS,
  coolingOffWorkingDays: COOLING_OFF_WORKING_DAYS,
});

/**
 * Nigeria's public holidays by year, as the Federal Government declares them (the Islamic ones
 * fall by the moon: these are the declared or expected dates, updated as each is declared).
 * Saturdays and Sundays are not working days either.
 */
export const NIGERIAN_PUBLIC_HOLIDAYS: Readonly<Record<number, readonly string[]>> = {
  2026: [
    '2026-01-01', // New Year's Day
    '2026-03-20', // Eid al-Fitr
    '2026-03-21',
    '2026-04-03', // Good Friday
    '2026-04-06', // Easter Monday
    '2026-05-01', // Workers' Day
    '2026-05-27', // Eid al-Adha
    '2026-05-28',
    '2026-06-12', // Democracy Day
    '2026-08-26', // Eid-el-Maulud
    '2026-10-01', // Independence Day
    '2026-12-25', // Christmas Day
    '2026-12-26', // Boxing Day
  ],
  2027: [
    '2027-01-01',
    '2027-03-10', // Eid al-Fitr
    '2027-03-11',
    '2027-03-26', // Good Friday
    '2027-03-29', // Easter Monday
    '2027-05-01',
    '2027-05-17', // Eid al-Adha
    '2027-05-18',
    '2027-06-12',
    '2027-08-15', // Eid-el-Maulud
    '2027-10-01',
    '2027-12-25',
    '2027-12-26',
  ],
};

/** Whether a Lagos calendar day is a working day: not a weekend, not a public holiday. */
export function isNigerianWorkingDay(day: string): boolean {
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  return !(NIGERIAN_PUBLIC_HOLIDAYS[Number(day.slice(0, 4))] ?? []).includes(day);
}

/**
 * The end of the `count`th working day after `from` in Lagos (the day of `from` does not count):
 * when a cooling-off period that starts at `from` ends. 23:59:59.999 Lagos time, as an instant.
 */
export function endOfWorkingDaysAfter(from: Date, count: number): Date {
  let day = dayIn(from, DEFAULT_TIME_ZONE);
  for (let found = 0; found < count;) {
    day = addDays(day, 1);
    if (isNigerianWorkingDay(day)) found++;
  }
  // The next day's midnight in Lagos, less a millisecond.
  return new Date(startOfDayIn(addDays(day, 1), DEFAULT_TIME_ZONE).getTime() - 1);
}

/**
 * When an offer made at `madeAt` expires: `validityDays` days later, or at the end of the
 * second working day in Lagos after it was made when that is later (a weekend or a holiday
 * must not eat the applicant's time to review it).
 */
export function offerExpiresAt(madeAt: Date, validityDays: number): Date {
  const byDays = madeAt.getTime() + validityDays * 86_400_000;
  return new Date(Math.max(byDays, endOfWorkingDaysAfter(madeAt, MIN_REVIEW_WORKING_DAYS).getTime()));
}

/** Body of `POST /api/applications/:id/offer`: the applicant's answer, as the lender took it. */
export const OfferResponseRequest = z.strictObject(
  {
    response: z.enum(['ACCEPTED', 'DECLINED', 'WITHDRAWN'], {
      error: 'response must be one of: ACCEPTED, DECLINED, WITHDRAWN',
    }),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `Unknown field ${issue.keys.join(', ')}; only response is allowed`
        : undefined,
  },
);
export type OfferResponseRequest = z.infer<typeof OfferResponseRequest>;

/**
 * The offer of a decision that stands APPROVED or COUNTER_OFFER (the scorecard's, or a final
 * review's): OPEN until the applicant accepts or declines it, or it expires; ACCEPTED with a
 * cooling-off period in which it can be WITHDRAWN.
 */
export const OfferView = z.object({
  status: z.enum(['OPEN', 'ACCEPTED', 'DECLINED', 'EXPIRED', 'WITHDRAWN']),
  terms: ApprovalDetails,
  key_facts: KeyFacts.nullable(),
  madeAt: IsoTimestamp,
  expiresAt: IsoTimestamp,
  acceptedAt: IsoTimestamp.nullable(),
  declinedAt: IsoTimestamp.nullable(),
  /** The end of the cooling-off period (the offer's working days in Lagos after acceptance); null before acceptance. */
  coolingOffEndsAt: IsoTimestamp.nullable(),
  withdrawnAt: IsoTimestamp.nullable(),
  /** When the offer was recorded as expired, unanswered (`application.offer_expired`); null otherwise. */
  expiredAt: IsoTimestamp.nullable(),
  /** The terms fixed on the offer when it was made, from the lender's policy version of the decision. */
  validityDays: z.number().int(),
  coolingOffWorkingDays: z.number().int(),
});
export type OfferView = z.infer<typeof OfferView>;
