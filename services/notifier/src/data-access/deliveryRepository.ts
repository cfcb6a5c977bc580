import type { EventName } from '@loan/contracts';
import { isDuplicateKey, rawCollection, type BulkLane } from '@loan/runtime';
import type { Delivery, DeliveryHead, DeliveryStatus, ScheduleEntry } from '../domain/delivery';
import { writeErrorsByIndex } from './bulkWriteErrors';
import type { NotifierModels } from './models';

type DeliveryDoc = Omit<Delivery, 'deliveryId'> & { _id: string };
type EntryDoc = Omit<ScheduleEntry, 'deliveryId'> & { _id: string };
type ClaimDoc = { _id: string; deliveryId: string; owner: string; expiresAt: Date };

const toDelivery = (doc: DeliveryDoc): Delivery => ({
  deliveryId: doc._id,
  eventId: doc.eventId,
  event: doc.event,
  clientId: doc.clientId,
  applicationId: doc.applicationId,
  body: doc.body,
  eventAt: new Date(doc.eventAt),
  partition: doc.partition,
  seq: doc.seq,
  status: doc.status,
  reason: doc.reason ?? null,
  attempts: (doc.attempts ?? []).map((a) => ({
    at: new Date(a.at),
    statusCode: a.statusCode ?? null,
    error: a.error ?? null,
    durationMs: a.durationMs,
    ...(a.manual ? { manual: true } : {}),
  })),
  round: { attempts: doc.round.attempts, size: doc.round.size, ...(doc.round.manual ? { manual: true } : {}) },
  nextAttemptAt: doc.nextAttemptAt ? new Date(doc.nextAttemptAt) : null,
  version: doc.version,
  createdAt: new Date(doc.createdAt),
  updatedAt: new Date(doc.updatedAt),
  deliveredAt: doc.deliveredAt ? new Date(doc.deliveredAt) : null,
  firstClaim: doc.firstClaim ? { owner: doc.firstClaim.owner, expiresAt: new Date(doc.firstClaim.expiresAt) } : null,
  trace: doc.trace ?? null,
});

const toEntry = (doc: EntryDoc): ScheduleEntry => ({
  deliveryId: doc._id,
  clientId: doc.clientId,
  applicationId: doc.applicationId,
  partition: doc.partition,
  seq: doc.seq,
  nextAttemptAt: new Date(doc.nextAttemptAt),
  version: doc.version,
  heldBy: doc.heldBy ?? null,
  heldUntil: doc.heldUntil ? new Date(doc.heldUntil) : null,
});

const entryFields = (e: ScheduleEntry) => ({
  clientId: e.clientId,
  applicationId: e.applicationId,
  partition: e.partition,
  seq: e.seq,
  nextAttemptAt: e.nextAttemptAt,
  version: e.version,
  heldBy: e.heldBy ?? null,
  heldUntil: e.heldUntil ?? null,
});

/** What changes on a delivery after it was recorded (the event and its body never do). */
const mutableFields = (d: DeliveryHead) => ({
  status: d.status,
  reason: d.reason,
  attempts: d.attempts,
  round: d.round,
  nextAttemptAt: d.nextAttemptAt,
  version: d.version,
  updatedAt: d.updatedAt,
  deliveredAt: d.deliveredAt,
});

export interface DeliveryQuery {
  clientId: string;
  applicationId?: string;
  eventId?: string;
  event?: EventName;
  status?: DeliveryStatus;
  limit: number;
  /** The last delivery of the previous page (pages go newest first). */
  after?: { createdAt: Date; deliveryId: string };
}

export interface ClaimRecord {
  claimId: string;
  deliveryId: string;
  owner: string;
  expiresAt: Date;
}

/**
 * Deliveries, their schedule and the claims of their attempts. Every hot-path read and write
 * names one document by `_id`: the only query FerretDB 1.x answers without scanning. A delivery
 * is written only by the holder of the claim on its current version (or, once settled, by a
 * redelivery), so plain writes by id are safe where a conditional update would not be atomic.
 * The per-delivery reads and writes go to the driver's collections with complete documents
 * (`rawCollection`); the delivery log queries use the models. The writes of the hot path (a
 * delivery recorded, an attempt's outcome, an entry leaving the schedule) are coalesced: those
 * of deliveries arriving together go as one bulk command (`bulkLane.coalesce`, the service's bulk
 * writes one after the other), each still acknowledged before its caller goes on.
 */
