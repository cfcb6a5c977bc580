import { z } from 'zod';
import { InitiateRequest, storedName } from './api';
import { ApplicationStatus, IsoTimestamp, Uuid } from './primitives';
import { ReviewQueueStatus, ReviewRequest } from './review';
import { DecisionOutcome } from './decision';

/**
 * A secret sealed with the platform's data key (AES-256-GCM), as it travels on Kafka and sits
 * in the databases: never the plain text.
 */
export const SealedSecret = z.string().regex(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);

const commandBase = {
  /** Unique per HTTP request; the reply carries it back. */
  commandId: Uuid,
  /** Reply topic of the gateway instance that waits for the answer. */
  replyTo: z.string(),
  clientId: z.string(),
  correlationId: z.string(),
  issuedAt: IsoTimestamp,
};

/** Who applies: the personal part of an initiate request, which travels only sealed. */
export const ApplicantDetails = InitiateRequest.pick({
  firstName: true,
  lastName: true,
  email: true,
  phone: true,
  bvn: true,
});
export type ApplicantDetails = z.infer<typeof ApplicantDetails>;

/**
 * The initiate request without the applicant's identity. The identity fields stay in the
 * schema, optional, so that commands written before they were sealed are still read.
 */
export const InitiateTerms = InitiateRequest.extend({
  firstName: storedName('firstName'),
  lastName: storedName('lastName'),
}).partial({ firstName: true, lastName: true, email: true });
export type InitiateTerms = z.infer<typeof InitiateTerms>;

/** Commands the gateway sends to the applications service (imperative names). */
export const ApplicationCommand = z.discriminatedUnion('type', [
  z.object({
    ...commandBase,
    type: z.literal('InitiateApplication'),
    request: InitiateTerms,
    /** The applicant's {@link ApplicantDetails} as JSON, sealed by the gateway. */
    applicant: SealedSecret.optional(),
    providerKey: SealedSecret,
    /** The lender's name, which the provider's widget shows the applicant (absent in older commands). */
    lenderName: z.string().max(200).optional(),
  }),
  z.object({ ...commandBase, type: z.literal('FinalizeLinking'), applicationId: Uuid }),
  z.object({ ...commandBase, type: z.literal('AnalyzeApplication'), applicationId: Uuid }),
  z.object({
    ...commandBase,
    type: z.literal('RelinkAccount'),
    applicationId: Uuid,
    accountId: Uuid.nullable(),
    /** Null when the client has none: the application is checked first, then that is the answer. */
    providerKey: SealedSecret.nullable(),
    /** The lender's name, which the provider's widget shows the applicant (absent in older commands). */
    lenderName: z.string().max(200).optional(),
  }),
  z.object({ ...commandBase, type: z.literal('GetApplication'), applicationId: Uuid }),
  z.object({
    ...commandBase,
    type: z.literal('ListApplications'),
    /** Only these statuses; empty for every status. */
    statuses: z.array(ApplicationStatus),
    /** An applicationId or applicantId to match exactly, lower case. */
    q: z.string().nullable(),
    /**
     * Who applied, as blind indexes only (see `searchTextTerms`): the application must have,
     * for every inner list, one of its indexes. Absent or empty for no such search.
     */
    search: z
      .array(z.array(z.string().max(64)).min(1).max(8))
      .max(8)
      .optional(),
    /** Only applications decided with one of these outcomes; absent or empty for any. */
    decisions: z.array(DecisionOutcome).optional(),
    /** Only applications created at or after this instant. */
    createdFrom: IsoTimestamp.optional(),
    /** Only applications created before this instant. */
    createdBefore: IsoTimestamp.optional(),
    limit: z.number().int().min(1).max(100),
    /** Where the previous page ended: its last application. Null for the first page. */
    after: z.object({ createdAt: IsoTimestamp, applicationId: z.string() }).nullable(),
  }),
  z.object({
    ...commandBase,
    type: z.literal('ReviewApplication'),
    applicationId: Uuid,
    /** The review without who made it and why in words, which travel sealed below. */
    review: ReviewRequest.omit({ reviewer: true, note: true }),
    /** The reviewer's staff id, sealed: it may be a person's e-mail address. */
    reviewer: SealedSecret,
    /** The reviewer's note, sealed: it may name the applicant. */
    note: SealedSecret.nullable(),
    /**
     * The lender's maker-checker threshold when the review was made: a review granting more
     * Naira than this awaits a second reviewer's confirmation. Null: every review is final at once.
     */
    confirmationAbove: z.number().nullable(),
  }),
  z.object({
    ...commandBase,
    type: z.literal('ContestDecision'),
    applicationId: Uuid,
    /** The applicant's statement, sealed: their own words about themselves. */
    statement: SealedSecret,
  }),
  z.object({
    ...commandBase,
    type: z.literal('RespondToOffer'),
    applicationId: Uuid,
    response: z.enum(['ACCEPTED', 'DECLINED', 'WITHDRAWN']),
  }),
  /** The applicant withdraws consent to read one linked account (through the lender). */
  z.object({
    ...commandBase,
    type: z.literal('WithdrawConsent'),
    applicationId: Uuid,
    accountId: Uuid,
  }),
  z.object({
    ...commandBase,
    type: z.literal('ConfirmReview'),
    applicationId: Uuid,
    /** The second reviewer's staff id, sealed; not the one who made the review. */
    reviewer: SealedSecret,
  }),
  z.object({
    ...commandBase,
    type: z.literal('GetPortfolio'),
    /** The first and last day of the period, both included (`YYYY-MM-DD`)... */
    from: z.iso.date(),
    to: z.iso.date(),
    /**
     * ...in the lender's time zone, whose calendar days the report counts by: one of
     * `TIME_ZONES`, checked by the gateway (a string here, so the topic's schema never narrows).
     */
    timeZone: z.string().max(64),
  }),
  z.object({
    ...commandBase,
    type: z.literal('ListReviews'),
    status: ReviewQueueStatus,
    limit: z.number().int().min(1).max(100),
    /** Where the previous page ended: its last application, by decision time. Null for the first page. */
    after: z.object({ decidedAt: IsoTimestamp, applicationId: z.string() }).nullable(),
  }),
]);
export type ApplicationCommand = z.infer<typeof ApplicationCommand>;
export type ApplicationCommandType = ApplicationCommand['type'];

