import { randomUUID } from 'node:crypto';
import { FACT_TYPE_HEADER, Topics, buildEvent, type EventName } from '@loan/contracts';
import { context, type Context } from '@opentelemetry/api';
import { Schema, type Model } from 'mongoose';
import type { BulkLane } from './bulkLane';
import type { KafkaBus } from './kafka';
import { createKeyedLock, type KeyedLock } from './keyedLock';
import type { Logger } from './logger';
import { inBatchSpan, outsideTraces, withTraceContext } from './tracing';

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
    type: [
      new Schema(
        { id: String, topic: String, key: String, value: Schema.Types.Mixed, headers: Schema.Types.Mixed },
        { _id: false },
      ),
    ],
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
 *
 * With `clearDelayMs`, published entries are removed that much later instead of at once: the
 * relay remembers them (and never publishes them again itself), a document written again
 * meanwhile has all its published entries removed by one statement, and the removals of every
 * document go to the database together. A crash in between leaves published entries for the
 * sweep to publish again, with the same ids, which consumers deduplicate.
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
  /** How long published entries stay in the outbox before they are removed (0: at once). */
  clearDelayMs?: number;
  /**
   * The lock the owning service takes around its own writes of a document: publishing and
   * removing entries then never interleaves with a state change of the same document.
   */
  lock?: KeyedLock;
  /** The bulk writes of the service, one after the other: the runtime's `bulkLane`. */
  bulkLane: BulkLane;
}) {
  const { bus, model } = options;
  const logger = options.logger.child({ component: 'outbox', collection: model.collection.name });
  const timers: NodeJS.Timeout[] = [];
  let sweeping = false;
  /** Documents whose last flush failed, retried by id. */
  const failed = new Map<string, unknown>();
  const clear = createClearBatcher(model, options.bulkLane);
  const locked = options.lock ?? createKeyedLock();

  const clearDelayMs = options.clearDelayMs ?? 0;
  /** Documents whose published entries wait for their removal (with `clearDelayMs`), by id. */
  const published = new Map<string, { docId: unknown; entries: OutboxEntry[] }>();
  let clearTimer: NodeJS.Timeout | null = null;
  let clearing: Promise<void> | null = null;
  let stopped = false;
  const later = () => {
    // The removal of what several applications' flushes published: in none of their traces.
    clearTimer = outsideTraces(() => setTimeout(() => void clearPublished(), clearDelayMs));
    clearTimer.unref();
  };

  /**
   * Publishes what of `entries` (the outbox as stored, or what a write added to it) was not
   * published yet, then removes them all from the document, at once or after `clearDelayMs`.
   */
  async function publishEntries(docId: unknown, entries: OutboxEntry[]) {
    const key = String(docId);
    const earlier = published.get(key);
    const done = new Set(earlier?.entries.map((entry) => entry.id));
    const fresh = entries.filter((entry) => !done.has(entry.id));
    if (fresh.length === 0) return;
    // All of them in one request; the producer groups them by topic, each topic's in order.
    await bus.publishAll(
      fresh.map((entry) => ({
        topic: entry.topic,
        messages: [{ key: entry.key, value: entry.value, headers: entry.headers }],
      })),
    );
    if (clearDelayMs <= 0) return removePublished(docId, fresh);
    // The document holds the entries published earlier, then these: all go in one removal.
    published.set(key, { docId, entries: [...(earlier?.entries ?? []), ...fresh] });
    if (!clearTimer && !clearing) later();
  }

  /** Removes published entries from a document's outbox. */
  async function removePublished(docId: unknown, entries: OutboxEntry[]) {
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
    const found = stored.filter((entry) => ids.has(entry.id));
    if (found.length > 0) {
      await model.collection.updateOne({ _id: docId } as never, { $pullAll: { outbox: found } } as never);
    }
    await model.collection.updateOne({ _id: docId, outbox: { $size: 0 } } as never, { $set: { outboxPending: false } });
  }

  /**
   * Removes what waits for removal, each document under its lock (so with whatever its latest
   * flush added), all of them in one bulk write when nothing misses. A failure leaves the
   * document waiting for the next round.
   */
  function clearPublished(): Promise<void> {
    clearTimer = null;
    clearing ??= (async () => {
      const keys = [...published.keys()];
      const failures: unknown[] = [];
      await Promise.all(
        keys.map((key) =>
          locked(key, async () => {
            const waiting = published.get(key);
            if (!waiting) return;
            try {
              await removePublished(waiting.docId, waiting.entries);
              published.delete(key);
            } catch (error) {
              failures.push(error);
            }
          }),
        ),
      );
      if (failures.length > 0) {
        logger.warn(
          { err: failures[0], documents: failures.length },
          'removing published outbox entries failed; retried shortly',
        );
      }
    })().finally(() => {
      clearing = null;
      if (published.size > 0 && !stopped && !clearTimer) later();
    });
    return clearing;
  }
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
          const doc = await model.collection.findOne<OutboxDocument>({ _id: docId } as never, {
            projection: { outbox: 1 },
          });
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
      const pending = async (filter: Record<string, unknown>) =>
        (await model.collection.find<OutboxDocument>(filter as never, { projection: { _id: 1 }, limit: 500 }).toArray())
          .map((doc) => doc._id)
          // What this process published waits for its removal here: not published again.
          .filter((id) => !published.has(String(id)));
      let ids = await pending({ outboxPending: true });
      if (ids.length > 0 && clearDelayMs > 0) {
        // Another replica may have published these and be about to remove them: looked at
        // again once it has had the time to, so that only what a crash left is published again.
        await new Promise((resolve) => setTimeout(resolve, clearDelayMs + 1_000).unref());
        ids = await pending({ _id: { $in: ids }, outboxPending: true });
      }
      for (const id of ids) await flush(id);
      return ids.length;
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
    /** Stops the timers; published entries still waiting for their removal are removed now. */
    async stop(): Promise<void> {
      for (const timer of timers.splice(0)) clearInterval(timer);
      stopped = true;
      if (clearTimer) clearTimeout(clearTimer);
      clearTimer = null;
      await clearing;
      if (published.size > 0) await clearPublished();
    },
  };
}
export type OutboxRelay = ReturnType<typeof createOutboxRelay>;

