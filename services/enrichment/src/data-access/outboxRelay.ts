import type { Model } from 'mongoose';
import type { KafkaBus, Logger, OutboxEntry } from '@loan/runtime';
import { createKeyedLock, type KeyedLock } from '../keyedLock';

interface RawOutboxDocument {
  _id: string;
  outbox?: (OutboxEntry & Record<string, unknown>)[];
}

/**
 * Publishes the outboxes of one collection, like the shared runtime's relay (published entries
 * are removed with `$pullAll` of the entries exactly as stored, which FerretDB also honours),
 * with one difference: the work on a document runs under `lock`, the same lock the service's
 * own writes of that document take. On FerretDB two updates of one document are not atomic
 * with each other, so a removal racing a state change could undo it (see keyedLock.ts); the
 * lock also keeps a flush and a sweep from sending the same entries twice.
 */
export function createOutboxRelay(options: {
  bus: Pick<KafkaBus, 'publish'>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  model: Model<any>;
  logger: Logger;
  sweepEveryMs?: number;
  /** Shared with whoever else writes the documents. */
  lock?: KeyedLock;
}) {
  const collection = options.model.collection;
  const logger = options.logger.child({ component: 'outbox', collection: collection.collectionName });
  const locked = options.lock ?? createKeyedLock();
  let timer: NodeJS.Timeout | null = null;
  let sweeping = false;

  /** Publishes what the document holds in its outbox now, in order, and removes it. */
  function flush(docId: string): Promise<void> {
    return locked(docId, async () => {
      const doc = await collection.findOne<RawOutboxDocument>({ _id: docId as never }, { projection: { outbox: 1 } });
      const entries = doc?.outbox ?? [];
      if (entries.length === 0) return;
      for (const entry of entries) {
        await options.bus.publish(entry.topic, [
          { key: entry.key, value: entry.value, headers: entry.headers ?? undefined },
        ]);
      }
      await collection.updateOne({ _id: docId as never }, { $pullAll: { outbox: entries } } as never);
      await collection.updateOne({ _id: docId as never, outbox: { $size: 0 } } as never, {
        $set: { outboxPending: false },
      });
    });
  }

  /** Publishes whatever a crashed process (or a failed publish) left behind. */
  async function sweep(): Promise<number> {
    if (sweeping) return 0;
    sweeping = true;
    try {
      const docs = await collection
        .find<{ _id: string }>({ outboxPending: true }, { projection: { _id: 1 } })
        .limit(500)
        .toArray();
      for (const doc of docs) await flush(doc._id);
      return docs.length;
    } finally {
      sweeping = false;
    }
  }

  return {
    flush,
    sweep,
    start() {
      timer = setInterval(() => {
        sweep().catch((error) => logger.warn({ err: error }, 'outbox sweep failed'));
      }, options.sweepEveryMs ?? 2_000);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
export type OutboxRelay = ReturnType<typeof createOutboxRelay>;
