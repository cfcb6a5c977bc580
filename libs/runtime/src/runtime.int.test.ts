import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { Schema } from 'mongoose';
import { deadLetterTopicFor } from '@loan/contracts';
import { createCodec, createKafkaBus, type InboundMessage, type KafkaSettings } from './kafka';
import { createLogger } from './logger';
import { createMetrics } from './metrics';
import { connectMongo, isDuplicateKey, syncIndexes } from './mongo';
import { FACT_TYPE_HEADER } from '@loan/contracts';
import { createOutboxRelay, outboxFields } from './outbox';
import { createBulkLane } from './bulkLane';
import { pause, uniqueName, waitFor } from '@testing/helpers';

const Greeting = z.object({ id: z.string(), text: z.string().min(1), count: z.number().int() });
const logger = createLogger('runtime-test', 'silent');
const registryUrl = process.env.SCHEMA_REGISTRY_URL!;

function newBusSettings(topicPrefix: string) {
  return {
    brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
    clientId: uniqueName('runtime-test'),
    registryUrl,
    partitions: 4,
    replicationFactor: 1,
    schemaOf: (topic: string) => {
      if (topic.startsWith(topicPrefix)) return Greeting;
      throw new Error(`no schema for ${topic}`);
    },
  };
}

function newBus(topicPrefix: string) {
  return createKafkaBus({ logger, metrics: createMetrics('runtime-test'), settings: newBusSettings(topicPrefix) });
}

/** `rounds` messages of each key, the keys taking turns: count 0 of every key, then count 1, ... */
const roundsOf = (keys: string[], rounds: number) =>
  Array.from({ length: rounds }, (_, count) =>
    keys.map((key) => ({ key, value: { id: `${key}${count}`, text: 'x', count } })),
  ).flat();

