import { z } from 'zod';
import { DecisionOutcome } from './decision';
import { DisclosureTerms } from './keyFacts';
import { OfferTerms } from './offer';

/**
 * A lender's credit policy: the rules the decision applies on top of the scorecard's score and
 * features (docs/scoring.md, "Credit policies"). The built-in policy is the rules every lender
 * gets until it activates one of its own.
 */

/** What a score band leads to. */
export const BandAction = z.enum(['APPROVE', 'REVIEW', 'DECLINE']);
export type BandAction = z.infer<typeof BandAction>;

/** What a data problem (thin file, identity mismatch) leads to. */
export const DataAction = z.enum(['REVIEW', 'DECLINE']);
export type DataAction = z.infer<typeof DataAction>;

/** What an unavailable bureau leads to; PROCEED decides on the statements alone. */
export const BureauUnavailableAction = z.enum(['REVIEW', 'DECLINE', 'PROCEED']);
export type BureauUnavailableAction = z.infer<typeof BureauUnavailableAction>;

/** What a matching knock-out rule leads to. */
export const KnockOutAction = z.enum(['DECLINE', 'REVIEW']);
export type KnockOutAction = z.infer<typeof KnockOutAction>;

export const KnockOutOperator = z.enum(['>', '>=', '<', '<=', '==', '!=']);
export type KnockOutOperator = z.infer<typeof KnockOutOperator>;

/**
 * The features a knock-out rule may test: figures the scorecard already derives and keeps in
 * the audit of every analysis, so that a rule replays on past analyses. A feature without a
 * value (no income, no bureau file) never matches a rule.
 */
export const POLICY_FEATURES = {
  bettingShareOfIncome: 'Betting debits over verified monthly income (0.25 = a quarter); none without income.',
  bouncedDebitsPerMonth: 'Bounced (returned) debits per month of statement.',
  overdraftDaysPerMonth: 'Days a month spent overdrawn, on average.',
  historyMonths: 'Months of account history the statements show.',
  monthsObserved: 'Months of statement in the scoring window.',
  monthlyIncome: 'Verified monthly net income, in Naira.',
  incomeCv: 'Month-to-month variation of income (coefficient of variation); none without income.',
  netFlowShareOfIncome: 'Average monthly net flow over income (negative: spends more than earns); none without income.',
  negativeNetFlowMonths: 'Months in which more went out than came in.',
  averageBalance: 'Average account balance, in Naira.',
  existingDebtToIncome: 'Repayments already owed to other lenders each month, over income; none without income.',
  digitalLoanShareOfIncome: 'Digital-loan disbursements received over income (loan stacking); none without income.',
  loanDisbursementMonths: 'Months in which another lender paid out a loan.',
  statementRedFlags:
    'Statement red flags raised (large withdrawal after payday, identical debit and credit, cash above salary).',
  bureauScore: "The credit bureau's score; none without a bureau file that has one.",
  worstDaysPastDue: 'Worst days past due on the bureau file; none without a bureau file.',
  bureauOverdueAmount: 'Amount overdue on the bureau file, in Naira; none without a bureau file.',
  delinquentFacilities: 'Delinquent facilities on the bureau file; none without a bureau file.',
  writtenOffFacilities: 'Written-off facilities on the bureau file; none without a bureau file.',
  bureauEnquiriesLast3m: 'Credit enquiries in the last three months; none without a bureau file.',
} as const;
export type PolicyFeature = keyof typeof POLICY_FEATURES;
const FEATURE_NAMES = Object.keys(POLICY_FEATURES) as [PolicyFeature, ...PolicyFeature[]];

/** A rule that declines or refers an application whatever its score. */
export const KnockOutRule = z.object({
  /** The lender's code, carried by the decision (e.g. HIGH_BETTING). */
  code: z
    .string({ error: 'code is required' })
    .regex(
      /^[A-Z][A-Z0-9_]{1,39}$/,
      'code must be 2-40 upper-case letters, digits or underscores, starting with a letter',
    ),
  feature: z.enum(FEATURE_NAMES, {
    error: (issue) => `unknown feature ${JSON.stringify(issue.input)}; one of ${FEATURE_NAMES.join(', ')}`,
  }),
  operator: KnockOutOperator,
  value: z.number({ error: 'value must be a number' }).finite(),
  action: KnockOutAction,
  /** Shown to the applicant's lender as the reason. */
  description: z.string({ error: 'description is required' }).trim().min(1, 'description is required').max(300),
});
export type KnockOutRule = z.infer<typeof KnockOutRule>;

