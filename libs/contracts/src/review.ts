import { z } from 'zod';
import { ApprovalDetails, ManualReviewReason, ScoreBand } from './decision';
import { KeyFacts } from './keyFacts';
import { IsoTimestamp, Limits, PageParams, Uuid } from './primitives';

/**
 * What a lender's credit officer concludes about a MANUAL_REVIEW decision.
 * - APPROVED: lend (the ask, or the terms given).
 * - COUNTER_OFFER: lend on other terms, given in `terms`.
 * - DECLINED: do not lend.
 */
export const ReviewOutcome = z.enum(['APPROVED', 'COUNTER_OFFER', 'DECLINED']);
export type ReviewOutcome = z.infer<typeof ReviewOutcome>;

/**
 * Where a review stands: PENDING_CONFIRMATION until a second reviewer confirms it (when its
 * amount is above the lender's confirmation threshold), FINAL once it is the lender's answer.
 */
export const ReviewStatus = z.enum(['PENDING_CONFIRMATION', 'FINAL']);
export type ReviewStatus = z.infer<typeof ReviewStatus>;

export const ReviewLimits = { maxReviewer: 200, maxReasonCode: 64, maxNote: 2000 } as const;

/** The lender's own id of a member of staff: what the audit trail names. */
export const Reviewer = z
  .string({ error: 'reviewer is required and must be a string (the staff id of the reviewer)' })
  // A character other than a space: the document says so, and trimming leaves something.
  .regex(/\S/, 'reviewer must not be empty: the staff id of the reviewer')
  .trim()
  .min(1, 'reviewer must not be empty: the staff id of the reviewer')
  .max(ReviewLimits.maxReviewer, `reviewer must be at most ${ReviewLimits.maxReviewer} characters`);

/** Loan terms a reviewer grants: principal in Naira, tenor in months, rate in percent a month. */
export const ReviewTerms = z.strictObject(
  {
    amount: z
      .number({ error: 'terms.amount is required and must be a number' })
      .positive('terms.amount must be a positive number of Naira')
      .max(Limits.maxAmount, `terms.amount must not exceed ${Limits.maxAmount}`),
    tenor: z
      .number({ error: 'terms.tenor is required and must be a number' })
      .int('terms.tenor must be a positive integer number of months')
      .positive('terms.tenor must be a positive integer number of months')
      .max(Limits.maxTenor, `terms.tenor must not exceed ${Limits.maxTenor} months`),
    interestRate: z
      .number({ error: 'terms.interestRate is required and must be a number' })
      .min(0, 'terms.interestRate must be a monthly percentage of 0 or more')
      .max(Limits.maxInterestRate, `terms.interestRate must not exceed ${Limits.maxInterestRate}`),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? `Unknown field terms.${issue.keys.join(', terms.')}` : undefined,
  },
);
export type ReviewTerms = z.infer<typeof ReviewTerms>;

/** Body of `POST /api/applications/:id/review`. */
export const ReviewRequest = z.strictObject(
  {
    outcome: z.enum(ReviewOutcome.options, {
      error: (issue) =>
        issue.input === undefined
          ? 'outcome is required'
          : `outcome must be one of: ${ReviewOutcome.options.join(', ')}`,
    }),
    /** Required for COUNTER_OFFER; for APPROVED the ask when absent; refused for DECLINED. */
    terms: ReviewTerms.optional(),
    /** The lender's own code for the reason (e.g. `INCOME_VERIFIED`, `FRAUD_SUSPECTED`). */
    reasonCode: z
      .string({ error: 'reasonCode is required and must be a string' })
      .regex(/^[A-Za-z0-9_.-]+$/, 'reasonCode must be letters, digits, dots, dashes or underscores')
      .max(ReviewLimits.maxReasonCode, `reasonCode must be at most ${ReviewLimits.maxReasonCode} characters`),
    /** Why, in the reviewer's words; required with `override`. */
    note: z
      .string({ error: 'note must be a string' })
      .max(ReviewLimits.maxNote, `note must be at most ${ReviewLimits.maxNote} characters`)
      .optional(),
    reviewer: Reviewer,
    /** Grants terms whose payment is beyond the applicant's repayment capacity (a note says why). */
    override: z.boolean({ error: 'override must be true or false' }).optional(),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `Unknown field ${issue.keys.join(', ')}; allowed: outcome, terms, reasonCode, note, reviewer, override`
        : undefined,
  },
);
export type ReviewRequest = z.infer<typeof ReviewRequest>;

/** Body of `POST /api/applications/:id/review/confirm`: the second reviewer. */
export const ConfirmReviewRequest = z.strictObject(
  { reviewer: Reviewer },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `Unknown field ${issue.keys.join(', ')}; only reviewer is allowed`
        : undefined,
  },
);
export type ConfirmReviewRequest = z.infer<typeof ConfirmReviewRequest>;

