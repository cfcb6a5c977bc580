import { z } from 'zod';
import { SealedSecret } from './commands';
import { ConsentEndReason } from './consent';
import { Decision } from './decision';
import { EnrichedAccount } from './enrichment';
import { AbandonReason, ApplicationStatus, IsoTimestamp, LoanTerms, Uuid } from './primitives';
import { ReviewOutcome } from './review';

/**
 * A provider webhook, verified by the gateway and passed on as a fact. `ref` is what we gave
 * the provider as `meta.ref` when starting the link: the application id.
 */
export const ProviderCallback = z.object({
  /** The provider's event id when it sends one, else a digest of the body: for deduplication. */
  callbackId: z.string(),
  kind: z.enum([
    'account_connected',
    'account_updated',
    'account_reauthorized',
    'income_ready',
    'statement_insights_ready',
    'other',
  ]),
  providerEvent: z.string(),
  providerAccountId: z.string(),
  ref: z.string().nullable(),
  /**
   * The client whose own provider webhook secret verified this callback
   * (`/provider/webhooks/mono/<clientId>`): only that client's applications and accounts may be
   * touched by it. Absent when the deployment-wide secret verified it.
   */
  clientId: z.string().nullish(),
  receivedAt: IsoTimestamp,
  /**
   * Ids of the provider's `data` object only (`id`, `meta.ref`): never the account data it
   * carries, which the enrichment service fetches from the provider itself.
   */
  payload: z.record(z.string(), z.unknown()),
});
export type ProviderCallback = z.infer<typeof ProviderCallback>;

/** Current state of a client account, keyed by clientId on a compacted topic. */
export const ClientChanged = z.object({
  clientId: z.string(),
  name: z.string(),
  webhookUrl: z.string().nullable(),
  /** Secrets that sign webhooks, newest first; the older ones stay valid until `validUntil`. */
  webhookSecrets: z.array(z.object({ secret: SealedSecret, validUntil: IsoTimestamp.nullable() })),
  providerSecretKey: SealedSecret.nullable(),
  version: z.number().int(),
  changedAt: IsoTimestamp,
  /** Years an ended application's records are kept (absent from changes before it was a setting: 5). */
  recordRetentionYears: z.number().int().optional(),
});
export type ClientChanged = z.infer<typeof ClientChanged>;

const factBase = {
  factId: Uuid,
  clientId: z.string(),
  applicationId: Uuid,
  at: IsoTimestamp,
};

/** Facts the applications service publishes for the other services (past tense). */
export const ApplicationFact = z.discriminatedUnion('type', [
  z.object({ ...factBase, type: z.literal('ApplicationOpened'), applicantId: Uuid }),
  z.object({
    ...factBase,
    type: z.literal('AccountLinked'),
    applicantId: Uuid,
    accountId: Uuid,
    providerAccountId: z.string(),
    institution: z.string(),
    accountNumber: z.string(),
    providerKey: SealedSecret,
    /**
     * The consent given at linking, for the janitor to time its expiry and its lapse: the lapse
     * moves to `idleLapseMs` after the account's first enrichment (its `at`), never past the
     * expiry. Absent from facts written before it travelled here (a `ConsentRecorded` did).
     */
    consent: z
      .object({
        consentId: Uuid,
        givenAt: IsoTimestamp,
        expiresAt: IsoTimestamp,
        lapsesAt: IsoTimestamp,
        idleLapseMs: z.number().int().positive(),
      })
      .optional(),
  }),
  z.object({
    ...factBase,
    type: z.literal('EnrichmentRestartRequested'),
    applicantId: Uuid,
    accountId: Uuid,
    providerAccountId: z.string(),
    providerKey: SealedSecret,
  }),
  z.object({ ...factBase, type: z.literal('LinkingFinalized'), applicantId: Uuid }),
  z.object({
    ...factBase,
    type: z.literal('AnalysisRequested'),
    applicantId: Uuid,
    analysisId: Uuid,
    /** Sealed, each of them: the applicant's identity never travels in plain text. */
    applicant: z.object({
      /** Sealed (records written before names were sealed carry them plain). */
      firstName: z.string(),
      /** Sealed (records written before names were sealed carry them plain). */
      lastName: z.string(),
      bvn: SealedSecret.nullable(),
    }),
    loan: LoanTerms,
    accountIds: z.array(Uuid),
  }),
  z.object({
    ...factBase,
    type: z.literal('ApplicationClosed'),
    applicantId: Uuid,
    status: ApplicationStatus,
    /** Set when the application was abandoned: `no_analyze` means its bank data must go. */
    abandonReason: AbandonReason.nullable(),
    /** Until when its records are kept (the lender's retention from `at`); absent from facts before retention. */
    retainedUntil: IsoTimestamp.optional(),
    /** Its linked accounts, whose pending work stops (no lookup needed); absent from facts before they travelled here. */
    accountIds: z.array(Uuid).optional(),
  }),
  z.object({ ...factBase, type: z.literal('ApplicationResumed'), applicantId: Uuid }),
  /** A review became final: the terms it granted are what a loan's outcomes are measured against. */
  z.object({
    ...factBase,
    type: z.literal('DecisionReviewed'),
    applicantId: Uuid,
    outcome: ReviewOutcome,
    /** Naira, months, % a month; null for DECLINED. */
    terms: z.object({ amount: z.number(), tenor: z.number().int(), interestRate: z.number() }).nullable(),
    reviewedAt: IsoTimestamp,
  }),
  /** The applicant answered the offer (through the lender): no loan is disbursed before ACCEPTED. */
  z.object({
    ...factBase,
    type: z.literal('OfferAnswered'),
    applicantId: Uuid,
    response: z.enum(['ACCEPTED', 'DECLINED', 'WITHDRAWN']),
    answeredAt: IsoTimestamp,
  }),
  /**
   * An account's consent as it stands: given at linking, used again by its enrichment. Written
   * by earlier versions only (the consent now travels on `AccountLinked`, its use is the
   * enrichment's `AccountEnriched`); the janitor still times expiry and lapse from it.
   */
  z.object({
    ...factBase,
    type: z.literal('ConsentRecorded'),
    accountId: Uuid,
    consentId: Uuid,
    givenAt: IsoTimestamp,
    expiresAt: IsoTimestamp,
    lastUsedAt: IsoTimestamp,
    lapsesAt: IsoTimestamp,
  }),
  /** An account's consent ended: nothing more is fetched, the account is unlinked at the provider and its bank data erased. */
  z.object({
    ...factBase,
    type: z.literal('ConsentEnded'),
    accountId: Uuid,
    consentId: Uuid,
    reason: ConsentEndReason,
    endedAt: IsoTimestamp,
  }),
  /**
   * An offer was made (a decision or a final review granting terms): it stands until
   * `expiresAt`, fixed from the policy version of the decision, for the janitor to watch.
   */
  z.object({
    ...factBase,
    type: z.literal('OfferMade'),
    applicantId: Uuid,
    madeAt: IsoTimestamp,
    expiresAt: IsoTimestamp,
  }),
]);
export type ApplicationFact = z.infer<typeof ApplicationFact>;
export type ApplicationFactType = ApplicationFact['type'];