/** A knock-out code given twice: the second and later rules are named. */
function uniqueCodes(rules: unknown[], ctx: z.RefinementCtx) {
  const seen = new Set<string>();
  rules.forEach((rule, index) => {
    const code = (rule as { code?: unknown } | null)?.code;
    if (typeof code !== 'string') return;
    if (seen.has(code))
      ctx.addIssue({ code: 'custom', path: [index, 'code'], message: `duplicate knock-out code ${code}` });
    seen.add(code);
  });
}

const score = (field: string) =>
  z
    .number({ error: `${field} must be a number` })
    .min(0, `${field} must be between 0 and 100`)
    .max(100, `${field} must be between 0 and 100`);

const naira = (field: string) =>
  z
    .number({ error: `${field} must be a number` })
    .min(0, `${field} must not be negative`)
    .max(100_000_000);

export const CreditPolicy = z
  .object({
    /** A name for people; not used by the decision. */
    name: z.string().trim().max(100).optional(),
    bands: z.object({
      /** Lowest total score (0-100) of each band, strictly descending; below HIGH_RISK is VERY_HIGH_RISK. */
      thresholds: z
        .object({
          LOW_RISK: score('LOW_RISK'),
          MEDIUM_RISK: score('MEDIUM_RISK'),
          HIGH_RISK: score('HIGH_RISK'),
        })
        .refine((t) => t.LOW_RISK > t.MEDIUM_RISK && t.MEDIUM_RISK > t.HIGH_RISK, {
          message: 'thresholds must be strictly descending: LOW_RISK > MEDIUM_RISK > HIGH_RISK',
        }),
      actions: z.object({
        LOW_RISK: BandAction,
        MEDIUM_RISK: BandAction,
        HIGH_RISK: BandAction,
        VERY_HIGH_RISK: BandAction,
      }),
    }),
    affordability: z.object({
      /** All monthly repayments, the new one included, over verified monthly income. */
      maxDebtServiceRatio: z
        .number({ error: 'maxDebtServiceRatio must be a number' })
        .min(0.05, 'maxDebtServiceRatio must be between 0.05 and 0.80')
        .max(0.8, 'maxDebtServiceRatio must be between 0.05 and 0.80'),
      /** Tenors, in months, assessed and counter-offered. */
      tenors: z
        .array(
          z
            .number({ error: 'tenors must be whole months' })
            .int('tenors must be whole months')
            .min(1, 'tenors must be between 1 and 60 months')
            .max(60, 'tenors must be between 1 and 60 months'),
        )
        .min(1, 'tenors must not be empty')
        .max(60)
        .refine((tenors) => new Set(tenors).size === tenors.length, { message: 'tenors must not repeat' }),
      counterOffers: z.object({
        enabled: z.boolean(),
        /** A smaller amount is offered only at least this share of the ask (0-1)... */
        minShareOfAsk: z
          .number()
          .min(0, 'minShareOfAsk must be between 0 and 1')
          .max(1, 'minShareOfAsk must be between 0 and 1'),
        /** ...and at least this many Naira. */
        minAmount: naira('minAmount'),
      }),
    }),
    loanLimits: z
      .object({
        /** An ask below this is declined. */
        minAmount: naira('minAmount'),
        /** The most lent; null: no limit. */
        maxAmount: naira('maxAmount').positive('maxAmount must be positive').nullable(),
        /** The most lent as a multiple of verified monthly income; null: no limit. */
        maxIncomeMultiple: z.number().positive('maxIncomeMultiple must be positive').max(1000).nullable(),
      })
      .refine((limits) => limits.maxAmount === null || limits.minAmount <= limits.maxAmount, {
        path: ['minAmount'],
        message: 'minAmount must not exceed maxAmount',
      }),
    dataRules: z.object({
      thinFile: DataAction,
      bureauUnavailable: BureauUnavailableAction,
      identityMismatch: DataAction,
    }),
    /** Fees and instalment dates its offers disclose (Key Facts Statement); none: no fees, pay-date instalments. */
    disclosure: DisclosureTerms.optional(),
    /** How long its offers stand and their cooling-off after acceptance; none: 7 days, 3 working days. */
    offer: OfferTerms.optional(),
    knockOuts: z
      .array(KnockOutRule)
      .max(50, 'at most 50 knock-out rules')
      // Runs even when a rule is bad in another way, so that every problem is named at once.
      .check(z.superRefine(uniqueCodes, { when: (payload) => Array.isArray(payload.value) })),
  })
  .strict();
