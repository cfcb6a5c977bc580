import type { DeadlineKind } from '@loan/contracts';

export type { DeadlineKind };

/**
 * ARMED: waiting for its due time. CANCELLED: what it waited for happened (an account was
 * linked, analyze was called, enrichment completed, the application closed) or a newer period
 * replaced it. FIRED: its due time passed and `DeadlinePassed` was published for the owner.
 * CANCELLED and FIRED are final: a deadline is never armed again.
 */
export type DeadlineStatus = 'ARMED' | 'CANCELLED' | 'FIRED';

/**
 * How long each kind of deadline runs, in milliseconds, from its `since`. A consent's deadlines
 * are not among them: the applications service, which owns the consent, says when each is due.
 */
export type DeadlineTtls = Record<Exclude<DeadlineKind, 'consent_expiry' | 'consent_lapse'>, number>;

/**
 * A timeout the janitor watches on behalf of an owner (spec sections 3 and 8):
 * - `no_link`: 24 hours from creation or resume without a linked account (owner: applications);
 * - `no_analyze`: 7 days from the first linked account without analyze (owner: applications);
 * - `enrichment_timeout`: 20 minutes of one account in enrichment (owner: enrichment);
 * - `analysis_timeout`: an analysis that has no outcome a few minutes after analyze (owner:
 *   applications, which fails the application): PROCESSING always ends;
 * - `bank_data_retention`: a COMPLETED or FAILED application's bank data is kept this long
 *   (owners: enrichment, scoring through enrichment's scrub, notifier);
 * - `consent_expiry` and `consent_lapse`: an account's consent runs out a year after it was
 *   given, or 180 days after its last use, at the times the applications service recorded
 *   (owner: applications, which ends it; enrichment then unlinks and erases the account);
 * - `offer_expiry`: an offer unanswered at its own expiry, fixed by the lender's policy when it
 *   was made (owner: applications, which records it expired and tells the lender); its TTL is a
 *   grace after that expiry, not a period from `since`;
 * - `record_retention`: an ended application's records (decision, offer, review, contest) are
 *   kept for the lender's retention period from its end, then purged (owner: applications); due
 *   when the `ApplicationClosed` fact's `retainedUntil` says.
 */
export interface Deadline {
  /** Deterministic, so that a redelivered fact arms the same deadline rather than a second one. */
  deadlineId: string;
  kind: DeadlineKind;
  clientId: string;
  applicationId: string;
  /** Set for enrichment timeouts and consent deadlines only. */
  accountId: string | null;
  /** The enrichment attempt (1 for the first link, one more per restart); enrichment timeouts only. */
  attempt: number | null;
  /**
   * Start of the period, exactly as the fact that started it wrote it: the owner compares it
   * with its own record to tell the current period from a stale one.
   */
  since: string;
  dueAt: Date;
  /**
   * The trace context (W3C headers) of the fact that armed it: its firing, days later maybe,
   * starts a trace of its own that links to that one. Absent when tracing was off.
   */
  armedBy?: Record<string, string>;
}

/**
 * A deadline as the application's timeline holds it: where it stands and when that changed.
 * Ended deadlines stay listed, so a redelivered fact that plans one again finds it ended.
 */
export interface TrackedDeadline extends Deadline {
  status: DeadlineStatus;
  armedAt: Date;
  firedAt: Date | null;
  cancelledAt: Date | null;
}

const HOUR_MS = 3_600_000;

/**
 * The UTC hour a moment falls in, `YYYY-MM-DDTHH` (`2026-11-01T08` for 08:00 to 08:59:59.999):
 * the bucket a timeline is filed under by its next due time (`nextDueHour`), so that the
 * scheduler's reload asks for a few hours by equality rather than for a range of dates, which
 * the local database cannot narrow by an index.
 */
export const hourOf = (at: Date): string => at.toISOString().slice(0, 13);

/** When the UTC hour that `at` falls in began. */
export const startOfHour = (at: Date): Date => new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);

/**
 * Every UTC hour from the one `from` falls in to the one `to` falls in, both included, oldest
 * first (none when `to` is earlier than `from`'s hour).
 */
export function hoursBetween(from: Date, to: Date): string[] {
  const hours: string[] = [];
  for (let t = startOfHour(from).getTime(); t <= to.getTime(); t += HOUR_MS) hours.push(hourOf(new Date(t)));
  return hours;
}

/** The earliest due time of the armed deadlines, or null when none is armed. */
export function nextDueOf(deadlines: readonly TrackedDeadline[]): Date | null {
  let next: Date | null = null;
  for (const d of deadlines) if (d.status === 'ARMED' && (next === null || d.dueAt < next)) next = d.dueAt;
  return next;
}

/** The UTC hour (`hourOf`) of the earliest due time of the armed deadlines, or null when none is armed. */
export function nextDueHourOf(deadlines: readonly TrackedDeadline[]): string | null {
  const next = nextDueOf(deadlines);
  return next && hourOf(next);
}

/** The deterministic id of a deadline: kind, what it watches (application or account), start. */
export const deadlineIdOf = (kind: DeadlineKind, subjectId: string, since: string): string =>
  `${kind}:${subjectId}:${since}`;

/**
 * When a deadline of this kind that started at `since` is due: its TTL after `since`, or after
 * `endsAt` when the period's end is the owner's (an offer's expiry).
 */
export const dueAtOf = (kind: keyof DeadlineTtls, since: string, ttls: DeadlineTtls, endsAt?: string): Date =>
  new Date(Date.parse(endsAt ?? since) + ttls[kind]);

/** True once the due time is reached. */
export const isDue = (deadline: Pick<Deadline, 'dueAt'>, now: Date): boolean =>
  deadline.dueAt.getTime() <= now.getTime();