describe('shared runtime against the real broker, registry and database', () => {
  const buses: ReturnType<typeof newBus>[] = [];
  afterAll(async () => {
    await Promise.all(buses.map((b) => b.disconnect()));
  });

  /** A connected bus for the topic, with the settings given on top of the usual ones. */
  async function connectedBus(
    topic: string,
    settings: Partial<KafkaSettings>,
    metrics: ReturnType<typeof createMetrics> = createMetrics('runtime-test'),
  ) {
    const bus = createKafkaBus({ logger, metrics, settings: { ...newBusSettings(topic), ...settings } });
    buses.push(bus);
    await bus.connect();
    await bus.ensureTopics([topic]);
    return bus;
  }

  /** A connected bus whose consumers are taken for stalled after 2 s. */
  const quickToRestartBus = (topic: string) => connectedBus(topic, { consumerStallMs: 2_000 });

  it('when a consumer stops without a crash (as kafkajs can after a broker outage), then it is started again and handles what follows', async () => {
    const topic = uniqueName('test.stalled');
    const bus = await quickToRestartBus(topic);
    const seen: number[] = [];
    const consumer = await bus.consume({
      groupId: uniqueName('g'),
      topics: [topic],
      handle: async (m) => void seen.push((m.value as { count: number }).count),
    });
    await bus.publish(topic, [{ key: 'k', value: { id: randomUUID(), text: 'before', count: 1 } }]);
    await waitFor(() => seen.includes(1), { what: 'the first message' });

    // The consumer leaves its group and fetches no more; the process and its bus carry on.
    await consumer.stop();
    await bus.publish(topic, [{ key: 'k', value: { id: randomUUID(), text: 'after', count: 2 } }]);
    await waitFor(() => seen.includes(2), { timeoutMs: 30_000, what: 'the message published after the stall' });
  });

  it('when a handler never settles, then its consumer is started again and the message is handled by the new one', async () => {
    const topic = uniqueName('test.stuck');
    const bus = await quickToRestartBus(topic);
    let calls = 0;
    const seen: number[] = [];
    await bus.consume({
      groupId: uniqueName('g'),
      topics: [topic],
      partitionsConsumedConcurrently: 1,
      handle: async (m) => {
        calls += 1;
        // The first call waits on something that never answers (a socket left half-open).
        if (calls === 1) await new Promise(() => undefined);
        seen.push((m.value as { count: number }).count);
      },
    });
    await bus.publish(topic, [{ key: 'k', value: { id: randomUUID(), text: 'held', count: 7 } }]);
    await waitFor(() => seen.includes(7), {
      timeoutMs: 45_000,
      what: 'the message handled by the consumer started again',
    });
    expect(calls).toBe(2);
  });

  it('when an event is produced through the registry codec, then it is consumed decoded and its schema is in the registry', async () => {
    const topic = uniqueName('test.greetings');
    const bus = await connectedBus(topic, {});
    const seen: InboundMessage[] = [];
    await bus.consume({ groupId: uniqueName('g'), topics: [topic], handle: async (m) => void seen.push(m) });
    const value = { id: randomUUID(), text: 'ẹ n lẹ', count: 3 };
    await bus.publish(topic, [{ key: 'k1', value }]);
    const got = await waitFor(() => seen[0], { what: 'the message' });
    expect(got.value).toEqual(value);
    expect(got.key).toBe('k1');

    const res = await fetch(`${registryUrl}/subjects/${topic}-value/versions/latest`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { schema: string; schemaType?: string };
    expect(JSON.parse(body.schema).properties.text).toBeDefined();
    expect(body.schemaType).toBe('JSON');
  });

  it('when several processes register a new subject at once, then every one of them encodes with the same schema id', async () => {
    const topic = uniqueName('test.first-use');
    const codecs = Array.from({ length: 8 }, () => createCodec(registryUrl, () => Greeting));
    const value = { id: randomUUID(), text: 'first', count: 1 };
    const encoded = await Promise.all(codecs.map((codec) => codec.encode(topic, value)));
    const ids = encoded.map((buffer) => buffer.readInt32BE(1));
    expect(new Set(ids).size).toBe(1);
    expect(await codecs[0]!.decode(topic, encoded[3]!)).toEqual(value);
    const config = await fetch(`${registryUrl}/config/${topic}-value`);
    expect(((await config.json()) as { compatibilityLevel: string }).compatibilityLevel).toBe('BACKWARD');
  });

  it('when many publishes of one key are made at once, then they arrive in the order they were made', async () => {
    const topic = uniqueName('test.burst');
    const bus = await connectedBus(topic, {});
    const seen: number[] = [];
    await bus.consume({
      groupId: uniqueName('g'),
      topics: [topic],
      handle: async (m) => void seen.push((m.value as { count: number }).count),
    });
    const publishes = Array.from({ length: 300 }, (_, count) =>
      bus.publish(topic, [{ key: 'one-application', value: { id: String(count), text: 'step', count } }]),
    );
    await Promise.all(publishes);
    await waitFor(() => seen.length >= 300, { what: '300 messages', timeoutMs: 30_000 });
    expect(seen).toEqual(Array.from({ length: 300 }, (_, count) => count));
  });

  it('when publishes come in within the producer linger, then they share one produce request and keep their order', async () => {
    const topic = uniqueName('test.linger');
    const metrics = createMetrics('runtime-test');
    const bus = await connectedBus(topic, { producerLingerMs: 300 }, metrics);
    const seen: number[] = [];
    await bus.consume({
      groupId: uniqueName('g'),
      topics: [topic],
      handle: async (m) => void seen.push((m.value as { count: number }).count),
    });
    const produces = async () =>
      (await metrics.kafkaRequests.get()).values.find(
        (v) => v.labels.client === 'producer' && v.labels.api === 'Produce',
      )?.value ?? 0;
    const before = await produces();
    // Five handlers publishing a few milliseconds apart, as under load: 20 ms apart, all five
    // within the 300 ms linger of the first.
    const publishes: Promise<void>[] = [];
    for (let count = 0; count < 5; count++) {
      publishes.push(
        bus.publish(topic, [{ key: 'one-application', value: { id: String(count), text: 'step', count } }]),
      );
      await pause(20);
    }
    await Promise.all(publishes);
    expect((await produces()) - before).toBe(1);
    await waitFor(() => seen.length >= 5, { what: 'five messages' });
    expect(seen).toEqual([0, 1, 2, 3, 4]);
  });

  it("when a reply's topic is gone with its requester, then that reply fails on its own and a publication made at the same moment is delivered", async () => {
    const topic = uniqueName('test.beside-reply');
    // A linger long enough that both would share one produce request if they shared a producer.
    const bus = await connectedBus(topic, { producerLingerMs: 300 });
    const seen: string[] = [];
    await bus.consume({
      groupId: uniqueName('g'),
      topics: [topic],
      handle: async (m) => void seen.push((m.value as { id: string }).id),
    });
    const reply = bus.publishReply(`${topic}.replies-of-a-stopped-replica`, [
      { key: 'command-1', value: { id: 'reply', text: 'done', count: 1 } },
    ]);
    const beside = bus.publish(topic, [{ key: 'application-1', value: { id: 'event', text: 'published', count: 1 } }]);
    await expect(beside).resolves.toBeUndefined();
    await expect(reply).rejects.toThrow();
    await waitFor(() => seen.length >= 1, { what: 'the publication beside the reply' });
    expect(seen).toEqual(['event']);
  });

  it('when a reply topic that was written to is deleted (its replica stopped), then replies to the live replicas still arrive', async () => {
    const topic = uniqueName('test.replies');
    const bus = await connectedBus(topic, {});
    const [gone, live] = [`${topic}.gone`, `${topic}.live`];
    await bus.ensureTopics([gone, live], { partitions: 1 });
    const seen: string[] = [];
    await bus.consume({
      groupId: uniqueName('g'),
      topics: [live],
      fromBeginning: true,
      handle: async (m) => void seen.push((m.value as { id: string }).id),
    });
    await bus.publishReply(gone, [
      { key: 'command-1', value: { id: 'to-the-stopped-replica', text: 'done', count: 1 } },
    ]);
    await bus.deleteTopics([gone]);
    await bus.publishReply(live, [{ key: 'command-2', value: { id: 'to-a-live-replica', text: 'done', count: 2 } }]);
    await waitFor(() => seen.length >= 1, { what: 'the reply to the live replica' });
    expect(seen).toEqual(['to-a-live-replica']);
  });

  it('when replies to several requesters come while one is being sent, then they share the next produce request, and one to a gone requester fails alone', async () => {
    const topic = uniqueName('test.replies-together');
    const metrics = createMetrics('runtime-test');
    const bus = await connectedBus(topic, {}, metrics);
    const live = [`${topic}.a`, `${topic}.b`];
    const gone = `${topic}.gone`;
    await bus.ensureTopics(live, { partitions: 1 });
    const seen: string[] = [];
    await bus.consume({
      groupId: uniqueName('g'),
      topics: live,
      fromBeginning: true,
      handle: async (m) => void seen.push((m.value as { id: string }).id),
    });
    const produces = async () =>
      (await metrics.kafkaRequests.get()).values.find(
        (v) => v.labels.client === 'replies' && v.labels.api === 'Produce',
      )?.value ?? 0;
    const reply = (to: string, id: string) =>
      bus.publishReply(to, [{ key: id, value: { id, text: 'done', count: 1 } }]);
    // Each topic's schema known and its partition found first.
    await Promise.all([reply(live[0]!, 'first-a'), reply(live[1]!, 'first-b')]);
    const before = await produces();
    // The first goes at once; the nine that come while it is in flight go out together after it.
    await Promise.all(Array.from({ length: 10 }, (_, i) => reply(live[i % 2]!, `r${i}`)));
    expect((await produces()) - before).toBeLessThanOrEqual(2);
    await waitFor(() => seen.length >= 12, { what: 'twelve replies' });
    expect([...seen].sort()).toEqual(['first-a', 'first-b', ...Array.from({ length: 10 }, (_, i) => `r${i}`)].sort());

    // A requester whose topic is gone, among live ones: its reply fails, theirs arrive.
    const together = [reply(live[0]!, 'x0'), reply(gone, 'to-the-gone'), reply(live[1]!, 'x1'), reply(live[0]!, 'x2')];
    const settled = await Promise.allSettled(together);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    await waitFor(() => seen.length >= 15, { what: 'the replies to the live requesters' });
    expect(seen.filter((id) => id.startsWith('x')).sort()).toEqual(['x0', 'x1', 'x2']);
  });

  it('when a handler hands its work over to go on after it returns, then the offset is committed only once that work ends', async () => {
    const topic = uniqueName('test.commit-after');
    const groupId = uniqueName('g');
    const bus = await connectedBus(topic, { partitions: 1, commitIntervalMs: 50 });
    const later = `${topic}.later`;
    await bus.ensureTopics([later]);
    let finish!: () => void;
    const work = new Promise<void>((resolve) => (finish = resolve));
    const handled: number[] = [];
    await bus.consume({
      groupId,
      topics: [topic, later],
      handle: async (m) => {
        if (m.topic === later) return;
        const { count } = m.value as { count: number };
        if (count === 1) m.commitAfter!(work);
        handled.push(count);
      },
    });
    await bus.publish(
      topic,
      [0, 1, 2, 3].map((count) => ({ key: 'k', value: { id: String(count), text: 'x', count } })),
    );
    await waitFor(() => handled.length >= 4, { what: 'four messages handled' });
    const committed = async (of = topic) =>
      (await bus.topicOffsets(of, groupId)).find((p) => p.partition === 0)!.committed;
    // Messages 2 and 3 are handled, but 1's work goes on: the group stays at 1.
    await waitFor(async () => (await committed()) === 1, { what: 'offset 1 committed' });
    // A message of another topic, handled after 2 and 3, is committed by a later commit than
    // theirs: that commit too left the group at 1.
    await bus.publish(later, [{ key: 'k', value: { id: 'later', text: 'x', count: 0 } }]);
    await waitFor(async () => (await committed(later)) === 1, { what: 'a later commit' });
    expect(await committed()).toBe(1);
    finish();
    await waitFor(async () => (await committed()) === 4, { what: 'every offset committed once the work ended' });
  });

  it('when several keys share a partition and keys may run side by side, then a slow key does not hold the others up and each key keeps its order', async () => {
    const topic = uniqueName('test.keyed');
    const groupId = uniqueName('g');
    const bus = await connectedBus(topic, { partitions: 1, commitIntervalMs: 50 });
    let releaseSlow!: () => void;
    const slow = new Promise<void>((resolve) => (releaseSlow = resolve));
    const handled: string[] = [];
    const keys = ['slow', 'a', 'b'];
    await bus.publish(topic, roundsOf(keys, 5));
    await bus.consume({
      groupId,
      topics: [topic],
      keyConcurrency: 4,
      handle: async (m) => {
        const { count } = m.value as { count: number };
        if (m.key === 'slow' && count === 0) await slow;
        handled.push(`${m.key}:${count}`);
      },
    });
    const committed = async () => (await bus.topicOffsets(topic, groupId)).find((p) => p.partition === 0)!.committed;
    try {
      // The first message of `slow` waits; the others' messages are handled meanwhile.
      await waitFor(() => handled.filter((h) => !h.startsWith('slow')).length === 10, {
        what: 'the other keys handled',
      });
      expect(handled.some((h) => h.startsWith('slow'))).toBe(false);
      // The group stays at the slow message, the first of the partition.
      await waitFor(async () => (await committed()) === 0, { what: 'offset 0 committed' });
    } finally {
      releaseSlow();
    }
    await waitFor(() => handled.length === 15, { what: 'every message handled' });
    for (const key of keys) {
      expect(handled.filter((h) => h.startsWith(`${key}:`))).toEqual([0, 1, 2, 3, 4].map((count) => `${key}:${count}`));
    }
    await waitFor(async () => (await committed()) === 15, { what: 'every offset committed' });
  });

  it('when a handler fails and keys run side by side, then its message and those after it are handled again, none of a key before the one ahead of it succeeded', async () => {
    const topic = uniqueName('test.keyed-retry');
    const groupId = uniqueName('g');
    const bus = await connectedBus(topic, { partitions: 1, commitIntervalMs: 50 });
    const succeeded = new Set<string>();
    const outOfOrder: string[] = [];
    let failures = 0;
    const keys = ['a', 'b', 'c', 'd', 'e'];
    await bus.publish(topic, roundsOf(keys, 6));
    await bus.consume({
      groupId,
      topics: [topic],
      keyConcurrency: 4,
      handle: async (m) => {
        const { count } = m.value as { count: number };
        if (count > 0 && !succeeded.has(`${m.key}:${count - 1}`)) outOfOrder.push(`${m.key}:${count}`);
        if (m.key === 'b' && count === 2 && failures++ === 0) throw new Error('the database did not answer');
        await pause(1);
        succeeded.add(`${m.key}:${count}`);
      },
    });
    await waitFor(() => succeeded.size === 30, { timeoutMs: 30_000, what: 'every message handled' });
    expect(failures).toBeGreaterThan(1);
    expect(outOfOrder).toEqual([]);
    const committed = async () => (await bus.topicOffsets(topic, groupId)).find((p) => p.partition === 0)!.committed;
    await waitFor(async () => (await committed()) === 30, { what: 'every offset committed' });
  });

  it.each([1, 4])(
    'when a message keeps failing (keys at once: %i), then only its partition waits for it: the others go on, the consumer never restarts, and the message is handled once it succeeds',
    async (keyConcurrency) => {
      const topic = uniqueName('test.retry-alone');
      const bus = await connectedBus(topic, {
        partitions: 3,
        commitIntervalMs: 50,
        retryBackoff: { initialMs: 20, maxMs: 100 },
      });
      let failures = 0;
      let stuckPartition = -1;
      /** Each message once, whatever a retry handled again. */
      const handled = new Set<number>();
      let handledElsewhere = false;
      /** Messages of the failing one's partition handled before it: none one at a time. */
      const overtook: number[] = [];
      const consumer = await bus.consume({
        groupId: uniqueName('g'),
        topics: [topic],
        keyConcurrency,
        handle: async (m) => {
          const { count } = m.value as { count: number };
          // The first message fails at least 12 times, and until a message of another
          // partition (the keys put some there) is handled: that one did not wait for it.
          if (count === 0 && (failures < 12 || !handledElsewhere)) {
            failures += 1;
            stuckPartition = m.partition;
            throw new Error('the database did not answer');
          }
          if (count > 0 && m.partition === stuckPartition && !handled.has(0)) overtook.push(count);
          if (count > 0 && m.partition !== stuckPartition) handledElsewhere = true;
          handled.add(count);
        },
      });
      const crashes: unknown[] = [];
      consumer.on(consumer.events.CRASH, (event) => crashes.push(event.payload.error));
      await bus.publish(topic, [{ key: 'stuck', value: { id: 'stuck', text: 'x', count: 0 } }]);
      await waitFor(() => failures >= 3, { what: 'the first failures' });
      const others = Array.from({ length: 12 }, (_, i) => ({
        key: `other-${i}`,
        value: { id: `o${i}`, text: 'x', count: i + 1 },
      }));
      await bus.publish(topic, others);
      await waitFor(() => handled.has(0), { timeoutMs: 30_000, what: 'the failing message handled at last' });
      await waitFor(() => handled.size === 13, { what: 'every message handled' });
      expect(failures).toBeGreaterThanOrEqual(12);
      expect(crashes).toEqual([]);
      // One at a time, nothing of its partition passes it; side by side, other keys may.
      if (keyConcurrency === 1) expect(overtook).toEqual([]);
    },
  );

  it('when a message is not what the topic promises, then it is dead-lettered and the consumer moves on', async () => {
    const topic = uniqueName('test.poison');
    const bus = newBus(topic);
    buses.push(bus);
    await bus.connect();
    await bus.ensureTopics([topic, deadLetterTopicFor(topic)]);
    const seen: unknown[] = [];
    await bus.consume({ groupId: uniqueName('g'), topics: [topic], handle: async (m) => void seen.push(m.value) });
    const producer = bus.raw.kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ key: 'bad', value: Buffer.from('not registry framed') }] });
    await producer.disconnect();
    await bus.publish(topic, [{ key: 'good', value: { id: '1', text: 'after the poison', count: 1 } }]);
    await waitFor(() => seen.length === 1, { what: 'the good message' });

    const dead: { key: string; reason: string }[] = [];
    const dlq = bus.raw.kafka.consumer({ groupId: uniqueName('dlq') });
    await dlq.connect();
    await dlq.subscribe({ topic: deadLetterTopicFor(topic), fromBeginning: true });
    await dlq.run({
      eachMessage: async ({ message }) => {
        dead.push({ key: message.key!.toString(), reason: message.headers!['x-dead-letter-reason']!.toString() });
      },
    });
    await waitFor(() => dead.length === 1, { what: 'the dead letter' });
    await dlq.disconnect();
    expect(dead[0]!.key).toBe('bad');
    expect(seen).toEqual([{ id: '1', text: 'after the poison', count: 1 }]);
  });

  it('when a registry-framed message breaks the topic schema, then it is dead-lettered and never handed over', async () => {
    const topic = uniqueName('test.invalid');
    const metrics = createMetrics('runtime-test');
    const bus = createKafkaBus({ logger, metrics, settings: newBusSettings(topic) });
    buses.push(bus);
    await bus.connect();
    await bus.ensureTopics([topic, deadLetterTopicFor(topic)]);
    const seen: unknown[] = [];
    await bus.consume({ groupId: uniqueName('g'), topics: [topic], handle: async (m) => void seen.push(m.value) });
    const schemaId = await bus.raw.codec.schemaId(topic);
    const producer = bus.raw.kafka.producer();
    await producer.connect();
    await producer.send({
      topic,
      messages: [
        { key: 'app', value: await bus.raw.codec.registry.encode(schemaId, { id: 'x', text: '', count: 1.5 }) },
        { key: 'app', value: await bus.raw.codec.encode(topic, { id: 'y', text: 'valid', count: 2 }) },
      ],
    });
    await producer.disconnect();
    await waitFor(() => seen.length === 1, { what: 'the valid message' });
    const deadLettered = (await metrics.registry.getSingleMetric('kafka_handler_failures_total')!.get()).values.filter(
      (v) => v.labels.topic === topic && v.labels.kind === 'dead_lettered',
    );
    expect(deadLettered.map((v) => v.value)).toEqual([1]);
    expect(seen).toEqual([{ id: 'y', text: 'valid', count: 2 }]);
    await expect(bus.raw.codec.encode(topic, { id: 'z', text: '', count: 1 })).rejects.toThrow();
  });

  it('when a fact names a type the consumer does not act on, then it is passed over without being decoded, and the others are handled in order', async () => {
    const topic = uniqueName('test.facts');
    const metrics = createMetrics('runtime-test');
    const bus = createKafkaBus({ logger, metrics, settings: newBusSettings(topic) });
    buses.push(bus);
    await bus.connect();
    await bus.ensureTopics([topic, deadLetterTopicFor(topic)]);
    const seen: unknown[] = [];
    await bus.consume({
      groupId: uniqueName('g'),
      topics: [topic],
      types: { [topic]: ['Wanted'] },
      handle: async (m) => void seen.push(m.value),
    });
    const wanted = { id: '1', text: 'a kind it acts on', count: 1 };
    const unnamed = { id: '2', text: 'no type header', count: 2 };
    const producer = bus.raw.kafka.producer();
    await producer.connect();
    await producer.send({
      topic,
      messages: [
        // Not registry framed: decoding it would dead-letter it.
        { key: 'app', value: Buffer.from('never decoded'), headers: { [FACT_TYPE_HEADER]: 'Ignored' } },
        { key: 'app', value: await bus.raw.codec.encode(topic, wanted), headers: { [FACT_TYPE_HEADER]: 'Wanted' } },
        { key: 'app', value: await bus.raw.codec.encode(topic, unnamed) },
      ],
    });
    await producer.disconnect();
    await waitFor(() => seen.length === 2, { what: 'the two handled messages' });
    expect(seen).toEqual([wanted, unnamed]);
    const counted = async (name: string, labels: Record<string, string>) =>
      (await metrics.registry.getSingleMetric(name)!.get()).values
        .filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))
        .reduce((total, v) => total + v.value, 0);
    expect(await counted('kafka_handler_failures_total', { topic, kind: 'dead_lettered' })).toBe(0);
    expect(await counted('kafka_handler_duration_seconds', { topic, outcome: 'skipped', le: '+Inf' })).toBe(1);
  });

  it('when two consumers share a group, then the partitions are split between them and each message is handled once', async () => {
    const topic = uniqueName('test.shared');
    const groupId = uniqueName('g');
    const a = newBus(topic);
    const b = newBus(topic);
    buses.push(a, b);
    await Promise.all([a.connect(), b.connect()]);
    await a.ensureTopics([topic]);
    const byConsumer: Record<'a' | 'b', Set<number>> = { a: new Set(), b: new Set() };
    const ids: string[] = [];
    await a.consume({
      groupId,
      topics: [topic],
      handle: async (m) => void (byConsumer.a.add(m.partition), ids.push((m.value as { id: string }).id)),
    });
    await b.consume({
      groupId,
      topics: [topic],
      handle: async (m) => void (byConsumer.b.add(m.partition), ids.push((m.value as { id: string }).id)),
    });
    // Both members must be in the group before the messages go out.
    await waitFor(
      async () => {
        const d = await a.raw.admin.describeGroups([groupId]);
        return d.groups[0]?.state === 'Stable' && d.groups[0].members.length === 2;
      },
      { what: 'a stable group of two' },
    );
    const messages = Array.from({ length: 40 }, (_, i) => ({
      key: `key-${i}`,
      value: { id: String(i), text: 'x', count: i },
    }));
    await a.publish(topic, messages);
    await waitFor(() => ids.length >= 40, { what: 'all 40 messages' });
    expect(new Set(ids).size).toBe(40);
    expect(ids).toHaveLength(40);
    expect(byConsumer.a.size).toBeGreaterThan(0);
    expect(byConsumer.b.size).toBeGreaterThan(0);
    for (const p of byConsumer.a) expect(byConsumer.b.has(p)).toBe(false);
  });

  it('when a consumer stops and another takes over its group, then it starts after the messages the first one handled', async () => {
    const topic = uniqueName('test.handover');
    const groupId = uniqueName('g');
    const first = newBus(topic);
    await first.connect();
    await first.ensureTopics([topic]);
    const handled: string[] = [];
    await first.consume({
      groupId,
      topics: [topic],
      handle: async (m) => void handled.push((m.value as { id: string }).id),
    });
    const batch = (from: number) =>
      Array.from({ length: 20 }, (_, i) => ({ key: `key-${i}`, value: { id: String(from + i), text: 'x', count: i } }));
    await first.publish(topic, batch(0));
    await waitFor(() => handled.length >= 20, { what: 'the first 20 messages' });
    // Stopped well within the commit interval: what it handled is committed on the way out.
    await first.disconnect();

    const second = newBus(topic);
    buses.push(second);
    await second.connect();
    const offsets = await second.topicOffsets(topic, groupId);
    const total = offsets.reduce((sum, p) => sum + Math.max(0, p.committed), 0);
    expect(total).toBe(20);
    const again: string[] = [];
    await second.consume({
      groupId,
      topics: [topic],
      handle: async (m) => void again.push((m.value as { id: string }).id),
    });
    await second.publish(topic, batch(100));
    // Each of the first 20 has the key, so the partition, of one of the next 20 and comes before
    // it: had the second consumer started before them, it would have handled them by now.
    const next = batch(100).map((m) => m.value.id);
    await waitFor(() => next.every((id) => again.includes(id)), { what: 'the next 20 messages' });
    expect(again.sort()).toEqual(next.sort());
  });

  it('when the service talks to the database, then each command is counted and its answer time observed', async () => {
    const metrics = createMetrics('runtime-test');
    const db = await connectMongo({
      url: process.env.MONGO_URL!,
      dbName: uniqueName('runtime_test').replace(/-/g, '_'),
      logger,
      commands: metrics.databaseCommands,
      durations: metrics.databaseDuration,
    });
    try {
      await db.collection('things').insertOne({ n: 1 });
      await db.collection('things').findOne({ n: 1 });
      const counted = (await metrics.databaseCommands.get()).values;
      expect(counted).toContainEqual(
        expect.objectContaining({
          labels: expect.objectContaining({ command: 'insert', collection: 'things' }),
          value: 1,
        }),
      );
      const timed = (await metrics.databaseDuration.get()).values.filter(
        (v) => v.metricName === 'mongo_command_duration_seconds_count',
      );
      for (const command of ['insert', 'find'])
        expect(timed).toContainEqual(
          expect.objectContaining({ labels: expect.objectContaining({ command, outcome: 'ok' }), value: 1 }),
        );
    } finally {
      await db.dropDatabase();
      await db.close();
    }
  });

  it('when a document is written twice with the same unique key, then the database refuses the second', async () => {
    const db = await connectMongo({
      url: process.env.MONGO_URL!,
      dbName: uniqueName('runtime_test').replace(/-/g, '_'),
      logger,
    });
    try {
      const model = db.model('Thing', new Schema({ key: { type: String, unique: true }, n: Number }));
      await syncIndexes(db);
      await model.create({ key: 'a', n: 1 });
      const read = await model.findOne({ key: 'a' }).lean<{ n: number }>();
      expect(read?.n).toBe(1);
      const second = await model.create({ key: 'a', n: 2 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isDuplicateKey(second)).toBe(true);
      expect(await model.countDocuments({ key: 'a' })).toBe(1);
    } finally {
      await db.dropDatabase();
      await db.close();
    }
  });

  it('when twenty writers update one document at the same revision at once, then exactly one wins, and every read after a write sees it', async () => {
    const db = await connectMongo({
      url: process.env.MONGO_URL!,
      dbName: uniqueName('runtime_test').replace(/-/g, '_'),
      logger,
    });
    try {
      const docs = db.db!.collection<{ _id: string; rev: number; owner: string; hits: number }>('races');
      for (let round = 0; round < 5; round++) {
        const id = `doc-${round}`;
        await docs.insertOne({ _id: id, rev: 1, owner: 'nobody', hits: 0 });
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, writer) =>
            writer % 2 === 0
              ? docs.updateOne({ _id: id, rev: 1 }, { $set: { rev: 2, owner: `writer-${writer}` }, $inc: { hits: 1 } })
              : docs
                  .findOneAndUpdate(
                    { _id: id, rev: 1 },
                    { $set: { rev: 2, owner: `writer-${writer}` }, $inc: { hits: 1 } },
                  )
                  .then((doc) => ({ modifiedCount: doc ? 1 : 0 })),
          ),
        );
        const winners = results.map((r, writer) => (r.modifiedCount === 1 ? `writer-${writer}` : null)).filter(Boolean);
        expect(winners).toHaveLength(1);
        expect(await docs.findOne({ _id: id })).toEqual({ _id: id, rev: 2, owner: winners[0], hits: 1 });
      }

      // No increment is lost when writers do not condition on the revision.
      await Promise.all(Array.from({ length: 20 }, () => docs.updateOne({ _id: 'doc-0' }, { $inc: { hits: 1 } })));
      expect((await docs.findOne({ _id: 'doc-0' }))?.hits).toBe(21);

      // Read-your-writes: each write is visible to the next read on any connection of the pool.
      for (let n = 0; n < 20; n++) {
        await docs.updateOne({ _id: 'doc-1' }, { $set: { owner: `reader-${n}` } });
        const [a, b] = await Promise.all([
          docs.findOne({ _id: 'doc-1' }),
          docs.find({ owner: `reader-${n}` }).toArray(),
        ]);
        expect(a?.owner).toBe(`reader-${n}`);
        expect(b.map((d) => d._id)).toEqual(['doc-1']);
      }
    } finally {
      await db.dropDatabase();
      await db.close();
    }
  });

  /**
   * A topic with a consumer recording the ids it sees, and a collection whose documents carry
   * an outbox; `run` gets them and drops the database afterwards.
   */
  async function withOutboxStage(
    name: string,
    run: (stage: {
      bus: ReturnType<typeof newBus>;
      seen: string[];
      model: import('mongoose').Model<unknown>;
      entry: (id: string) => { id: string; topic: string; key: string; value: unknown };
      stored: (id: string) => Promise<{ outbox: { id: string }[]; outboxPending: boolean } | null>;
    }) => Promise<void>,
  ) {
    const topic = uniqueName(name);
    const bus = await connectedBus(topic, {});
    const seen: string[] = [];
    await bus.consume({
      groupId: uniqueName('g'),
      topics: [topic],
      handle: async (m) => void seen.push((m.value as { id: string }).id),
    });
    const db = await connectMongo({
      url: process.env.MONGO_URL!,
      dbName: uniqueName('outbox_test').replace(/-/g, '_'),
      logger,
    });
    try {
      const model = db.model('Doc', new Schema({ _id: String, ...outboxFields }));
      await run({
        bus,
        seen,
        model: model as unknown as import('mongoose').Model<unknown>,
        entry: (id) => ({ id, topic, key: 'k', value: { id, text: 'hello', count: 1 } }),
        stored: (id) =>
          model.collection.findOne<{ outbox: { id: string }[]; outboxPending: boolean }>({ _id: id as never }),
      });
    } finally {
      await db.dropDatabase();
      await db.close();
    }
  }

  /** A bus that refuses every publish while `outage` is true (a broker out of reach). */
  function withOutage(bus: ReturnType<typeof newBus>) {
    const flaky = {
      outage: true,
      publishAll: (batches: Parameters<typeof bus.publishAll>[0]) =>
        flaky.outage ? Promise.reject(new Error('broker unreachable')) : bus.publishAll(batches),
    };
    return flaky;
  }

  it('when a document carries outbox entries, then the relay publishes them in order once and empties the outbox; the sweep finds leftovers', () =>
    withOutboxStage('test.outbox', async ({ bus, seen, model, entry, stored }) => {
      const relay = createOutboxRelay({ bus, model, logger, bulkLane: createBulkLane(), sweepEveryMs: 100 });
      await model.create({ _id: 'flushed', outbox: [entry('a'), entry('b')], outboxPending: true });
      await relay.flush('flushed');
      const after = await stored('flushed');
      expect(after?.outbox).toEqual([]);
      expect(after?.outboxPending).toBe(false);
      // A process that died before publishing leaves the entries; the sweep publishes them.
      await model.create({ _id: 'left', outbox: [entry('c')], outboxPending: true });
      relay.start();
      await waitFor(() => seen.length >= 3, { what: 'three messages' });
      relay.stop();
      await relay.sweep();
      expect(seen).toEqual(['a', 'b', 'c']);
    }));

  it('when an entry is added while the outbox is being published, then only the published entries are removed', () =>
    withOutboxStage('test.outbox-added', async ({ bus, seen, model, entry, stored }) => {
      const meanwhile = {
        publishAll: async (batches: Parameters<typeof bus.publishAll>[0]) => {
          await bus.publishAll(batches);
          // Another writer (a replica) appends to the outbox before the relay clears it.
          await model.collection.updateOne(
            { _id: 'doc' as never },
            { $push: { outbox: entry('late') } as never, $set: { outboxPending: true } },
          );
        },
      };
      const relay = createOutboxRelay({ bus: meanwhile, model, logger, bulkLane: createBulkLane() });
      await model.create({ _id: 'doc', outbox: [entry('first')], outboxPending: true });
      await relay.flush('doc');
      const after = await stored('doc');
      expect(after?.outbox.map((e) => e.id)).toEqual(['late']);
      expect(after?.outboxPending).toBe(true);
      await waitFor(() => seen.length >= 1, { what: 'the published entry' });
      expect(seen).toEqual(['first']);
    }));

  it('when the writer hands over the entries it wrote, then they are published and the outbox emptied without reading it first', () =>
    withOutboxStage('test.outbox-written', async ({ bus, seen, model, entry, stored }) => {
      const relay = createOutboxRelay({ bus, model, logger, bulkLane: createBulkLane() });
      // Written through mongoose, stored with its key order; handed over in the caller's.
      const written = [entry('w1'), entry('w2')].map(({ value, ...rest }) => ({
        value,
        headers: { 'x-correlation-id': 'c' },
        ...rest,
      }));
      await model.create({ _id: 'doc', outbox: written, outboxPending: true });
      const reads: string[] = [];
      const findOne = model.collection.findOne.bind(model.collection);
      model.collection.findOne = ((...args: Parameters<typeof findOne>) => {
        reads.push(JSON.stringify(args[0]));
        return findOne(...args);
      }) as typeof findOne;
      await relay.flush('doc', written);
      expect(reads).toEqual([]);
      expect(await stored('doc')).toMatchObject({ outbox: [], outboxPending: false });
      await waitFor(() => seen.length >= 2, { what: 'the two messages' });
      expect(seen).toEqual(['w1', 'w2']);
    }));

  it('when many documents are flushed at once, then their outboxes are emptied by a few bulk writes; one that gained an entry meanwhile keeps only that', () =>
    withOutboxStage('test.outbox-batched', async ({ bus, seen, model, entry, stored }) => {
      const ids = Array.from({ length: 20 }, (_, i) => `doc${i}`);
      const meanwhile = {
        publishAll: async (batches: Parameters<typeof bus.publishAll>[0]) => {
          await bus.publishAll(batches);
          const published = (batches[0]!.messages[0]!.value as { id: string }).id;
          // Another replica appends to one outbox of the second round before it is cleared.
          if (published === 'doc7-2') {
            await model.collection.updateOne(
              { _id: 'doc7' as never },
              { $push: { outbox: entry('late') } as never, $set: { outboxPending: true } },
            );
          }
        },
      };
      const relay = createOutboxRelay({ bus: meanwhile, model, logger, bulkLane: createBulkLane() });
      const bulk: number[] = [];
      const single: string[] = [];
      const { bulkWrite, updateOne } = model.collection;
      model.collection.bulkWrite = ((ops: Parameters<typeof bulkWrite>[0], ...rest: unknown[]) => {
        bulk.push(ops.length);
        return bulkWrite.call(model.collection, ops, ...(rest as []));
      }) as typeof bulkWrite;
      model.collection.updateOne = ((...args: Parameters<typeof updateOne>) => {
        single.push(JSON.stringify(args[0]));
        return updateOne.apply(model.collection, args);
      }) as typeof updateOne;
      for (const round of [1, 2]) {
        const written = new Map(ids.map((id) => [id, [entry(`${id}-${round}`)]]));
        await model.insertMany(ids.map((id) => ({ _id: `${id}-r${round}`, outbox: [], outboxPending: false })));
        await Promise.all(
          ids.map((id) =>
            model.collection.updateOne(
              { _id: id as never },
              { $set: { outbox: written.get(id), outboxPending: true } },
              { upsert: true },
            ),
          ),
        );
        single.length = 0;
        await Promise.all(ids.map((id) => relay.flush(id, written.get(id))));
      }
      // Clears gathered as the publishes were acknowledged (the producer sends the first alone
      // and the rest together): a handful of bulk writes for 40 clears. Whichever batch held
      // doc7's missed clear, only doc7 (with `late`) needed writes of its own.
      expect(bulk.reduce((a, b) => a + b, 0)).toBe(40);
      expect(bulk.length).toBeLessThanOrEqual(8);
      expect(single.every((filter) => filter.includes('doc7'))).toBe(true);
      for (const id of ids) {
        expect(await stored(id)).toMatchObject(
          id === 'doc7' ? { outbox: [{ id: 'late' }], outboxPending: true } : { outbox: [], outboxPending: false },
        );
      }
      await waitFor(() => seen.length >= 40, { what: '40 messages' });
    }));

  it('when removals are delayed, then a document written again meanwhile is emptied once, nothing is published twice, and a stop removes what waits', () =>
    withOutboxStage('test.outbox-delayed', async ({ bus, seen, model, entry, stored }) => {
      const relay = createOutboxRelay({ bus, model, logger, bulkLane: createBulkLane(), clearDelayMs: 60_000 });
      const bulk: number[] = [];
      const { bulkWrite } = model.collection;
      model.collection.bulkWrite = ((ops: Parameters<typeof bulkWrite>[0], ...rest: unknown[]) => {
        bulk.push(ops.length);
        return bulkWrite.call(model.collection, ops, ...(rest as []));
      }) as typeof bulkWrite;
      await model.create({ _id: 'doc', outbox: [entry('a')], outboxPending: true });
      await model.create({ _id: 'other', outbox: [entry('x')], outboxPending: true });
      await relay.flush('doc', [entry('a')]);
      await relay.flush('other');
      // Published, still stored: the owner writes the document again before the removal.
      expect(await stored('doc')).toMatchObject({ outbox: [{ id: 'a' }], outboxPending: true });
      await model.collection.updateOne({ _id: 'doc' as never }, { $push: { outbox: entry('b') } as never });
      await relay.flush('doc', [entry('b')]);
      // Neither a sweep nor a flush that reads the outbox publishes what was published already.
      await relay.sweep();
      await relay.flush('doc');
      // One key, one partition: the last message comes after any repeat of the earlier ones.
      await model.create({ _id: 'last', outbox: [entry('z')], outboxPending: true });
      await relay.flush('last');
      await waitFor(() => seen.includes('z'), { what: 'the last message' });
      expect(seen).toEqual(['a', 'x', 'b', 'z']);
      await relay.stop();
      for (const id of ['doc', 'other', 'last'])
        expect(await stored(id)).toMatchObject({ outbox: [], outboxPending: false });
      expect(bulk).toEqual([3]);
    }));

  it('when documents are written and flushed in bursts while removals are delayed, then every write and flush completes and every outbox is emptied', () =>
    withOutboxStage('test.outbox-delayed-load', async ({ model, entry }) => {
      // Large bulk updates beside many inserts once wedged the local database for good: 400
      // writes in bursts of 20, 30 ms apart, each flushed as it is written.
      const relay = createOutboxRelay({
        bus: { publishAll: async () => undefined },
        model,
        logger,
        bulkLane: createBulkLane(),
        clearDelayMs: 300,
      });
      const written: Promise<void>[] = [];
      for (let i = 0; i < 400; i++) {
        const outbox = [entry(`e${i}`)];
        written.push(
          model.collection
            .insertOne({ _id: `d${i}`, outbox, outboxPending: true } as never)
            .then(() => relay.flush(`d${i}`, outbox)),
        );
        if (i % 20 === 19) await pause(30);
      }
      await Promise.all(written);
      await relay.stop();
      expect(await model.collection.countDocuments({ outboxPending: true })).toBe(0);
    }));

  it('when another replica sweeps while published entries wait for their removal, then it publishes only what a crash left', () =>
    withOutboxStage('test.outbox-delayed-sweep', async ({ bus, seen, model, entry, stored }) => {
      const owner = createOutboxRelay({ bus, model, logger, bulkLane: createBulkLane(), clearDelayMs: 300 });
      const replica = createOutboxRelay({ bus, model, logger, bulkLane: createBulkLane(), clearDelayMs: 300 });
      await model.create({ _id: 'written', outbox: [entry('a')], outboxPending: true });
      await model.create({ _id: 'left', outbox: [entry('b')], outboxPending: true });
      await owner.flush('written', [entry('a')]);
      expect(await stored('written')).toMatchObject({ outboxPending: true });
      // The replica finds both pending; by the time it looks again the owner has emptied one.
      expect(await replica.sweep()).toBe(1);
      await model.create({ _id: 'last', outbox: [entry('z')], outboxPending: true });
      await replica.flush('last');
      await waitFor(() => seen.includes('z'), { what: 'the last message' });
      expect(seen).toEqual(['a', 'b', 'z']);
      await Promise.all([owner.stop(), replica.stop()]);
      for (const id of ['written', 'left', 'last'])
        expect(await stored(id)).toMatchObject({ outbox: [], outboxPending: false });
    }));

  it('when a flush failed earlier, then a later flush that hands over its entries publishes the older ones first', () =>
    withOutboxStage('test.outbox-written-after-failure', async ({ bus, seen, model, entry, stored }) => {
      const flaky = withOutage(bus);
      const relay = createOutboxRelay({ bus: flaky, model, logger, bulkLane: createBulkLane() });
      await model.create({ _id: 'doc', outbox: [entry('old')], outboxPending: true });
      await expect(relay.flush('doc', [entry('old')])).rejects.toThrow('broker unreachable');
      flaky.outage = false;
      await model.collection.updateOne({ _id: 'doc' as never }, { $push: { outbox: entry('new') } as never });
      await relay.flush('doc', [entry('new')]);
      expect(await stored('doc')).toMatchObject({ outbox: [], outboxPending: false });
      await waitFor(() => seen.length >= 2, { what: 'both messages' });
      expect(seen).toEqual(['old', 'new']);
    }));

  it('when publishing fails right after a write, then the relay retries that document shortly, without waiting for a sweep', () =>
    withOutboxStage('test.outbox-retry', async ({ bus, seen, model, entry, stored }) => {
      const flaky = withOutage(bus);
      const relay = createOutboxRelay({ bus: flaky, model, logger, bulkLane: createBulkLane(), retryEveryMs: 100 });
      // No sweep at all: only the retry of the failed flush can publish the document.
      relay.start({ sweep: false });
      await model.create({ _id: 'doc', outbox: [entry('x'), entry('y')], outboxPending: true });
      await expect(relay.flush('doc')).rejects.toThrow('broker unreachable');
      flaky.outage = false;
      await waitFor(() => seen.length >= 2, { what: 'the retried messages' });
      // The outbox is emptied once the broker has acknowledged them.
      await waitFor(async () => (await stored('doc'))?.outboxPending === false, { what: 'the outbox emptied' });
      relay.stop();
      expect(seen).toEqual(['x', 'y']);
      expect((await stored('doc'))?.outbox).toEqual([]);
    }));
});
