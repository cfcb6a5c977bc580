import { Topics } from '@loan/contracts';
import type { Admin } from 'kafkajs';
import type { Logger } from '../logger';
import type { KafkaSettings } from './settings';
import { sleep } from './timing';

/**
 * The broker's names of topics and consumer groups: the plain names handlers and schemas see,
 * prefixed with the bus's namespace (empty in production).
 */
export function namespacedNames(namespace = '') {
  return {
    namespace,
    /** The broker's name of a topic or group. */
    real: (name: string) => `${namespace}${name}`,
    /** The plain name of a topic or group the broker names. */
    logical: (name: string) => (namespace && name.startsWith(namespace) ? name.slice(namespace.length) : name),
  };
}
export type Names = ReturnType<typeof namespacedNames>;

/** Whether kafkajs says a failed request may succeed if sent again (a broker still starting). */
const isRetriable = (error: unknown) =>
  typeof error === 'object' && error !== null && (error as { retriable?: unknown }).retriable === true;

/** Offsets of one partition of a topic, and what a consumer group committed there (-1: nothing). */
export interface PartitionOffsets {
  partition: number;
  low: number;
  high: number;
  committed: number;
}

/**
 * Topic and group administration of a bus, in the plain names of topics and groups: creating
 * topics, listing and deleting them, the members of groups, offsets.
 */
