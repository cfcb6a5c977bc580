import { context, type Context } from '@opentelemetry/api';
import { inBatchSpan } from './tracing';

/**
 * The bulk writes of one process to its database, one after the other: FerretDB on SQLite can
 * wedge a database for good when two multi-statement writes of it overlap with other writes.
 * A service has one lane (its runtime's `bulkLane`), shared by everything of it that writes many
 * documents in one command: the outbox relays' clears, the notifier's coalesced writes.
 */
export function createBulkLane() {
  let tail: Promise<unknown> = Promise.resolve();

  /** Runs `write` once every bulk write queued before it has ended (whatever its outcome). */
  function run<T>(write: () => Promise<T>): Promise<T> {
    const result = tail.then(write);
    tail = result.catch(() => undefined);
    return result;
  }

  /**
   * Sends writes of one kind that arrive together as one bulk command. A write that finds none
   * under way goes at once, alone; those that arrive while one is under way wait for it and
   * then go together (up to `maxBatch`), and so on. Alone, a write waits for nothing; under
   * load the batches grow with the database's latency, and the number of commands falls with
   * them. A batch of more than one goes through the lane (`run`); a single write does not wait
   * for it.
   *
   * `write` answers, item by item in order, the item's result or the Error that refused it (a
   * write of one item can fail while the others succeed); if it throws, every item of the
   * batch fails with that error. Each caller goes on once its own item is written, exactly as
   * with a command of its own: a batch is only a way of sending independent single-document
   * writes. A write sent alone is in the trace of its caller; a batch, written for several
   * callers at once, is in a span of its own (`name`) linked to each caller's (`inBatchSpan`).
   */
  function coalesce<T, R>(
    write: (items: T[]) => Promise<(R | Error)[]>,
    { maxBatch = 200, name = 'coalesced write' }: { maxBatch?: number; name?: string } = {},
  ): (item: T) => Promise<R> {
    type Waiting = { item: T; resolve: (result: R) => void; reject: (error: unknown) => void; ctx: Context };
    const queue: Waiting[] = [];
    let running = false;

    async function drain() {
      running = true;
      try {
        while (queue.length > 0) {
          const batch = queue.splice(0, maxBatch);
          const items = batch.map((w) => w.item);
          try {
            const results = await inBatchSpan(
              name,
              batch.map((w) => w.ctx),
              { 'loan.batch_size': batch.length },
              () => (batch.length > 1 ? run(() => write(items)) : write(items)),
            );
            batch.forEach((w, i) => {
              const result = results[i];
              if (result instanceof Error) w.reject(result);
              else w.resolve(result as R);
            });
          } catch (error) {
            for (const w of batch) w.reject(error);
          }
        }
      } finally {
        running = false;
      }
    }

    return (item: T) =>
      new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject, ctx: context.active() });
        if (!running) void drain();
      });
  }

  return { run, coalesce };
}
export type BulkLane = ReturnType<typeof createBulkLane>;
