/**
 * kafkajs 2.2 keeps a timer running on every broker connection once it has answered a request:
 * after each response it checks its queue of requests waiting for a free slot and schedules the
 * next check even when that queue is empty, with a negative delay, so the check runs again
 * about every millisecond for as long as the connection lives (kafkajs issues #1556 and #1704).
 * Five or six connections per process made each idle service spend 3-4% of a core on it, and
 * under load those wake-ups compete with the work.
 *
 * The fix below changes one method of the queue: with nothing waiting there is nothing to
 * check. A request that has to wait is queued by `push`, which schedules the check itself,
 * and every response or timeout checks the queue again, so no waiting request is left behind.
 * While a request waits, the original behaviour (a check every 10 ms, or when client-side
 * throttling ends) is kept as it was.
 */

interface RequestQueue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs's interval between checks while a request waits (`CHECK_PENDING_REQUESTS_INTERVAL`). */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

let applied: boolean | null = null;

/** The class kafkajs builds its connections' queues from, or null when it is not where 2.x keeps it. */
export function kafkajsRequestQueueClass(): { prototype: RequestQueue } | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const version = (require('kafkajs/package.json') as { version: string }).version;
    if (!version.startsWith('2.')) return null;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const queue = require('kafkajs/src/network/requestQueue') as { prototype: RequestQueue };
    return typeof queue?.prototype?.scheduleCheckPendingRequests === 'function' ? queue : null;
  } catch {
    return null;
  }
}

/**
 * Replaces the queue's scheduling of checks (once per process); true when kafkajs is the
 * version this applies to.
 */
export function fixKafkajsIdleTimers(): boolean {
  if (applied !== null) return applied;
  const queue = kafkajsRequestQueueClass();
  applied = queue !== null;
  if (!queue) return applied;
  queue.prototype.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(this: RequestQueue) {
    if (this.pending.length === 0 || this.throttleCheckTimeoutId) return;
    const throttledFor = this.throttledUntil - Date.now();
    this.throttleCheckTimeoutId = setTimeout(
      () => {
        this.throttleCheckTimeoutId = null;
        this.checkPendingRequests();
      },
      throttledFor > 0 ? throttledFor : CHECK_PENDING_REQUESTS_INTERVAL_MS,
    );
  };
  return applied;
}
