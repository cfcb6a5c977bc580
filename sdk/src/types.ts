/**
 * The shapes of the lender API, as the gateway accepts and answers them. They mirror the
 * service's contracts (`libs/contracts`) field for field; a type check in `sdk/typecheck/`
 * fails the build when the two part ways, so the published package needs no runtime
 * dependency and no schema library.
 */

/** Lifecycle of a loan application. COMPLETED, FAILED and ABANDONED are terminal for re-linking. */
export type ApplicationStatus = 'PENDING_LINKING' | 'LINKED' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'ABANDONED';

/** Enrichment status of one linked account. */
export type EnrichmentStatus = 'PENDING' | 'READY' | 'FAILED';

/** Why an inactive application was abandoned: nothing linked in 24 h, or no analyze in 7 days. */
export type AbandonReason = 'no_link' | 'no_analyze';

/** Body of `POST /api/applications/initiate`. Amounts are whole Naira, the rate % a month. */
export interface InitiateRequest {
  firstName: string;
  lastName: string;
  email: string;
  /** 10 to 15 characters. */
  phone?: string;
  /** Bank Verification Number, 11 digits; enables a credit-bureau lookup. */
  bvn?: string;
  amount: number;
  /** Months, a positive integer. */
  tenor: number;
  /** Monthly interest rate in percent (5 means 5%). */
  interestRate: number;
  purpose?: string;
  /** Unique per application; the same key resumes instead of duplicating. */
  idempotencyKey: string;
}

export interface InitiateResponse {
  applicationId: string;
  applicantId: string;
  /** The account-linking widget, for the applicant's browser. */
  widgetUrl: string;
  status: 'PENDING_LINKING';
  /** True when the key matched a PENDING_LINKING or ABANDONED application that was resumed. */
  resumed: boolean;
}

export interface FinalizeLinkingResponse {
  applicationId: string;
  status: 'LINKED';
  message: string;
}

export interface AnalyzeResponse {
  applicationId: string;
  status: 'PROCESSING';
  message: string;
}

/** Body of `POST /api/applications/:id/link-account`. */
export interface LinkAccountRequest {
  /** The account to re-link (from `account.enrichment_failed`); without it, a fresh widget. */
  accountId?: string;
}

export interface LinkAccountResponse {
  applicationId: string;
  accountId: string | null;
  widgetUrl: string;
  status: ApplicationStatus;
  message: string;
}

/** One calendar month of an account's statement: money in and out, whole Naira. */
export interface MonthlyFlow {
  /** `YYYY-MM` */
  month: string;
  inflow: number;
  outflow: number;
  /** True when the statement covers only part of the month (it starts or ends within it); absent when not known. */
  partial?: boolean;
}

export interface AccountView {
  accountId: string;
  providerAccountId: string;
  institution: string;
  accountNumber: string;
  enrichmentStatus: EnrichmentStatus;
  linkedAt: string;
  /** When its statement was read; null before, and when it could not be read. */
  enrichedAt?: string | null;
  /** Month by month, oldest first, once the statement is analyzed; empty before and after its bank data is scrubbed. */
  monthlyFlows: MonthlyFlow[];
  /** The applicant's consent to read the account (absent on accounts linked before consent was recorded). */
  consent?: ConsentView;
}

export type ConsentStatus = 'ACTIVE' | 'WITHDRAWN' | 'EXPIRED' | 'LAPSED';
export type ConsentEndReason = 'WITHDRAWN' | 'EXPIRED' | 'LAPSED';

/**
 * The applicant's consent to read a linked account: what, for what, under which wording, and
 * until when (365 days from when it was given, or 180 days without use). Once it ends the
 * account is unlinked at the provider and its bank data erased; `receipt` then names the signed
 * deletion receipt.
 */
export interface ConsentView {
  consentId: string;
  status: ConsentStatus;
  data: ('ACCOUNT_DETAILS' | 'BALANCE' | 'TRANSACTIONS')[];
  purpose: 'CREDIT_ASSESSMENT';
  wordingVersion: string;
  givenAt: string;
  expiresAt: string;
  lastUsedAt: string;
  lapsesAt: string;
  endedAt: string | null;
  endReason: ConsentEndReason | null;
  unlinkedAt: string | null;
  bankDataErasedAt: string | null;
  receipt: string | null;
}

/** `POST /api/applications/:id/accounts/:accountId/consent/withdraw`. */
export interface WithdrawConsentResult {
  applicationId: string;
  accountId: string;
  consent: ConsentView | null;
}

