import { randomUUID } from 'node:crypto';
import type { PublicEventRecord } from '@loan/contracts';
import { withTraceContext, type Clock, type InboundMessage } from '@loan/runtime';
import type { DeliveryRepository } from '../../data-access/deliveryRepository';
import {
  firstClaimOf,
  scheduleEntryOf,
  type Delivery,
  type DeliveryPolicy,
  type ScheduleEntry,
} from '../../domain/delivery';
import { newDelivery } from '../../domain/recordEvent/newDelivery';

/**
 * `loan.events.v1` → a delivery for the event's client. Recording is idempotent: the delivery
 * is unique per (event, client), so a redelivered message neither adds a delivery nor causes a
 * second POST.
 *
 * The insert of a new delivery also claims its first attempt for this replica (no claim
 * document is written for it). It is handed to this replica's dispatcher for that attempt
 * without going on the schedule: most first attempts settle their delivery, which then costs no schedule entry
 * to write and delete. It is put on the schedule when that attempt does not settle it, or when
 * it cannot be attempted at once. Until then the event's offset is not committed, so a crash
 * hands the event over again, and whoever handles it finds the delivery pending and schedules
 * it. A delivery found pending on a redelivered message goes on the schedule directly, unless
 * this replica's own insert stored it: then its dispatcher already has it in hand.
 */
export function createRecordEventHandler(deps: {
  repo: DeliveryRepository;
  clock: Clock;
  policy: DeliveryPolicy;
  /** This replica, holder of the first claim of what it records, for `leaseMs`. */
  owner: string;
  leaseMs: number;
  /**
   * Tells the dispatcher of this replica about a delivery now on the schedule (and the delivery
   * as stored, and whether this handler's insert stored it).
   */
  onRecorded: (entry: ScheduleEntry, delivery: Delivery, inserted: boolean) => void;
  /**
   * Hands a new delivery, not on the schedule, to this replica's dispatcher; resolves once it
   * has settled or is on the schedule.
   */
  attemptFirst: (entry: ScheduleEntry, delivery: Delivery) => Promise<void>;
}) {
  return async function onEvent(message: InboundMessage): Promise<void> {
    const record = message.value as PublicEventRecord;
    const now = deps.clock.now();
    const trace = withTraceContext();
    const delivery: Delivery = {
      ...newDelivery(record, {
        deliveryId: randomUUID(),
        partition: message.partition,
        offset: message.offset,
        now,
        policy: deps.policy,
        firstClaim: { owner: deps.owner, expiresAt: new Date(now.getTime() + deps.leaseMs) },
      }),
      // This handler's span (the event's consumer span): each attempt's span is its child.
      ...(trace ? { trace } : {}),
    };
    const stored = await deps.repo.insert(delivery);
    if (stored.created && message.commitAfter) {
      message.commitAfter(deps.attemptFirst(scheduleEntryOf(delivery), delivery));
      return;
    }
    if (stored.delivery.status !== 'PENDING') return;
    // The same event again, whose delivery this replica's insert stored and still holds by its
    // first claim: its dispatcher has it (waiting off the schedule, under way, or put on the
    // schedule by the dispatcher itself), and the first copy's offset, held until it settles or
    // is scheduled, holds this one's too. An entry written now could land after that attempt
    // removed the delivery's entry, and would hold the application's later events back until
    // the first claim ran out (`DELIVERY_LEASE`).
    if (firstClaimOf(stored.delivery)?.owner === deps.owner) return;
    const entry = scheduleEntryOf(stored.delivery);
    await deps.repo.addEntry(entry);
    deps.onRecorded(entry, stored.delivery, stored.created);
  };
}
