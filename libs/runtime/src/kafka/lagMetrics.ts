import type { Metrics } from '../metrics';
import type { PartitionOffsets } from './topics';

/**
 * Sets the consumer-lag gauge of a group's topics every 10 s: per partition, the records not
 * committed yet (all of them when the group committed nothing there), labelled with the group:
 * a service may read with several. Topics and group go by the broker's names. Answers the stop
 * of the timer.
 */
export function watchLag(deps: {
  offsetsOf: (topic: string, groupId: string) => Promise<PartitionOffsets[]>;
  metrics: Metrics;
  groupId: string;
  topics: string[];
}): () => void {
  const { offsetsOf, metrics, groupId, topics } = deps;
  const timer = setInterval(() => {
    void (async () => {
      for (const topic of topics) {
        for (const p of await offsetsOf(topic, groupId)) {
          const lag = p.committed < 0 ? p.high - p.low : p.high - p.committed;
          metrics.consumerLag.set({ group: groupId, topic, partition: String(p.partition) }, Math.max(0, lag));
        }
      }
    })().catch(() => undefined);
  }, 10_000);
  timer.unref();
  return () => clearInterval(timer);
}