/** `GET /api/applications/:id/accounts/:accountId/consent/receipt`: the signed deletion receipt (a compact JWS). */
export interface DeletionReceiptResponse {
  applicationId: string;
  accountId: string;
  /** The compact JWS (EdDSA, `typ` loan-deletion-receipt+jws); verify it with the keys at `/.well-known/jwks.json`. */
  receipt: string;
  kid: string;
  jwks: '/.well-known/jwks.json';
}

/** Outcome of the scorecard. */
export type DecisionOutcome = 'APPROVED' | 'COUNTER_OFFER' | 'MANUAL_REVIEW' | 'DECLINED';

/** Risk band of the total score, best first. */
export type ScoreBand = 'LOW_RISK' | 'MEDIUM_RISK' | 'HIGH_RISK' | 'VERY_HIGH_RISK';

export interface RiskFactor {
  code: string;
  severity: 'LOW' | 'MEDIUM' | 'HIGH';
  description: string;
}

export interface ManualReviewReason {
  code: string;
  description: string;
}

/** Loan terms as approved or counter-offered: whole Naira, months, % a month. */
export interface ApprovalDetails {
  approved_amount: number;
  approved_tenor: number;
  approved_interest: number;
  monthly_payment: number;
}

export interface CounterOffer {
  amount: number;
  tenor: number;
  interest_rate: number;
  monthly_payment: number;
  reason: string;
}

export interface ScoreBreakdown {
  total: number;
  cash_flow_health: number;
  income_stability: number;
  debt_service_capacity: number;
  account_behavior: number;
  credit_history: number;
}

/** The decision object carried by `application.decision`. */
export interface Decision {
  score: number;
  decision: DecisionOutcome;
  score_band: ScoreBand;
  timestamp: string;
  applicant_id: string;
  approval_details: ApprovalDetails;
  counter_offer: CounterOffer | null;
  risk_factors: RiskFactor[];
  score_breakdown: ScoreBreakdown;
  explainability: {
    primary_reason: string;
    key_strengths: string[];
    key_weaknesses: string[];
  };
  eligible_tenors: number[];
  manual_review_reasons: ManualReviewReason[];
  regulatory_compliance: {
    thin_file: boolean;
    identity_verified: boolean;
    credit_bureau_checked: boolean;
    affordability_assessed: boolean;
  };
  scorecard_version: string;
  /**
   * Version of the lender's credit policy that made the decision; 0 is the built-in policy.
   * Absent on decisions made before credit policies.
   */
  policy_version?: number;
  /**
   * The Key Facts Statement of the terms in approval_details: fees, totals, APR and the
   * schedule. For APPROVED and COUNTER_OFFER; for MANUAL_REVIEW what approving would disclose;
   * null for DECLINED.
   */
  key_facts?: KeyFacts | null;
  /**
   * What the decision's policy version says of its offer, fixed with it: days it stands
   * unanswered, working days of cooling-off after acceptance. Absent on decisions made before
   * lenders set them (7 days, 3 working days).
   */
  offer_terms?: { validity_days: number; cooling_off_working_days: number };
}

/** A policy version's fees and instalment dates, disclosed with its offers. */
export interface DisclosureTerms {
  fees: {
    managementPercent: number;
    insurancePercent: number;
    vatPercent: number;
    /** UPFRONT: deducted from the amount paid out; SPREAD: added evenly to the instalments. */
    collection: 'UPFRONT' | 'SPREAD';
  };
  schedule: { alignToPayDay: boolean; daysAfterPayDay: number };
}

/** One instalment of the schedule (Naira to the kobo; the date a calendar day). */
export interface Instalment {
  number: number;
  due_date: string;
  principal: number;
  interest: number;
  fees: number;
  amount: number;
}

/** The Key Facts Statement of an offer. */
export interface KeyFacts {
  principal: number;
  tenor_months: number;
  interest_rate_monthly_percent: number;
  fees: { code: 'MANAGEMENT' | 'INSURANCE' | 'VAT'; description: string; amount: number }[];
  fee_collection: 'UPFRONT' | 'SPREAD';
  total_fees: number;
  total_interest: number;
  amount_disbursed: number;
  total_repayable: number;
  total_cost_of_credit: number;
  /** Annualised internal rate of return of the cash flows, percent, two decimals. */
  apr_percent: number;
  disbursement_date: string;
  schedule_basis: {
    kind: 'PAY_DATE' | 'MONTHLY_FROM_DISBURSEMENT';
    reason: string;
    pay_day_of_month: number | null;
    days_after_pay_day: number | null;
  };
  schedule: Instalment[];
  terms: DisclosureTerms;
}

