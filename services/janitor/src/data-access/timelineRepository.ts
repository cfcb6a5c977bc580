import { randomUUID } from 'node:crypto';
import { isDuplicateKey, rawCollection, type BulkLane, type OutboxEntry } from '@loan/runtime';
import {
  type DeadlineKind,
  type DeadlineStatus,
  type TrackedDeadline,
  nextDueHourOf,
  nextDueOf,
} from '../domain/deadline';
import type { AccountEnrichment, ConsentTimes, Timeline } from '../domain/timeline';
import type { DeadlineRef } from '../domain/trackDeadlines/decide';
import type { JanitorModels } from './models';

export interface StoredTimeline {
  timeline: Timeline;
  rev: number;
  /**
   * Deadlines an earlier version kept in documents of their own that may still be armed: each
   * leaves the list once its outcome is recorded by a cancellation.
   */
  armed: DeadlineRef[];
  /** The application's deadlines, ended ones included. */
  deadlines: TrackedDeadline[];
}

/** A deadline as the timeline document stores it (the application's ids are the document's). */
export interface TrackedDeadlineDoc {
  deadlineId: string;
  kind: DeadlineKind;
  accountId?: string | null;
  attempt?: number | null;
  since: string;
  dueAt: Date;
  status: DeadlineStatus;
  armedAt: Date;
  firedAt?: Date | null;
  cancelledAt?: Date | null;
  armedBy?: Record<string, string>;
}

export const toTrackedDoc = (d: TrackedDeadline): TrackedDeadlineDoc => ({
  deadlineId: d.deadlineId,
  kind: d.kind,
  accountId: d.accountId,
  attempt: d.attempt,
  since: d.since,
  dueAt: d.dueAt,
  status: d.status,
  armedAt: d.armedAt,
  firedAt: d.firedAt,
  cancelledAt: d.cancelledAt,
  ...(d.armedBy ? { armedBy: d.armedBy } : {}),
});

export const fromTrackedDoc = (
  owner: { applicationId: string; clientId: string },
  d: TrackedDeadlineDoc,
): TrackedDeadline => ({
  deadlineId: d.deadlineId,
  kind: d.kind,
  clientId: owner.clientId,
  applicationId: owner.applicationId,
  accountId: d.accountId ?? null,
  attempt: d.attempt ?? null,
  since: d.since,
  dueAt: new Date(d.dueAt),
  status: d.status,
  armedAt: new Date(d.armedAt),
  firedAt: d.firedAt ? new Date(d.firedAt) : null,
  cancelledAt: d.cancelledAt ? new Date(d.cancelledAt) : null,
  ...(d.armedBy ? { armedBy: d.armedBy } : {}),
});

/** A timeline document as stored (an earlier version's lacks the deadlines and the outbox). */
export interface TimelineDoc {
  _id: string;
  applicationId: string;
  rev: number;
  clientId: string;
  linkWindowStart?: string | null;
  firstLinkedAt?: string | null;
  analysisRequestedAt?: string | null;
  closedAt?: string | null;
  decidedAt?: string | null;
  offer?: { madeAt: string; expiresAt: string } | null;
  offerAnsweredAt?: string | null;
  retainedUntil?: string | null;
  accounts?: {
    accountId: string;
    starts?: string[];
    enriched?: { at: string; attempt: number } | null;
    consent?: ConsentTimes | null;
  }[];
  armed?: {
    deadlineId: string;
    kind: DeadlineKind;
    accountId?: string | null;
    attempt?: number | null;
    since: string;
  }[];
  deadlines?: TrackedDeadlineDoc[];
  nextDueAt?: Date | null;
  /** The UTC hour of `nextDueAt` (`hourOf`); missing on heads earlier versions wrote. */
  nextDueHour?: string | null;
  outbox?: OutboxEntry[];
  outboxPending?: boolean;
  outboxAt?: Date | null;
  /** Which save wrote the current revision: how a save sent with others learns whether it won. */
  writtenBy?: string;
}
type Doc = TimelineDoc;

