import { deadLetterTopicFor, replyTopicPrefix } from '@loan/contracts';
import type { Clock, KafkaBus, Logger } from '@loan/runtime';

/** The consumer group a replica reads its reply topic with (before the topic namespace). */
export const replyGroupFor = (instanceId: string) => `gateway-replies-${instanceId}`;

/**
 * Removes the reply topics of gateway replicas that died without a clean shutdown (a clean one
 * deletes its own). Each replica owns `loan.gateway.replies.<instance>` (and its `.dlq`), read
 * by the group `gateway-replies-<instance>`; a topic whose group has had no member for
 * `graceMs`, as seen by this replica, belongs to a dead replica: its topics and its group are
 * deleted. A replica starting up has a member within seconds, well inside the grace period.
 * Every replica sweeps; deleting what another one deleted first is harmless.
 */
export function createReplyTopicSweeper(deps: {
  bus: Pick<KafkaBus, 'listTopics' | 'deleteTopics' | 'groupMembers' | 'deleteGroups' | 'topicName'>;
  ownInstanceId: string;
  graceMs: number;
  clock: Clock;
  logger: Logger;
}) {
  const { bus, clock, logger } = deps;
  /** Instance id → when this replica first saw its group without a member. */
  const emptySince = new Map<string, number>();

  /** One pass; returns the instance ids whose topics were deleted. */
  async function sweep(): Promise<string[]> {
    const topics = new Set(await bus.listTopics(replyTopicPrefix));
    const ids = new Set<string>();
    for (const topic of topics) {
      const id = topic.slice(replyTopicPrefix.length).replace(/\.dlq$/, '');
      if (id && id !== deps.ownInstanceId) ids.add(id);
    }
    for (const id of emptySince.keys()) if (!ids.has(id)) emptySince.delete(id);
    if (ids.size === 0) return [];

    const members = await bus.groupMembers([...ids].map(replyGroupFor));
    const now = clock.now().getTime();
    const removed: string[] = [];
    for (const id of ids) {
      if ((members.get(replyGroupFor(id)) ?? 0) > 0) {
        emptySince.delete(id);
        continue;
      }
      const since = emptySince.get(id) ?? now;
      emptySince.set(id, since);
      if (now - since < deps.graceMs) continue;
      const own = [`${replyTopicPrefix}${id}`, deadLetterTopicFor(`${replyTopicPrefix}${id}`)].filter((t) =>
        topics.has(t),
      );
      await bus.deleteTopics(own);
      await bus.deleteGroups([replyGroupFor(id)]).catch(() => undefined);
      emptySince.delete(id);
      removed.push(id);
      logger.info(
        { instanceId: id, topics: own.map(bus.topicName) },
        'deleted the reply topics of a gateway replica that is gone',
      );
    }
    return removed;
  }

  /** Sweeps every intervalMs until stopped; a failed pass (an ACL, the broker away) is logged and retried. */
  function start(intervalMs: number) {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      sweep()
        .catch((error: unknown) =>
          logger.warn({ err: error }, 'sweeping reply topics of dead replicas failed; retried on the next interval'),
        )
        .finally(() => {
          running = false;
        });
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  return { sweep, start };
}
export type ReplyTopicSweeper = ReturnType<typeof createReplyTopicSweeper>;
