import { z } from 'zod';
import { Limits } from './primitives';
import { DecisionOutcome, ScoreBand } from './decision';

/**
 * Loan outcomes: what the lender reports about a loan after the decision (disbursed, paid,
 * missed, restructured, repaid, defaulted, written off). Scoring owns them, beside the decisions
 * they are measured against, and publishes each accepted one on `loan.outcomes.v1`.
 */

/** A calendar day, `YYYY-MM-DD`: the day the lender's books say it happened. */
export const BusinessDay = z.iso.date({ error: 'must be a day as YYYY-MM-DD' });

const Naira = z
  .number()
  .positive()
  .max(Limits.maxAmount)
  .refine((value) => Math.abs(Math.round(value * 100) - value * 100) < 1e-6, 'at most two decimals (kobo)');
const Instalment = z.number().int().min(1).max(Limits.maxTenor);

const Disbursed = z.strictObject({
  type: z.literal('DISBURSED'),
  /** What was paid out, in Naira: at most the approved amount. */
  amount: Naira,
  date: BusinessDay,
  /** The tenor booked, in months. */
  tenor: z.number().int().min(1).max(Limits.maxTenor),
});
const InstalmentPaid = z.strictObject({
  type: z.literal('INSTALMENT_PAID'),
  number: Instalment,
  amount: Naira,
  date: BusinessDay,
});
const InstalmentMissed = z.strictObject({
  type: z.literal('INSTALMENT_MISSED'),
  number: Instalment,
  /** Days the instalment is past due on `date`. */
  daysPastDue: z.number().int().min(1).max(3650),
  date: BusinessDay,
});
const Restructured = z.strictObject({
  type: z.literal('RESTRUCTURED'),
  date: BusinessDay,
  /** The new tenor, counted from disbursement, in months. */
  tenor: z.number().int().min(1).max(Limits.maxTenor),
});
const Repaid = z.strictObject({
  type: z.literal('REPAID'),
  date: BusinessDay,
  /** Closed before the last instalment fell due. */
  early: z.boolean().optional(),
});
const Defaulted = z.strictObject({
  type: z.literal('DEFAULTED'),
  date: BusinessDay,
  /** Amount outstanding, in Naira. */
  outstanding: z.number().min(0).max(Limits.maxAmount),
});
const WrittenOff = z.strictObject({
  type: z.literal('WRITTEN_OFF'),
  date: BusinessDay,
  outstanding: z.number().min(0).max(Limits.maxAmount),
});

/** One outcome as the lender reports it: the body of `POST /api/applications/{id}/outcomes`. */
export const OutcomeReport = z.discriminatedUnion('type', [
  Disbursed,
  InstalmentPaid,
  InstalmentMissed,
  Restructured,
  Repaid,
  Defaulted,
  WrittenOff,
]);
export type OutcomeReport = z.infer<typeof OutcomeReport>;
export type OutcomeType = OutcomeReport['type'];

const rowFields = {
  applicationId: z.uuid(),
  /** The row's own idempotency key: a row sent again is answered as the first time. */
  idempotencyKey: z.string().min(1).max(Limits.maxIdempotencyKey),
};

/** One row of the bulk upload (NDJSON on `POST /api/outcomes`, CSV in the console). */
export const OutcomeRow = z.discriminatedUnion('type', [
  Disbursed.extend(rowFields),
  InstalmentPaid.extend(rowFields),
  InstalmentMissed.extend(rowFields),
  Restructured.extend(rowFields),
  Repaid.extend(rowFields),
  Defaulted.extend(rowFields),
  WrittenOff.extend(rowFields),
]);
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

/** An outcome as stored and answered: its id and place in the loan's order, and what was reported. */
export const OutcomeView = z.intersection(
  z.object({ outcomeId: z.uuid(), sequence: z.number().int(), recordedAt: z.iso.datetime({ precision: 3 }) }),
  OutcomeReport,
);

/** The answer of `POST /api/applications/{id}/outcomes`. */
export const OutcomeAnswer = z.object({ outcome: OutcomeView, loan: LoanPerformanceView });

/** The answer of `GET /api/applications/{id}/outcomes`. */
export const LoanOutcomes = z.object({ loan: LoanPerformanceView, outcomes: z.array(OutcomeView) });

/** The answer of a bulk upload: each row's own answer, by line. */
export const BulkOutcomeResult = z.object({
  rows: z.number().int(),
  accepted: z.number().int(),
  /** Rows whose idempotency key and outcome were already taken: answered as the first time. */
  repeated: z.number().int(),
  refused: z.number().int(),
  results: z.array(
    z.object({
      line: z.number().int(),
      status: z.number().int(),
      outcomeId: z.uuid().optional(),
      sequence: z.number().int().optional(),
      message: z.string().optional(),
    }),
  ),
});

const Rate = z.object({
  loans: z.number().int(),
  bad: z.number().int(),
  /** Null below 30 loans, with `note` saying so. */
  badRate: z.number().nullable(),
  note: z.string().nullable(),
});

/** The answer of `GET /api/performance`. */
export const PerformanceReportView = z.object({
  asOf: BusinessDay,
  badDefinition: BadDefinition,
  loans: z.number().int(),
  bad: z.number().int(),
  badRate: z.number().nullable(),
  discrimination: z.object({
    loans: z.number().int(),
    good: z.number().int(),
    bad: z.number().int(),
    auc: z.number().nullable(),
    gini: z.number().nullable(),
    ks: z.number().nullable(),
    ksAtScore: z.number().nullable(),
    note: z.string().nullable(),
  }),
  byBand: z.array(Rate.extend({ band: z.string() })),
  calibration: z.array(
    z.object({
      band: z.string(),
      loans: z.number().int(),
      bad: z.number().int(),
      expectedBadRate: z.number(),
      observedBadRate: z.number().nullable(),
      note: z.string().nullable(),
    }),
  ),
  byDecision: z.array(Rate.extend({ policyVersion: z.number().int(), decision: z.string(), band: z.string() })),
  challengers: z.array(Rate.extend({ version: z.number().int(), decision: z.string() })),
  vintages: z.array(
    z.object({
      vintage: z.string(),
      loans: z.number().int(),
      monthsOnBook: z.number().int(),
      /** Share of the vintage's loans ever 30+ days past due by each month on book, 0 first. */
      ever30: z.array(z.number()),
      ever90: z.array(z.number()),
    }),
  ),
  drift: z.object({
    baseline: z.object({ from: BusinessDay, to: BusinessDay }),
    period: z.object({ from: BusinessDay, to: BusinessDay }),
    baselineDecisions: z.number().int(),
    currentDecisions: z.number().int(),
    note: z.string().nullable(),
    measures: z.array(
      z.object({
        measure: z.string(),
        psi: z.number().nullable(),
        flag: z.enum(['STABLE', 'WATCH', 'ACT']).nullable(),
        baseline: z.array(z.number().int()),
        current: z.array(z.number().int()),
      }),
    ),
  }),
});
export type PerformanceReportView = z.infer<typeof PerformanceReportView>;
