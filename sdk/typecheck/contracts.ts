/**
 * The package's types must be the service's contracts. Nothing here runs: `tsc -b` compiles it
 * and fails, naming the type, when a type of `sdk/src/types.ts` and its zod schema in
 * `libs/contracts` part ways (a field added, removed, renamed, made optional or retyped).
 */
import type * as contracts from '@loan/contracts';
import type { z } from 'zod';
import type * as sdk from '../src/types';

/** Exactly the same type: assignable both ways and the same keys at every level. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? SameKeys<A, B> : false) : false;
type SameKeys<A, B> = [A] extends [readonly (infer X)[]]
  ? [B] extends [readonly (infer Y)[]]
    ? Same<X, Y>
    : false
  : [A] extends [object]
    ? [B] extends [object]
      ? [keyof A] extends [keyof B]
        ? [keyof B] extends [keyof A]
          ? false extends { [K in keyof A & keyof B]: Same<NonNullable<A[K]>, NonNullable<B[K]>> }[keyof A & keyof B]
            ? false
            : true
          : false
        : false
      : false
    : true;

/**
 * A request the package sends is one the service accepts: the same fields, and every value of
 * the package's type valid input of the schema (whose input may be looser, e.g. coerced).
 */
type Accepted<Sdk, Input> = [Sdk] extends [Input]
  ? [keyof Sdk] extends [keyof Input]
    ? [keyof Input] extends [keyof Sdk]
      ? true
      : false
    : false
  : false;

/** Compiles only when `T` is `true`. */
type Holds<T extends true> = T;

