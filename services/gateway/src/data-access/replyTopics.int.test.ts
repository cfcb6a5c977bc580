import { randomUUID } from 'node:crypto';
import { createLogger, type Clock } from '@loan/runtime';
import { waitFor } from '@testing/helpers';
import { captureLogs, startGateway, suiteNamespace, testBus, type Running } from '@testing/stack';
import { createReplyTopicSweeper, replyGroupFor } from './replyTopicSweeper';

/**
 * Reply topics of gateway replicas against the real broker: a replica keeps its replies for a
 * short time, deletes its topics when it stops cleanly, and the topics of a replica that died
 * are deleted by the others once its consumer group has had no member for the grace period.
 */
describe('gateway reply topics', () => {
  const ns = suiteNamespace();
  const bus = testBus(ns, 'reply-topics-test');
  const gateways: Running[] = [];
  const topicsNow = async () => (await bus.listTopics('loan.gateway.replies.')).map(bus.topicName).sort();
  const retentionOf = async (topic: string) => {
    const { resources } = await bus.raw.admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: 2 /* TOPIC */, name: topic, configNames: ['retention.ms'] }],
    });
    return resources[0]?.configEntries.find((e) => e.configName === 'retention.ms')?.configValue;
  };

  beforeAll(async () => {
    await bus.connect();
  });

  afterAll(async () => {
    for (const g of gateways) await g.stop().catch(() => undefined);
    await bus.disconnect();
  });

  it('when a replica starts, then its reply topic keeps records for REPLY_TOPIC_RETENTION; when it stops cleanly, then its topics are gone', async () => {
    const gateway = await startGateway(ns, { GATEWAY_INSTANCE_ID: 'clean1', REPLY_TOPIC_RETENTION: '15m' });
    expect(await topicsNow()).toEqual([`${ns}loan.gateway.replies.clean1`, `${ns}loan.gateway.replies.clean1.dlq`]);
    expect(await retentionOf(`${ns}loan.gateway.replies.clean1`)).toBe(String(15 * 60_000));

    await gateway.stop();
    await waitFor(async () => (await topicsNow()).length === 0, { what: 'the reply topics deleted' });
  });

  it('when a replica stops right after handling a reply, then its reply consumer stops (committing what it handled) before its topics are deleted, and no commit is refused', async () => {
    const logs = captureLogs();
    // Nothing is committed on the interval: what the replica handled is still to commit when it stops.
    const gateway = await startGateway(ns, {
      GATEWAY_INSTANCE_ID: 'busy1',
      KAFKA_COMMIT_INTERVAL: '10m',
      LOG_LEVEL: 'warn',
    });
    await bus.publish('loan.gateway.replies.busy1', [
      {
        key: 'late',
        value: { commandId: randomUUID(), ok: false, code: 'NOT_FOUND', message: 'a reply nobody waits for any more' },
      },
    ]);
    const handled = /kafka_handler_duration_seconds_count\{[^}]*topic="[^"]*loan\.gateway\.replies\.busy1"[^}]*\} 1/;
    await waitFor(async () => handled.test(await (await fetch(`${gateway.opsUrl}/metrics`)).text()), {
      what: 'the reply handled',
    });

    await gateway.stop();
    await waitFor(async () => !(await topicsNow()).some((t) => t.includes('busy1')), {
      what: 'the reply topics deleted',
    });
    expect(logs.lines().filter((line) => /OffsetCommit|committing consumer offsets failed/.test(line))).toEqual([]);
  });

  it('when a replica died, then a live replica deletes its topics and group after the grace period, and keeps those of live replicas', async () => {
    const live = await startGateway(ns, { GATEWAY_INSTANCE_ID: 'live1' });
    gateways.push(live);
    // A replica that was killed: its topics are left, and its group has no member any more.
    await bus.ensureTopics(['loan.gateway.replies.dead1', 'loan.gateway.replies.dead1.dlq'], { partitions: 1 });
    const dead = bus.raw.kafka.consumer({ groupId: bus.groupName(replyGroupFor('dead1')), retry: { retries: 0 } });
    await dead.connect();
    await dead.subscribe({ topic: `${ns}loan.gateway.replies.dead1`, fromBeginning: true });
    await dead.run({ eachMessage: async () => undefined });
    await waitFor(async () => (await bus.groupMembers([replyGroupFor('dead1')])).get(replyGroupFor('dead1')) === 1, {
      what: 'the dead replica consuming',
    });

    let now = Date.now();
    const clock: Clock = { now: () => new Date(now) };
    const sweeper = createReplyTopicSweeper({
      bus,
      ownInstanceId: 'sweeper1',
      graceMs: 10 * 60_000,
      clock,
      logger: createLogger('test', 'silent'),
    });
    // While it still consumes, it is alive.
    expect(await sweeper.sweep()).toEqual([]);
    await dead.disconnect();
    await waitFor(async () => (await bus.groupMembers([replyGroupFor('dead1')])).get(replyGroupFor('dead1')) === 0, {
      what: 'the dead replica gone from its group',
    });

    expect(await sweeper.sweep()).toEqual([]); // first seen without a member
    now += 9 * 60_000;
    expect(await sweeper.sweep()).toEqual([]); // within the grace period
    now += 2 * 60_000;
    expect(await sweeper.sweep()).toEqual(['dead1']);

    await waitFor(async () => !(await topicsNow()).some((t) => t.includes('dead1')), {
      what: 'the dead replica topics deleted',
    });
    expect(await topicsNow()).toEqual([`${ns}loan.gateway.replies.live1`, `${ns}loan.gateway.replies.live1.dlq`]);
    const groups = (await bus.raw.admin.listGroups()).groups.map((g) => g.groupId);
    expect(groups).not.toContain(bus.groupName(replyGroupFor('dead1')));

    // A live replica's topics stay, however long it lives.
    now += 60 * 60_000;
    expect(await sweeper.sweep()).toEqual([]);
    expect(await topicsNow()).toEqual([`${ns}loan.gateway.replies.live1`, `${ns}loan.gateway.replies.live1.dlq`]);
  });
});
