import { Topics, deadLetterTopicFor, type DeadlinePassed } from '@loan/contracts';
import {
  createKafkaBus,
  createLogger,
  createMetrics,
  createServiceRuntime,
  type Clock,
  type KafkaBus,
  type ServiceRuntime,
} from '@loan/runtime';
import { testConfig, testStamp, uniqueName, waitFor } from '@testing/helpers';
import { configShape, type JanitorConfig } from '../config';
import { prepareTopics } from '../data-access/topics';
import { createJanitorService, type JanitorService } from '../service';
import type { TrackedFact } from '../domain/trackDeadlines/decide';

/** Real time shifted by what the test advanced it: deadlines pass without waiting for them. */
export function shiftableClock(): Clock & { advance(ms: number): void; setTo(date: Date): void } {
  let shift = 0;
  return {
    now: () => new Date(Date.now() + shift),
    advance(ms) {
      shift += ms;
    },
    setTo(date) {
      shift = date.getTime() - Date.now();
    },
  };
}

/** Where one test suite's janitors live: its own topic namespace and database. */
export interface Stage {
  namespace: string;
  database: string;
}

export const newStage = (): Stage => ({
  namespace: `${testStamp()}.`,
  database: uniqueName('janitor_test').replace(/-/g, '_'),
});

export interface RunningJanitor {
  service: JanitorService;
  runtime: ServiceRuntime;
  config: JanitorConfig;
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts a janitor in-process against the real broker, registry and database.
 * `brokenPublish` makes its publishes of passed deadlines fail, as if the process died right
 * after firing them.
 */
export async function startJanitor(
  stage: Stage,
  options: { clock: Clock; env?: Record<string, string>; brokenPublish?: boolean },
): Promise<RunningJanitor> {
  const config = testConfig<JanitorConfig>(
    'janitor',
    {
      KAFKA_TOPIC_NAMESPACE: stage.namespace,
      MONGO_DB: stage.database,
      NO_LINK_TTL: '24h',
      NO_ANALYZE_TTL: '7d',
      ENRICHMENT_TIMEOUT: '20m',
      JANITOR_POLL_INTERVAL: '50ms',
      // Tests poll the armed counts (`gauges.countArmed`): every call counts them again.
      JANITOR_GAUGE_SCAN_INTERVAL: '0ms',
      // And a scrape reports what that count finds, however slow the machine.
      JANITOR_GAUGE_SCRAPE_WAIT: '1m',
      ...options.env,
    },
    configShape,
  );
  const base = await createServiceRuntime(config);
  const runtime: ServiceRuntime = options.brokenPublish
    ? {
        ...base,
        bus: {
          ...base.bus,
          publishAll: async (batches) => {
            if (batches.some((b) => b.topic === Topics.deadlines)) throw new Error('connection to the broker lost');
            return base.bus.publishAll(batches);
          },
        },
      }
    : base;
  const service = createJanitorService({ runtime, config, clock: options.clock });
  const { url } = await service.start().catch(async (error: unknown) => {
    await service.stop();
    throw error;
  });
  return { service, runtime: base, config, url, stop: () => service.stop() };
}

export interface SeenDeadline {
  key: string | null;
  partition: number;
  offset: string;
  value: DeadlinePassed;
}

/**
 * What the test plays: the applications and enrichment services publishing facts, and an
 * owner reading the deadlines topic.
 */
export async function startDriver(stage: Stage) {
  const logger = createLogger('janitor-test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const bus: KafkaBus = createKafkaBus({
    logger,
    metrics: createMetrics('janitor-test'),
    settings: {
      brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
      clientId: uniqueName('janitor-test'),
      registryUrl: process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:8081/apis/ccompat/v7',
      partitions: 6,
      replicationFactor: 1,
      namespace: stage.namespace,
    },
  });
  await bus.connect();
  await prepareTopics(bus, logger);
  await bus.ensureTopics([deadLetterTopicFor(Topics.deadlines)]);
  const seen: SeenDeadline[] = [];
  const read = new Map<number, number>();
  await bus.consume({
    groupId: uniqueName('owner'),
    topics: [Topics.deadlines],
    handle: async (m) => {
      seen.push({ key: m.key, partition: m.partition, offset: m.offset, value: m.value as DeadlinePassed });
      read.set(m.partition, Math.max(read.get(m.partition) ?? -1, Number(m.offset)));
    },
  });

  return {
    bus,
    seen,
    /** Publishes facts as their owners do: keyed by application, each on its topic. */
    async publish(...facts: TrackedFact[]) {
      for (const fact of facts) {
        const topic = fact.type in RESULT_TYPES ? Topics.enrichmentResults : Topics.applicationFacts;
        await bus.publish(topic, [{ key: fact.applicationId, value: fact }]);
      }
    },
    deadlinesOf: (applicationId: string) =>
      seen.filter((s) => s.value.applicationId === applicationId).map((s) => s.value),
    /** Waits until everything on the deadlines topic so far has been read. */
    async readToEnd() {
      const ends = await bus.topicOffsets(Topics.deadlines);
      await waitFor(() => ends.every((p) => p.high === 0 || (read.get(p.partition) ?? -1) >= p.high - 1), {
        what: 'the end of the deadlines topic',
      });
    },
    stop: () => bus.disconnect(),
  };
}
export type Driver = Awaited<ReturnType<typeof startDriver>>;

const RESULT_TYPES = { AccountEnriched: 1, EnrichmentTimedOut: 1, BankDataScrubbed: 1 } as const;

/**
 * Lets every due deadline fire and be published, then reads the deadlines topic to its end:
 * after this, a deadline that was not seen was not emitted.
 */
export async function settle(janitors: RunningJanitor[], driver: Driver) {
  for (const j of janitors) await j.service.scheduler.tick();
  await waitFor(
    async () => {
      for (const j of janitors) if ((await j.service.gauges.countUnpublished()) > 0) return false;
      return true;
    },
    { what: 'every fired deadline published' },
  );
  await driver.readToEnd();
}
