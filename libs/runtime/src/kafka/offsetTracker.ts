/** Where a consumer group resumes on a partition: the offset of the next message to read there. */
export interface CommitPosition {
  topic: string;
  partition: number;
  offset: string;
}

/** A partition some of whose handled messages still have work going on, oldest first. */
interface Hold {
  topic: string;
  partition: number;
  offsets: { offset: bigint; done: boolean }[];
  /** The offset after the last message handled on the partition. */
  next: bigint;
}

/**
 * Which offsets of a consumer's partitions may be committed: a message's offset counts once
 * its handler succeeded or it was dead-lettered, and a message whose handler asked to hold it
 * (`commitAfter`) keeps its partition's position at itself until its work ends, whatever was
 * handled after it. Pure bookkeeping: the consumer reports what happens and commits what
 * `pending` answers.
 *
 * The messages of one partition are reported in offset order: one after the other as a consumer
 * handles them, or each held as a keyed batch schedules it, released as it ends in any order.
 * A message whose handler threw is never reported (or its hold never released, and the
 * partition rewound to it), and is fetched again.
 */
export function createOffsetTracker() {
  /** Per partition, the position to commit, once it moved since the last commit. */
  const positions = new Map<string, CommitPosition>();
  const holds = new Map<string, Hold>();
  const keyOf = (topic: string, partition: number) => `${topic}:${partition}`;

  /** Moves the partition's position up to its first message still held (past every one when none is). */
  function advance(key: string, hold: Hold) {
    while (hold.offsets[0]?.done) hold.offsets.shift();
    const first = hold.offsets[0];
    positions.set(key, {
      topic: hold.topic,
      partition: hold.partition,
      offset: (first ? first.offset : hold.next).toString(),
    });
    if (!first) holds.delete(key);
  }

  return {
    /**
     * Records a message handled. With `held`, its work goes on: the partition's position stops
     * at it until the release returned is called (releasing twice, or after the partition was
     * taken away, does nothing more).
     */
    handled(topic: string, partition: number, offset: string, held = false): (() => void) | undefined {
      const key = keyOf(topic, partition);
      const next = BigInt(offset) + 1n;
      const hold = holds.get(key);
      if (!held && !hold) {
        positions.set(key, { topic, partition, offset: next.toString() });
        return undefined;
      }
      const current = hold ?? { topic, partition, offsets: [], next };
      current.next = next;
      const entry = { offset: BigInt(offset), done: false };
      if (held) current.offsets.push(entry);
      holds.set(key, current);
      advance(key, current);
      if (!held) return undefined;
      return () => {
        entry.done = true;
        if (holds.get(key) === current) advance(key, current);
      };
    },

    /**
     * Forgets what was recorded on a partition from `offset` on: a keyed batch stopped there
     * (a handler threw, or the consumer stops) and kafkajs fetches those messages again, to be
     * recorded anew. Releases of what was forgotten do nothing more.
     */
    rewind(topic: string, partition: number, offset: string): void {
      const key = keyOf(topic, partition);
      const from = BigInt(offset);
      const hold = holds.get(key);
      // Nothing held: all that was scheduled ended, or the partition was taken away meanwhile.
      if (!hold) return;
      hold.offsets = hold.offsets.filter((entry) => entry.offset < from);
      if (hold.next > from) hold.next = from;
      advance(key, hold);
    },

    /** The positions to commit now: those of the partitions that moved since their last commit. */
    pending(): CommitPosition[] {
      return [...positions.values()];
    },

    /**
     * Marks positions (from `pending`) as committed; a partition that moved on meanwhile keeps
     * its newer position for the next commit.
     */
    committed(done: readonly CommitPosition[]): void {
      for (const position of done) {
        const key = keyOf(position.topic, position.partition);
        if (positions.get(key) === position) positions.delete(key);
      }
    },

    /**
     * The partitions assigned after a rebalance: what was recorded for the others is dropped
     * (their new owner handles those messages again), and so are their holds.
     */
    assigned(assignment: Readonly<Record<string, readonly number[]>>): void {
      const kept = (p: { topic: string; partition: number }) => assignment[p.topic]?.includes(p.partition) ?? false;
      for (const [key, position] of positions) if (!kept(position)) positions.delete(key);
      for (const [key, hold] of holds) if (!kept(hold)) holds.delete(key);
    },
  };
}
export type OffsetTracker = ReturnType<typeof createOffsetTracker>;
