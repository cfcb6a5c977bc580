/**
 * Enrichment of one linked account as the janitor follows it: every start (the link, then
 * each restart through link-account) and the newest completion reported.
 */
export interface AccountEnrichment {
  accountId: string;
  /** Start of each enrichment attempt, oldest first; attempt n started at `starts[n - 1]`. */
  starts: string[];
  /** The newest completed enrichment the enrichment service reported. */
  enriched: { at: string; attempt: number } | null;
  /** The account's consent as the applications service last recorded it (absent before one). */
  consent?: ConsentTimes;
}

/** When an account's consent was given and last used, when each runs out, and whether it ended. */
export interface ConsentTimes {
  consentId: string;
  givenAt: string;
  expiresAt: string;
  lastUsedAt: string;
  lapsesAt: string;
  endedAt: string | null;
  /**
   * How long without use lapses it, when the consent came with its link (`AccountLinked`): the
   * account's first enrichment then moves the lapse. Absent when it came by `ConsentRecorded`,
   * whose later facts carry each use themselves.
   */
  idleLapseMs?: number | null;
}

/**
 * The janitor's projection of one application: the moments that start and stop its deadlines,
 * as the `at` strings of the facts that carried them (owners compare them verbatim).
 */
export interface Timeline {
  applicationId: string;
  clientId: string;
  /** Start of the current 24-hour window to link an account: creation or the last resume. */
  linkWindowStart: string | null;
  /** The first account linked in the current window: start of the 7-day window to analyze. */
  firstLinkedAt: string | null;
  analysisRequestedAt: string | null;
  /** The application reached COMPLETED, FAILED or ABANDONED; a resume opens a new window after it. */
  closedAt: string | null;
  /** When the application was first decided or failed: its bank data is kept for a period from then. */
  decidedAt: string | null;
  /**
   * Until when the records of the application, ended at `closedAt`, are kept (the lender's
   * retention, as its last ending said); null while open or when the ending did not say.
   */
  retainedUntil?: string | null;
  accounts: AccountEnrichment[];
  /** The newest offer made (a decision or a final review granting terms) and when it expires. */
  offer?: { madeAt: string; expiresAt: string } | null;
  /** The applicant's newest answer to an offer (accepted, declined or withdrawn). */
  offerAnsweredAt?: string | null;
}

export const emptyTimeline = (applicationId: string, clientId: string): Timeline => ({
  applicationId,
  clientId,
  linkWindowStart: null,
  firstLinkedAt: null,
  analysisRequestedAt: null,
  closedAt: null,
  decidedAt: null,
  retainedUntil: null,
  accounts: [],
  offer: null,
  offerAnsweredAt: null,
});
