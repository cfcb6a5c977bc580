import { isDeepStrictEqual } from 'node:util';
import {
  ServiceError,
  createKeyedLock,
  withTraceContext,
  type Clock,
  type InboundMessage,
  type Logger,
} from '@loan/runtime';
import { LRUCache } from 'lru-cache';
import type { DeadlineRepository, OutcomeHeld } from '../../data-access/deadlineRepository';
import type { StoredTimeline, TimelineRepository } from '../../data-access/timelineRepository';
import type { DeadlineTtls } from '../../domain/deadline';
import { type DeadlineRef, type TrackedFact, applyPlan, cancels, trackFact } from '../../domain/trackDeadlines/decide';
import type { JanitorMetrics } from '../../metrics';

const MAX_CONFLICT_RETRIES = 10;
/**
 * Open timelines whose last write by this process is remembered. A closed one (decided, failed,
 * abandoned) is forgotten: its facts are over but for rare late ones, which read it again, so
 * the memory follows the applications in flight rather than the history.
 */
const REMEMBERED_TIMELINES = 2_000;

const sameIds = (a: DeadlineRef[], b: DeadlineRef[]) =>
  a.length === b.length && a.every((d, i) => d.deadlineId === b[i]?.deadlineId);

/**
 * Consumer of the applications service's facts and the enrichment results: loads the
 * application's timeline, decides, and stores the timeline with its deadlines in one write of
 * one document, conditional on the revision read: the deadlines the fact cancels are marked
 * so, the ones it arms are added with their due times, and the earliest due time is what the
 * scheduler looks for. A firing of one of them is a write of the same document conditional on
 * the same revision, so of a cancellation and a firing exactly one applies; the other reads
 * again and decides on what the first wrote. A crash before the write leaves nothing done and
 * the redelivered fact does it all; after it, the redelivered fact finds it done.
 *
 * Deadlines an earlier version armed in documents of their own (the timeline lists them in
 * `armed`) are cancelled as that version did, first, each by an insert of its outcome (the
 * arbiter against a firing of it), then left out of the list in the timeline's write, then
 * the outcomes mirrored on their documents; a crash anywhere is repaired by the redelivery.
 *
 * The next fact of an application starts from the timeline this process last stored for it,
 * without reading it: the write is conditional on that revision, so a timeline another replica
 * (or a firing) changed since makes it miss, and the fact is handled again on a fresh read. So
 * is a fact that would change nothing, since an outdated timeline could be the reason.
 * The facts of one application this process handles at once (from different topics, or
 * partitions handled side by side) go one after the other, in the order they came: each
 * starts from the timeline the one before stored, instead of both writing on one revision and
 * the loser reading it again.
 * (The bus has already decoded and validated the message against the topic's schema.)
 */
export function createFactHandler(deps: {
  timelines: Pick<TimelineRepository, 'get' | 'save'>;
  deadlines: Pick<DeadlineRepository, 'recordCancel' | 'settle' | 'track'>;
  ttls: DeadlineTtls;
  clock: Clock;
  metrics: JanitorMetrics;
  logger: Logger;
}) {
  const { timelines, deadlines, ttls, clock, metrics } = deps;
  const logger = deps.logger.child({ component: 'facts' });
  const remembered = new LRUCache<string, StoredTimeline>({ max: REMEMBERED_TIMELINES });
  const remember = (stored: StoredTimeline) => {
    if (stored.timeline.closedAt) remembered.delete(stored.timeline.applicationId);
    else remembered.set(stored.timeline.applicationId, stored);
  };

  const oneAtATime = createKeyedLock();

  return function handleFact(message: InboundMessage): Promise<void> {
    const fact = message.value as TrackedFact;
    return oneAtATime(fact.applicationId, () => track(fact));
  };

  async function track(fact: TrackedFact): Promise<void> {
    // The head alone first (one lookup); after a conflict, and before acting on a timeline the
    // fact does not change (a redelivery), the revisions earlier versions wrote after it too.
    let headOnly = true;
    /** Outcomes of the earlier version's deadlines cancelled so far, mirrored after the write. */
    const held: OutcomeHeld[] = [];
    for (let attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt++) {
      const known = attempt === 0 ? remembered.get(fact.applicationId) : undefined;
      // An opening first comes before there is a timeline: written without a read (an insert,
      // which fails if there is one after all, and the fact is handled again on a read).
      const fresh = attempt === 0 && !known && fact.type === 'ApplicationOpened';
      const stored = fresh ? null : (known ?? (await timelines.get(fact.applicationId, { headOnly })));
      const plan = trackFact(stored?.timeline ?? null, fact, ttls);
      // No plan: the fact is of a kind that concerns no deadline, whatever the timeline.
      if (!plan) return;
      const now = clock.now();
      const listed = stored?.armed ?? [];
      const legacy: DeadlineRef[] = [];
      for (const deadline of listed) {
        if (!plan.cancel.some((s) => cancels(s, deadline))) {
          legacy.push(deadline);
          continue;
        }
        const cancelled = await deadlines.recordCancel({ ...deadline, applicationId: fact.applicationId }, now);
        if (cancelled.won) metrics.cancelled.inc({ kind: deadline.kind });
        if (cancelled.held) held.push(cancelled.held);
      }
      const applied = applyPlan(stored?.deadlines ?? [], plan, now, new Set(listed.map((d) => d.deadlineId)));
      // What it arms remembers this fact's trace, for its firing to link to.
      const armedBy = withTraceContext();
      if (armedBy) for (const deadline of applied.armed) deadline.armedBy = armedBy;
      const unchanged =
        stored &&
        isDeepStrictEqual(stored.timeline, plan.timeline) &&
        sameIds(listed, legacy) &&
        applied.cancelled.length === 0 &&
        applied.armed.length === 0;
      if (unchanged && !headOnly) {
        // Read fresh, and nothing to change: a redelivery of a fact already handled. An earlier
        // version may have died between listing its deadlines and arming them: armed now.
        remember(stored);
        const missing = plan.arm.filter((d) => listed.some((l) => l.deadlineId === d.deadlineId));
        if (missing.length > 0) await deadlines.settle([], missing, now);
        return;
      }
      if (unchanged || !(await timelines.save(plan.timeline, legacy, applied.deadlines, stored?.rev ?? 0))) {
        headOnly = false;
        continue;
      }
      remember({
        timeline: plan.timeline,
        armed: legacy,
        deadlines: applied.deadlines,
        rev: (stored?.rev ?? 0) + 1,
      });
      deadlines.track(applied.deadlines);
      if (held.length > 0) await deadlines.settle(held, [], now);
      for (const deadline of applied.cancelled) metrics.cancelled.inc({ kind: deadline.kind });
      for (const deadline of applied.armed) {
        metrics.armed.inc({ kind: deadline.kind });
        logger.debug({ deadlineId: deadline.deadlineId, dueAt: deadline.dueAt }, 'deadline armed');
      }
      return;
    }
    throw new ServiceError(`Timeline of application ${fact.applicationId} kept changing under us`, { retriable: true });
  }
}
