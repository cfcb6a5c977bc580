import type { ConsentEndReason, EnrichmentResult, EnrichmentStatus, EventDataOf, EventName } from '@loan/contracts';

/**
 * Progress of one of the provider's two analyses of an account: NOT_STARTED until the provider
 * accepted the request, STARTED while it works, DONE once we hold its result.
 */
export type PartStatus = 'NOT_STARTED' | 'STARTED' | 'DONE';

/** The provider's income analysis of the account (Mono's income job). */
export interface IncomePart {
  status: PartStatus;
  startedAt: Date | null;
  /** When the provider's webhook said the result is ready (we then fetch it at once). */
  signalledAt: Date | null;
  doneAt: Date | null;
  /** The result as the provider gave it (Mono's shape, kobo); cleared on restart and scrub. */
  result: Record<string, unknown> | null;
}

/** The provider's statement insights of the account (Mono's insights job, read by job id). */
export interface InsightsPart extends IncomePart {
  jobId: string | null;
}

/**
 * The enrichment of one linked account: the two provider analyses, then our own reading of
 * the statement, ending in the enriched profile the scorecard uses. One per account; a
 * re-link starts a new attempt on the same job.
 */
export interface EnrichmentJob {
  accountId: string;
  applicationId: string;
  applicantId: string;
  clientId: string;
  /** The provider's id of the account (Mono's account id). */
  providerAccountId: string;
  /** As the applications service recorded them at linking (the provider's account wins). */
  institution: string | null;
  accountNumber: string | null;
  /** The lender's provider secret key, sealed; opened only for a provider call. */
  providerKeySealed: string;
  /** 1 for the first enrichment, incremented on every restart. */
  attempt: number;
  /** Start of the current attempt (the `at` of the fact that asked for it), ISO 8601. */
  since: string;
  status: EnrichmentStatus;
  income: IncomePart;
  insights: InsightsPart;
  /** When a worker should next look at this job; null once nothing is left to do. */
  nextTryAt: Date | null;
  /** Provider failures in a row, for the backoff. */
  failures: number;
  lastError: string | null;
  /** Facts already applied, so that a redelivery changes nothing. */
  handledFacts: string[];
  enrichedAt: Date | null;
  failedAt: Date | null;
  /** The application was closed: nothing more is done for this account. */
  closedAt: Date | null;
  /** The applicant's bank data was deleted (application abandoned without analysis). */
  scrubbedAt: Date | null;
  /** The applicant's consent to read the account ended; absent or null while it stands. */
  consentEnd?: ConsentEnd | null;
  /** The account is still to be unlinked at the provider after its consent ended. */
  unlinkPending?: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** The end of the account's consent, and its unlinking at the provider. */
export interface ConsentEnd {
  consentId: string;
  reason: ConsentEndReason;
  endedAt: string;
  /** When the provider unlinked it (ISO 8601); null until then. */
  unlinkedAt: string | null;
  unlinkFailures: number;
  lastUnlinkError: string | null;
}

export type EnrichmentPart = 'income' | 'insights';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What a decision asks to publish: a public event, or a result for the other services. */
export type Effect =
  | { kind: 'event'; event: EventName; data: unknown }
  | { kind: 'result'; result: DistributiveOmit<EnrichmentResult, 'factId' | 'clientId' | 'applicationId' | 'at'> };

export const event = <E extends EventName>(name: E, data: EventDataOf<E>): Effect => ({
  kind: 'event',
  event: name,
  data,
});
export const result = (r: Extract<Effect, { kind: 'result' }>['result']): Effect => ({ kind: 'result', result: r });

export interface Change {
  job: EnrichmentJob;
  effects: Effect[];
}

/** Keeps at most this many handled fact ids per job (older ones can no longer recur). */
export const MAX_HANDLED = 50;
export const remember = (handled: string[], id: string): string[] => [...handled, id].slice(-MAX_HANDLED);

/** A job still being worked on: pending, and its application neither closed nor scrubbed. */
export const isActive = (job: EnrichmentJob): boolean =>
  job.status === 'PENDING' && job.closedAt === null && job.scrubbedAt === null;

export const emptyIncome = (): IncomePart => ({
  status: 'NOT_STARTED',
  startedAt: null,
  signalledAt: null,
  doneAt: null,
  result: null,
});
export const emptyInsights = (): InsightsPart => ({ ...emptyIncome(), jobId: null });