/** A review as the application's detail and the review queue show it. */
export const ReviewView = z.object({
  outcome: ReviewOutcome,
  status: ReviewStatus,
  /** The terms granted, priced by the scorecard's formula; null for DECLINED. */
  approval_details: ApprovalDetails.nullable(),
  reasonCode: z.string(),
  note: z.string().nullable(),
  /** Whether the terms are beyond the applicant's repayment capacity, granted on purpose. */
  override: z.boolean(),
  /** Who made the review. */
  reviewer: z.string(),
  /** Who confirmed it; null when no confirmation was needed or it is still awaited. */
  confirmedBy: z.string().nullable(),
  /** Whether a second reviewer must confirm it (its amount is above the lender's threshold). */
  confirmationRequired: z.boolean(),
  madeAt: IsoTimestamp,
  /** When the review became final; null while it awaits confirmation. */
  reviewedAt: IsoTimestamp.nullable(),
  /** The contest this review answers (`POST /api/applications/:id/contest`); null for a referral's review. */
  contestId: Uuid.nullable().optional(),
  /** The Key Facts Statement of the terms granted, with the decision's fees and pay date; null for DECLINED. */
  key_facts: KeyFacts.nullable().optional(),
});
export type ReviewView = z.infer<typeof ReviewView>;

export const ContestLimits = { minStatement: 1, maxStatement: 4000 } as const;

/** Decisions an applicant may contest (NDPA s.37): a refusal, or terms other than those asked for. */
export const CONTESTABLE_OUTCOMES = ['DECLINED', 'COUNTER_OFFER'] as const;
export type ContestableOutcome = (typeof CONTESTABLE_OUTCOMES)[number];

/** Body of `POST /api/applications/:id/contest`: the applicant's statement, as the lender took it. */
export const ContestRequest = z.strictObject(
  {
    statement: z
      .string({ error: 'statement is required and must be a string (the applicant\u2019s own words)' })
      .trim()
      .min(ContestLimits.minStatement, 'statement must not be empty: the applicant\u2019s own words')
      .max(ContestLimits.maxStatement, `statement must be at most ${ContestLimits.maxStatement} characters`),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `Unknown field ${issue.keys.join(', ')}; only statement is allowed`
        : undefined,
  },
);
export type ContestRequest = z.infer<typeof ContestRequest>;

/**
 * An application's contest as its detail and the review queue show it: OPEN until a review of
 * it is final (always confirmed by a second reviewer), then RESOLVED with that review.
 */
export const ContestView = z.object({
  contestId: Uuid,
  status: z.enum(['OPEN', 'RESOLVED']),
  /** The decision contested: the scorecard's, or the final review's when it had one. */
  contestedOutcome: z.enum(CONTESTABLE_OUTCOMES),
  statement: z.string(),
  openedAt: IsoTimestamp,
  resolvedAt: IsoTimestamp.nullable(),
  /** The review the contest reopened, when the decision had one (kept as it was). */
  priorReview: ReviewView.nullable(),
});
export type ContestView = z.infer<typeof ContestView>;

/**
 * Whether the decision can be contested, and how: what the decision's reader (the lender, and
 * through them the applicant) is told with every decision.
 */
export const ContestAvailability = z.object({
  available: z.boolean(),
  /** Why not, when not (an APPROVED decision, a contest already made, no decision yet). */
  reason: z.string().nullable(),
  /** The lender's call that opens it, with the applicant's statement. */
  how: z.string(),
});
export type ContestAvailability = z.infer<typeof ContestAvailability>;

/** The queue's two views: reviews still to finish, and finished ones. */
export const ReviewQueueStatus = z.enum(['OPEN', 'DONE']);
export type ReviewQueueStatus = z.infer<typeof ReviewQueueStatus>;

export const ReviewListParams = ['status', 'limit', 'cursor'] as const;

/** Query of `GET /api/reviews`: OPEN (the default) or DONE, oldest decision first. */
export const ReviewListQuery = z.strictObject(
  {
    status: z
      .enum(ReviewQueueStatus.options, { error: `status must be one of: ${ReviewQueueStatus.options.join(', ')}` })
      .default('OPEN'),
    ...PageParams,
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `Unknown query parameter ${issue.keys.join(', ')}; allowed: ${ReviewListParams.join(', ')}`
        : undefined,
  },
);
export type ReviewListQuery = z.input<typeof ReviewListQuery>;

/** One application in the review queue: the evidence a reviewer starts from. */
export const ReviewQueueItem = z.object({
  applicationId: Uuid,
  applicantId: Uuid,
  applicantName: z.string(),
  /** The ask: Naira, months, percent a month. */
  loan: z.object({ amount: z.number(), tenor: z.number(), interestRate: z.number() }),
  score: z.number(),
  score_band: ScoreBand,
  /** Why the scorecard referred it. */
  manual_review_reasons: z.array(ManualReviewReason),
  /** The terms scoring would grant: the ask if affordable, else its counter-offer. */
  approval_details: ApprovalDetails,
  /** When the decision was made, and how long ago in seconds. */
  decidedAt: IsoTimestamp,
  ageSeconds: z.number().int(),
  /** The review made so far: null when none, PENDING_CONFIRMATION while it awaits a second reviewer. */
  review: ReviewView.nullable(),
  /** Set when the item is in the queue because the applicant contested the decision. */
  contest: ContestView.nullable().optional(),
});
export type ReviewQueueItem = z.infer<typeof ReviewQueueItem>;

/** `GET /api/reviews`: one page, oldest decision first. */
export const ReviewPage = z.object({
  items: z.array(ReviewQueueItem),
  /** The cursor of the next page; null on the last one. */
  nextCursor: z.string().nullable(),
});
export type ReviewPage = z.infer<typeof ReviewPage>;