/**
 * Expected failures of a command, mapped to HTTP statuses only at the edge (gateway).
 */
export const CommandErrorCode = z.enum([
  'INVALID_STATE',
  'NOT_FOUND',
  'KEY_OWNED_BY_OTHER_CLIENT',
  'KEY_IN_USE',
  'NO_ACCOUNTS',
  'PROVIDER_UNAVAILABLE',
  'PROVIDER_KEY_MISSING',
  /** A review whose content breaks a rule (terms for a decline, terms beyond capacity without an override...). */
  'INVALID_REVIEW',
  /** The request conflicts with a review under way (another review, or its own maker confirming it). */
  'REVIEW_CONFLICT',
]);

/** The answer when a client account has no provider key to start the widget with. */
export const PROVIDER_KEY_MISSING_MESSAGE =
  'Account-linking provider API key is not configured on this account; set providerSecretKey on the client account';
export type CommandErrorCode = z.infer<typeof CommandErrorCode>;

export const CommandReply = z.discriminatedUnion('ok', [
  z.object({
    commandId: Uuid,
    ok: z.literal(true),
    /** Empty when the result travels sealed. */
    result: z.record(z.string(), z.unknown()),
    /** The result as JSON, sealed: results name the applicant. */
    sealedResult: SealedSecret.optional(),
  }),
  z.object({
    commandId: Uuid,
    ok: z.literal(false),
    code: CommandErrorCode,
    message: z.string(),
  }),
]);
export type CommandReply = z.infer<typeof CommandReply>;