/** How many outbox clears go into one bulk write at most (larger ones beside many inserts wedged FerretDB on SQLite). */
const CLEAR_BATCH = 20;

/**
 * Empties the outboxes of documents whose entries were just published, gathering the clears
 * that come in during one turn of the event loop into one bulk write: one round trip for
 * many documents, which costs the database and this process a fraction of as many single
 * updates. Each clear matches only an outbox that still holds exactly what was published (the
 * same ids in the same places). A bulk write reports only how many matched in all: when one
 * missed, one read of the batch's documents tells which still hold published entries, and only
 * those answer false (their callers then remove what is left of their own).
 */
function createClearBatcher(model: Model<unknown>, lane: BulkLane) {
  type Waiting = {
    docId: unknown;
    ids: string[];
    filter: Record<string, unknown>;
    done: (cleared: boolean) => void;
    fail: (error: unknown) => void;
    /** The context of the flush that asked for it. */
    ctx: Context;
  };
  let waiting: Waiting[] = [];

  async function settle(batch: Waiting[]) {
    const result = await model.collection.bulkWrite(
      batch.map((w) => ({
        updateOne: { filter: w.filter as never, update: { $set: { outbox: [], outboxPending: false } } },
      })),
      { ordered: false },
    );
    if (result.matchedCount === batch.length) return batch.map(() => true);
    const docs = await model.collection
      .find<OutboxDocument>({ _id: { $in: batch.map((w) => w.docId) } } as never, { projection: { outbox: 1 } })
      .toArray();
    const left = new Map(docs.map((doc) => [String(doc._id), new Set((doc.outbox ?? []).map((entry) => entry.id))]));
    return batch.map((w) => !w.ids.some((id) => left.get(String(w.docId))?.has(id)));
  }

  function run() {
    const batch = waiting;
    waiting = [];
    if (batch.length === 0) return;
    // One bulk write at a time in the service (see bulkLane.ts). Alone, it is in the trace of
    // the flush that asked for it; for several applications' outboxes, in a span of its own
    // linked to each of their flushes (it would otherwise be in whichever trace came first).
    void inBatchSpan(
      `clear outbox ${model.collection.name}`,
      batch.map((w) => w.ctx),
      { 'loan.batch_size': batch.length },
      () =>
        lane.run(() =>
          settle(batch).then(
            (cleared) => batch.forEach((w, i) => w.done(cleared[i]!)),
            (error: unknown) => batch.forEach((w) => w.fail(error)),
          ),
        ),
    );
  }

  return function clear(docId: unknown, entries: readonly OutboxEntry[]): Promise<boolean> {
    const filter: Record<string, unknown> = { _id: docId, outbox: { $size: entries.length } };
    entries.forEach((entry, i) => (filter[`outbox.${i}.id`] = entry.id));
    return new Promise((done, fail) => {
      waiting.push({ docId, ids: entries.map((entry) => entry.id), filter, done, fail, ctx: context.active() });
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
  { kind: 'event'; event: EventName; data: unknown } | { kind: 'fact'; topic: string; fact: Record<string, unknown> };

/**
 * Turns effects into outbox entries with fresh ids: the event id of a public event, the
 * `factId` of a fact, so a republished entry carries the same id. A fact's entry names its
 * type in a header; every entry carries the active trace context (`traceparent`) in its headers.
 */
export function toOutboxEntries(
  owner: { clientId: string; applicationId: string },
  effects: readonly OutboxEffect[],
  now: Date,
  given?: Record<string, string>,
): OutboxEntry[] {
  // The active trace context, stored with each entry: its record continues the trace of the
  // work that wrote it, whenever and by whichever process it is published.
  const headers = withTraceContext(given);
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
      value: {
        ...effect.fact,
        factId: id,
        clientId: owner.clientId,
        applicationId: owner.applicationId,
        at: now.toISOString(),
      },
    };
  });
}
