import { randomUUID } from 'node:crypto';
import { toWebhookBody } from '@loan/contracts';
import { waitFor } from '@testing/helpers';
import {
  createPublisher,
  startNotifier,
  startReceiver,
  stopAndDrop,
  suiteSettings,
  type Publisher,
  type Receiver,
  type StartedNotifier,
} from '../../__tests__/harness';
import type { Delivery } from '../../domain/delivery';

async function deliveryOf(notifier: StartedNotifier, eventId: string, clientId: string): Promise<Delivery | undefined> {
  return (await notifier.service.repo.list({ clientId, eventId, limit: 1 })).items[0];
}

const attemptsCounted = async (notifier: StartedNotifier) => {
  const metric = await notifier.runtime.metrics.registry.getSingleMetric('webhook_attempts_total')?.get();
  return (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
};

describe('recovery and replicas over the real broker and database', () => {
  const running: StartedNotifier[] = [];
  const receivers: Receiver[] = [];
  let publisher: Publisher | undefined;

  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
    await publisher?.close();
    publisher = undefined;
    await stopAndDrop(running.splice(0));
  });

  async function start(settings: Record<string, string>) {
    const n = await startNotifier(settings);
    running.push(n);
    return n;
  }

  it('when the notifier is killed between retries and a fresh one starts on the same database, then the event is delivered, once', async () => {
    const settings = suiteSettings({ WEBHOOK_RETRY_BASE: '500ms', DELIVERY_LEASE: '3s', WEBHOOK_TIMEOUT: '1s' });
    const hook = await startReceiver((_req, nth) => (nth <= 2 ? 503 : 200));
    receivers.push(hook);
    const first = await start(settings);
    publisher = await createPublisher(first.config);
    const { clientId } = await publisher.client({ webhookUrl: hook.url });
    const record = publisher.event({ clientId });
    await publisher.publish(record);

    await waitFor(async () => (await deliveryOf(first, record.id, clientId))?.attempts.length === 2, {
      what: 'two failed attempts',
    });
    await first.service.halt();
    running.splice(running.indexOf(first), 1);
    expect(hook.forEvent(record.id)).toHaveLength(2);

    const second = await start(settings);
    const delivery = await waitFor(
      async () => {
        const d = await deliveryOf(second, record.id, clientId);
        return d?.status === 'DELIVERED' && d;
      },
      { what: 'delivery by the restarted notifier' },
    );
    expect(delivery.attempts.map((a) => a.statusCode)).toEqual([503, 503, 200]);
    expect(hook.forEvent(record.id).filter((r) => r.status === 200)).toHaveLength(1);
    expect(hook.forEvent(record.id)).toHaveLength(3);
  });

  it('when the notifier is killed during an attempt, then a fresh one takes the attempt over once its claim expires', async () => {
    const settings = suiteSettings({ DELIVERY_LEASE: '2500ms', WEBHOOK_TIMEOUT: '2s' });
    const hook = await startReceiver((_req, nth) => (nth === 1 ? { status: 200, delayMs: 1_500 } : 200));
    receivers.push(hook);
    const first = await start(settings);
    publisher = await createPublisher(first.config);
    const { clientId } = await publisher.client({ webhookUrl: hook.url });
    const record = publisher.event({ clientId });
    await publisher.publish(record);

    await waitFor(() => hook.forEvent(record.id).length === 1, { what: 'the first POST under way' });
    await first.service.halt();
    running.splice(running.indexOf(first), 1);

    const second = await start(settings);
    const delivery = await waitFor(
      async () => {
        const d = await deliveryOf(second, record.id, clientId);
        return d?.status === 'DELIVERED' && d;
      },
      { what: 'delivery after the claim expired' },
    );
    // The interrupted attempt was never recorded; the receiver saw the event twice (at least once).
    expect(delivery.attempts).toHaveLength(1);
    expect(hook.forEvent(record.id)).toHaveLength(2);
    expect(hook.forEvent(record.id)[1]!.at - hook.forEvent(record.id)[0]!.at).toBeGreaterThanOrEqual(1_000);
  });

  it('when two replicas share the schedule, then no attempt is sent twice', async () => {
    const settings = suiteSettings({ DELIVERY_CONCURRENCY: '8' });
    const hook = await startReceiver((_req, nth) => (nth === 1 ? 500 : 200));
    receivers.push(hook);
    const [a, b] = [await start(settings), await start(settings)];
    publisher = await createPublisher(a.config);
    const { clientId } = await publisher.client({ webhookUrl: hook.url });
    const applications = Array.from({ length: 10 }, () => randomUUID());
    const records = Array.from({ length: 40 }, (_, i) =>
      publisher!.event({ clientId, applicationId: applications[i % 10] }),
    );
    await publisher.publish(...records);

    await waitFor(
      async () => {
        const page = await a.service.repo.list({ clientId, status: 'DELIVERED', limit: 100 });
        return page.items.length === records.length;
      },
      { what: 'all 40 deliveries', timeoutMs: 45_000 },
    );
    for (const record of records) {
      const got = hook.forEvent(record.id);
      expect(got.map((r) => r.headers['x-delivery-attempt'])).toEqual(['1', '2']);
      expect(got.map((r) => r.status)).toEqual([500, 200]);
    }
    expect(hook.requests).toHaveLength(80);
    const [byA, byB] = [await attemptsCounted(a), await attemptsCounted(b)];
    expect(byA + byB).toBe(80);
    expect(Math.min(byA, byB)).toBeGreaterThan(0);
  });

  it('when a notifier stops with a delivery waiting for its first attempt, then another replica sends it without waiting for the first claim to expire', async () => {
    // A lease far longer than the test waits: were the first claim not given up, the waiting
    // event would not go before the wait below ends.
    const settings = suiteSettings({ DELIVERY_LEASE: '10m', WEBHOOK_TIMEOUT: '1s', WEBHOOK_RETRY_BASE: '300ms' });
    // The application's first event fails until the receiver is fixed, so its second one waits.
    const hook = await startReceiver(() => 503);
    receivers.push(hook);
    const first = await start(settings);
    publisher = await createPublisher(first.config);
    const { clientId } = await publisher.client({ webhookUrl: hook.url });
    const applicationId = randomUUID();
    const [head, waiting] = [
      publisher.event({ clientId, applicationId }),
      publisher.event({ clientId, applicationId }),
    ];
    await publisher.publish(head, waiting);
    const recorded = await waitFor(async () => deliveryOf(first, waiting.id, clientId), {
      what: 'the second event recorded',
    });
    const stored = await first.runtime.db.collection('deliveries').findOne({ _id: recorded.deliveryId as never });
    expect({ stored }).toMatchObject({ stored: { firstClaim: { owner: first.service.owner } } });
    const claimEnds = new Date(stored!.firstClaim.expiresAt).getTime();

    await first.service.stop();
    running.splice(running.indexOf(first), 1);
    hook.setBehaviour(() => 200);
    const second = await start(settings);
    await waitFor(async () => (await deliveryOf(second, waiting.id, clientId))?.status === 'DELIVERED', {
      what: 'the waiting event delivered by the other replica',
      timeoutMs: 60_000,
    });
    expect(hook.forEvent(waiting.id)).toHaveLength(1);
    // Sent while the first claim, had it not been given up, would still have held it back.
    expect(hook.forEvent(waiting.id)[0]!.at).toBeLessThan(claimEnds);
    // In order: the head went (again) first.
    expect(hook.forEvent(head.id).at(-1)!.at).toBeLessThanOrEqual(hook.forEvent(waiting.id)[0]!.at);
  });

  it('when the previous version left a delivery with a live claim document of its first attempt, then it is not sent before that claim expires, and then once', async () => {
    const settings = suiteSettings({ DELIVERY_LEASE: '3s', WEBHOOK_TIMEOUT: '1s' });
    const hook = await startReceiver(() => 200);
    receivers.push(hook);
    const notifier = await start(settings);
    publisher = await createPublisher(notifier.config);
    const { clientId } = await publisher.client({ webhookUrl: hook.url });
    const known = publisher.event({ clientId });
    await publisher.publish(known);
    await waitFor(async () => (await deliveryOf(notifier, known.id, clientId))?.status === 'DELIVERED', {
      what: 'the client known to the notifier',
    });

    // Written as the previous version wrote them: no first claim on the delivery, an entry
    // without a hold, and the claim document of its first attempt, held by a replica of that version.
    const record = publisher.event({ clientId });
    const deliveryId = randomUUID();
    const now = new Date();
    const claimEnds = new Date(now.getTime() + 2_000);
    const db = notifier.runtime.db;
    await db.collection('deliveries').insertOne({
      _id: deliveryId as never,
      eventId: record.id,
      event: record.event,
      clientId,
      applicationId: record.applicationId,
      body: JSON.stringify(toWebhookBody(record)),
      eventAt: new Date(record.timestamp),
      partition: 0,
      seq: 1,
      status: 'PENDING',
      reason: null,
      attempts: [],
      round: { attempts: 0, size: 6 },
      nextAttemptAt: now,
      version: 0,
      createdAt: now,
      updatedAt: now,
      deliveredAt: null,
    });
    await db.collection('delivery_claims').insertOne({
      _id: `${deliveryId}:0:0` as never,
      deliveryId,
      owner: 'replica-of-the-previous-version',
      expiresAt: claimEnds,
    });
    await db.collection('delivery_schedule').insertOne({
      _id: deliveryId as never,
      clientId,
      applicationId: record.applicationId,
      partition: 0,
      seq: 1,
      nextAttemptAt: now,
      version: 0,
    });

    const delivered = await waitFor(
      async () => {
        const d = await deliveryOf(notifier, record.id, clientId);
        return d?.status === 'DELIVERED' && d;
      },
      { what: 'the delivery taken over once the old claim expired' },
    );
    expect(delivered.attempts).toHaveLength(1);
    expect(hook.forEvent(record.id)).toHaveLength(1);
    expect(hook.forEvent(record.id)[0]!.at).toBeGreaterThanOrEqual(claimEnds.getTime());
    expect(await db.collection('delivery_claims').findOne({ _id: `${deliveryId}:0:1` as never })).toMatchObject({
      owner: notifier.service.owner,
    });
  });
});
