import { isDeepStrictEqual } from 'node:util';
import { ServiceError, type Clock, type InboundMessage, type Logger } from '@loan/runtime';
import { LRUCache } from 'lru-cache';
import type { DeadlineRepository, OutcomeHeld } from '../../data-access/deadlineRepository';
import type { StoredTimeline, TimelineRepository } from '../../data-access/timelineRepository';
import type { DeadlineTtls } from '../../domain/deadline';
import { type DeadlineRef, type TrackedFact, cancels, refOf, trackFact } from '../../domain/trackDeadlines/decide';
import type { JanitorMetrics } from '../../metrics';

const MAX_CONFLICT_RETRIES = 10;
/** Timelines whose last write by this process is remembered (about a kilobyte each). */
const REMEMBERED_TIMELINES = 2_000;

const sameIds = (a: DeadlineRef[], b: DeadlineRef[]) =>
  a.length === b.length && a.every((d, i) => d.deadlineId === b[i]?.deadlineId);

/**
 * Consumer of the applications service's facts and the enrichment results: loads the
 * application's timeline, decides, cancels and arms deadlines, and stores the timeline, every
 * database access by `_id`. The timeline lists the deadlines that may still be armed, so the
 * ones a plan cancels are picked from that list rather than queried. The order makes a crash
 * or a conflict anywhere harmless, since handling the fact again repairs it:
 * 1. cancel: listed deadlines the plan cancels get their outcome (they stay listed until then);
 * 2. store the timeline, listing the deadlines the plan arms before they exist (so whatever
 *    handles the application next can cancel them, even if this handler dies right after);
 * 3. arm them, and mirror the outcomes of step 1 on their deadlines, in one write command. A
 *    redelivered fact plans the same and arms what is still missing; a mirror lost to a crash
 *    is harmless, since the outcome is what decides (firing such a deadline is refused by it).
 * The next fact of an application starts from the timeline this process last stored for it,
 * without reading it: the write is conditional on that revision, so a timeline another replica
 * changed since makes it miss, and the fact is handled again on a fresh read. So is a fact that
 * would change nothing, since an outdated timeline could be the reason (a redelivery: see
 * `unchanged` below).
 * (The bus has already decoded and validated the message against the topic's schema.)
 */
export function createFactHandler(deps: {
  timelines: TimelineRepository;
  deadlines: Pick<DeadlineRepository, 'recordCancel' | 'settle'>;
  ttls: DeadlineTtls;
  clock: Clock;
  metrics: JanitorMetrics;
  logger: Logger;
}) {
  const { timelines, deadlines, ttls, clock, metrics } = deps;
  const logger = deps.logger.child({ component: 'facts' });
  const remembered = new LRUCache<string, StoredTimeline>({ max: REMEMBERED_TIMELINES });

  return async function handleFact(message: InboundMessage): Promise<void> {
    const fact = message.value as TrackedFact;
    // The head alone first (one lookup); after a conflict, and before acting on a timeline the
    // fact does not change (a redelivery), the revisions after it are looked up too.
    let headOnly = true;
    /** Outcomes of the cancellations so far, mirrored on their deadlines with the arming. */
    const held: OutcomeHeld[] = [];
    for (let attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt++) {
      const known = attempt === 0 ? remembered.get(fact.applicationId) : undefined;
      const stored = known ?? (await timelines.get(fact.applicationId, { headOnly }));
      const plan = trackFact(stored?.timeline ?? null, fact, ttls);
      // No plan: the fact is of a kind that concerns no deadline, whatever the timeline.
      if (!plan) return;
      const now = clock.now();
      const listed = stored?.armed ?? [];
      const armed: DeadlineRef[] = [];
      for (const deadline of listed) {
        const spec = plan.cancel.find((s) => cancels(s, deadline));
        if (!spec) {
          armed.push(deadline);
          continue;
        }
        const cancelled = await deadlines.recordCancel({ ...deadline, applicationId: fact.applicationId }, now);
        if (cancelled.won) metrics.cancelled.inc({ kind: deadline.kind });
        if (cancelled.held) held.push(cancelled.held);
      }
      for (const deadline of plan.arm) {
        if (!armed.some((d) => d.deadlineId === deadline.deadlineId)) armed.push(refOf(deadline));
      }
      const unchanged = stored && isDeepStrictEqual(stored.timeline, plan.timeline) && sameIds(listed, armed);
      if (unchanged ? headOnly : !(await timelines.save(plan.timeline, armed, stored?.rev ?? 0))) {
        headOnly = false;
        continue;
      }
      remembered.set(fact.applicationId, unchanged ? stored : { timeline: plan.timeline, armed, rev: (stored?.rev ?? 0) + 1 });
      const armedNow = await deadlines.settle(held, plan.arm, now);
      for (const deadline of plan.arm) {
        if (armedNow.has(deadline.deadlineId)) {
          metrics.armed.inc({ kind: deadline.kind });
          logger.debug({ deadlineId: deadline.deadlineId, dueAt: deadline.dueAt }, 'deadline armed');
        }
      }
      return;
    }
    throw new ServiceError(`Timeline of application ${fact.applicationId} kept changing under us`, { retriable: true });
  };
}
