import type { ScheduleEntry } from '../../domain/delivery';

/**
 * This replica's picture of the schedule. A full read of the schedule replaces it now and then
 * (it brings what other replicas recorded or settled); in between, what this replica records,
 * settles and requeues is applied to it directly, so that work found here needs no read at all.
 * A stale picture costs a wasted claim, never a double send: claims are checked against the
 * delivery itself.
 */
export function createScheduleView() {
  let entries = new Map<string, ScheduleEntry>();
  /** Entries another replica holds (a claim here failed): they block their successors, are not offered. */
  let elsewhere = new Set<string>();
  /** Changes made here while a full read was under way, re-applied on top of what it returns. */
  let duringRead: Map<string, ScheduleEntry | null> | null = null;

  function change(deliveryId: string, entry: ScheduleEntry | null) {
    if (entry) entries.set(deliveryId, entry);
    else entries.delete(deliveryId);
    elsewhere.delete(deliveryId);
    duringRead?.set(deliveryId, entry);
  }

  return {
    put: (entry: ScheduleEntry) => change(entry.deliveryId, entry),
    remove: (deliveryId: string) => change(deliveryId, null),
    heldElsewhere: (deliveryId: string) => void elsewhere.add(deliveryId),
    isHeldElsewhere: (deliveryId: string) => elsewhere.has(deliveryId),
    entries: () => entries.values(),
    size: () => entries.size,
    /** Starts a full read; `finish` with what it returned. */
    beginRead() {
      duringRead = new Map();
      return {
        finish(read: ScheduleEntry[]) {
          const next = new Map(read.map((e) => [e.deliveryId, e]));
          for (const [id, entry] of duringRead ?? []) {
            if (entry) next.set(id, entry);
            else next.delete(id);
          }
          entries = next;
          elsewhere = new Set();
          duringRead = null;
        },
        abandon() {
          duringRead = null;
        },
      };
    },
  };
}
export type ScheduleView = ReturnType<typeof createScheduleView>;
