import type { ScheduleEntry } from '../delivery';

/** Deliveries that must go out in order: one application's events, as its partition holds them. */
const orderKey = (e: ScheduleEntry) => `${e.clientId}\u0000${e.applicationId}\u0000${e.partition}`;

/**
 * The pending deliveries to attempt now. Only the earliest pending event of an application may
 * go: a later one waits while an earlier one is pending (being retried, or under way), and goes
 * once that one is DELIVERED, FAILED or SKIPPED (it then leaves the schedule). Due heads come
 * back most overdue first; `busy` names deliveries already under way here, which still hold
 * back their successors but are not offered again.
 */
export function dueHeads(entries: ScheduleEntry[], now: Date, busy: ReadonlySet<string> = new Set()): ScheduleEntry[] {
  const heads = new Map<string, ScheduleEntry>();
  for (const entry of entries) {
    const key = orderKey(entry);
    const head = heads.get(key);
    if (!head || entry.seq < head.seq || (entry.seq === head.seq && entry.deliveryId < head.deliveryId))
      heads.set(key, entry);
  }
  return [...heads.values()]
    .filter((e) => e.nextAttemptAt.getTime() <= now.getTime() && !busy.has(e.deliveryId))
    .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || a.seq - b.seq);
}
