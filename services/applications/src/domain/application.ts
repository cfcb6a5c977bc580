import type {
  AbandonReason,
  ApplicationFact,
  ApplicationStatus,
  CommandErrorCode,
  ContestableOutcome,
  Decision,
  EnrichmentStatus,
  EventDataOf,
  EventName,
  KeyFacts,
  MonthlyFlow,
  ReviewOutcome,
  ReviewStatus,
  ApprovalDetails,
} from '@loan/contracts';
import { v5 as uuidv5 } from 'uuid';
import type { Consent } from './consent/decide';

/** A bank account the applicant linked through the provider's widget. */
export interface LinkedAccount {
  accountId: string;
  /** The provider's id of the account (Mono's account id). */
  providerAccountId: string;
  institution: string;
  accountNumber: string;
  /** The name the bank holds the account in, sealed ('' once scrubbed). */
  holderName: string;
  enrichmentStatus: EnrichmentStatus;
  linkedAt: Date;
  enrichedAt: Date | null;
  /** Money in and out of the account by month (whole Naira), from its enrichment; empty until then. */
  monthlyFlows: MonthlyFlow[];
  /** The applicant's consent to read it (absent on accounts linked before consent was recorded). */
  consent?: Consent | null;
}

/** Namespace of application ids derived from idempotency keys (RFC 9562 name-based, SHA-1). */
const APPLICATION_ID_NAMESPACE = '4f1c2b8e-7a3d-4c5e-9b61-2d8f0e6a7c13';

/**
 * The id of the application an idempotency key opens: the same key always names the same
 * application, so finding it is a lookup by id and two racing initiates collide on the id.
 * Keys are unique across all lenders, and so are these ids.
 */
export function applicationIdFor(idempotencyKey: string): string {
  return uuidv5(idempotencyKey, APPLICATION_ID_NAMESPACE);
}