export type CreditPolicy = z.infer<typeof CreditPolicy>;

/**
 * The built-in policy: the rules compiled into scoring before lenders had policies of their
 * own, exactly. Version 0 of every lender, active until it activates one of its own.
 */
export const BUILTIN_POLICY: CreditPolicy = Object.freeze({
  name: 'Built-in policy',
  bands: {
    thresholds: { LOW_RISK: 85, MEDIUM_RISK: 70, HIGH_RISK: 55 },
    actions: { LOW_RISK: 'APPROVE', MEDIUM_RISK: 'APPROVE', HIGH_RISK: 'REVIEW', VERY_HIGH_RISK: 'DECLINE' },
  },
  affordability: {
    maxDebtServiceRatio: 1 / 3,
    tenors: [3, 6, 9, 12, 18, 24, 36],
    counterOffers: { enabled: true, minShareOfAsk: 0.2, minAmount: 10_000 },
  },
  loanLimits: { minAmount: 0, maxAmount: null, maxIncomeMultiple: null },
  dataRules: { thinFile: 'REVIEW', bureauUnavailable: 'REVIEW', identityMismatch: 'REVIEW' },
  knockOuts: [],
}) as CreditPolicy;

/** The version number of the built-in policy. */
export const BUILTIN_POLICY_VERSION = 0;

/** Lifecycle of a stored policy version. */
export const PolicyStatus = z.enum(['DRAFT', 'ACTIVE', 'RETIRED']);
export type PolicyStatus = z.infer<typeof PolicyStatus>;

/** One version of a lender's policy as the API shows it. */
export const PolicyVersionView = z.object({
  version: z.number().int().min(0),
  status: PolicyStatus,
  /** True for version 0, the built-in policy. */
  builtin: z.boolean(),
  challenger: z.boolean(),
  createdAt: z.string().nullable(),
  activatedAt: z.string().nullable(),
  policy: CreditPolicy,
});
export type PolicyVersionView = z.infer<typeof PolicyVersionView>;

export const SimulateRequest = z
  .object({
    limit: z
      .number({ error: 'limit must be a number' })
      .int('limit must be a whole number')
      .min(1, 'limit must be between 1 and 5000')
      .max(5000, 'limit must be between 1 and 5000')
      .default(500),
    /**
     * A shock to replay the approvals under: income deflated by a CPI figure (the year's
     * inflation, in %), and naira-denominated expenses up by a percentage.
     */
    stress: z
      .strictObject({
        cpiPercent: z
          .number({ error: 'stress.cpiPercent must be a number' })
          .min(0, 'stress.cpiPercent must be between 0 and 500')
          .max(500, 'stress.cpiPercent must be between 0 and 500')
          .default(0),
        expenseIncreasePercent: z
          .number({ error: 'stress.expenseIncreasePercent must be a number' })
          .min(0, 'stress.expenseIncreasePercent must be between 0 and 500')
          .max(500, 'stress.expenseIncreasePercent must be between 0 and 500')
          .default(0),
      })
      .optional(),
  })
  .strict();
export type SimulateRequest = z.infer<typeof SimulateRequest>;

/** Observed bad rate of past loans: the count it is of, and null with a note when too few. */
const ObservedRate = z.object({
  loans: z.number().int(),
  bad: z.number().int(),
  badRate: z.number().nullable(),
  note: z.string().nullable(),
});

