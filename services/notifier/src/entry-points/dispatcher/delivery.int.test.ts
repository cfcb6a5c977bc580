import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { toWebhookBody } from '@loan/contracts';
import { Webhook } from 'standardwebhooks';
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

/** HMAC-SHA256 by an implementation other than ours: openssl, over the bytes as received. */
function opensslHmac(secret: string, body: Buffer): string {
  const out = execFileSync('openssl', ['dgst', '-sha256', '-hmac', secret], { input: body }).toString('utf8').trim();
  return out.slice(out.lastIndexOf(' ') + 1);
}

/** The notifier's webhook timeout in this suite: the product's default. */
const WEBHOOK_TIMEOUT_MS = 10_000;
describe('webhook delivery over the real broker and database', () => {
  let notifier: StartedNotifier;
  let publisher: Publisher;
  const receivers: Receiver[] = [];

  const receiver = async (...args: Parameters<typeof startReceiver>) => {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  };

  async function deliveryOf(eventId: string, clientId: string): Promise<Delivery | undefined> {
    const page = await notifier.service.repo.list({ clientId, eventId, limit: 5 });
    return page.items[0];
  }

  const settled = (eventId: string, clientId: string, status: Delivery['status'] = 'DELIVERED') =>
    waitFor(
      async () => {
        const d = await deliveryOf(eventId, clientId);
        return d && d.status === status ? d : undefined;
      },
      { what: `delivery of ${eventId} to be ${status}`, timeoutMs: 30_000 },
    );

  /** Write commands sent to the database so far, by command and collection. */
  async function writeCommands(): Promise<Map<string, number>> {
    const counted = new Map<string, number>();
    for (const v of (await notifier.runtime.metrics.databaseCommands.get()).values) {
      if (['insert', 'update', 'delete', 'findAndModify'].includes(String(v.labels.command))) {
        const key = `${v.labels.command} ${v.labels.collection}`;
        counted.set(key, (counted.get(key) ?? 0) + v.value);
      }
    }
    return counted;
  }

  beforeAll(async () => {
    // The product's webhook timeout (10 s): with 1 s, a loaded machine read an immediate 200 of
    // the burst below after the timeout, and the retry delivered that event a second time.
    notifier = await startNotifier(
      suiteSettings({ WEBHOOK_TIMEOUT: `${WEBHOOK_TIMEOUT_MS}ms`, DELIVERY_LEASE: '30s' }),
    );
    publisher = await createPublisher(notifier.config);
  });

  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await publisher?.close();
    await stopAndDrop([notifier]);
  });

  it('when an event is delivered, then its x-signature verifies with openssl over the raw body and the headers name the event', async () => {
    const hook = await receiver(() => 200);
    const { clientId, secret } = await publisher.client({ webhookUrl: hook.url });
    const record = publisher.event({ clientId });
    await publisher.publish(record);

    const [received] = await waitFor(() => hook.forEvent(record.id).length === 1 && hook.forEvent(record.id), {
      what: 'the POST',
    });
    expect(received!.rawBody.toString('utf8')).toBe(JSON.stringify(toWebhookBody(record)));
    expect(received!.headers['x-signature']).toBe(opensslHmac(secret, received!.rawBody));
    expect(received!.headers['x-signature-previous']).toBeUndefined();
    expect(received!.headers['content-type']).toBe('application/json');
    expect(received!.headers['x-event-id']).toBe(record.id);
    expect(received!.headers['x-event-name']).toBe('application.failed');

    const delivery = await settled(record.id, clientId);
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0]).toMatchObject({ statusCode: 200, error: null });
    expect(delivery.nextAttemptAt).toBeNull();
  });

  it('when the webhook secret is being rotated, then x-signature-previous is signed with the older secret still valid', async () => {
    const hook = await receiver(() => 204);
    const { clientId } = await publisher.client({
      webhookUrl: hook.url,
      secrets: [
        { secret: 'whsec_new_one', validUntil: null },
        { secret: 'whsec_old_one', validUntil: new Date(Date.now() + 3_600_000) },
      ],
    });
    const record = publisher.event({ clientId });
    await publisher.publish(record);

    const [received] = await waitFor(() => hook.forEvent(record.id).length === 1 && hook.forEvent(record.id), {
      what: 'the POST',
    });
    expect(received!.headers['x-signature']).toBe(opensslHmac('whsec_new_one', received!.rawBody));
    expect(received!.headers['x-signature-previous']).toBe(opensslHmac('whsec_old_one', received!.rawBody));
    await settled(record.id, clientId);
  });

  it('when deliveries are signed, then a Standard Webhooks library verifies them with either secret of a rotation, and refuses them replayed with another timestamp', async () => {
    const hook = await receiver(() => 204);
    const { clientId } = await publisher.client({
      webhookUrl: hook.url,
      secrets: [
        { secret: 'whsec_new_standard', validUntil: null },
        { secret: 'whsec_old_standard', validUntil: new Date(Date.now() + 3_600_000) },
      ],
    });
    const record = publisher.event({ clientId });
    await publisher.publish(record);
    const [received] = await waitFor(() => hook.forEvent(record.id).length === 1 && hook.forEvent(record.id), {
      what: 'the POST',
    });
    const headers = received!.headers as Record<string, string>;
    const body = received!.rawBody.toString('utf8');
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const secret of ['whsec_new_standard', 'whsec_old_standard']) {
      expect(new Webhook(`whsec_${Buffer.from(secret).toString('base64')}`).verify(body, headers)).toEqual(
        JSON.parse(body),
      );
    }
    const replayed = { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) };
    expect(() => new Webhook('whsec_new_standard', { format: 'raw' }).verify(body, replayed)).toThrow();
    const delivery = await settled(record.id, clientId);
    expect(headers['webhook-id']).toBe(delivery.deliveryId);
  });

  it('when the receiver is down and comes back, then the event is delivered on a retry', async () => {
    const hook = await receiver(() => 200);
    await hook.down();
    const { clientId } = await publisher.client({ webhookUrl: hook.url });
    const record = publisher.event({ clientId });
    await publisher.publish(record);

    await waitFor(async () => ((await deliveryOf(record.id, clientId))?.attempts.length ?? 0) >= 1, {
      what: 'a refused attempt',
    });
    await hook.up();
    const delivery = await settled(record.id, clientId);

    const first = delivery.attempts[0]!;
    const last = delivery.attempts[delivery.attempts.length - 1]!;
    expect(first.statusCode).toBeNull();
    expect(first.error).toMatch(/ECONNREFUSED/);
    expect(last).toMatchObject({ statusCode: 200, error: null });
    expect(hook.forEvent(record.id).filter((r) => r.status === 200)).toHaveLength(1);
  });

  it('when a delivery waits for a retry, then /metrics counts it pending with the age of its event, and nothing once it is delivered', async () => {
    const gauge = async (name: string) => {
      const text = await (await fetch(`${notifier.url}/metrics`)).text();
      return Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
    };
    const hook = await receiver(() => 200);
    await hook.down();
    const { clientId } = await publisher.client({ webhookUrl: hook.url });
    const record = publisher.event({ clientId });
    await publisher.publish(record);
    await waitFor(async () => ((await deliveryOf(record.id, clientId))?.attempts.length ?? 0) >= 1, {
      what: 'a refused attempt',
    });

    expect(await gauge('webhook_deliveries_pending')).toBeGreaterThanOrEqual(1);
    expect(await gauge('webhook_deliveries_oldest_pending_seconds')).toBeGreaterThan(0);

    await hook.up();
    await settled(record.id, clientId);
    expect(await gauge('webhook_deliveries_pending')).toBe(0);
    expect(await gauge('webhook_deliveries_oldest_pending_seconds')).toBe(0);
  });

  it('when the receiver always fails, then it gets exactly 1 + 5 attempts on the backoff schedule and the delivery is FAILED', async () => {
    const hook = await receiver(() => 500);
    const { clientId } = await publisher.client({ webhookUrl: hook.url });
    const record = publisher.event({ clientId });
    await publisher.publish(record);

    const delivery = await settled(record.id, clientId, 'FAILED');
    expect(delivery.reason).toBe('retries_exhausted');
    expect(delivery.attempts).toHaveLength(6);
    expect(delivery.attempts.every((a) => a.statusCode === 500)).toBe(true);
    expect(hook.forEvent(record.id)).toHaveLength(6);
    const gaps = delivery.attempts.slice(1).map((a, i) => a.at.getTime() - delivery.attempts[i]!.at.getTime());
    [200, 400, 800, 1_600, 3_200].forEach((wait, i) => expect(gaps[i]).toBeGreaterThanOrEqual(wait));
    // Settled deliveries leave the schedule: nothing will send it again unless asked.
    await waitFor(async () => (await notifier.service.repo.getEntry(delivery.deliveryId)) === null, {
      what: 'the entry to leave the schedule',
    });
    expect(hook.forEvent(record.id)).toHaveLength(6);
    expect(delivery.nextAttemptAt).toBeNull();
  });

  it('when the receiver answers after the timeout, then that attempt counts as failed and a retry delivers', async () => {
    const hook = await receiver((_req, nth) => (nth === 1 ? { status: 200, delayMs: WEBHOOK_TIMEOUT_MS + 600 } : 200));
    const { clientId } = await publisher.client({ webhookUrl: hook.url });
    const record = publisher.event({ clientId });
    await publisher.publish(record);

    const delivery = await settled(record.id, clientId);
    expect(delivery.attempts).toHaveLength(2);
    expect(delivery.attempts[0]).toMatchObject({
      statusCode: null,
      error: `no answer within ${WEBHOOK_TIMEOUT_MS} ms`,
    });
    expect(delivery.attempts[0]!.durationMs).toBeGreaterThanOrEqual(WEBHOOK_TIMEOUT_MS - 10);
    expect(delivery.attempts[1]).toMatchObject({ statusCode: 200 });
  });

  it('when an event is delivered at once, then its first attempt was claimed by the insert that recorded it, and no claim document is written', async () => {
    const hook = await receiver();
    const { clientId } = await publisher.client({ webhookUrl: hook.url });
    const record = publisher.event({ clientId, applicationId: randomUUID() });
    await publisher.publish(record);
    const delivered = await settled(record.id, clientId);
    const claims = notifier.runtime.db.collection('delivery_claims');
    expect(await claims.countDocuments({ deliveryId: delivered.deliveryId })).toBe(0);
    // The first claim goes with the version it covered.
    const stored = await notifier.runtime.db.collection('deliveries').findOne({ _id: delivered.deliveryId as never });
    expect(stored).toMatchObject({ version: 1, status: 'DELIVERED' });
    expect(stored).not.toHaveProperty('firstClaim');
  });

  it('when claim documents are a day past their expiry, then they are pruned and younger ones stay', async () => {
    const claims = notifier.runtime.db.collection('delivery_claims');
    const [old, young] = [`${randomUUID()}:0:0`, `${randomUUID()}:1:0`];
    await claims.insertOne({
      _id: old as never,
      deliveryId: 'gone',
      owner: 'x',
      expiresAt: new Date(Date.now() - 25 * 3_600_000),
    });
    await claims.insertOne({
      _id: young as never,
      deliveryId: 'kept',
      owner: 'x',
      expiresAt: new Date(Date.now() - 60_000),
    });
    expect(await notifier.service.repo.pruneClaims(new Date(Date.now() - 24 * 3_600_000))).toBeGreaterThanOrEqual(1);
    expect(await claims.findOne({ _id: old as never })).toBeNull();
    expect(await claims.findOne({ _id: young as never })).not.toBeNull();
  });

  it('when the same Kafka message arrives twice, then there is one delivery and one successful POST', async () => {
    const hook = await receiver(() => 200);
    const { clientId } = await publisher.client({ webhookUrl: hook.url });
    const record = publisher.event({ clientId });
    const marker = publisher.event({ clientId, applicationId: record.applicationId, event: 'application.abandoned' });
    await publisher.publish(record, record);
    await publisher.publish(record, marker);

    // The marker follows both copies in the same partition: once it is delivered, they were read.
    const markerDelivery = await settled(marker.id, clientId);
    expect(markerDelivery.status).toBe('DELIVERED');
    const page = await notifier.service.repo.list({ clientId, eventId: record.id, limit: 10 });
    expect(page.items).toHaveLength(1);
    expect(page.items[0]!.status).toBe('DELIVERED');
    expect(hook.forEvent(record.id)).toHaveLength(1);
    expect(hook.forEvent(marker.id)).toHaveLength(1);
    // In order: the event, then the marker.
    expect(hook.forEvent(record.id)[0]!.at).toBeLessThanOrEqual(hook.forEvent(marker.id)[0]!.at);
    // The copy wrote no schedule entry of its own (the replica that stored the delivery had it
    // in hand): one left behind would hold the application's later events back until the first
    // claim ran out (recordEvent.unit.test.ts holds that rule without timing).
    const schedule = notifier.runtime.db.collection('delivery_schedule');
    await waitFor(async () => (await schedule.countDocuments({ applicationId: record.applicationId })) === 0, {
      what: 'no schedule entry left for the application',
    });
  });

  it('when the first attempt delivers an event, then its delivery never goes on the schedule: recorded with its first claim, and updated, two writes', async () => {
    const hook = await receiver(() => 200);
    const { clientId } = await publisher.client({ webhookUrl: hook.url });
    const writes = writeCommands;
    // Settled first: the client's projection and anything earlier are not counted.
    const first = publisher.event({ clientId });
    await publisher.publish(first);
    await settled(first.id, clientId);
    const before = await writes();
    const record = publisher.event({ clientId });
    await publisher.publish(record);
    const delivery = await settled(record.id, clientId);
    expect(delivery.status).toBe('DELIVERED');
    expect(hook.forEvent(record.id)).toHaveLength(1);
    const after = await writes();
    const added = [...after].map(([key, n]) => [key, n - (before.get(key) ?? 0)] as const).filter(([, n]) => n > 0);
    expect(Object.fromEntries(added)).toEqual({
      'insert deliveries': 1,
      'update deliveries': 1,
    });
  });

  it('when many events arrive together, then the writes of their deliveries share bulk commands: fewer than two per delivery, each delivered once', async () => {
    const hook = await receiver(() => 200);
    const { clientId } = await publisher.client({ webhookUrl: hook.url });
    const first = publisher.event({ clientId });
    await publisher.publish(first);
    await settled(first.id, clientId);
    const before = await writeCommands();
    const applications = Array.from({ length: 40 }, () => randomUUID());
    const records = Array.from({ length: 160 }, (_, i) =>
      publisher.event({ clientId, applicationId: applications[i % 40] }),
    );
    await publisher.publish(...records);
    await waitFor(() => records.every((r) => hook.forEvent(r.id).length > 0), {
      what: 'all 160 events POSTed',
      timeoutMs: 60_000,
    });
    for (const record of records) expect(hook.forEvent(record.id)).toHaveLength(1);
    await waitFor(
      async () => {
        const page = await notifier.service.repo.list({ clientId, status: 'PENDING', limit: 1 });
        return page.items.length === 0;
      },
      { what: 'no delivery pending' },
    );
    const after = await writeCommands();
    const added = [...after].reduce((sum, [key, n]) => sum + n - (before.get(key) ?? 0), 0);
    expect(added).toBeLessThan(2 * records.length);
  });

  it('when the client has no webhook URL, then the delivery is SKIPPED with reason no_webhook_url and nothing is sent', async () => {
    const { clientId } = await publisher.client({ webhookUrl: null });
    const record = publisher.event({ clientId });
    await publisher.publish(record);

    const delivery = await settled(record.id, clientId, 'SKIPPED');
    expect(delivery.reason).toBe('no_webhook_url');
    expect(delivery.attempts).toHaveLength(0);
  });

  it('when the first event of an application keeps failing for a while, then its later events wait and all arrive in emission order', async () => {
    const hook = await receiver(() => 200);
    const { clientId } = await publisher.client({ webhookUrl: hook.url });
    const applicationId = randomUUID();
    const first = publisher.event({ clientId, applicationId });
    const second = publisher.event({ clientId, applicationId, event: 'application.abandoned' });
    const third = publisher.event({ clientId, applicationId });
    const otherApplication = publisher.event({ clientId });
    // The first event fails twice, and then until the other application's event has arrived:
    // were that one held back by this application, the first would never go.
    hook.setBehaviour((req, nth) =>
      req.eventId === first.id && (nth <= 2 || hook.forEvent(otherApplication.id).length === 0) ? 503 : 200,
    );
    await publisher.publish(first, second, third);
    await publisher.publish(otherApplication);

    await settled(third.id, clientId);
    const delivered = hook.requests
      .filter((r) => r.status === 200 && r.eventId !== otherApplication.id)
      .map((r) => r.eventId);
    expect(delivered).toEqual([first.id, second.id, third.id]);
    expect(hook.forEvent(first.id).length).toBeGreaterThanOrEqual(3);
    const firstDelivered = hook.forEvent(first.id).at(-1)!.at;
    expect(hook.forEvent(second.id)[0]!.at).toBeGreaterThanOrEqual(firstDelivered);
    // Another application is not held back by this one.
    const other = await settled(otherApplication.id, clientId);
    expect(other.attempts[0]!.at.getTime()).toBeLessThan(firstDelivered);
  });

  it('when the example receiver gets an event twice, then it handles it once, and it answers 401 to a wrong signature', async () => {
    const { clientId, secret } = await publisher.client({ webhookUrl: null });
    const script = path.resolve(__dirname, '../../../../../examples/webhook-receiver/receiver.mjs');
    const child = spawn(process.execPath, [script], { env: { ...process.env, WEBHOOK_SECRET: secret, PORT: '0' } });
    const lines: Record<string, unknown>[] = [];
    child.stdout.on('data', (chunk: Buffer) =>
      chunk
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .forEach((line) => lines.push(JSON.parse(line) as Record<string, unknown>)),
    );
    try {
      const { url } = (await waitFor(() => lines.find((l) => l.outcome === 'listening'), { what: 'the receiver' })) as {
        url: string;
      };
      await publisher.client({ clientId, webhookUrl: `${url}webhooks`, secrets: [{ secret }], version: 2 });
      await waitFor(async () => (await notifier.service.endpoints.get(clientId))?.version === 2, {
        what: 'the new URL',
      });
      const record = publisher.event({ clientId });
      await publisher.publish(record);
      const delivered = await settled(record.id, clientId);
      expect(delivered.attempts.map((a) => a.statusCode)).toEqual([200]);

      // A redelivery is the same event again: the receiver recognises it and still answers 200.
      const redeliver = await fetch(`${notifier.url}/internal/deliveries/${delivered.deliveryId}/redeliver`, {
        method: 'POST',
        headers: { 'x-client-id': clientId, 'x-internal-token': 'local-internal-token-change-me' },
      });
      expect(redeliver.status).toBe(202);
      await waitFor(async () => (await deliveryOf(record.id, clientId))?.attempts.length === 2, {
        what: 'the redelivery',
      });
      expect((await deliveryOf(record.id, clientId))?.attempts.map((a) => a.statusCode)).toEqual([200, 200]);
      expect(lines.filter((l) => l.eventId === record.id).map((l) => l.outcome)).toEqual(['received', 'duplicate']);

      const impostor = await publisher.client({
        webhookUrl: `${url}webhooks`,
        secrets: [{ secret: 'whsec_not_the_one' }],
      });
      const forged = publisher.event({ clientId: impostor.clientId });
      await publisher.publish(forged);
      await waitFor(async () => (await deliveryOf(forged.id, impostor.clientId))?.attempts[0]?.statusCode === 401, {
        what: 'a 401 for the wrong signature',
      });
    } finally {
      child.kill();
    }
  });

  it('when client changes arrive out of order, then the endpoint projection keeps the highest version', async () => {
    const { clientId } = await publisher.client({ webhookUrl: 'https://hooks.lender.ng/v5', version: 5 });
    await waitFor(async () => (await notifier.service.endpoints.get(clientId))?.version === 5, {
      what: 'version 5 projected',
    });
    const stale = await publisher.client({ clientId, webhookUrl: 'https://hooks.lender.ng/v3', version: 3 });
    const { endpoints } = notifier.service;
    expect(await endpoints.apply(stale.change)).toBe(false);
    const newer = await publisher.client({ clientId, webhookUrl: 'https://hooks.lender.ng/v6', version: 6 });
    await waitFor(async () => (await endpoints.get(clientId))?.version === 6, { what: 'version 6 projected' });
    expect(await endpoints.apply(newer.change)).toBe(false);
    expect((await endpoints.get(clientId))?.webhookUrl).toBe('https://hooks.lender.ng/v6');
  });
});