/** `GET /api/applications/:id`. */
export interface ApplicationView {
  applicationId: string;
  applicantId: string;
  status: ApplicationStatus;
  applicant: { firstName: string; lastName: string; email: string };
  loan: { amount: number; tenor: number; interestRate: number; purpose: string | null };
  linkingLocked: boolean;
  /** When finalize-linking closed the application to new accounts; null while it is open. */
  linkingFinalizedAt?: string | null;
  /** When the analysis was last asked for; null before. */
  analysisRequestedAt?: string | null;
  accounts: AccountView[];
  decision: Decision | null;
  /** The lender's review of a MANUAL_REVIEW decision, or of a contested one, once one is made. */
  review: ReviewView | null;
  /** Whether the decision can be contested (a DECLINED or COUNTER_OFFER one, once) and how. */
  contestAvailability?: ContestAvailability;
  /** The applicant's contest of the decision, once made. */
  contest?: ContestView | null;
  /** The offer of an APPROVED or COUNTER_OFFER decision; null when there is none. */
  offer?: OfferView | null;
  failureReason: string | null;
  abandonReason: string | null;
  /** Until when the records of the ended application are kept (your `recordRetentionYears` from its end); null while open. */
  retainedUntil?: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Every error response of the API. */
export interface ErrorBody {
  statusCode: number;
  message: string;
  error: string;
}

/** Data of each webhook event, by event name. */
export interface EventDataMap {
  'account.linked': {
    applicationId: string;
    applicantId: string;
    accountId: string;
    institution: string;
    accountNumber: string;
  };
  'account.enrichment_ready': {
    accountId: string;
    providerAccountId: string;
    applicantId: string;
    applicationId: string;
    message: string;
  };
  'application.ready_for_analysis': {
    applicationId: string;
    applicantId: string;
    accountCount: number;
    message: string;
  };
  'account.enrichment_failed': {
    accountId: string;
    providerAccountId: string;
    applicantId: string;
    reason: 'enrichment_timeout';
    message: string;
  };
  'application.failed': {
    applicationId: string;
    applicantId: string;
    status: 'FAILED';
    reason: string;
  };
  'application.abandoned': {
    applicationId: string;
    applicantId: string;
    reason: AbandonReason;
    message: string;
  };
  'application.decision': {
    applicationId: string;
    applicantId: string;
    status: 'COMPLETED';
    score: number;
    decision: Decision;
  };
  /** A lender's reviewer finished a MANUAL_REVIEW decision; always after its `application.decision`. */
  'application.review_completed': {
    applicationId: string;
    applicantId: string;
    outcome: ReviewOutcome;
    /** The terms granted; null for DECLINED. */
    approval_details: ApprovalDetails | null;
    /** Who made the review: your staff id given with the API key, or the e-mail address of the user signed in to the console. */
    reviewer: string;
    reasonCode: string;
    note: string | null;
    reviewedAt: string;
    /** The contest the review answers, when the applicant contested the decision. */
    contestId?: string;
    /** The Key Facts Statement of the terms granted (absent for DECLINED). */
    key_facts?: KeyFacts;
  };
  /** The applicant accepted the offer; the cooling-off period runs until `coolingOffEndsAt`. */
  'application.offer_accepted': {
    applicationId: string;
    applicantId: string;
    approval_details: ApprovalDetails;
    key_facts: KeyFacts | null;
    acceptedAt: string;
    coolingOffEndsAt: string;
  };
  /** The applicant declined the offer. */
  'application.offer_declined': { applicationId: string; applicantId: string; declinedAt: string };
  /** The applicant withdrew an accepted offer within its cooling-off period. */
  'application.offer_withdrawn': {
    applicationId: string;
    applicantId: string;
    acceptedAt: string;
    withdrawnAt: string;
  };
  /** The consent to read a linked account ended; nothing more is read from it. */
  'account.consent_ended': {
    applicationId: string;
    applicantId: string;
    accountId: string;
    consentId: string;
    reason: ConsentEndReason;
    endedAt: string;
  };
  /** An ended consent's account was unlinked at the provider and its bank data erased; `receipt` is the deletion receipt's path. */
  'account.data_erased': {
    applicationId: string;
    applicantId: string;
    accountId: string;
    consentId: string;
    unlinkedAt: string;
    bankDataErasedAt: string;
    receipt: string;
  };
  /** The offer stood unanswered until `expiresAt` and can no longer be accepted. */
  'application.offer_expired': {
    applicationId: string;
    applicantId: string;
    madeAt: string;
    expiresAt: string;
    expiredAt: string;
  };
}

export type EventName = keyof EventDataMap;

/** The event names: the spec's seven in its order, then the review's. */
export const EVENT_NAMES: readonly EventName[] = [
  'account.linked',
  'account.enrichment_ready',
  'application.ready_for_analysis',
  'account.enrichment_failed',
  'application.failed',
  'application.abandoned',
  'application.decision',
  'application.review_completed',
  'application.offer_accepted',
  'application.offer_declined',
  'application.offer_withdrawn',
  'account.consent_ended',
  'account.data_erased',
  'application.offer_expired',
];

/**
 * A webhook delivery's body: a union discriminated by `event`, so that checking `event`
 * narrows `data`. `id` is stable across redeliveries: deduplicate on it.
 */
export type WebhookEvent = {
  [E in EventName]: { id: string; event: E; data: EventDataMap[E]; timestamp: string };
}[EventName];

/** One event type of the union, by name. */
export type WebhookEventOf<E extends EventName> = Extract<WebhookEvent, { event: E }>;

/**
 * Where a delivery stands. PENDING: an attempt is due. DELIVERED: your receiver answered 2xx.
 * FAILED: retries exhausted; resent only on request. SKIPPED: no webhook URL was set.
 */
export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED' | 'SKIPPED';

/** Filters and page of `GET /api/webhooks/deliveries`, newest first. */
export interface DeliveryListQuery {
  applicationId?: string;
  eventId?: string;
  event?: EventName;
  status?: DeliveryStatus;
  /** 1 to 100; 20 when absent. */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
}

/** One POST of an event to your webhook URL. */
export interface DeliveryAttempt {
  at: string;
  /** Your receiver's status code; null when no answer came. */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** True when your redelivery asked for this attempt; false for the automatic ones. */
  manual: boolean;
}

export interface DeliveryView {
  id: string;
  eventId: string;
  event: EventName;
  applicationId: string;
  status: DeliveryStatus;
  reason: string | null;
  attempts: DeliveryAttempt[];
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
  deliveredAt: string | null;
}

export interface DeliveryPage {
  data: DeliveryView[];
  /** The cursor of the next page; null on the last one. */
  nextCursor: string | null;
}

/** Body of `POST /api/webhooks/deliveries/replay`: re-queue FAILED deliveries since a time. */
export interface ReplayRequest {
  /** ISO 8601 date-time. */
  since: string;
  event?: EventName;
  /** Deliveries re-queued by this call at most, 1 to 500; 100 when absent. */
  limit?: number;
}

export interface ReplayResult {
  /** Deliveries put back on the schedule by this call. */
  count: number;
  /** Whether FAILED deliveries remain: call again for the next ones. */
  more: boolean;
}

/** Filters and page of `GET /api/applications`, newest first. */
export interface ApplicationListQuery {
  /** Only applications in this state, or in any of these. */
  status?: ApplicationStatus | ApplicationStatus[];
  /** Only applications decided with this outcome, or any of these. */
  decision?: DecisionOutcome | DecisionOutcome[];
  /** Only applications created on or after this day in Lagos (`YYYY-MM-DD`). */
  from?: string;
  /** Only applications created on or before this day in Lagos (`YYYY-MM-DD`). */
  to?: string;
  /**
   * An applicationId or applicantId (the applications it names exactly), or who applied: words
   * of the applicant's names, an e-mail address, a phone number or a BVN. At most 100 characters.
   */
  q?: string;
  /** 1 to 100; 20 when absent. */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
}

/** One row of your application list. */
export interface ApplicationSummary {
  applicationId: string;
  applicantId: string;
  status: ApplicationStatus;
  /** First and last name as you sent them. */
  applicantName: string;
  /** Naira. */
  amount: number;
  /** Months. */
  tenor: number;
  accountCount: number;
  /** The decision's score once the application is scored. */
  score: number | null;
  /** The decision's outcome once the application is scored. */
  decision: DecisionOutcome | null;
  createdAt: string;
  updatedAt: string;
}

export interface ApplicationPage {
  items: ApplicationSummary[];
  /** The cursor of the next page; null on the last one. */
  nextCursor: string | null;
  /** How many applications the filter matches, on every page; counted up to 10,000. */
  total: number;
  /** True when more than `total` (10,000) match. */
  totalCapped: boolean;
}

/** Your account: never a key or a secret. */
export interface ClientSettings {
  clientId: string;
  name: string;
  webhookUrl: string | null;
  /** The secrets signing webhooks now, newest first; an older one until its `validUntil`. */
  webhookSecrets: { createdAt?: string; validUntil: string | null }[];
  providerKeyConfigured: boolean;
  /** Reviews granting more Naira than this await a second reviewer; null: none does. */
  reviewConfirmationAbove: number | null;
  /** The IANA time zone of your days (the list's `from` and `to`, the portfolio) and of times in the console. */
  timeZone: string;
  /** Years an ended application's records are kept before they are purged (5 to 10; 5 unless set). */
  recordRetentionYears: number;
}

/** Body of `PATCH /api/client`: at least one field. */
export interface UpdateClientSettingsRequest {
  /** Where webhooks go; null for nowhere. */
  webhookUrl?: string | null;
  /** The maker-checker threshold of reviews in Naira; null: every review is final at once. */
  reviewConfirmationAbove?: number | null;
  /** An IANA time zone name such as `Africa/Lagos` (the default); null goes back to the default. */
  timeZone?: string | null;
  /** Years an ended application's records are kept, 5 (the default, FCCPC's minimum) to 10; null goes back to 5. */
  recordRetentionYears?: number | null;
}

/** Query of `GET /api/portfolio`: days in your time zone, both included (the last 30 days by default). */
export interface PortfolioQuery {
  from?: string;
  to?: string;
}

type Counts<K extends string> = { [key in K]: number };

/** `GET /api/portfolio`: your numbers over a period. An application belongs to the day it was created. */
export interface PortfolioReport {
  from: string;
  to: string;
  timeZone: string;
  applications: number;
  byStatus: Counts<ApplicationStatus>;
  byDecision: Counts<DecisionOutcome>;
  /** APPROVED among the decided, 0 to 1; null when none was decided. */
  approvalRate: number | null;
  /** Whole Naira; null when none was approved. */
  averageApprovedAmount: number | null;
  scoreBands: { from: number; to: number; count: number }[];
  decisionTime: {
    decided: number;
    medianSeconds: number | null;
    p90Seconds: number | null;
    buckets: { upToSeconds: number | null; count: number }[];
  };
  abandoned: Counts<'no_link' | 'no_analyze'>;
  days: { day: string; created: number; byDecision: Counts<DecisionOutcome>; undecided: number }[];
  webhooks: {
    deliveries: number;
    byStatus: Counts<DeliveryStatus>;
    /** DELIVERED among the finished (DELIVERED or FAILED); null when none finished. */
    deliveredRate: number | null;
  };
}

/** `POST /api/client/rotate-key`: the new key, shown once. */
export interface RotateKeyResponse {
  clientId: string;
  apiKey: string;
}

/** Body of `POST /api/client/rotate-webhook-secret`. */
export interface RotateWebhookSecretRequest {
  /** How long the previous secret keeps signing `x-signature-previous`, 0 to 604800; 24 hours when absent. */
  overlapSeconds?: number;
}

export interface RotateWebhookSecretResponse {
  clientId: string;
  /** The new secret, shown once. */
  webhookSecret: string;
  /** Until when the previous secret still signs. */
  previousSecretValidUntil: string;
}

/** What a score band leads to under a credit policy. */
export type BandAction = 'APPROVE' | 'REVIEW' | 'DECLINE';

/** A feature a knock-out rule may test (docs/scoring.md, "Knock-out rules"). */
export type PolicyFeature =
  | 'bettingShareOfIncome'
  | 'bouncedDebitsPerMonth'
  | 'overdraftDaysPerMonth'
  | 'historyMonths'
  | 'monthsObserved'
  | 'monthlyIncome'
  | 'incomeCv'
  | 'netFlowShareOfIncome'
  | 'negativeNetFlowMonths'
  | 'averageBalance'
  | 'existingDebtToIncome'
  | 'digitalLoanShareOfIncome'
  | 'loanDisbursementMonths'
  | 'statementRedFlags'
  | 'bureauScore'
  | 'worstDaysPastDue'
  | 'bureauOverdueAmount'
  | 'delinquentFacilities'
  | 'writtenOffFacilities'
  | 'bureauEnquiriesLast3m';

/** A rule that declines or refers an application whatever its score; `code` is carried by the decision. */
export interface KnockOutRule {
  code: string;
  feature: PolicyFeature;
  operator: '>' | '>=' | '<' | '<=' | '==' | '!=';
  value: number;
  action: 'DECLINE' | 'REVIEW';
  description: string;
}

/** Your credit policy: what the score and features lead to (docs/scoring.md, "Credit policies"). */
export interface CreditPolicy {
  name?: string;
  bands: {
    /** Lowest total score of each band, 0-100, strictly descending. */
    thresholds: { LOW_RISK: number; MEDIUM_RISK: number; HIGH_RISK: number };
    actions: { LOW_RISK: BandAction; MEDIUM_RISK: BandAction; HIGH_RISK: BandAction; VERY_HIGH_RISK: BandAction };
  };
  affordability: {
    /** All repayments over verified income, 0.05 to 0.80. */
    maxDebtServiceRatio: number;
    /** Months, 1 to 60, at least one. */
    tenors: number[];
    counterOffers: { enabled: boolean; minShareOfAsk: number; minAmount: number };
  };
  loanLimits: { minAmount: number; maxAmount: number | null; maxIncomeMultiple: number | null };
  dataRules: {
    thinFile: 'REVIEW' | 'DECLINE';
    bureauUnavailable: 'REVIEW' | 'DECLINE' | 'PROCEED';
    identityMismatch: 'REVIEW' | 'DECLINE';
  };
  /** Fees and instalment dates its offers disclose; none: no fees, instalments after a detected pay date. */
  disclosure?: DisclosureTerms;
  /** How long its offers stand (2-30 days) and their cooling-off (3-14 working days); none: 7 days, 3 working days. */
  offer?: OfferTerms;
  knockOuts: KnockOutRule[];
}

/** What a policy version says of its offers, fixed on each offer when it is made. */
export interface OfferTerms {
  /** Days an offer stands unanswered (2-30), never less than the end of the 2nd working day in Lagos after it. */
  validityDays: number;
  /** Working days in Lagos after acceptance in which it may be withdrawn without cost (3-14). */
  coolingOffWorkingDays: number;
}

export type PolicyStatus = 'DRAFT' | 'ACTIVE' | 'RETIRED';

/** One version of your policy; version 0 is the built-in policy. */
export interface PolicyVersionView {
  version: number;
  status: PolicyStatus;
  builtin: boolean;
  challenger: boolean;
  createdAt: string | null;
  activatedAt: string | null;
  policy: CreditPolicy;
}

/** `GET /api/policies`. */
export interface PolicyList {
  active: PolicyVersionView;
  challenger: PolicyVersionView | null;
  versions: PolicyVersionView[];
}

/** `POST /api/policies`: the new draft. */
export interface PolicyCreated {
  version: number;
  status: 'DRAFT';
  policy: CreditPolicy;
}

/** Body of `POST /api/policies/:version/simulate`. */
export interface SimulateRequest {
  /** Latest decided applications replayed, 1 to 5000; 500 when absent. */
  limit?: number;
  /** Replay the approvals under a shock: income deflated by a CPI figure, expenses up (percent, 0 to 500 each). */
  stress?: { cpiPercent?: number; expenseIncreasePercent?: number };
}

/** An observed bad rate: null with a note below 30 loans. */
export interface ObservedRate {
  loans: number;
  bad: number;
  badRate: number | null;
  note: string | null;
}

/** The replay against the outcomes you reported of the same applications. */
export interface BacktestResult {
  withOutcomes: number;
  bothApproved: ObservedRate;
  draftWouldDecline: ObservedRate;
  /** What a back-test cannot know. */
  limits: string[];
}

/** The simulated version's approvals under the shock asked for. */
export interface StressResult {
  cpiPercent: number;
  expenseIncreasePercent: number;
  approvals: number;
  failing: number;
  failingShare: number | null;
  overDebtServiceCap: number;
  expensesExceedIncome: number;
}

export type OutcomeCounts = Record<DecisionOutcome, number>;

/** A version replayed on your latest decided applications, against the active one. */
export interface SimulationResult {
  evaluated: number;
  current: OutcomeCounts;
  draft: OutcomeCounts;
  approvedAmount: { current: number; draft: number };
  changed: { applicationId: string; from: DecisionOutcome; to: DecisionOutcome; reasons: string[] }[];
  /** Present once outcomes were reported for some of the replayed applications. */
  backtest?: BacktestResult;
  /** Present when `stress` was asked for. */
  stress?: StressResult;
}

/** `GET /api/policies/challenger/report`. */
export interface ChallengerReport {
  challenger: { version: number; since: string };
  evaluated: number;
  agreed: number;
  /** Counts by the active version's outcome, then the challenger's. */
  matrix: Record<string, Record<string, number>>;
  disagreements: {
    applicationId: string;
    decidedAt: string | null;
    active: { version: number; decision: DecisionOutcome };
    challenger: { version: number; decision: DecisionOutcome; reasons: string[] };
  }[];
}

/** A reviewer's conclusion on a MANUAL_REVIEW decision. */
export type ReviewOutcome = 'APPROVED' | 'COUNTER_OFFER' | 'DECLINED';

/** PENDING_CONFIRMATION until a second reviewer confirms it (above the lender's threshold); then FINAL. */
export type ReviewStatus = 'PENDING_CONFIRMATION' | 'FINAL';

/** Terms a reviewer grants: Naira, months, percent a month. */
export interface ReviewTerms {
  amount: number;
  tenor: number;
  interestRate: number;
}

/** Body of `POST /api/applications/:id/review`. */
export interface ReviewRequest {
  outcome: ReviewOutcome;
  /** Required for COUNTER_OFFER; the ask when absent for APPROVED; not allowed for DECLINED. */
  terms?: ReviewTerms;
  reasonCode: string;
  /** Required with `override`. */
  note?: string;
  /** Your staff id of the reviewer. */
  reviewer: string;
  /** Grants terms beyond the applicant's repayment capacity. */
  override?: boolean;
}

/** Body of `POST /api/applications/:id/review/confirm`. */
export interface ConfirmReviewRequest {
  /** Your staff id of the second reviewer: not the one who made the review. */
  reviewer: string;
}

/** A review as the application's detail and the review queue show it. */
export interface ReviewView {
  outcome: ReviewOutcome;
  status: ReviewStatus;
  approval_details: ApprovalDetails | null;
  reasonCode: string;
  note: string | null;
  override: boolean;
  reviewer: string;
  confirmedBy: string | null;
  confirmationRequired: boolean;
  madeAt: string;
  reviewedAt: string | null;
  /** The contest the review answers; null for a referral's review. */
  contestId?: string | null;
  /** The Key Facts Statement of the terms granted, with the decision's fees and pay date; null for DECLINED. */
  key_facts?: KeyFacts | null;
}

/** `GET /api/applications/:id/decision-record`: the decision as a signed record (a compact JWS). */
export interface DecisionRecordResponse {
  applicationId: string;
  /** The compact JWS (EdDSA); verify it with the keys at `/.well-known/jwks.json`. */
  record: string;
  kid: string;
  jwks: '/.well-known/jwks.json';
}

/** Body of `POST /api/applications/:id/offer`: the applicant's answer. */
export interface OfferResponseRequest {
  response: 'ACCEPTED' | 'DECLINED' | 'WITHDRAWN';
}

/** The offer of a decision: OPEN until answered or expired; an acceptance can be WITHDRAWN until `coolingOffEndsAt`. */
export interface OfferView {
  status: 'OPEN' | 'ACCEPTED' | 'DECLINED' | 'EXPIRED' | 'WITHDRAWN';
  terms: ApprovalDetails;
  key_facts: KeyFacts | null;
  madeAt: string;
  expiresAt: string;
  acceptedAt: string | null;
  declinedAt: string | null;
  coolingOffEndsAt: string | null;
  withdrawnAt: string | null;
  /** When the offer was recorded expired, unanswered (`application.offer_expired`). */
  expiredAt: string | null;
  /** The terms fixed on the offer when it was made. */
  validityDays: number;
  coolingOffWorkingDays: number;
}

/** What answering the offer returns. */
export interface OfferResult {
  applicationId: string;
  status: 'COMPLETED';
  offer: OfferView;
}

/** Body of `POST /api/applications/:id/contest`. */
export interface ContestRequest {
  /** The applicant's own words about the decision (1 to 4000 characters). */
  statement: string;
}

/** An applicant's contest of a DECLINED or COUNTER_OFFER decision (NDPA s.37). */
export interface ContestView {
  contestId: string;
  /** OPEN until a review of it, confirmed by a second reviewer, is final. */
  status: 'OPEN' | 'RESOLVED';
  contestedOutcome: 'DECLINED' | 'COUNTER_OFFER';
  statement: string;
  openedAt: string;
  resolvedAt: string | null;
  /** The review the contest reopened, when the decision had one. */
  priorReview: ReviewView | null;
}

/** Whether a decision can be contested, why not, and the call that opens it. */
export interface ContestAvailability {
  available: boolean;
  reason: string | null;
  how: string;
}

/** What opening a contest answers. */
export interface ContestResult {
  applicationId: string;
  status: 'COMPLETED';
  contest: ContestView;
}

/** Query of `GET /api/reviews`. */
export interface ReviewListQuery {
  /** OPEN (default): not finished yet; DONE: finished. */
  status?: 'OPEN' | 'DONE';
  limit?: number;
  cursor?: string;
}

/** One application of the review queue. */
export interface ReviewQueueItem {
  applicationId: string;
  applicantId: string;
  applicantName: string;
  loan: { amount: number; tenor: number; interestRate: number };
  score: number;
  score_band: ScoreBand;
  manual_review_reasons: ManualReviewReason[];
  /** The terms scoring would grant. */
  approval_details: ApprovalDetails;
  decidedAt: string;
  ageSeconds: number;
  review: ReviewView | null;
  /** Set when the application is in the queue because the applicant contested its decision. */
  contest?: ContestView | null;
}

/** `GET /api/reviews`: one page, oldest decision first. */
export interface ReviewPage {
  items: ReviewQueueItem[];
  nextCursor: string | null;
}

/** A role on the lender console: see the API reference's "Your staff". */
export type StaffRole = 'owner' | 'developer' | 'credit_officer' | 'credit_manager' | 'viewer';

/** A member of your staff; never a password, authenticator secret or invitation token. */
export interface StaffUser {
  userId: string;
  email: string;
  role: StaffRole;
  status: 'invited' | 'active';
  totpEnabled: boolean;
  createdAt: string;
  /** When the invitation lapses, while it is open. */
  invitationExpiresAt: string | null;
}

/** Body of `POST /api/users`. */
export interface InviteUserRequest {
  email: string;
  role: StaffRole;
}

/** An invitation just made; `invitationUrl` (shown once) when the deployment sends no e-mail. */
export interface StaffInvitation extends StaffUser {
  invitationUrl?: string;
}

/** Whether every user must sign in with an authenticator code. */
export interface StaffSettings {
  requireTotp: boolean;
}

/** An event of a loan, as you report it (`POST /api/applications/:id/outcomes`). Days are YYYY-MM-DD, money Naira. */
export type OutcomeReport =
  | { type: 'DISBURSED'; amount: number; date: string; tenor: number }
  | { type: 'INSTALMENT_PAID'; number: number; amount: number; date: string }
  | { type: 'INSTALMENT_MISSED'; number: number; daysPastDue: number; date: string }
  | { type: 'RESTRUCTURED'; date: string; tenor: number }
  | { type: 'REPAID'; date: string; early?: boolean }
  | { type: 'DEFAULTED'; date: string; outstanding: number }
  | { type: 'WRITTEN_OFF'; date: string; outstanding: number };

/** One row of a bulk upload: an outcome with its application and its own idempotency key. */
export type OutcomeRow = OutcomeReport & { applicationId: string; idempotencyKey: string };

export type LoanStatus = 'OPEN' | 'REPAID' | 'DEFAULTED' | 'WRITTEN_OFF';

/** A loan as its outcomes make it. */
export interface LoanPerformanceView {
  applicationId: string;
  status: LoanStatus;
  disbursed: { amount: number; date: string; tenor: number };
  tenor: number;
  instalmentsPaid: number[];
  currentDaysPastDue: number;
  maxDaysPastDue: number;
  ever30: boolean;
  ever60: boolean;
  ever90: boolean;
  restructured: boolean;
  defaulted: boolean;
  writtenOff: boolean;
  /** Bad by your definition (`getPerformanceSettings`). */
  bad: boolean;
  outcomes: number;
  lastDate: string;
}

/** An outcome as taken: its id and place in the loan's order. */
export type OutcomeView = OutcomeReport & { outcomeId: string; sequence: number; recordedAt: string };

/** The answer of `reportOutcome`. */
export interface OutcomeAnswer {
  outcome: OutcomeView;
  loan: LoanPerformanceView;
}

/** The answer of `getLoanOutcomes`. */
export interface LoanOutcomes {
  loan: LoanPerformanceView;
  outcomes: OutcomeView[];
}

/** The answer of `uploadOutcomes`: each row's own answer, by line. */
export interface BulkOutcomeResult {
  rows: number;
  accepted: number;
  repeated: number;
  refused: number;
  results: { line: number; status: number; outcomeId?: string; sequence?: number; message?: string }[];
}

/** What makes a loan bad for you. */
export interface BadDefinition {
  daysPastDue: 1 | 30 | 60 | 90 | 120 | 180;
  writtenOff: boolean;
  defaulted: boolean;
}

export interface PerformanceSettings {
  bad: BadDefinition;
}

/** Query of `getPerformance`: days YYYY-MM-DD. */
export interface PerformanceQuery {
  asOf?: string;
  from?: string;
  to?: string;
  baselineFrom?: string;
  baselineTo?: string;
}

interface Rate {
  loans: number;
  bad: number;
  badRate: number | null;
  note: string | null;
}

/** `GET /api/performance`: your decisions measured against the outcomes you reported. */
export interface PerformanceReport {
  asOf: string;
  badDefinition: BadDefinition;
  loans: number;
  bad: number;
  badRate: number | null;
  discrimination: {
    loans: number;
    good: number;
    bad: number;
    auc: number | null;
    gini: number | null;
    ks: number | null;
    ksAtScore: number | null;
    note: string | null;
  };
  byBand: (Rate & { band: string })[];
  calibration: {
    band: string;
    loans: number;
    bad: number;
    expectedBadRate: number;
    observedBadRate: number | null;
    note: string | null;
  }[];
  byDecision: (Rate & { policyVersion: number; decision: string; band: string })[];
  challengers: (Rate & { version: number; decision: string })[];
  vintages: { vintage: string; loans: number; monthsOnBook: number; ever30: number[]; ever90: number[] }[];
  drift: {
    baseline: { from: string; to: string };
    period: { from: string; to: string };
    baselineDecisions: number;
    currentDecisions: number;
    note: string | null;
    measures: {
      measure: string;
      psi: number | null;
      flag: 'STABLE' | 'WATCH' | 'ACT' | null;
      baseline: number[];
      current: number[];
    }[];
  };
}
