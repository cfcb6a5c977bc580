import { randomUUID } from 'node:crypto';
import type { PublicEventRecord } from '@loan/contracts';
import type { Clock, InboundMessage } from '@loan/runtime';
import type { DeliveryRepository } from '../../data-access/deliveryRepository';
import { scheduleEntryOf, type Delivery, type DeliveryPolicy, type ScheduleEntry } from '../../domain/delivery';
import { newDelivery } from '../../domain/recordEvent/newDelivery';

/**
 * `loan.events.v1` → a delivery for the event's client. Recording is idempotent: the delivery
 * is unique per (event, client), so a redelivered message neither adds a delivery nor causes a
 * second POST. The delivery and its schedule entry are written at once (one round trip instead
 * of two in a row); a crash with only one of them written is mended when Kafka hands the
 * uncommitted message over again, and a dispatcher that finds the entry before the delivery
 * leaves it alone for a lease. A redelivered message's fresh entry names a delivery that was
 * not written (the stored one has its own id): it is removed again.
 */
export function recordEventHandler(deps: {
  repo: DeliveryRepository;
  clock: Clock;
  policy: DeliveryPolicy;
  /** Tells the dispatcher of this replica about a delivery now on the schedule (and the delivery as stored). */
  onRecorded: (entry: ScheduleEntry, delivery: Delivery) => void;
}) {
  return async function onEvent(message: InboundMessage): Promise<void> {
    const record = message.value as PublicEventRecord;
    const delivery = newDelivery(record, {
      deliveryId: randomUUID(),
      partition: message.partition,
      offset: message.offset,
      now: deps.clock.now(),
      policy: deps.policy,
    });
    const [stored, added] = await Promise.all([
      deps.repo.insert(delivery),
      deps.repo.addEntry(scheduleEntryOf(delivery)),
    ]);
    if (stored.created) {
      deps.onRecorded(scheduleEntryOf(delivery), delivery);
      return;
    }
    if (added) await deps.repo.removeEntry(delivery.deliveryId);
    if (stored.delivery.status !== 'PENDING') return;
    const entry = scheduleEntryOf(stored.delivery);
    await deps.repo.addEntry(entry);
    deps.onRecorded(entry, stored.delivery);
  };
}
