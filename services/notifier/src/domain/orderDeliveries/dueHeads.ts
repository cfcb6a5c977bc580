import type { ScheduleEntry } from '../delivery';

/** Deliveries that must go out in order: one application's events, as its partition holds them. */
const orderKey = (e: ScheduleEntry) => `${e.clientId}\u0000${e.applicationId}\u0000${e.partition}`;

/** The deliveries under way on the replica asking (only asked whether it holds one). */
export type UnderWay = Pick<ReadonlySet<string>, 'has'>;

/** Whether the replica asking holds an entry's first claim itself and will use it. */
export type OwnHold = (entry: ScheduleEntry) => boolean;

/**
 * When a replica may attempt an entry: at its due time, or, while the first claim of its
 * version is held (by another replica, or by this one without the means to use it), once that
 * hold ends.
 */
export function availableAt(entry: ScheduleEntry, ownHold: OwnHold = () => false): number {
  const due = entry.nextAttemptAt.getTime();
  if (!entry.heldUntil || ownHold(entry)) return due;
  return Math.max(due, entry.heldUntil.getTime());
}

/** The first pending delivery of each application (the only one that may be attempted). */
function headsOf(entries: Iterable<ScheduleEntry>): ScheduleEntry[] {
  const heads = new Map<string, ScheduleEntry>();
  for (const entry of entries) {
    const key = orderKey(entry);
    const head = heads.get(key);
    if (!head || entry.seq < head.seq || (entry.seq === head.seq && entry.deliveryId < head.deliveryId))
      heads.set(key, entry);
  }
  return [...heads.values()];
}

/**
 * The pending deliveries to attempt now. Only the earliest pending event of an application may
 * go: a later one waits while an earlier one is pending (being retried, or under way), and goes
 * once that one is DELIVERED, FAILED or SKIPPED (it then leaves the schedule). Due heads come
 * back most overdue first; `busy` names deliveries already under way here, which still hold
 * back their successors but are not offered again. A head whose first claim is held is not due
 * before that hold ends, unless this replica holds it itself (`availableAt`).
 */
export function dueHeads(
  entries: Iterable<ScheduleEntry>,
  now: Date,
  busy: UnderWay = new Set(),
  ownHold?: OwnHold,
): ScheduleEntry[] {
  return headsOf(entries)
    .filter((e) => availableAt(e, ownHold) <= now.getTime() && !busy.has(e.deliveryId))
    .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || a.seq - b.seq);
}

/**
 * When the next head not under way falls due (ms since the epoch), or null when none will:
 * what the dispatcher sleeps until. Entries waiting behind an earlier event of their
 * application do not count (that one settling wakes the dispatcher).
 */
export function nextHeadDueAt(
  entries: Iterable<ScheduleEntry>,
  busy: UnderWay,
  ownHold?: OwnHold,
  skip: (deliveryId: string) => boolean = () => false,
): number | null {
  let earliest: number | null = null;
  for (const head of headsOf(entries)) {
    if (busy.has(head.deliveryId) || skip(head.deliveryId)) continue;
    const at = availableAt(head, ownHold);
    if (earliest === null || at < earliest) earliest = at;
  }
  return earliest;
}
