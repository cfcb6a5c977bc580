import type { ApplicationFact, EnrichmentResult } from '@loan/contracts';
import {
  type Deadline,
  type DeadlineKind,
  type DeadlineTtls,
  type TrackedDeadline,
  deadlineIdOf,
  dueAtOf,
} from '../deadline';
import { type AccountEnrichment, type ConsentTimes, type Timeline, emptyTimeline } from '../timeline';

/** The facts that start or stop deadlines: the applications service's and enrichment's. */
export type TrackedFact = ApplicationFact | EnrichmentResult;

/**
 * Armed deadlines of one kind to cancel: those of the application (and account, when given)
 * whose period started before `sinceBefore` or at the latest at `sinceAtMost`.
 */
export interface CancelDeadlines {
  kind: DeadlineKind;
  applicationId: string;
  accountId?: string;
  sinceBefore?: string;
  sinceAtMost?: string;
  /** Only attempts up to this one (a result of attempt n says nothing about attempt n + 1). */
  attemptAtMost?: number;
}

/** What a cancellation needs to know of a deadline: its id and the fields specs select on. */
export type DeadlineRef = Pick<Deadline, 'deadlineId' | 'kind' | 'accountId' | 'attempt' | 'since'>;

/** The part of a deadline a cancellation and the timeline's list of armed deadlines keep. */
export const refOf = (deadline: DeadlineRef): DeadlineRef => ({
  deadlineId: deadline.deadlineId,
  kind: deadline.kind,
  accountId: deadline.accountId,
  attempt: deadline.attempt,
  since: deadline.since,
});

/** True when the spec names the deadline (a deadline of the spec's application). */
export function cancels(spec: CancelDeadlines, deadline: DeadlineRef): boolean {
  if (deadline.kind !== spec.kind) return false;
  if (spec.accountId !== undefined && deadline.accountId !== spec.accountId) return false;
  if (spec.sinceBefore !== undefined && !(deadline.since < spec.sinceBefore)) return false;
  if (spec.sinceAtMost !== undefined && !(deadline.since <= spec.sinceAtMost)) return false;
  if (spec.attemptAtMost !== undefined && !(deadline.attempt !== null && deadline.attempt <= spec.attemptAtMost))
    return false;
  return true;
}

/** What a fact changes: the new timeline, deadlines to arm, armed deadlines to cancel. */
export interface DeadlinePlan {
  timeline: Timeline;
  arm: Deadline[];
  cancel: CancelDeadlines[];
}

/** What a closing cancels: everything but the retention of the bank data, which it starts. */
const ALL_KINDS: readonly DeadlineKind[] = ['no_link', 'no_analyze', 'enrichment_timeout', 'analysis_timeout'];

// The `at` strings are ISO 8601 UTC with milliseconds, so they compare as text.
const later = (a: string | null, b: string): string => (a !== null && a > b ? a : b);

function withStart(accounts: AccountEnrichment[], accountId: string, at: string): AccountEnrichment[] {
  const existing = accounts.find((a) => a.accountId === accountId);
  if (!existing) return [...accounts, { accountId, starts: [at], enriched: null }];
  if (existing.starts.includes(at)) return accounts;
  const starts = [...existing.starts, at].sort();
  return accounts.map((a) => (a === existing ? { ...a, starts } : a));
}

function withEnriched(
  accounts: AccountEnrichment[],
  accountId: string,
  at: string,
  attempt: number,
): AccountEnrichment[] {
  const existing = accounts.find((a) => a.accountId === accountId);
  if (!existing) return [...accounts, { accountId, starts: [], enriched: { at, attempt } }];
  const known = existing.enriched;
  if (known && (known.attempt > attempt || (known.attempt === attempt && known.at >= at))) return accounts;
  return accounts.map((a) => (a === existing ? { ...a, enriched: { at, attempt } } : a));
}

/** The account's consent as a fact changes it: a newer use moves its lapse, an end is final. */
function withConsent(
  accounts: AccountEnrichment[],
  accountId: string,
  change: (consent: ConsentTimes | undefined) => ConsentTimes | undefined,
): AccountEnrichment[] {
  const existing = accounts.find((a) => a.accountId === accountId);
  const consent = change(existing?.consent);
  if (!consent || consent === existing?.consent) return accounts;
  if (!existing) return [...accounts, { accountId, starts: [], enriched: null, consent }];
  return accounts.map((a) => (a === existing ? { ...a, consent } : a));
}