/** A loan application and its applicant, as the applications service keeps them. */
export interface Application {
  applicationId: string;
  clientId: string;
  applicantId: string;
  /** Client-chosen key that makes initiate safe to retry; unique across all clients. */
  idempotencyKey: string;
  status: ApplicationStatus;
  /**
   * The applicant's identity, every field sealed (applications stored before names, e-mail and
   * phone were sealed hold them in plain text until their next write).
   */
  applicant: { firstName: string; lastName: string; email: string; phone: string | null; bvnSealed: string | null };
  loan: { amount: number; tenor: number; interestRate: number; purpose: string | null };
  /** The lender's provider key, sealed, as given at initiate (or the last resume / re-link). */
  providerKeySealed: string;
  widgetUrl: string;
  /** Start of the current 24-hour window to link an account (creation or last resume). */
  linkWindowStart: Date;
  /** Set by finalize-linking: no new accounts after it. */
  linkingLocked: boolean;
  /** When finalize-linking locked it; null while open (and on applications locked before this was kept). */
  linkingLockedAt?: Date | null;
  readyAnnounced: boolean;
  firstLinkedAt: Date | null;
  accounts: LinkedAccount[];
  analysis: { analysisId: string; requestedAt: Date } | null;
  decision: Decision | null;
  /**
   * Room under the debt service cap for a new monthly payment (Naira), as scoring assessed it:
   * what a reviewer's terms are checked against. Null before scoring, or when scored before
   * reviews (every term then needs an override).
   */
  repaymentCapacity: number | null;
  /**
   * The lender's review of a MANUAL_REVIEW decision, or of a contested one; null until one is
   * made (and again while a contest reopens the decision: the earlier review is kept in it).
   */
  review: Review | null;
  /** The applicant's contest of a DECLINED or COUNTER_OFFER decision (NDPA s.37); absent or null until one. */
  contest?: Contest | null;
  /** The applicant's answer to the offer (absent or null until one): nothing is accepted automatically. */
  offerResponse?: OfferResponse | null;
  /**
   * The offer made at `madeAt` stood unanswered past its expiry, recorded when the janitor's
   * deadline told of it (`application.offer_expired`); absent or null otherwise.
   */
  offerExpired?: { madeAt: Date; at: Date } | null;
  failureReason: string | null;
  abandonReason: AbandonReason | null;
  /**
   * Until when the records of the ended application (decision, offer and its answers, review,
   * contest) are kept, by the lender's retention period from its end; then they are purged.
   * Absent or null while it is open (and on applications that ended before it was kept).
   */
  retainedUntil?: Date | null;
  /** Provider callbacks and results already applied, so a redelivery changes nothing. */
  handled: string[];
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A lender's review of a MANUAL_REVIEW decision (the refer outcome): its maker, and above the
 * lender's threshold its checker, both by the lender's own staff ids.
 */
export interface Review {
  outcome: ReviewOutcome;
  /** PENDING_CONFIRMATION until a second reviewer confirms it; FINAL once it is the lender's answer. */
  status: ReviewStatus;
  /** The terms granted, priced by the scorecard's formula; null for DECLINED. */
  terms: ApprovalDetails | null;
  /** The lender's own code for the reason. */
  reasonCode: string;
  note: string | null;
  /** The terms' payment is beyond the applicant's repayment capacity, granted on purpose. */
  override: boolean;
  /** Who made the review. */
  reviewer: string;
  /** The contest the review answers; absent or null for a referral's review. */
  contestId?: string | null;
  /** The Key Facts Statement of the terms granted; null for DECLINED (absent on reviews made before it was kept). */
  keyFacts?: KeyFacts | null;
  /** Who confirmed it, when a confirmation was needed and given. */
  confirmedBy: string | null;
  /** Its amount is above the lender's threshold: a second reviewer must confirm it. */
  confirmationRequired: boolean;
  madeAt: Date;
  /** When it became final. */
  reviewedAt: Date | null;
}

/** What a decision asks to publish: public events and facts for the other services. */
export type Effect =
  | { kind: 'event'; event: EventName; data: unknown }
  | { kind: 'fact'; fact: DistributiveOmit<ApplicationFact, 'factId' | 'clientId' | 'applicationId' | 'at'> };

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export const event = <E extends EventName>(name: E, data: EventDataOf<E>): Effect => ({
  kind: 'event',
  event: name,
  data,
});
export const fact = (f: Extract<Effect, { kind: 'fact' }>['fact']): Effect => ({ kind: 'fact', fact: f });

/** The application closed in `status`: the fact names its accounts, whose pending work stops. */
export const closedFact = (
  state: Pick<Application, 'applicantId' | 'accounts'>,
  status: ApplicationStatus,
  abandonReason: AbandonReason | null,
): Effect =>
  fact({
    type: 'ApplicationClosed',
    applicantId: state.applicantId,
    status,
    abandonReason,
    accountIds: state.accounts.map((a) => a.accountId),
  });

/** A rejected command: a code the edge maps to an HTTP status, and a message for people. */
export interface Rejection {
  ok: false;
  code: CommandErrorCode;
  message: string;
}
export interface Accepted<R = Record<string, unknown>> {
  ok: true;
  state: Application;
  effects: Effect[];
  result: R;
}
export type Outcome<R = Record<string, unknown>> = Accepted<R> | Rejection;

export const reject = (code: CommandErrorCode, message: string): Rejection => ({ ok: false, code, message });

/** Keeps at most this many handled ids per application (older ones can no longer recur). */
export const MAX_HANDLED = 200;
export const remember = (handled: string[], id: string): string[] => [...handled, id].slice(-MAX_HANDLED);

/**
 * The applicant's contest of an automated decision (NDPA s.37: a person may ask for a human,
 * give their view and contest it), opened by the lender with the applicant's statement. It puts
 * the application in the review queue; a review of it always needs a second reviewer, and the
 * final one resolves it.
 */
export interface Contest {
  contestId: string;
  /** The applicant's own words; sealed at rest like their identity. */
  statement: string;
  /** What was contested: the scorecard's decision, or the final review's when it had one. */
  contestedOutcome: ContestableOutcome;
  status: 'OPEN' | 'RESOLVED';
  openedAt: Date;
  resolvedAt: Date | null;
  /** The review the contest reopened, kept as it was; null when the decision had none. */
  priorReview: Review | null;
}

/** The applicant's answer to an offer, as the lender took it; an acceptance may be withdrawn until its cooling-off ends. */
export interface OfferResponse {
  response: 'ACCEPTED' | 'DECLINED';
  at: Date;
  /** For an acceptance: the end of the cooling-off period; null for a decline. */
  coolingOffEndsAt: Date | null;
  withdrawnAt: Date | null;
}
