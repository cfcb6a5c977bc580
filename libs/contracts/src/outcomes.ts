import { z } from 'zod';
import { Limits } from './primitives';
import { DecisionOutcome, ScoreBand } from './decision';

/**
 * Loan outcomes: what the lender reports about a loan after the decision (disbursed, paid,
 * missed, restructured, repaid, defaulted, written off). Scoring owns them, beside the decisions
 * they are measured against, and publishes each accepted one on `loan.outcomes.v1`.
 */

/** A calendar day, `YYYY-MM-DD`: the day the lender's books say it happened. */
export const BusinessDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day as YYYY-MM-DD')
  .refine((day) => !Number.isNaN(Date.parse(`${day}T00:00:00Z`)) && new Date(`${day}T00:00:00Z`).toISOString().startsWith(day), {
    message: 'must be a real calendar day',
  });

const Naira = z.number().positive().max(Limits.maxAmount).multipleOf(0.01, 'at most two decimals (kobo)');
const Instalment = z.number().int().min(1).max(Limits.maxTenor);

/** One outcome as the lender reports it: the body of `POST /api/applications/{id}/outcomes`. */
export const OutcomeReport = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('DISBURSED'),
    /** What was paid out, in Naira: at most the approved amount. */
    amount: Naira,
    date: BusinessDay,
    /** The tenor booked, in months. */
    tenor: z.number().int().min(1).max(Limits.maxTenor),
  }),
  z.strictObject({ type: z.literal('INSTALMENT_PAID'), number: Instalment, amount: Naira, date: BusinessDay }),
  z.strictObject({
    type: z.literal('INSTALMENT_MISSED'),
    number: Instalment,
    /** Days the instalment is past due on `date`. */
    daysPastDue: z.number().int().min(1).max(3650),
    date: BusinessDay,
  }),
  z.strictObject({
    type: z.literal('RESTRUCTURED'),
    date: BusinessDay,
    /** The new tenor, counted from disbursement, in months. */
    tenor: z.number().int().min(1).max(Limits.maxTenor),
  }),
  z.strictObject({
    type: z.literal('REPAID'),
    date: BusinessDay,
    /** Closed before the last instalment fell due. */
    early: z.boolean().optional(),
  }),
  z.strictObject({
    type: z.literal('DEFAULTED'),
    date: BusinessDay,
    /** Amount outstanding, in Naira. */
    outstanding: z.number().min(0).max(Limits.maxAmount),
  }),
  z.strictObject({
    type: z.literal('WRITTEN_OFF'),
    date: BusinessDay,
    outstanding: z.number().min(0).max(Limits.maxAmount),
  }),
]);
export type OutcomeReport = z.infer<typeof OutcomeReport>;
export type OutcomeType = OutcomeReport['type'];

/** One row of the bulk upload (NDJSON on `POST /api/outcomes`, CSV in the console). */
export const OutcomeRow = z.intersection(
  z.object({
    applicationId: z.uuid(),
    /** The row's own idempotency key: a row sent again is answered as the first time. */
    idempotencyKey: z.string().min(1).max(Limits.maxIdempotencyKey),
  }),
  OutcomeReport,
);
export type OutcomeRow = z.infer<typeof OutcomeRow>;

/** At most this many rows in one bulk upload. */
export const MAX_OUTCOME_ROWS = 10_000;

/** Where a loan stands, derived from its outcomes in order. */
export const LoanStatus = z.enum(['OPEN', 'REPAID', 'DEFAULTED', 'WRITTEN_OFF']);
export type LoanStatus = z.infer<typeof LoanStatus>;

/** The loan's state derived from its outcomes, answered with every outcome and on `GET`. */
export const LoanPerformanceView = z.object({
  applicationId: z.uuid(),
  status: LoanStatus,
  disbursed: z.object({ amount: z.number(), date: BusinessDay, tenor: z.number().int() }),
  /** The tenor now (after a restructuring). */
  tenor: z.number().int(),
  instalmentsPaid: z.array(z.number().int()),
  currentDaysPastDue: z.number().int(),
  maxDaysPastDue: z.number().int(),
  ever30: z.boolean(),
  ever60: z.boolean(),
  ever90: z.boolean(),
  restructured: z.boolean(),
  defaulted: z.boolean(),
  writtenOff: z.boolean(),
  /** Bad by the lender's own definition (`GET /api/performance/settings`). */
  bad: z.boolean(),
  outcomes: z.number().int(),
  lastDate: BusinessDay,
});
export type LoanPerformanceView = z.infer<typeof LoanPerformanceView>;

/**
 * What makes a loan bad for a lender: ever this many days past due (one of the thresholds the
 * service tracks), or written off, or declared defaulted. Default: 90+ DPD or written off or
 * defaulted.
 */
export const DPD_THRESHOLDS = [1, 30, 60, 90, 120, 180] as const;
export const BadDefinition = z.strictObject({
  daysPastDue: z.literal(DPD_THRESHOLDS),
  writtenOff: z.boolean(),
  defaulted: z.boolean(),
});
export type BadDefinition = z.infer<typeof BadDefinition>;
export const DEFAULT_BAD_DEFINITION: BadDefinition = { daysPastDue: 90, writtenOff: true, defaulted: true };

/** The performance settings of a lender (`PUT /api/performance/settings`). */
export const PerformanceSettings = z.strictObject({ bad: BadDefinition });
export type PerformanceSettings = z.infer<typeof PerformanceSettings>;

/** An accepted outcome, on `loan.outcomes.v1` keyed by applicationId: no personal data. */
export const OutcomeRecorded = z.object({
  outcomeId: z.uuid(),
  clientId: z.string(),
  applicationId: z.uuid(),
  /** 1 for the disbursement, then one more for each outcome of the loan. */
  sequence: z.number().int().min(1),
  outcome: OutcomeReport,
  recordedAt: z.iso.datetime({ precision: 3 }),
  /** The decision it is measured against. */
  decision: z.object({
    outcome: DecisionOutcome,
    score: z.number(),
    band: ScoreBand,
    policyVersion: z.number().int().nullable(),
    reviewed: z.boolean(),
  }),
  /** Where the loan stands after it. */
  loan: z.object({
    status: LoanStatus,
    currentDaysPastDue: z.number().int(),
    maxDaysPastDue: z.number().int(),
  }),
});
export type OutcomeRecorded = z.infer<typeof OutcomeRecorded>;
