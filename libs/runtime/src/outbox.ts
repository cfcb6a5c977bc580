import { randomUUID } from 'node:crypto';
import { Topics, buildEvent, type EventName } from '@loan/contracts';
import { Schema, type Model } from 'mongoose';
import type { KafkaBus } from './kafka';
import { createKeyedLock, type KeyedLock } from './keyedLock';
import type { Logger } from './logger';

/**
 * A message waiting to be published, stored inside the document whose change caused it, in
 * the same single-document write: the state change and the intent to publish are atomic, so a
 * crash between the database write and the publish loses nothing.
 */
export interface OutboxEntry {
  id: string;
  topic: string;
  key: string;
  value: unknown;
  headers?: Record<string, string>;
}

/** Fields to add to a schema that carries an outbox. */
export const outboxFields = {
  outbox: {
    type: [new Schema({ id: String, topic: String, key: String, value: Schema.Types.Mixed, headers: Schema.Types.Mixed }, { _id: false })],
    default: [],
  },
  outboxPending: { type: Boolean, default: false, index: true },
};

export interface OutboxDocument {
  _id: unknown;
  outbox: OutboxEntry[];
  outboxPending: boolean;
}

/**
 * Publishes the outboxes of one collection: right after each write (`flush`); again a few
 * seconds later for a document whose flush failed (broker unreachable, say); and by a sweep of
 * the whole collection at start and then every `sweepEveryMs`, for what a crashed process (this
 * one before a restart, or another replica) left behind. Entries are published in order and
 * removed only once the broker acknowledged them; a duplicate after a crash carries the same
 * event id, which consumers deduplicate.
 *
 * The sweep is a query on `outboxPending`, which FerretDB answers by reading every document of
 * the collection: it runs rarely, and the retries of failed flushes are lookups by id.
 */