export function createTopicAdmin(deps: { admin: Admin; settings: KafkaSettings; names: Names; logger: Logger }) {
  const { admin, settings, logger } = deps;
  const { real, logical } = deps.names;

  /** What a topic is created with: compaction, or how long its records are kept. */
  function topicConfig(topic: string, compacted: boolean, retentionMs?: number): { name: string; value: string }[] {
    if (compacted) return [{ name: 'cleanup.policy', value: 'compact' }];
    const published = [Topics.events, Topics.analytics, Topics.outcomes].some((t) => topic === real(t));
    const retention = retentionMs ?? (published ? settings.eventsRetentionMs : settings.retentionMs);
    return retention === undefined ? [] : [{ name: 'retention.ms', value: String(retention) }];
  }

  /**
   * Creates the topics that are missing (existing ones are left as they are), then waits until
   * every partition has a leader: a topic another process is creating at the same moment is
   * not usable before that.
   */
  async function ensureTopics(
    topics: string[],
    overrides: { partitions?: number; compacted?: boolean; retentionMs?: number } = {},
  ) {
    const names = topics.map(real);
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        const existing = new Set(await admin.listTopics());
        const missing = names.filter((t) => !existing.has(t));
        if (missing.length > 0) {
          await admin.createTopics({
            waitForLeaders: true,
            topics: missing.map((topic) => ({
              topic,
              numPartitions: overrides.partitions ?? settings.partitions,
              replicationFactor: settings.replicationFactor,
              configEntries: topicConfig(topic, overrides.compacted ?? false, overrides.retentionMs),
            })),
          });
        }
        const { topics: meta } = await admin.fetchTopicMetadata({ topics: names });
        if (meta.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))) return;
      } catch (error) {
        // Another process may be creating the same topics, and right after creation a KRaft
        // broker may still answer that it does not host them: both settle within moments.
        if (Date.now() > deadline) throw error;
        logger.debug({ err: error }, 'topics not ready yet');
      }
      if (Date.now() > deadline) throw new Error(`Topics have no leaders yet: ${names.join(', ')}`);
      await sleep(200);
    }
  }

  /** Offsets of every partition of a topic and a group's commits there, in the broker's names. */
  async function offsetsOf(realTopic: string, realGroupId?: string): Promise<PartitionOffsets[]> {
    const [ends, committed] = await Promise.all([
      admin.fetchTopicOffsets(realTopic),
      realGroupId ? admin.fetchOffsets({ groupId: realGroupId, topics: [realTopic] }) : Promise.resolve([]),
    ]);
    const done = new Map(committed[0]?.partitions.map((p) => [p.partition, Number(p.offset)]) ?? []);
    return ends.map((p) => ({
      partition: p.partition,
      low: Number(p.low),
      high: Number(p.high),
      committed: done.get(p.partition) ?? -1,
    }));
  }

  /** The partitions of a topic where a group committed an offset, in the broker's names. */
  async function commitsOf(realTopic: string, realGroupId: string) {
    const [committed] = await admin.fetchOffsets({ groupId: realGroupId, topics: [realTopic] });
    return (committed?.partitions ?? [])
      .map((p) => ({ partition: p.partition, offset: p.offset }))
      .filter((p) => Number(p.offset) >= 0);
  }

  /**
   * Gives group `to` the committed offsets of group `from` on `topic`, when `to` has committed
   * nothing there: a group that takes over a topic from another starts where the other stopped,
   * instead of at the start of the topic. Call it before `to` has members. The copy is refused
   * while `to` has members: then another process is copying (or copied and joined), and this
   * one waits, at most `waitMs`, until `to` has offsets or no members, and looks again.
   * Answers what it found: `copied`, `kept` (`to` has offsets: its own, or another process's
   * copy), `none` (`from` has none either), or `busy` (`to` still had members and no offsets
   * after `waitMs`: its members decide where it reads, and joining them replays nothing more).
   */
  async function handOverOffsets(args: {
    topic: string;
    from: string;
    to: string;
    waitMs?: number;
  }): Promise<'copied' | 'kept' | 'none' | 'busy'> {
    const [topic, from, to] = [real(args.topic), real(args.from), real(args.to)];
    const deadline = Date.now() + (args.waitMs ?? 30_000);
    for (;;) {
      try {
        if ((await commitsOf(topic, to)).length > 0) return 'kept';
        const partitions = await commitsOf(topic, from);
        if (partitions.length === 0) return 'none';
        try {
          await admin.setOffsets({ groupId: to, topic, partitions });
          logger.info({ topic, from, to, partitions }, 'consumer group offsets handed over');
          return 'copied';
        } catch (error) {
          if (isRetriable(error)) throw error;
          // kafkajs refuses unless the group is Empty (or Dead), before it joins the group itself
          // for a moment to commit the offsets.
          const { groups } = await admin.describeGroups([to]);
          const joined = groups.some((g) => !['Empty', 'Dead'].includes(g.state));
          if (!joined && (await commitsOf(topic, to)).length === 0) throw error;
          if (Date.now() > deadline) {
            logger.warn({ topic, from, to }, 'consumer group has members and no offsets; joining them as it is');
            return 'busy';
          }
          logger.debug({ topic, from, to }, 'another process is handing the offsets over; waiting');
        }
      } catch (error) {
        // A broker just started has no coordinator for the group yet (NOT_COORDINATOR,
        // COORDINATOR_NOT_AVAILABLE): asked again until it has, within the same time.
        if (!isRetriable(error) || Date.now() > deadline) throw error;
        logger.warn({ err: error, topic, from, to }, 'the broker cannot answer for the group yet; asking again');
      }
      await sleep(250);
    }
  }

  return {
    ensureTopics,
    offsetsOf,
    handOverOffsets,
    /** Offsets of every partition of a topic and, given a group, what it committed there. */
    topicOffsets: (topic: string, groupId?: string) =>
      offsetsOf(real(topic), groupId === undefined ? undefined : real(groupId)),
    /** The topics whose plain name starts with `prefix`, by their plain names. */
    async listTopics(prefix = ''): Promise<string[]> {
      return (await admin.listTopics()).filter((t) => t.startsWith(real(prefix))).map(logical);
    },
    /** Deletes topics (none when the list is empty); the broker's error when one does not exist. */
    async deleteTopics(topics: string[], timeoutMs = 5_000): Promise<void> {
      if (topics.length > 0) await admin.deleteTopics({ topics: topics.map(real), timeout: timeoutMs });
    },
    /** How many members each consumer group has now (0 for a group the broker does not know). */
    async groupMembers(groupIds: string[]): Promise<Map<string, number>> {
      const { groups } = await admin.describeGroups(groupIds.map(real));
      const members = new Map(groups.map((g) => [logical(g.groupId), g.members.length]));
      return new Map(groupIds.map((id) => [id, members.get(id) ?? 0]));
    },
    async deleteGroups(groupIds: string[]): Promise<void> {
      await admin.deleteGroups(groupIds.map(real));
    },
    /** Asks the broker for its cluster: a round trip that fails when it does not answer. */
    async checkBroker(): Promise<void> {
      await admin.describeCluster();
    },
  };
}
export type TopicAdmin = ReturnType<typeof createTopicAdmin>;
