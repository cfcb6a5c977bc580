import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { testStamp, uniqueName, waitFor } from '@testing/helpers';
import { KafkaJSProtocolError } from 'kafkajs';
import { createKafkaBus, type KafkaBus } from '../kafka';
import { createTopicAdmin, namespacedNames } from './topics';
import { createLogger } from '../logger';
import { createMetrics } from '../metrics';

/**
 * The hand-over of a topic's committed offsets from one consumer group to another, against the
 * real broker and registry, in a topic namespace (the broker's names of topic and groups carry it).
 */
const Greeting = z.object({ id: z.string(), text: z.string(), count: z.number().int() });
const logger = createLogger('handover-test', 'silent');
const buses: KafkaBus[] = [];

async function connectedBus(namespace: string, topic: string) {
  const bus = createKafkaBus({
    logger,
    metrics: createMetrics('handover-test'),
    settings: {
      brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
      clientId: uniqueName('handover-test'),
      registryUrl: process.env.SCHEMA_REGISTRY_URL!,
      partitions: 4,
      replicationFactor: 1,
      namespace,
      commitIntervalMs: 200,
      schemaOf: () => Greeting,
    },
  });
  buses.push(bus);
  await bus.connect();
  await bus.ensureTopics([topic]);
  return bus;
}

afterAll(async () => {
  await Promise.all(buses.map((b) => b.disconnect()));
});

/** Twenty messages with ids from `from`, keyed key-0..key-19: two batches share their partitions. */
const batch = (from: number) =>
  Array.from({ length: 20 }, (_, i) => ({ key: `key-${i}`, value: { id: String(from + i), text: 'x', count: i } }));
const idsOf = (messages: ReturnType<typeof batch>) => messages.map((m) => m.value.id).sort();

/** Reads the topic with `groupId` until `ids` are handled, then leaves the group with them committed. */
async function readWith(bus: KafkaBus, groupId: string, topic: string, ids: string[], fromBeginning = true) {
  const handled: string[] = [];
  await bus.consume({
    groupId,
    topics: [topic],
    fromBeginning,
    handle: async (m) => void handled.push((m.value as { id: string }).id),
  });
  await waitFor(() => ids.every((id) => handled.includes(id)), { what: `${groupId} to read ${ids.length} messages` });
  await bus.stopConsumer(groupId);
  return handled;
}

const committed = async (bus: KafkaBus, topic: string, groupId: string) =>
  (await bus.topicOffsets(topic, groupId)).map((p) => [p.partition, p.committed] as const);