/**
 * The consent used at `at` (an enrichment of its account): its lapse `idleLapseMs` later, never
 * past its expiry, as the applications service computes it from the same fact. Unchanged when
 * it ended, was used since, or does not say how long without use lapses it.
 */
function consentUsedAt(consent: ConsentTimes, at: string): ConsentTimes {
  const idle = consent.idleLapseMs;
  if (idle == null || consent.endedAt !== null || at <= consent.lastUsedAt) return consent;
  const lapsesAt = new Date(Math.min(Date.parse(at) + idle, Date.parse(consent.expiresAt))).toISOString();
  return { ...consent, lastUsedAt: at, lapsesAt };
}

/**
 * Folds a fact into the timeline; null when the fact does not concern deadlines. A fact from
 * before the application closed (a late redelivery) changes nothing.
 */
export function applyFact(timeline: Timeline, fact: TrackedFact): Timeline | null {
  const stale = timeline.closedAt !== null && fact.at <= timeline.closedAt;
  switch (fact.type) {
    case 'ApplicationOpened':
    case 'ApplicationResumed': {
      if (stale || (timeline.linkWindowStart !== null && fact.at <= timeline.linkWindowStart)) return timeline;
      // A new window: whatever was linked and analyzed before it belongs to the closed period.
      return { ...timeline, linkWindowStart: fact.at, firstLinkedAt: null, analysisRequestedAt: null };
    }
    case 'AccountLinked': {
      // The consent it carries outlives the application's closing: taken even from a late one.
      const given = fact.consent;
      const enriched = timeline.accounts.find((a) => a.accountId === fact.accountId)?.enriched ?? null;
      const accounts = given
        ? withConsent(timeline.accounts, fact.accountId, (known) => {
            if (known) return known;
            const { consentId, givenAt, expiresAt, lapsesAt, idleLapseMs } = given;
            const linked = { consentId, givenAt, expiresAt, lastUsedAt: givenAt, lapsesAt, endedAt: null, idleLapseMs };
            // Its enrichment may have been read first (another topic): the use it made counts.
            return enriched ? consentUsedAt(linked, enriched.at) : linked;
          })
        : timeline.accounts;
      if (stale) return accounts === timeline.accounts ? timeline : { ...timeline, accounts };
      const inWindow = timeline.linkWindowStart === null || fact.at >= timeline.linkWindowStart;
      return {
        ...timeline,
        firstLinkedAt: timeline.firstLinkedAt ?? (inWindow ? fact.at : null),
        accounts: withStart(accounts, fact.accountId, fact.at),
      };
    }
    case 'EnrichmentRestartRequested':
      if (stale) return timeline;
      return { ...timeline, accounts: withStart(timeline.accounts, fact.accountId, fact.at) };
    case 'AccountEnriched': {
      // The account's first enrichment is a use of its consent (as applications counts it).
      const first = !timeline.accounts.some((a) => a.accountId === fact.accountId && a.enriched !== null);
      const accounts = withEnriched(timeline.accounts, fact.accountId, fact.at, fact.attempt);
      return {
        ...timeline,
        accounts: first
          ? withConsent(accounts, fact.accountId, (known) => known && consentUsedAt(known, fact.at))
          : accounts,
      };
    }
    case 'AnalysisRequested':
      if (stale) return timeline;
      return { ...timeline, analysisRequestedAt: later(timeline.analysisRequestedAt, fact.at) };
    case 'ApplicationClosed': {
      const decided = fact.status === 'COMPLETED' || fact.status === 'FAILED';
      const last = timeline.closedAt === null || fact.at >= timeline.closedAt;
      return {
        ...timeline,
        closedAt: later(timeline.closedAt, fact.at),
        retainedUntil: last ? (fact.retainedUntil ?? null) : (timeline.retainedUntil ?? null),
        // The first decision only: COMPLETED and FAILED are final, a redelivery changes nothing.
        decidedAt: timeline.decidedAt ?? (decided ? fact.at : null),
      };
    }
    // A consent outlives the application's closing: its facts are never stale.
    case 'ConsentRecorded':
      return {
        ...timeline,
        accounts: withConsent(timeline.accounts, fact.accountId, (known) => {
          if (known && (known.endedAt !== null || known.lastUsedAt >= fact.lastUsedAt)) return known;
          const { consentId, givenAt, expiresAt, lastUsedAt, lapsesAt } = fact;
          return { consentId, givenAt, expiresAt, lastUsedAt, lapsesAt, endedAt: null };
        }),
      };
    case 'ConsentEnded':
      return {
        ...timeline,
        accounts: withConsent(timeline.accounts, fact.accountId, (known) =>
          known && known.endedAt === null ? { ...known, endedAt: fact.endedAt } : known,
        ),
      };
    case 'OfferMade': {
      // Only a newer offer replaces the one watched: a redelivery of an older one changes nothing.
      if (timeline.offer && fact.madeAt <= timeline.offer.madeAt) return timeline;
      return { ...timeline, offer: { madeAt: fact.madeAt, expiresAt: fact.expiresAt } };
    }
    case 'OfferAnswered':
      return { ...timeline, offerAnsweredAt: later(timeline.offerAnsweredAt ?? null, fact.answeredAt) };
    case 'LinkingFinalized':
    case 'EnrichmentTimedOut':
    case 'BankDataScrubbed':
    case 'DecisionReviewed':
      return null;
  }
}

