/**
 * Runs async work one at a time per key, in the order asked, within this process.
 *
 * Why: a change of a document is a load, a decision and a write conditioned on the revision
 * read. MongoDB applies such a conditional write atomically, but the MongoDB-wire database of
 * the local stack (FerretDB on SQLite) does not: two concurrent writes on the same revision can
 * both succeed, the later silently undoing the earlier. Serialising the changes of one document
 * inside the process keeps them correct there too; across replicas the revision check does the
 * job on MongoDB.
 */
export function createKeyedLock() {
  const tails = new Map<string, Promise<void>>();
  return function withLock<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve();
    const run = previous.then(work);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}
export type KeyedLock = ReturnType<typeof createKeyedLock>;