/** A save of the revision after `rev`: its fields, `writtenBy` among them. */
interface HeadUpdate {
  applicationId: string;
  rev: number;
  fields: Partial<Doc> & { writtenBy: string };
}

/**
 * What a write of a timeline's deadlines sets beside them: the earliest due time of the armed
 * ones and its hour, always together, so that the periodic reload (by hour) and the full one (by
 * time) find the same timelines.
 */
export const nextDueFields = (deadlines: readonly TrackedDeadline[]): Pick<Doc, 'nextDueAt' | 'nextDueHour'> => ({
  nextDueAt: nextDueOf(deadlines),
  nextDueHour: nextDueHourOf(deadlines),
});

export function toStored(doc: Doc): StoredTimeline {
  return {
    rev: doc.rev,
    timeline: {
      applicationId: doc.applicationId,
      clientId: doc.clientId,
      linkWindowStart: doc.linkWindowStart ?? null,
      firstLinkedAt: doc.firstLinkedAt ?? null,
      analysisRequestedAt: doc.analysisRequestedAt ?? null,
      closedAt: doc.closedAt ?? null,
      decidedAt: doc.decidedAt ?? null,
      offer: doc.offer ? { madeAt: doc.offer.madeAt, expiresAt: doc.offer.expiresAt } : null,
      offerAnsweredAt: doc.offerAnsweredAt ?? null,
      retainedUntil: doc.retainedUntil ?? null,
      accounts: (doc.accounts ?? []).map((a): AccountEnrichment => ({
        accountId: a.accountId,
        starts: a.starts ?? [],
        enriched: a.enriched ? { at: a.enriched.at, attempt: a.enriched.attempt } : null,
        ...(a.consent ? { consent: { ...a.consent, endedAt: a.consent.endedAt ?? null } } : {}),
      })),
    },
    armed: (doc.armed ?? []).map((d) => ({
      deadlineId: d.deadlineId,
      kind: d.kind,
      accountId: d.accountId ?? null,
      attempt: d.attempt ?? null,
      since: d.since,
    })),
    deadlines: (doc.deadlines ?? []).map((d) => fromTrackedDoc(doc, d)),
  };
}

const revisionId = (applicationId: string, rev: number) => `${applicationId}:${rev}`;

/**
 * Loads and stores timelines with optimistic concurrency, every access by `_id`. The timeline
 * of an application is one document `<applicationId>` (collection `timeline_heads`) with a
 * revision number: the first is an insert and each next one an update conditional on the
 * revision read, so of two writers that read revision n only one succeeds (MongoDB applies a
 * conditional update atomically, and so does the local FerretDB with its patch 003).
 *
 * Earlier versions wrote each revision as a document `<applicationId>:<rev>` of `timelines`
 * and copied it to the head afterwards; a head they left behind (a crash between the two
 * writes) is caught up on the first conflict, when a read follows the revisions after it.
 */
