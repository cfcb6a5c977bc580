/**
 * Sends writes of one kind that arrive together as one bulk command. A write that finds none
 * under way goes at once, alone; those that arrive while one is under way wait for it and then
 * go together (up to `maxBatch`), and so on. Alone, a write waits for nothing; under load the
 * batches grow with the database's latency, and the number of commands falls with them.
 *
 * `write` answers, item by item in order, the item's result or the Error that refused it (a
 * write of one item can fail while the others succeed); if it throws, every item of the batch
 * fails with that error. Each caller goes on once its own item is written, exactly as with a
 * command of its own: a batch is only a way of sending independent single-document writes.
 */
export function coalesce<T, R>(write: (items: T[]) => Promise<(R | Error)[]>, maxBatch = 200): (item: T) => Promise<R> {
  type Waiting = { item: T; resolve: (result: R) => void; reject: (error: unknown) => void };
  const queue: Waiting[] = [];
  let running = false;

  async function drain() {
    running = true;
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, maxBatch);
        try {
          const results = await write(batch.map((w) => w.item));
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
      queue.push({ item, resolve, reject });
      if (!running) void drain();
    });
}

/** The failures a bulk write reported, by the index of the item each refused. */
export function writeErrorsByIndex(error: unknown): Map<number, { code?: number; errmsg?: string }> | null {
  const errors = (error as { writeErrors?: unknown } | null)?.writeErrors;
  if (errors === undefined || errors === null) return null;
  const list = (Array.isArray(errors) ? errors : [errors]) as { index: number; code?: number; errmsg?: string }[];
  return new Map(list.map((e) => [e.index, e]));
}