/** The replay measured against the outcomes the lender reported of the same applications. */
export const BacktestResult = z.object({
  /** Replayed applications that became loans with reported outcomes. */
  withOutcomes: z.number().int(),
  /** Loans both versions grant: their observed bad rate. */
  bothApproved: ObservedRate,
  /** Loans the simulated version would not grant: the bad loans it would have avoided, and the good ones lost. */
  draftWouldDecline: ObservedRate,
  /** What a back-test cannot know, in words. */
  limits: z.array(z.string()),
});

/** Approvals of the simulated version replayed under a shock. */
export const StressResult = z.object({
  cpiPercent: z.number(),
  expenseIncreasePercent: z.number(),
  /** Applications the simulated version approves or counter-offers. */
  approvals: z.number().int(),
  /** Of those, how many no longer pass affordability under the shock, and why. */
  failing: z.number().int(),
  failingShare: z.number().nullable(),
  overDebtServiceCap: z.number().int(),
  expensesExceedIncome: z.number().int(),
});

/** How many decisions of each outcome. */
export const OutcomeCounts = z.object({
  APPROVED: z.number().int(),
  COUNTER_OFFER: z.number().int(),
  MANUAL_REVIEW: z.number().int(),
  DECLINED: z.number().int(),
});
export type OutcomeCounts = z.infer<typeof OutcomeCounts>;

/** A policy version replayed on the lender's latest decided analyses, against the active one. */
export const SimulationResult = z.object({
  /** Analyses replayed (those decided since the ask was kept with the analysis). */
  evaluated: z.number().int(),
  /** Outcomes under the active version. */
  current: OutcomeCounts,
  /** Outcomes under the simulated version. */
  draft: OutcomeCounts,
  /** Naira lent (approved or counter-offered) under each. */
  approvedAmount: z.object({ current: z.number(), draft: z.number() }),
  /** The analyses whose outcome the simulated version changes. */
  changed: z.array(
    z.object({
      applicationId: z.string(),
      from: DecisionOutcome,
      to: DecisionOutcome,
      /** Why the simulated version decides as it does: review codes, or the decline reason. */
      reasons: z.array(z.string()),
    }),
  ),
  /** Against the reported outcomes (absent when none was reported for any replayed application). */
  backtest: BacktestResult.optional(),
  /** Under the shock asked for. */
  stress: StressResult.optional(),
});
export type SimulationResult = z.infer<typeof SimulationResult>;

/** `GET /api/policies`. */
export const PolicyList = z.object({
  active: PolicyVersionView,
  challenger: PolicyVersionView.nullable(),
  versions: z.array(PolicyVersionView),
});
export type PolicyList = z.infer<typeof PolicyList>;

/** `POST /api/policies`: the new version, a draft. */
export const PolicyCreated = z.object({
  version: z.number().int().min(1),
  status: z.literal('DRAFT'),
  policy: CreditPolicy,
});
export type PolicyCreated = z.infer<typeof PolicyCreated>;

/** `GET /api/policies/challenger/report`: the challenger against the active version since it was set. */
export const ChallengerReport = z.object({
  challenger: z.object({ version: z.number().int(), since: z.string() }),
  /** Decisions made since the challenger was set (the latest 5,000 at most). */
  evaluated: z.number().int(),
  /** Of them, those the challenger would have decided the same way. */
  agreed: z.number().int(),
  /** Counts by the active version's outcome, then the challenger's. */
  matrix: z.record(z.string(), z.record(z.string(), z.number().int())),
  disagreements: z.array(
    z.object({
      applicationId: z.string(),
      decidedAt: z.string().nullable(),
      active: z.object({ version: z.number().int(), decision: DecisionOutcome }),
      challenger: z.object({ version: z.number().int(), decision: DecisionOutcome, reasons: z.array(z.string()) }),
    }),
  ),
});
export type ChallengerReport = z.infer<typeof ChallengerReport>;

/** Problems of a request body, every one named by its field: `field: message`. */
export function policyProblems(error: z.ZodError): string[] {
  const problems = error.issues.map((issue) => {
    const field = issue.path.join('.');
    return field ? `${field}: ${issue.message}` : issue.message;
  });
  return [...new Set(problems)];
}
