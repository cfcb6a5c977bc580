import { randomUUID } from 'node:crypto';
import type { PublicEventRecord } from '@loan/contracts';
import { systemClock, type InboundMessage } from '@loan/runtime';
import type { DeliveryRepository } from '../../data-access/deliveryRepository';
import type { Delivery, ScheduleEntry } from '../../domain/delivery';
import { newDelivery } from '../../domain/recordEvent/newDelivery';
import { createRecordEventHandler } from './recordEvent';

/**
 * What the handler of `loan.events.v1` writes when the same event comes again, with the
 * database replaced by a stored delivery the test chooses.
 */
function setUp(stored: Delivery) {
  const entries: ScheduleEntry[] = [];
  const recorded: string[] = [];
  const repo = {
    insert: async () => ({ created: false, delivery: stored }),
    addEntry: async (entry: ScheduleEntry) => {
      entries.push(entry);
      return true;
    },
  } as unknown as DeliveryRepository;
  const handle = createRecordEventHandler({
    repo,
    clock: systemClock,
    policy: { retryBaseMs: 1_000, maxRetries: 5, allowPrivate: true },
    owner: 'replica-a',
    leaseMs: 30_000,
    onRecorded: (entry) => recorded.push(entry.deliveryId),
    attemptFirst: async () => undefined,
  });
  return { handle, entries, recorded };
}

const record: PublicEventRecord = {
  id: randomUUID(),
  event: 'application.abandoned',
  clientId: 'client-1',
  applicationId: randomUUID(),
  timestamp: new Date().toISOString(),
  data: {},
} as unknown as PublicEventRecord;

function storedBy(owner: string): Delivery {
  const now = new Date();
  return newDelivery(record, {
    deliveryId: randomUUID(),
    partition: 0,
    offset: '7',
    now,
    policy: { maxRetries: 5 },
    firstClaim: { owner, expiresAt: new Date(now.getTime() + 30_000) },
  });
}

const copy = (): InboundMessage =>
  ({
    topic: 'loan.events.v1',
    partition: 0,
    offset: '8',
    key: record.applicationId,
    value: record,
    headers: {},
    timestamp: '0',
    commitAfter: () => undefined,
  }) as InboundMessage;

describe('recording an event that comes again', () => {
  it('when this replica stored the delivery and still holds its first claim, then no schedule entry is written for the copy', async () => {
    // Its dispatcher has the delivery in hand (off the schedule, under way, or put on the
    // schedule by the dispatcher): an entry written now could outlive that attempt and hold the
    // application's later events back until the first claim ran out.
    const { handle, entries, recorded } = setUp(storedBy('replica-a'));
    await handle(copy());
    expect(entries).toEqual([]);
    expect(recorded).toEqual([]);
  });

  it('when another replica stored the delivery, then the copy puts it on the schedule, held by that replica', async () => {
    const stored = storedBy('replica-b');
    const { handle, entries, recorded } = setUp(stored);
    await handle(copy());
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ deliveryId: stored.deliveryId, heldBy: 'replica-b' });
    expect(recorded).toEqual([stored.deliveryId]);
  });

  it('when the delivery has settled, then the copy writes nothing', async () => {
    const stored = { ...storedBy('replica-b'), status: 'DELIVERED' as const, version: 1 };
    const { handle, entries } = setUp(stored);
    await handle(copy());
    expect(entries).toEqual([]);
  });
});