/** What the enrichment service reports about an account. */
export const EnrichmentResult = z.discriminatedUnion('type', [
  z.object({
    ...factBase,
    type: z.literal('AccountEnriched'),
    applicantId: Uuid,
    accountId: Uuid,
    providerAccountId: z.string(),
    /** Incremented on every restart, so a stale result is recognised. */
    attempt: z.number().int(),
    profile: EnrichedAccount,
  }),
  z.object({
    ...factBase,
    type: z.literal('EnrichmentTimedOut'),
    applicantId: Uuid,
    accountId: Uuid,
    providerAccountId: z.string(),
    attempt: z.number().int(),
  }),
  z.object({
    ...factBase,
    type: z.literal('BankDataScrubbed'),
    accountIds: z.array(Uuid),
    /** Set when the end of one account's consent caused the scrub: that account, unlinked at the provider. */
    consent: z.object({ accountId: Uuid, consentId: Uuid, unlinkedAt: IsoTimestamp }).optional(),
  }),
]);
export type EnrichmentResult = z.infer<typeof EnrichmentResult>;
export type EnrichmentResultType = EnrichmentResult['type'];

/** What the scoring service reports about an analysis. */
export const ScoringResult = z.discriminatedUnion('type', [
  z.object({
    ...factBase,
    type: z.literal('ApplicationScored'),
    applicantId: Uuid,
    analysisId: Uuid,
    decision: Decision,
    /**
     * Room under the debt service cap for the new monthly payment, in Naira: what a reviewer's
     * terms are checked against. Absent from results written before reviews.
     */
    repaymentCapacity: z.number().optional(),
  }),
  z.object({
    ...factBase,
    type: z.literal('ScoringFailed'),
    applicantId: Uuid,
    analysisId: Uuid,
    reason: z.string(),
  }),
]);
export type ScoringResult = z.infer<typeof ScoringResult>;

/** The kinds of deadline the janitor watches (spec section 8). */
export const DeadlineKind = z.enum([
  'no_link',
  'no_analyze',
  'enrichment_timeout',
  'analysis_timeout',
  'bank_data_retention',
  'consent_expiry',
  'consent_lapse',
  'offer_expiry',
  'record_retention',
]);
export type DeadlineKind = z.infer<typeof DeadlineKind>;

/** A deadline passed: the owner checks its own state and acts (or ignores a stale one). */
export const DeadlinePassed = z.object({
  deadlineId: z.string(),
  kind: DeadlineKind,
  clientId: z.string(),
  applicationId: Uuid,
  accountId: Uuid.nullable(),
  /** For enrichment timeouts: the enrichment attempt the deadline was set for. */
  attempt: z.number().int().nullable(),
  /** When the period started (creation or resume, first link, enrichment start, the offer made). */
  since: IsoTimestamp,
  dueAt: IsoTimestamp,
  firedAt: IsoTimestamp,
});
export type DeadlinePassed = z.infer<typeof DeadlinePassed>;