/**
 * The deadlines a timeline calls for, for the application and one of its accounts: the
 * current ones armed, the ones overtaken cancelled. It depends only on the timeline, so
 * applying it again (a redelivered fact, a retry after a conflict) changes nothing more.
 */
export function planDeadlines(
  timeline: Timeline,
  accountId: string | null,
  ttls: DeadlineTtls,
): Omit<DeadlinePlan, 'timeline'> {
  const { applicationId, clientId, linkWindowStart, firstLinkedAt, analysisRequestedAt, closedAt } = timeline;
  const arm: Deadline[] = [];
  const cancel: CancelDeadlines[] = [];
  const open = (since: string) => closedAt === null || since > closedAt;
  const deadline = (
    kind: keyof DeadlineTtls,
    since: string,
    account: { accountId: string; attempt: number } | null,
    endsAt?: string,
    dueAt: Date = dueAtOf(kind, since, ttls, endsAt),
  ): Deadline => ({
    deadlineId: deadlineIdOf(kind, account?.accountId ?? applicationId, since),
    kind,
    clientId,
    applicationId,
    accountId: account?.accountId ?? null,
    attempt: account?.attempt ?? null,
    since,
    dueAt,
  });

  if (linkWindowStart !== null) {
    cancel.push({ kind: 'no_link', applicationId, sinceBefore: linkWindowStart });
    if (firstLinkedAt === null && open(linkWindowStart)) arm.push(deadline('no_link', linkWindowStart, null));
  }
  if (firstLinkedAt !== null) {
    cancel.push({ kind: 'no_link', applicationId, sinceAtMost: firstLinkedAt });
    cancel.push({ kind: 'no_analyze', applicationId, sinceBefore: firstLinkedAt });
    if (analysisRequestedAt === null && open(firstLinkedAt)) arm.push(deadline('no_analyze', firstLinkedAt, null));
  }
  if (analysisRequestedAt !== null) {
    cancel.push({ kind: 'no_analyze', applicationId, sinceAtMost: analysisRequestedAt });
    cancel.push({ kind: 'analysis_timeout', applicationId, sinceBefore: analysisRequestedAt });
    // Cancelled when the application closes (decided or failed); fires if it never does.
    if (open(analysisRequestedAt)) arm.push(deadline('analysis_timeout', analysisRequestedAt, null));
  }

  const account = accountId ? timeline.accounts.find((a) => a.accountId === accountId) : undefined;
  if (account) {
    const latest = account.starts.at(-1);
    const { enriched } = account;
    if (latest !== undefined) {
      const attempt = account.starts.length;
      cancel.push({ kind: 'enrichment_timeout', applicationId, accountId: account.accountId, sinceBefore: latest });
      const done = enriched !== null && enriched.attempt >= attempt && enriched.at >= latest;
      if (!done && open(latest))
        arm.push(deadline('enrichment_timeout', latest, { accountId: account.accountId, attempt }));
    }
    if (enriched !== null) {
      cancel.push({
        kind: 'enrichment_timeout',
        applicationId,
        accountId: account.accountId,
        sinceAtMost: enriched.at,
        attemptAtMost: enriched.attempt,
      });
    }
    const { consent } = account;
    if (consent) {
      // Due when the consent's owner said; each use starts a new lapse, an end stops both.
      const timed = (kind: 'consent_expiry' | 'consent_lapse', since: string, dueAt: string): Deadline => ({
        deadlineId: deadlineIdOf(kind, account.accountId, since),
        kind,
        clientId,
        applicationId,
        accountId: account.accountId,
        attempt: null,
        since,
        dueAt: new Date(dueAt),
      });
      const { accountId: id } = account;
      if (consent.endedAt !== null) {
        cancel.push({ kind: 'consent_expiry', applicationId, accountId: id });
        cancel.push({ kind: 'consent_lapse', applicationId, accountId: id });
      } else {
        cancel.push({ kind: 'consent_lapse', applicationId, accountId: id, sinceBefore: consent.lastUsedAt });
        arm.push(timed('consent_expiry', consent.givenAt, consent.expiresAt));
        arm.push(timed('consent_lapse', consent.lastUsedAt, consent.lapsesAt));
      }
    }
  }

  if (closedAt !== null) {
    for (const kind of ALL_KINDS) cancel.push({ kind, applicationId, sinceAtMost: closedAt });
  }
  if (timeline.decidedAt) arm.push(deadline('bank_data_retention', timeline.decidedAt, null));

  // An offer stands until its own expiry unless answered; a newer offer replaces it.
  const { offer, offerAnsweredAt } = timeline;
  if (offer) {
    cancel.push({ kind: 'offer_expiry', applicationId, sinceBefore: offer.madeAt });
    if (!offerAnsweredAt || offerAnsweredAt < offer.madeAt)
      arm.push(deadline('offer_expiry', offer.madeAt, null, offer.expiresAt));
  }
  if (offerAnsweredAt) cancel.push({ kind: 'offer_expiry', applicationId, sinceAtMost: offerAnsweredAt });

  // The records of an ended application, until the lender's retention from its last ending; a
  // resume makes the one of an earlier ending stale.
  if (linkWindowStart !== null) cancel.push({ kind: 'record_retention', applicationId, sinceBefore: linkWindowStart });
  if (closedAt !== null && (linkWindowStart === null || closedAt > linkWindowStart)) {
    const until = timeline.retainedUntil ? new Date(timeline.retainedUntil) : undefined;
    arm.push(deadline('record_retention', closedAt, null, undefined, until));
  }
  return { arm, cancel };
}