export type Checks = [
  Holds<Same<sdk.ApplicationStatus, contracts.ApplicationStatus>>,
  Holds<Same<sdk.EnrichmentStatus, contracts.EnrichmentStatus>>,
  Holds<Same<sdk.AbandonReason, contracts.AbandonReason>>,
  Holds<Same<sdk.InitiateRequest, contracts.InitiateRequest>>,
  Holds<Same<sdk.InitiateResponse, contracts.InitiateResponse>>,
  Holds<Same<sdk.FinalizeLinkingResponse, z.infer<typeof contracts.FinalizeLinkingResponse>>>,
  Holds<Same<sdk.AnalyzeResponse, z.infer<typeof contracts.AnalyzeResponse>>>,
  Holds<Same<sdk.LinkAccountRequest, z.infer<typeof contracts.LinkAccountRequest>>>,
  Holds<Same<sdk.LinkAccountResponse, contracts.LinkAccountResponse>>,
  Holds<Same<sdk.AccountView, z.infer<typeof contracts.AccountView>>>,
  Holds<Same<sdk.MonthlyFlow, contracts.MonthlyFlow>>,
  Holds<Same<sdk.ApplicationView, contracts.ApplicationView>>,
  Holds<Same<sdk.Decision, contracts.Decision>>,
  Holds<Same<sdk.DecisionOutcome, contracts.DecisionOutcome>>,
  Holds<Same<sdk.ScoreBand, contracts.ScoreBand>>,
  Holds<Same<sdk.RiskFactor, contracts.RiskFactor>>,
  Holds<Same<sdk.CounterOffer, contracts.CounterOffer>>,
  Holds<Same<sdk.ErrorBody, contracts.ErrorBody>>,
  Holds<Same<sdk.EventName, contracts.EventName>>,
  Holds<Same<sdk.WebhookEvent, contracts.WebhookEnvelope>>,
  Holds<Same<sdk.EventDataMap['account.linked'], contracts.EventDataOf<'account.linked'>>>,
  Holds<Same<sdk.EventDataMap['account.enrichment_ready'], contracts.EventDataOf<'account.enrichment_ready'>>>,
  Holds<
    Same<sdk.EventDataMap['application.ready_for_analysis'], contracts.EventDataOf<'application.ready_for_analysis'>>
  >,
  Holds<Same<sdk.EventDataMap['account.enrichment_failed'], contracts.EventDataOf<'account.enrichment_failed'>>>,
  Holds<Same<sdk.EventDataMap['application.failed'], contracts.EventDataOf<'application.failed'>>>,
  Holds<Same<sdk.EventDataMap['application.abandoned'], contracts.EventDataOf<'application.abandoned'>>>,
  Holds<Same<sdk.EventDataMap['application.decision'], contracts.EventDataOf<'application.decision'>>>,
  Holds<Same<sdk.EventDataMap['application.review_completed'], contracts.EventDataOf<'application.review_completed'>>>,
  Holds<Same<sdk.ReviewOutcome, contracts.ReviewOutcome>>,
  Holds<Same<sdk.ReviewStatus, contracts.ReviewStatus>>,
  Holds<Same<sdk.ReviewView, contracts.ReviewView>>,
  Holds<Accepted<sdk.ReviewRequest, z.input<typeof contracts.ReviewRequest>>>,
  Holds<Accepted<sdk.ConfirmReviewRequest, z.input<typeof contracts.ConfirmReviewRequest>>>,
  Holds<Accepted<sdk.ReviewListQuery, contracts.ReviewListQuery>>,
  Holds<Same<sdk.ReviewQueueItem, contracts.ReviewQueueItem>>,
  Holds<Accepted<sdk.ContestRequest, z.input<typeof contracts.ContestRequest>>>,
  Holds<Same<sdk.ContestView, contracts.ContestView>>,
  Holds<Same<sdk.ContestAvailability, contracts.ContestAvailability>>,
  Holds<Same<sdk.OfferView, contracts.OfferView>>,
  Holds<Accepted<sdk.OfferResponseRequest, z.input<typeof contracts.OfferResponseRequest>>>,
  Holds<Same<sdk.EventDataMap['application.offer_accepted'], contracts.EventDataOf<'application.offer_accepted'>>>,
  Holds<Same<sdk.EventDataMap['application.offer_declined'], contracts.EventDataOf<'application.offer_declined'>>>,
  Holds<Same<sdk.EventDataMap['application.offer_withdrawn'], contracts.EventDataOf<'application.offer_withdrawn'>>>,
  Holds<Same<sdk.EventDataMap['account.consent_ended'], contracts.EventDataOf<'account.consent_ended'>>>,
  Holds<Same<sdk.EventDataMap['account.data_erased'], contracts.EventDataOf<'account.data_erased'>>>,
  Holds<Same<sdk.ConsentView, contracts.ConsentView>>,
  Holds<Same<sdk.EventDataMap['application.offer_expired'], contracts.EventDataOf<'application.offer_expired'>>>,
  Holds<Same<sdk.OfferTerms, contracts.OfferTerms>>,
  Holds<Same<sdk.ReviewPage, contracts.ReviewPage>>,
  Holds<Same<sdk.DeliveryStatus, contracts.DeliveryStatus>>,
  Holds<Accepted<sdk.DeliveryListQuery, contracts.DeliveryListQuery>>,
  Holds<Same<sdk.DeliveryAttempt, z.infer<typeof contracts.DeliveryAttempt>>>,
  Holds<Same<sdk.DeliveryView, contracts.DeliveryView>>,
  Holds<Same<sdk.DeliveryPage, contracts.DeliveryPage>>,
  Holds<Accepted<sdk.ReplayRequest, contracts.ReplayRequest>>,
  Holds<Same<sdk.ReplayResult, contracts.ReplayResult>>,
  Holds<Accepted<sdk.ApplicationListQuery, contracts.ApplicationListQuery>>,
  Holds<Same<sdk.ApplicationSummary, contracts.ApplicationSummary>>,
  Holds<Same<sdk.ApplicationPage, contracts.ApplicationPage>>,
  Holds<Same<sdk.ClientSettings, contracts.ClientSettings>>,
  Holds<Accepted<sdk.PortfolioQuery, contracts.PortfolioQuery>>,
  Holds<Same<sdk.PortfolioReport, contracts.PortfolioReport>>,
  Holds<Accepted<sdk.UpdateClientSettingsRequest, z.input<typeof contracts.UpdateClientSettingsRequest>>>,
  Holds<Same<sdk.RotateKeyResponse, z.infer<typeof contracts.RotateKeyResponse>>>,
  Holds<Same<sdk.StaffUser, contracts.StaffUser>>,
  Holds<Same<sdk.StaffInvitation, contracts.StaffInvitation>>,
  Holds<Same<sdk.StaffRole, contracts.StaffRole>>,
  Holds<Accepted<sdk.InviteUserRequest, z.input<typeof contracts.InviteUserRequest>>>,
  Holds<Accepted<sdk.RotateWebhookSecretRequest, z.input<typeof contracts.RotateWebhookSecretBody>>>,
  Holds<Same<sdk.RotateWebhookSecretResponse, z.infer<typeof contracts.RotateWebhookSecretResponse>>>,
  Holds<Same<sdk.CreditPolicy, contracts.CreditPolicy>>,
  Holds<Same<sdk.KnockOutRule, contracts.KnockOutRule>>,
  Holds<Same<sdk.PolicyVersionView, contracts.PolicyVersionView>>,
  Holds<Same<sdk.PolicyList, contracts.PolicyList>>,
  Holds<Same<sdk.PolicyCreated, contracts.PolicyCreated>>,
  Holds<Accepted<sdk.SimulateRequest, z.input<typeof contracts.SimulateRequest>>>,
  Holds<Same<sdk.SimulationResult, contracts.SimulationResult>>,
  Holds<Same<sdk.ChallengerReport, contracts.ChallengerReport>>,
  Holds<Accepted<sdk.OutcomeReport, z.input<typeof contracts.OutcomeReport>>>,
  Holds<Accepted<sdk.OutcomeRow, z.input<typeof contracts.OutcomeRow>>>,
  Holds<Same<sdk.OutcomeAnswer, z.infer<typeof contracts.OutcomeAnswer>>>,
  Holds<Same<sdk.LoanOutcomes, z.infer<typeof contracts.LoanOutcomes>>>,
  Holds<Same<sdk.BulkOutcomeResult, z.infer<typeof contracts.BulkOutcomeResult>>>,
  Holds<Same<sdk.PerformanceSettings, contracts.PerformanceSettings>>,
  Holds<Same<sdk.PerformanceReport, contracts.PerformanceReportView>>,
];