export function createTimelineRepository(
  models: Pick<JanitorModels, 'timelines' | 'timelineHeads' | 'deadlines'>,
  bulkLane?: Pick<BulkLane, 'coalesce'>,
) {
  const { timelines, timelineHeads } = models;
  const heads = rawCollection<Doc>(timelineHeads);

  /**
   * Conditional updates of heads, per save whether it landed. Several go in one command; when
   * fewer landed than were sent (another writer got to one of them first, or two of the batch
   * were of one timeline), the heads are read back and each save won where its `writtenBy` is
   * the one stored.
   */
  async function updateHeads(updates: HeadUpdate[]): Promise<boolean[]> {
    const filterOf = (u: HeadUpdate) => ({ _id: u.applicationId, rev: { $lte: u.rev } });
    if (updates.length === 1) {
      const written = await heads.updateOne(filterOf(updates[0]!), { $set: updates[0]!.fields });
      return [written.modifiedCount === 1];
    }
    const result = await heads.bulkWrite(
      updates.map((u) => ({ updateOne: { filter: filterOf(u), update: { $set: u.fields } } })),
      { ordered: false },
    );
    if (result.modifiedCount === updates.length) return updates.map(() => true);
    const stored = await heads
      .find({ _id: { $in: [...new Set(updates.map((u) => u.applicationId))] } }, { projection: { writtenBy: 1 } })
      .toArray();
    const writers = new Map(stored.map((doc) => [doc._id, doc.writtenBy]));
    return updates.map((u) => writers.get(u.applicationId) === u.fields.writtenBy);
  }
  /** The saves of timelines handled side by side (facts of different partitions) share commands. */
  const updateHead = bulkLane
    ? bulkLane.coalesce(updateHeads, { name: 'save timelines' })
    : async (update: HeadUpdate) => (await updateHeads([update]))[0]!;

  return {
    /**
     * The timeline; with `headOnly: false`, also the revisions earlier versions may have
     * written after the head.
     */
    async get(applicationId: string, options: { headOnly?: boolean } = {}): Promise<StoredTimeline | null> {
      let doc = await heads.findOne({ _id: applicationId });
      if (options.headOnly) return doc ? toStored(doc) : null;
      for (;;) {
        const next = await timelines.findById(revisionId(applicationId, (doc?.rev ?? 0) + 1)).lean<Doc>();
        if (!next) break;
        doc = next;
      }
      return doc ? toStored(doc) : null;
    },

    /**
     * Writes the revision after `rev` (0: the first) with the application's deadlines (and the
     * earlier version's that may be armed), in one write; false when another writer got there
     * first. The outbox is left as it is.
     */
    async save(
      timeline: Timeline,
      armed: DeadlineRef[],
      deadlines: readonly TrackedDeadline[],
      rev: number,
    ): Promise<boolean> {
      const fields = {
        ...timeline,
        rev: rev + 1,
        armed,
        deadlines: deadlines.map(toTrackedDoc),
        ...nextDueFields(deadlines),
        writtenBy: randomUUID(),
      };
      if (rev > 0) {
        // `rev` is the head's revision, or a newer one of `timelines` when an earlier version
        // left the head behind: either way no other writer has written after it.
        return updateHead({ applicationId: timeline.applicationId, rev, fields });
      }
      try {
        await heads.insertOne({
          _id: timeline.applicationId,
          ...fields,
          outbox: [],
          outboxPending: false,
          outboxAt: null,
        });
        return true;
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
    },

    /**
     * Gives the heads to timelines written before there were heads (one pass over the
     * collections; nothing to do once every timeline has one). Their armed deadlines are read
     * from the deadlines.
     */
    async backfillHeads(): Promise<number> {
      if ((await timelines.estimatedDocumentCount()) === 0) return 0;
      if ((await timelineHeads.estimatedDocumentCount()) > 0) return 0;
      const newest = new Map<string, Doc>();
      for (const doc of await timelines.find({}).lean<Doc[]>()) {
        const known = newest.get(doc.applicationId);
        if (!known || known.rev < doc.rev) newest.set(doc.applicationId, doc);
      }
      const armed = await models.deadlines
        .find({ status: 'ARMED' }, { _id: 1, kind: 1, applicationId: 1, accountId: 1, attempt: 1, since: 1 })
        .lean<
          {
            _id: string;
            applicationId: string;
            kind: DeadlineKind;
            accountId?: string | null;
            attempt?: number | null;
            since: string;
          }[]
        >();
      const armedOf = new Map<string, DeadlineRef[]>();
      for (const d of armed) {
        const list = armedOf.get(d.applicationId) ?? [];
        list.push({
          deadlineId: d._id,
          kind: d.kind,
          accountId: d.accountId ?? null,
          attempt: d.attempt ?? null,
          since: d.since,
        });
        armedOf.set(d.applicationId, list);
      }
      for (const [applicationId, doc] of newest) {
        const { _id, ...fields } = doc;
        void _id;
        try {
          await timelineHeads.updateOne(
            { _id: applicationId, rev: { $lt: doc.rev } },
            { $set: { ...fields, armed: armedOf.get(applicationId) ?? [] } },
            { upsert: true },
          );
        } catch (error) {
          if (!isDuplicateKey(error)) throw error;
        }
      }
      return newest.size;
    },
  };
}
export type TimelineRepository = ReturnType<typeof createTimelineRepository>;