/**
 * What one fact does to the deadlines of its application: arm no_link on creation or resume,
 * swap it for no_analyze on the first link of the window, arm (and re-arm on restart) the
 * enrichment timeout of each account, swap no_analyze for analysis_timeout on analyze, cancel
 * on enrichment and closing; arm an offer's expiry when it is made, cancel it when answered.
 * Null when the fact concerns no deadline.
 */
export function trackFact(current: Timeline | null, fact: TrackedFact, ttls: DeadlineTtls): DeadlinePlan | null {
  const timeline = applyFact(current ?? emptyTimeline(fact.applicationId, fact.clientId), fact);
  if (!timeline) return null;
  const accountId = 'accountId' in fact ? fact.accountId : null;
  return { timeline, ...planDeadlines(timeline, accountId, ttls) };
}

/** What a plan does to the deadlines a timeline holds. */
export interface AppliedPlan {
  /** Every deadline of the application afterwards, the ended ones included. */
  deadlines: TrackedDeadline[];
  cancelled: TrackedDeadline[];
  armed: TrackedDeadline[];
}

/**
 * Applies a plan to the deadlines a timeline holds: the armed ones it names are cancelled,
 * and the ones it arms are added unless the timeline holds them already (armed, fired or
 * cancelled: a deadline is never armed twice) or `elsewhere` names them (kept by an earlier
 * version in a collection of their own).
 */
export function applyPlan(
  current: readonly TrackedDeadline[],
  plan: Pick<DeadlinePlan, 'arm' | 'cancel'>,
  now: Date,
  elsewhere: ReadonlySet<string> = new Set(),
): AppliedPlan {
  const cancelled: TrackedDeadline[] = [];
  const deadlines = current.map((d) => {
    if (d.status !== 'ARMED' || !plan.cancel.some((spec) => cancels(spec, d))) return d;
    const ended = { ...d, status: 'CANCELLED' as const, cancelledAt: now };
    cancelled.push(ended);
    return ended;
  });
  const armed: TrackedDeadline[] = [];
  for (const deadline of plan.arm) {
    if (elsewhere.has(deadline.deadlineId) || deadlines.some((d) => d.deadlineId === deadline.deadlineId)) continue;
    const tracked = { ...deadline, status: 'ARMED' as const, armedAt: now, firedAt: null, cancelledAt: null };
    armed.push(tracked);
    deadlines.push(tracked);
  }
  return { deadlines, cancelled, armed };
}
