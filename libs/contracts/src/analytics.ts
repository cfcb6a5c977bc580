import { z } from 'zod';
import { DecisionOutcome, ScoreBand } from './decision';
import { ReviewOutcome } from './review';
import { EventNames } from './events';
import { IsoTimestamp, Uuid } from './primitives';

/**
 * A record of `loan.analytics.v1`: what an analyst may see of each public event, without
 * anything that identifies an applicant. Lenders, applications and accounts appear as
 * pseudonyms (HMAC-SHA256 under the deployment's ANALYTICS_KEY): stable, so records of one
 * application can be joined, but not reversible without the key. No names, e-mail, phone,
 * BVN or account number; the institution is kept (a bank's name says nothing of a person).
 */
export const AnalyticsRecord = z.object({
  /** The public event's id: the same on every redelivery; deduplicate on it. */
  id: Uuid,
  event: z.enum(EventNames as [string, ...string[]]),
  /** When the event happened (the public event's timestamp). */
  at: IsoTimestamp,
  lender: z.string(),
  application: z.string().nullable(),
  account: z.string().nullable(),
  institution: z.string().nullable(),
  /** application.ready_for_analysis: how many accounts were enriched. */
  accountCount: z.number().int().nullable(),
  /** application.failed, application.abandoned, account.enrichment_failed: why. */
  reason: z.string().nullable(),
  /** application.decision: the outcome and what was offered; no explanation texts. */
  decision: z
    .object({
      outcome: DecisionOutcome,
      score: z.number(),
      band: ScoreBand,
      approvedAmount: z.number().nullable(),
      approvedTenor: z.number().nullable(),
      counterOfferAmount: z.number().nullable(),
      counterOfferTenor: z.number().nullable(),
      creditBureauChecked: z.boolean(),
      identityVerified: z.boolean(),
      /** The lender's credit policy version that decided (0: built-in); absent on older decisions. */
      policyVersion: z.number().int().min(0).optional(),
    })
    .nullable(),
  /**
   * application.review_completed: the reviewer's outcome and terms, the reviewer as a pseudonym;
   * no note. Absent from records written before reviews.
   */
  review: z
    .object({
      outcome: ReviewOutcome,
      reviewer: z.string(),
      reasonCode: z.string(),
      approvedAmount: z.number().nullable(),
      approvedTenor: z.number().nullable(),
    })
    .nullish(),
});
export type AnalyticsRecord = z.infer<typeof AnalyticsRecord>;
