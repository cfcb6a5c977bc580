import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { waitFor } from '@testing/helpers';
import {
  createPublisher,
  startNotifier,
  startReceiver,
  stopAndDrop,
  suiteSettings,
  type Publisher,
  type StartedNotifier,
} from '../../__tests__/harness';
import { reservedSlots } from '../../domain/orderDeliveries/fairShare';

const CONCURRENCY = 8;

/** A receiver that takes every request and never answers it, as a hung lender's server does. */
async function hangingReceiver() {
  const received: string[] = [];
  const server = http.createServer((req) => {
    received.push(String(req.headers['x-event-id'] ?? ''));
    req.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    received,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('delivery slots shared between lenders', () => {
  let notifier: StartedNotifier;
  let publisher: Publisher;

  beforeAll(async () => {
    // Attempts of the hung receiver last far longer than the test: any slot it takes stays taken.
    notifier = await startNotifier(
      suiteSettings({ DELIVERY_CONCURRENCY: String(CONCURRENCY), WEBHOOK_TIMEOUT: '120s', DELIVERY_LEASE: '180s' }),
    );
    publisher = await createPublisher(notifier.config);
  });

  afterAll(async () => {
    await publisher?.close();
    await stopAndDrop([notifier]);
  });

  it("when one lender's receiver never answers and it has more events than slots, then another lender's webhooks are still delivered while every hung attempt is still open", async () => {
    const hung = await hangingReceiver();
    const healthy = await startReceiver(() => 200);
    try {
      const stuck = await publisher.client({ webhookUrl: hung.url });
      const other = await publisher.client({ webhookUrl: healthy.url });
      const flood = Array.from({ length: 3 * CONCURRENCY }, () =>
        publisher.event({ clientId: stuck.clientId, applicationId: randomUUID() }),
      );
      await publisher.publish(...flood);
      // The hung lender takes every slot it may; each of its attempts stays open.
      const mayHold = CONCURRENCY - reservedSlots(CONCURRENCY);
      await waitFor(() => hung.received.length >= mayHold, { what: `${mayHold} hung attempts`, timeoutMs: 30_000 });

      const events = Array.from({ length: 3 }, () => publisher.event({ clientId: other.clientId }));
      await publisher.publish(...events);
      await waitFor(() => events.every((e) => healthy.forEvent(e.id).some((r) => r.status === 200)), {
        what: "the other lender's webhooks",
        timeoutMs: 30_000,
      });

      // None of the hung attempts has ended (their timeout is two minutes): the other lender's
      // webhooks went through slots the hung lender could not take.
      expect(hung.received.length).toBe(mayHold);
      const pending = await notifier.service.repo.list({ clientId: stuck.clientId, status: 'PENDING', limit: 100 });
      expect(pending.items).toHaveLength(flood.length);
      expect(pending.items.every((d) => d.attempts.length === 0)).toBe(true);
    } finally {
      await hung.close();
      await healthy.close();
    }
  });
});