describe('handOverOffsets', () => {
  it('when the new group has no offsets on the topic, then it gets the old group’s and starts where the old one stopped', async () => {
    const ns = `${testStamp()}.`;
    const topic = 'loan.test.handover';
    const bus = await connectedBus(ns, topic);
    await bus.publish(topic, batch(0));
    await readWith(bus, 'old', topic, idsOf(batch(0)));

    await expect(bus.handOverOffsets({ topic, from: 'old', to: 'new' })).resolves.toBe('copied');
    expect(await committed(bus, topic, 'new')).toEqual(await committed(bus, topic, 'old'));
    // Under the broker's names: the namespaced group, not the plain one, has them.
    const raw = (groupId: string) =>
      bus.raw.admin.fetchOffsets({ groupId, topics: [`${ns}${topic}`] }).then((r) => r[0]!.partitions);
    expect((await raw(`${ns}new`)).every((p) => Number(p.offset) >= 0)).toBe(true);
    expect((await raw('new')).every((p) => Number(p.offset) < 0)).toBe(true);

    await bus.publish(topic, batch(100));
    // Each of the first 20 shares its key, so its partition, with one of the next 20 and comes
    // before it: a group that started at the beginning would have read it by then.
    const handled = await readWith(bus, 'new', topic, idsOf(batch(100)));
    expect(handled.sort()).toEqual(idsOf(batch(100)));
  });

  it('when the broker cannot answer for the group yet (it has just started), then the hand-over asks again and copies', async () => {
    const ns = `${testStamp()}.`;
    const topic = 'loan.test.handover';
    const bus = await connectedBus(ns, topic);
    await bus.publish(topic, batch(0));
    await readWith(bus, 'old', topic, idsOf(batch(0)));
    // What a broker whose offsets topic is still being created answers, twice.
    let refusals = 2;
    const admin = new Proxy(bus.raw.admin, {
      get(target, name, receiver) {
        if (name === 'fetchOffsets' && refusals > 0) {
          return async () => {
            refusals -= 1;
            throw new KafkaJSProtocolError({
              message: 'This is not the correct coordinator for this group',
              type: 'NOT_COORDINATOR_FOR_GROUP',
              code: 16,
              retriable: true,
            } as unknown as Error);
          };
        }
        return Reflect.get(target, name, receiver) as unknown;
      },
    });
    const topics = createTopicAdmin({
      admin,
      settings: {
        brokers: [],
        clientId: 'x',
        registryUrl: '',
        partitions: 4,
        replicationFactor: 1,
        schemaOf: () => Greeting,
      },
      names: namespacedNames(ns),
      logger,
    });

    await expect(topics.handOverOffsets({ topic, from: 'old', to: 'new' })).resolves.toBe('copied');
    expect(refusals).toBe(0);
    expect(await committed(bus, topic, 'new')).toEqual(await committed(bus, topic, 'old'));
  });

  it('when the new group already has offsets on the topic, then they are kept', async () => {
    const ns = `${testStamp()}.`;
    const topic = 'loan.test.handover';
    const bus = await connectedBus(ns, topic);
    await bus.publish(topic, batch(0));
    await readWith(bus, 'new', topic, idsOf(batch(0)));
    const own = await committed(bus, topic, 'new');
    await bus.publish(topic, batch(100));
    await readWith(bus, 'old', topic, [...idsOf(batch(0)), ...idsOf(batch(100))]);

    await expect(bus.handOverOffsets({ topic, from: 'old', to: 'new' })).resolves.toBe('kept');
    expect(await committed(bus, topic, 'new')).toEqual(own);
  });

  it('when the old group has no offsets either, then nothing is written', async () => {
    const ns = `${testStamp()}.`;
    const topic = 'loan.test.handover';
    const bus = await connectedBus(ns, topic);
    await bus.publish(topic, batch(0));

    await expect(bus.handOverOffsets({ topic, from: 'old', to: 'new' })).resolves.toBe('none');
    expect((await committed(bus, topic, 'new')).every(([, offset]) => offset === -1)).toBe(true);
  });

  it('when two processes hand over at the same moment, then both go on without an error and the new group starts where the old one stopped', async () => {
    const ns = `${testStamp()}.`;
    const topic = 'loan.test.handover';
    const [a, b] = await Promise.all([connectedBus(ns, topic), connectedBus(ns, topic)]);
    await a.publish(topic, batch(0));
    await readWith(a, 'old', topic, idsOf(batch(0)));

    const outcomes = await Promise.all([
      a.handOverOffsets({ topic, from: 'old', to: 'new' }),
      b.handOverOffsets({ topic, from: 'old', to: 'new' }),
    ]);
    expect(outcomes).toContain('copied');
    for (const outcome of outcomes) expect(['copied', 'kept']).toContain(outcome);
    expect(await committed(a, topic, 'new')).toEqual(await committed(a, topic, 'old'));

    await a.publish(topic, batch(100));
    const handled = await readWith(b, 'new', topic, idsOf(batch(100)));
    expect(handled.sort()).toEqual(idsOf(batch(100)));
  });

  it('when the new group already has a member, then the copy waits for its offsets instead of failing, and leaves them as they are', async () => {
    const ns = `${testStamp()}.`;
    const topic = 'loan.test.handover';
    const bus = await connectedBus(ns, topic);
    await bus.publish(topic, batch(0));
    await readWith(bus, 'old', topic, idsOf(batch(0)));
    // Another replica's consumer, in the group already, that has committed nothing yet.
    const other = await connectedBus(ns, topic);
    const seen: string[] = [];
    await other.consume({
      groupId: 'new',
      topics: [topic],
      fromBeginning: false,
      handle: async (m) => void seen.push((m.value as { id: string }).id),
    });

    await expect(bus.handOverOffsets({ topic, from: 'old', to: 'new', waitMs: 1_000 })).resolves.toBe('busy');
    expect((await committed(bus, topic, 'new')).every(([, offset]) => offset === -1)).toBe(true);

    const handingOver = bus.handOverOffsets({ topic, from: 'old', to: 'new' });
    const id = randomUUID();
    await bus.publish(topic, [{ key: 'key-0', value: { id, text: 'x', count: 0 } }]);
    await expect(handingOver).resolves.toBe('kept');
    expect(seen).toEqual([id]);
    const own = await committed(bus, topic, 'new');
    expect(own.filter(([, offset]) => offset >= 0)).toHaveLength(1);
  });
});