export function createOutboxRelay(options: {
  bus: Pick<KafkaBus, 'publishAll'>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  model: Model<any>;
  logger: Logger;
  /** Interval of the sweep of the whole collection (60 s by default). */
  sweepEveryMs?: number;
  /** Interval of the retries of flushes that failed (2 s by default). */
  retryEveryMs?: number;
  /**
   * The lock the owning service takes around its own writes of a document: publishing and
   * removing entries then never interleaves with a state change of the same document.
   */
  lock?: KeyedLock;
}) {
  const { bus, model } = options;
  const logger = options.logger.child({ component: 'outbox', collection: model.collection.name });
  const timers: NodeJS.Timeout[] = [];
  let sweeping = false;
  /** Documents whose last flush failed, retried by id. */
  const failed = new Map<string, unknown>();
  const clear = createClearBatcher(model);

  async function publishEntries(docId: unknown, entries: OutboxEntry[]) {
    if (entries.length === 0) return;
    // All of them in one request; the producer groups them by topic, each topic's in order.
    await bus.publishAll(
      entries.map((entry) => ({
        topic: entry.topic,
        messages: [{ key: entry.key, value: entry.value, headers: entry.headers }],
      })),
    );
    if (await clear(docId, entries)) return;
    // Entries were added meanwhile (another replica), or a clear of the same batch missed:
    // remove the published ones only, by `$pullAll` of the entries exactly as stored (FerretDB
    // ignores `$pull` with a condition).
    const ids = new Set(entries.map((entry) => entry.id));
    const doc = await model.collection.findOne<OutboxDocument>({ _id: docId } as never, {
      projection: { outbox: 1, outboxPending: 1 },
    });
    const stored = doc?.outbox ?? [];
    if (!doc || (stored.length === 0 && !doc.outboxPending)) return;
    const published = stored.filter((entry) => ids.has(entry.id));
    if (published.length > 0) {
      await model.collection.updateOne({ _id: docId } as never, { $pullAll: { outbox: published } } as never);
    }
    await model.collection.updateOne({ _id: docId, outbox: { $size: 0 } } as never, { $set: { outboxPending: false } });
  }

  const locked = options.lock ?? createKeyedLock();

  /**
   * Publishes what the given document holds in its outbox. When that fails the document is
   * retried shortly, and the error is passed on: the write it follows is durable either way.
   *
   * `written` saves reading the document back: the entries the caller's write put into an
   * outbox that was empty before it (the caller read `outboxPending: false` and its write was
   * conditional on nothing having changed since, or it created the document). Entries an
   * earlier flush of this process failed to publish still come first: then the outbox is read.
   */
  function flush(docId: unknown, written?: readonly OutboxEntry[]): Promise<void> {
    const key = String(docId);
    return locked(key, async () => {
      try {
        if (written && !failed.has(key)) {
          await publishEntries(docId, [...written]);
        } else {
          const doc = await model.collection.findOne<OutboxDocument>({ _id: docId } as never, { projection: { outbox: 1 } });
          if (doc) await publishEntries(doc._id, doc.outbox ?? []);
        }
        failed.delete(key);
      } catch (error) {
        failed.set(key, docId);
        throw error;
      }
    });
  }

  async function retryFailed(): Promise<void> {
    for (const docId of [...failed.values()]) {
      await flush(docId).catch((error: unknown) => logger.warn({ err: error }, 'outbox flush retry failed'));
    }
  }

  async function sweep(): Promise<number> {
    if (sweeping) return 0;
    sweeping = true;
    try {
      const docs = await model.collection
        .find<OutboxDocument>({ outboxPending: true }, { projection: { _id: 1 }, limit: 500 })
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
    /**
     * Starts the retries of failed flushes and, unless `sweep` is false (an owner that takes
     * over other processes' leftovers its own way), the sweeps.
     */
    start(settings: { sweep?: boolean } = {}) {
      if (settings.sweep !== false) {
        const sweepLogged = () => sweep().catch((error) => logger.warn({ err: error }, 'outbox sweep failed'));
        void sweepLogged();
        timers.push(setInterval(sweepLogged, options.sweepEveryMs ?? 60_000));
      }
      timers.push(setInterval(() => void retryFailed(), options.retryEveryMs ?? 2_000));
      for (const timer of timers) timer.unref();
    },
    stop() {
      for (const timer of timers.splice(0)) clearInterval(timer);
    },
  };
}
export type OutboxRelay = ReturnType<typeof createOutboxRelay>;

/** How many outbox clears go into one bulk write at most. */
const CLEAR_BATCH = 100;

/**
 * Empties the outboxes of documents whose entries were just published, gathering the clears
 * that come in during one turn of the event loop into one bulk write: one round trip for
 * many documents, which costs the database and this process a fraction of as many single
 * updates. Each clear matches only an outbox that still holds exactly what was published (the
 * same ids in the same places). A bulk write reports only how many matched in all: when one
 * missed, every clear of the batch answers false and its caller checks its own document.
 */
function createClearBatcher(model: Model<unknown>) {
  type Waiting = { filter: Record<string, unknown>; done: (cleared: boolean) => void; fail: (error: unknown) => void };
  let waiting: Waiting[] = [];

  function run() {
    const batch = waiting;
    waiting = [];
    if (batch.length === 0) return;
    model.collection
      .bulkWrite(
        batch.map((w) => ({ updateOne: { filter: w.filter as never, update: { $set: { outbox: [], outboxPending: false } } } })),
        { ordered: false },
      )
      .then(
        (result) => batch.forEach((w) => w.done(result.matchedCount === batch.length)),
        (error: unknown) => batch.forEach((w) => w.fail(error)),
      );
  }

  return function clear(docId: unknown, entries: readonly OutboxEntry[]): Promise<boolean> {
    const filter: Record<string, unknown> = { _id: docId, outbox: { $size: entries.length } };
    entries.forEach((entry, i) => (filter[`outbox.${i}.id`] = entry.id));
    return new Promise((done, fail) => {
      waiting.push({ filter, done, fail });
      if (waiting.length >= CLEAR_BATCH) run();
      else if (waiting.length === 1) setImmediate(run);
    });
  };
}

/**
 * What a decision asks to publish about one application: a public event (`loan.events.v1`) or
 * an internal fact on the owner's topic. Both are keyed by the application.
 */
export type OutboxEffect =
  | { kind: 'event'; event: EventName; data: unknown }
  | { kind: 'fact'; topic: string; fact: Record<string, unknown> };

/**
 * The header that names a fact's type (`AccountLinked`, `AccountEnriched`...) on the internal
 * fact topics, so that a consumer can pass over the kinds it does not act on without decoding
 * them (see `consume`'s `types`).
 */
export const FACT_TYPE_HEADER = 'x-fact-type';

/**
 * Turns effects into outbox entries with fresh ids: the event id of a public event, the
 * `factId` of a fact, so a republished entry carries the same id. A fact's entry names its
 * type in a header.
 */
export function toOutboxEntries(
  owner: { clientId: string; applicationId: string },
  effects: readonly OutboxEffect[],
  now: Date,
  headers?: Record<string, string>,
): OutboxEntry[] {
  return effects.map((effect) => {
    const id = randomUUID();
    if (effect.kind === 'event') {
      return {
        id,
        topic: Topics.events,
        key: owner.applicationId,
        headers,
        value: buildEvent({
          id,
          event: effect.event,
          clientId: owner.clientId,
          applicationId: owner.applicationId,
          data: effect.data as never,
          at: now,
        }),
      };
    }
    const type = effect.fact.type;
    return {
      id,
      topic: effect.topic,
      key: owner.applicationId,
      headers: typeof type === 'string' ? { ...headers, [FACT_TYPE_HEADER]: type } : headers,
      value: { ...effect.fact, factId: id, clientId: owner.clientId, applicationId: owner.applicationId, at: now.toISOString() },
    };
  });
}
