import type { ScheduleEntry } from '../delivery';

/**
 * Slots a replica keeps for lenders other than those already using the rest: one lender whose
 * receiver never answers holds its slots until each attempt's timeout, and must not hold them
 * all.
 */
export const reservedSlots = (concurrency: number) => (concurrency < 2 ? 0 : Math.max(1, Math.floor(concurrency / 8)));

/**
 * Which due heads to attempt now, from `due` (most overdue first) and the lenders' attempts
 * under way (`busy`, a count per client id). Free slots go round the lenders that have work,
 * most overdue first within each. A lender takes a slot while it holds fewer than its fair share
 * (the slots but the reserved ones, divided among the lenders with work under way or due), and
 * beyond that only while more than `reservedSlots` stay free, so a lender that arrives while another fills every slot
 * it may finds one waiting, and the slots a lender frees go to those under their share first.
 */
export function fairPick(
  due: readonly ScheduleEntry[],
  busy: ReadonlyMap<string, number>,
  concurrency: number,
): ScheduleEntry[] {
  const held = new Map(busy);
  let free = concurrency - [...held.values()].reduce((sum, n) => sum + n, 0);
  if (free <= 0 || due.length === 0) return [];
  const queues = new Map<string, ScheduleEntry[]>();
  for (const entry of due) {
    const queue = queues.get(entry.clientId);
    if (queue) queue.push(entry);
    else queues.set(entry.clientId, [entry]);
  }
  const lenders = new Set([...queues.keys(), ...[...held].filter(([, n]) => n > 0).map(([id]) => id)]);
  const reserve = reservedSlots(concurrency);
  const share = Math.max(1, Math.floor((concurrency - reserve) / lenders.size));
  const picked: ScheduleEntry[] = [];
  let progressed = true;
  while (free > 0 && progressed) {
    progressed = false;
    // Under their share first, in the order their most overdue head came, then the rest.
    for (const underShare of [true, false]) {
      for (const [clientId, queue] of queues) {
        if (free <= 0 || queue.length === 0) continue;
        const holding = held.get(clientId) ?? 0;
        if (holding < share !== underShare) continue;
        if (!underShare && free <= reserve) continue;
        picked.push(queue.shift()!);
        held.set(clientId, holding + 1);
        free--;
        progressed = true;
      }
    }
  }
  return picked;
}
