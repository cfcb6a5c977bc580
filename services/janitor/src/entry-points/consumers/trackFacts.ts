import { isDeepStrictEqual } from 'node:util';
import { ServiceError, type Clock, type InboundMessage, type Logger } from '@loan/runtime';
import type { DeadlineRepository } from '../../data-access/deadlineRepository';
import type { TimelineRepository } from '../../data-access/timelineRepository';
import type { DeadlineTtls } from '../../domain/deadline';
import { type TrackedFact, trackFact } from '../../domain/trackDeadlines/decide';
import type { JanitorMetrics } from '../../metrics';

const MAX_CONFLICT_RETRIES = 10;

/**
 * Consumer of the applications service's facts and the enrichment results: loads the
 * application's timeline, decides, cancels and arms deadlines, then stores the timeline.
 * The deadlines are written before the timeline, and the plan depends only on the timeline,
 * so a crash or a conflict in between is repaired by handling the fact again.
 * (The bus has already decoded and validated the message against the topic's schema.)
 */
export function createFactHandler(deps: {
  timelines: TimelineRepository;
  deadlines: DeadlineRepository;
  ttls: DeadlineTtls;
  clock: Clock;
  metrics: JanitorMetrics;
  logger: Logger;
}) {
  const { timelines, deadlines, ttls, clock, metrics } = deps;
  const logger = deps.logger.child({ component: 'facts' });

  return async function handleFact(message: InboundMessage): Promise<void> {
    const fact = message.value as TrackedFact;
    for (let attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt++) {
      const stored = await timelines.get(fact.applicationId);
      const plan = trackFact(stored?.timeline ?? null, fact, ttls);
      if (!plan) return;
      const now = clock.now();
      for (const spec of plan.cancel) {
        const count = await deadlines.cancel(spec, now);
        if (count > 0) metrics.cancelled.inc({ kind: spec.kind }, count);
      }
      for (const deadline of plan.arm) {
        if (await deadlines.arm(deadline, now)) {
          metrics.armed.inc({ kind: deadline.kind });
          logger.debug({ deadlineId: deadline.deadlineId, dueAt: deadline.dueAt }, 'deadline armed');
        }
      }
      if (stored && isDeepStrictEqual(stored.timeline, plan.timeline)) return;
      if (await timelines.save(plan.timeline, stored?.rev ?? 0)) return;
    }
    throw new ServiceError(`Timeline of application ${fact.applicationId} kept changing under us`, { retriable: true });
  };
}
