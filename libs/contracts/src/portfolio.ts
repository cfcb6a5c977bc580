import { z } from 'zod';
import { DecisionOutcome } from './decision';
import { DeliveryStatus } from './deliveries';
import { AbandonReason, ApplicationStatus } from './primitives';
import { ReportDay } from './zonedDays';

/**
 * The lender's portfolio over a period (`GET /api/portfolio`): its applications counted by the
 * applications service, which owns them, and its webhook deliveries by the notifier. Days are
 * the lender's calendar days in its time zone; an application belongs to the day it was created.
 */

/** The longest period one report covers. */
export const PORTFOLIO_MAX_DAYS = 366;
/** The period a report covers when none is asked for: the last 30 days, today included. */
export const PORTFOLIO_DEFAULT_DAYS = 30;

const PortfolioDay = ReportDay;

export const PortfolioParams = ['from', 'to'] as const;

/** Query of `GET /api/portfolio`: the first and last day, both included. */
export const PortfolioQuery = z
  .strictObject(
    { from: PortfolioDay('from').optional(), to: PortfolioDay('to').optional() },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `Unknown query parameter ${issue.keys.join(', ')}; allowed: ${PortfolioParams.join(', ')}`
          : undefined,
    },
  )
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: 'from must not be after to' });
export type PortfolioQuery = z.infer<typeof PortfolioQuery>;

const Count = z.number().int().min(0);
const countsOf = <T extends string>(names: readonly T[]) =>
  z.object(Object.fromEntries(names.map((name) => [name, Count])) as { [K in T]: typeof Count });

export const StatusCounts = countsOf(ApplicationStatus.options);
export const DecisionCounts = countsOf(DecisionOutcome.options);

/** What the applications service counts of a lender's applications created in a period. */
export const ApplicationsPortfolio = z.object({
  /** Applications created in the period. */
  applications: Count,
  /** Where they stand now. */
  byStatus: StatusCounts,
  /** The decisions made on them (scored ones only). */
  byDecision: DecisionCounts,
  /** APPROVED among the decided, 0 to 1; null when none was decided. */
  approvalRate: z.number().min(0).max(1).nullable(),
  /** Mean approved amount of the APPROVED ones, whole Naira; null when none was approved. */
  averageApprovedAmount: z.number().min(0).nullable(),
  /** Decided applications by score: ten bands of ten points, the last one 90-100. */
  scoreBands: z.array(z.object({ from: z.number().int(), to: z.number().int(), count: Count })).length(10),
  /** Time from initiate to the decision, over the decided ones. */
  decisionTime: z.object({
    decided: Count,
    medianSeconds: z.number().min(0).nullable(),
    p90Seconds: z.number().min(0).nullable(),
    /** How many took up to each bound (seconds; the last bound is null: longer). */
    buckets: z.array(z.object({ upToSeconds: z.number().int().nullable(), count: Count })),
  }),
  /** ABANDONED applications by why they were closed. */
  abandoned: countsOf(AbandonReason.options),
  /** Each day of the period (oldest first): applications created that day and what became of them. */
  days: z.array(
    z.object({
      day: z.string(),
      created: Count,
      byDecision: DecisionCounts,
      /** Created that day and not decided (yet, or ever). */
      undecided: Count,
    }),
  ),
});
export type ApplicationsPortfolio = z.infer<typeof ApplicationsPortfolio>;

/** The notifier's count of a lender's webhook deliveries recorded in a period, by where they stand. */
export const DeliveryHealth = z.object({
  deliveries: Count,
  byStatus: countsOf(DeliveryStatus.options),
  /** DELIVERED among those that finished (DELIVERED or FAILED), 0 to 1; null when none finished. */
  deliveredRate: z.number().min(0).max(1).nullable(),
});
export type DeliveryHealth = z.infer<typeof DeliveryHealth>;

/** `GET /api/portfolio`. */
export const PortfolioReport = z.object({
  from: z.string(),
  to: z.string(),
  /** The lender's time zone, whose days these are. */
  timeZone: z.string(),
  ...ApplicationsPortfolio.shape,
  webhooks: DeliveryHealth,
});
export type PortfolioReport = z.infer<typeof PortfolioReport>;
