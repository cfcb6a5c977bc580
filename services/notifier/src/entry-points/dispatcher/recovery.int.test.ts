import { randomUUID } from 'node:crypto';
import { waitFor } from '../../../../../testing/helpers';
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
});