export function createDeliveryRepository(models: NotifierModels, bulkLane: BulkLane) {
  const { coalesce } = bulkLane;
  const { deliveries, schedule, claims } = models;
  const raw = {
    deliveries: rawCollection<DeliveryDoc>(deliveries),
    schedule: rawCollection<EntryDoc>(schedule),
    claims: rawCollection<ClaimDoc>(claims),
  };

  /** Per item: the error of a bulk write that refused it, or null; every item when it failed as a whole. */
  function itemErrors(error: unknown, count: number): (Error | null)[] {
    const byIndex = writeErrorsByIndex(error);
    if (!byIndex) throw error;
    return Array.from({ length: count }, (_, i) => {
      const failed = byIndex.get(i);
      if (!failed) return null;
      return Object.assign(new Error(failed.errmsg ?? 'write refused'), { code: failed.code });
    });
  }

  /** Inserts deliveries; per delivery, true when created, false when its (event, client) was known. */
  const insertDelivery = coalesce<DeliveryDoc, boolean>(
    async (docs) => {
      try {
        await raw.deliveries.insertMany(docs, { ordered: false });
        return docs.map(() => true);
      } catch (error) {
        return itemErrors(error, docs.length).map((e) => (e === null ? true : isDuplicateKey(e) ? false : e));
      }
    },
    { name: 'insert deliveries' },
  );

  const saveDelivery = coalesce<DeliveryHead, void>(
    async (heads) => {
      const updates = heads.map((d) => ({
        updateOne: {
          filter: { _id: d.deliveryId },
          update: { $set: mutableFields(d), $unset: { firstClaim: '' as const } },
        },
      }));
      try {
        await raw.deliveries.bulkWrite(updates, { ordered: false });
        return heads.map(() => undefined);
      } catch (error) {
        return itemErrors(error, heads.length).map((e) => e ?? undefined);
      }
    },
    { name: 'save deliveries' },
  );

  const removeEntries = coalesce<string, void>(
    async (ids) => {
      if (ids.length === 1) await raw.schedule.deleteOne({ _id: ids[0]! });
      else await raw.schedule.deleteMany({ _id: { $in: ids } });
      return ids.map(() => undefined);
    },
    { name: 'remove schedule entries' },
  );

  async function insertIgnoringDuplicate(insert: () => Promise<unknown>): Promise<boolean> {
    try {
      await insert();
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  return {
    /**
     * Masks the account numbers in the stored bodies of an application's settled deliveries
     * (a pending one keeps its bytes until it settles). Returns how many bodies changed.
     */
    async scrubBodies(applicationId: string, mask: (body: string) => string | null): Promise<number> {
      const settled = await raw.deliveries
        .find({ applicationId, status: { $ne: 'PENDING' } }, { projection: { body: 1 } })
        .toArray();
      let scrubbed = 0;
      for (const doc of settled) {
        const masked = mask(doc.body as string);
        if (masked === null) continue;
        await raw.deliveries.updateOne({ _id: doc._id, status: { $ne: 'PENDING' } }, { $set: { body: masked } });
        scrubbed++;
      }
      return scrubbed;
    },

    /** Records a new delivery; when this (event, client) is known already, the stored one. */
    async insert(delivery: Delivery): Promise<{ created: boolean; delivery: Delivery }> {
      const { deliveryId, ...rest } = delivery;
      if (await insertDelivery({ _id: deliveryId, ...rest })) return { created: true, delivery };
      const existing = await deliveries
        .findOne({ eventId: delivery.eventId, clientId: delivery.clientId })
        .lean<DeliveryDoc>();
      if (!existing)
        throw new Error(`Delivery of event ${delivery.eventId} was refused as a duplicate but cannot be found`);
      return { created: false, delivery: toDelivery(existing) };
    },

    async get(deliveryId: string): Promise<Delivery | null> {
      const doc = await raw.deliveries.findOne({ _id: deliveryId });
      return doc ? toDelivery(doc) : null;
    },

    /**
     * Writes what changed; the caller holds the claim on the delivery (or it had settled). The
     * version has moved past the first claim, which is dropped.
     */
    save: saveDelivery,

    /**
     * Gives up the first claims this replica took when recording these deliveries and did not
     * use (it is stopping): other replicas may then claim their first attempts at once.
     */
    async releaseFirstClaims(deliveryIds: string[], owner: string): Promise<void> {
      if (deliveryIds.length === 0) return;
      await raw.deliveries.updateMany(
        { _id: { $in: deliveryIds }, version: 0, 'firstClaim.owner': owner },
        { $unset: { firstClaim: '' } },
      );
    },

    /** Clears what the schedule entries say of first claims `releaseFirstClaims` gave up. */
    async releaseHolds(deliveryIds: string[], owner: string): Promise<void> {
      if (deliveryIds.length === 0) return;
      await raw.schedule.updateMany(
        { _id: { $in: deliveryIds }, heldBy: owner },
        { $set: { heldBy: null, heldUntil: null } },
      );
    },

    /** One page of a client's deliveries, newest first, and whether more follow. */
    async list(query: DeliveryQuery): Promise<{ items: Delivery[]; more: boolean }> {
      const filter: Record<string, unknown> = { clientId: query.clientId };
      if (query.applicationId) filter.applicationId = query.applicationId;
      if (query.eventId) filter.eventId = query.eventId;
      if (query.event) filter.event = query.event;
      if (query.status) filter.status = query.status;
      if (query.after) {
        filter.$or = [
          { createdAt: { $lt: query.after.createdAt } },
          { createdAt: query.after.createdAt, _id: { $lt: query.after.deliveryId } },
        ];
      }
      const docs = await deliveries
        .find(filter)
        .sort({ createdAt: -1, _id: -1 })
        .limit(query.limit + 1)
        .lean<DeliveryDoc[]>();
      return { items: docs.slice(0, query.limit).map(toDelivery), more: docs.length > query.limit };
    },

    /** How many of a client's deliveries recorded in `[from, before)` stand in each status. */
    async countByStatus(clientId: string, from: Date, before: Date): Promise<Record<string, number>> {
      const groups = await deliveries.aggregate<{ _id: string; count: number }>([
        { $match: { clientId, createdAt: { $gte: from, $lt: before } } },
        { $group: { _id: '$status', count: { $sum: 1 } } },
      ]);
      return Object.fromEntries(groups.map((g) => [g._id, g.count]));
    },

    /**
     * A client's FAILED deliveries recorded since a time, oldest first (the replay order),
     * `limit` at most, without their bodies (a replay changes only their state).
     */
    async failedSince(
      clientId: string,
      since: Date,
      event: EventName | undefined,
      limit: number,
    ): Promise<DeliveryHead[]> {
      const filter: Record<string, unknown> = { clientId, status: 'FAILED', createdAt: { $gte: since } };
      if (event) filter.event = event;
      const docs = await deliveries
        .find(filter, { body: 0 })
        .sort({ createdAt: 1, _id: 1 })
        .limit(limit)
        .lean<Omit<DeliveryDoc, 'body'>[]>();
      return docs.map((doc) => {
        const { body: _body, ...head } = toDelivery({ ...doc, body: '' });
        return head;
      });
    },

    /** Every pending delivery (for rebuilding the schedule at start-up). */
    async pending(): Promise<Delivery[]> {
      const docs = await deliveries.find({ status: 'PENDING' }).lean<DeliveryDoc[]>();
      return docs.map(toDelivery);
    },

    async entries(): Promise<ScheduleEntry[]> {
      const docs = await schedule.find({}).lean<EntryDoc[]>();
      return docs.map(toEntry);
    },

    async getEntry(deliveryId: string): Promise<ScheduleEntry | null> {
      const doc = await schedule.findById(deliveryId).lean<EntryDoc>();
      return doc ? toEntry(doc) : null;
    },

    async countEntries(): Promise<number> {
      return schedule.countDocuments({});
    },

    /** When the event of the oldest delivery still pending happened; null when none is. */
    async oldestPendingEventAt(): Promise<Date | null> {
      const doc = await deliveries
        .findOne({ status: 'PENDING' }, { eventAt: 1 })
        .sort({ eventAt: 1 })
        .lean<Pick<DeliveryDoc, 'eventAt'>>();
      return doc ? new Date(doc.eventAt) : null;
    },

    /** Puts a delivery on the schedule unless it is there already. */
    async addEntry(entry: ScheduleEntry): Promise<boolean> {
      return insertIgnoringDuplicate(() => raw.schedule.insertOne({ _id: entry.deliveryId, ...entryFields(entry) }));
    },

    async setEntry(entry: ScheduleEntry): Promise<void> {
      await raw.schedule.updateOne({ _id: entry.deliveryId }, { $set: entryFields(entry) });
    },

    removeEntry: removeEntries,

    /** Puts deliveries on the schedule in one write; those there already are left as they are. */
    async addEntries(entries: ScheduleEntry[]): Promise<void> {
      if (entries.length === 0) return;
      try {
        await raw.schedule.insertMany(
          entries.map((e) => ({ _id: e.deliveryId, ...entryFields(e) })),
          { ordered: false },
        );
      } catch (error) {
        const refused = itemErrors(error, entries.length).find((e) => e !== null && !isDuplicateKey(e));
        if (refused) throw refused;
      }
    },

    /** Claims an attempt; true for exactly one caller per claim id. */
    async claim(record: ClaimRecord): Promise<boolean> {
      return insertIgnoringDuplicate(() =>
        raw.claims.insertOne({
          _id: record.claimId,
          deliveryId: record.deliveryId,
          owner: record.owner,
          expiresAt: record.expiresAt,
        }),
      );
    },

    async getClaim(claimId: string): Promise<ClaimRecord | null> {
      const doc = await raw.claims.findOne({ _id: claimId });
      return doc
        ? { claimId: doc._id, deliveryId: doc.deliveryId, owner: doc.owner, expiresAt: new Date(doc.expiresAt) }
        : null;
    },

    /** Deletes the claims that expired before `before` (a pass over the collection); how many. */
    async pruneClaims(before: Date): Promise<number> {
      const res = await raw.claims.deleteMany({ expiresAt: { $lt: before } });
      return res.deletedCount;
    },

    /** Drops claims that were won but not used, in one write. */
    async releaseClaims(claimIds: string[]): Promise<void> {
      if (claimIds.length === 1) await raw.claims.deleteOne({ _id: claimIds[0]! });
      else if (claimIds.length > 1) await raw.claims.deleteMany({ _id: { $in: claimIds } });
    },
  };
}
export type DeliveryRepository = ReturnType<typeof createDeliveryRepository>;
