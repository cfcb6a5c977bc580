import { randomUUID } from 'node:crypto';
import type { PublicEventRecord } from '@loan/contracts';
import type { Clock, InboundMessage } from '@loan/runtime';
import type { DeliveryRepository } from '../../data-access/deliveryRepository';
import { scheduleEntryOf, type Delivery, type DeliveryPolicy, type ScheduleEntry } from '../../domain/delivery';
import { newDelivery } from '../../domain/recordEvent/newDelivery';

/**
 * `loan.events.v1` → a delivery for the event's client. Recording is idempotent: the delivery
 * is unique per (event, client), so a redelivered message neither adds a delivery nor causes a
 * second POST.
 *
 * A new delivery is handed to this replica's dispatcher for a first attempt without going on
 * the schedule: most first attempts settle their delivery, which then costs no schedule entry
 * to write and delete. It is put on the schedule when that attempt does not settle it, or when
 * it cannot be attempted at once. Until then the event's offset is not committed, so a crash
 * hands the event over again, and whoever handles it finds the delivery pending and schedules
 * it. A delivery found pending on a redelivered message goes on the schedule directly.
 */
export function recordEventHandler(deps: {
  repo: DeliveryRepository;
  clock: Clock;
  policy: DeliveryPolicy;
  /** Tells the dispatcher of this replica about a delivery now on the schedule (and the delivery as stored). */
  onRecorded: (entry: ScheduleEntry, delivery: Delivery) => void;
  /**
   * Hands a new delivery, not on the schedule, to this replica's dispatcher; resolves once it
   * has settled or is on the schedule.
   */
  attemptFirst: (entry: ScheduleEntry, delivery: Delivery) => Promise<void>;
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
    const stored = await deps.repo.insert(delivery);
    if (stored.created && message.commitAfter) {
      message.commitAfter(deps.attemptFirst(scheduleEntryOf(delivery), delivery));
      return;
    }
    if (stored.delivery.status !== 'PENDING') return;
    const entry = scheduleEntryOf(stored.delivery);
    await deps.repo.addEntry(entry);
    deps.onRecorded(entry, stored.delivery);
  };
}
