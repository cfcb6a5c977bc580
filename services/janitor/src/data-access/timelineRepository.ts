import { isDuplicateKey } from '@loan/runtime';
import type { DeadlineKind } from '../domain/deadline';
import type { AccountEnrichment, Timeline } from '../domain/timeline';
import type { DeadlineRef } from '../domain/trackDeadlines/decide';
import type { JanitorModels } from './models';

export interface StoredTimeline {
  timeline: Timeline;
  rev: number;
  /**
   * The deadlines of the application that may still be armed: every deadline is listed here
   * before it is armed, and leaves the list once its outcome is recorded by a cancellation.
   */
  armed: DeadlineRef[];
}

interface Doc {
  _id: string;
  applicationId: string;
  rev: number;
  clientId: string;
  linkWindowStart?: string | null;
  firstLinkedAt?: string | null;
  analysisRequestedAt?: string | null;
  closedAt?: string | null;
  accounts?: { accountId: string; starts?: string[]; enriched?: { at: string; attempt: number } | null }[];
  armed?: {
    deadlineId: string;
    kind: DeadlineKind;
    accountId?: string | null;
    attempt?: number | null;
    since: string;
  }[];
}

function toStored(doc: Doc): StoredTimeline {
  return {
    rev: doc.rev,
    timeline: {
      applicationId: doc.applicationId,
      clientId: doc.clientId,
      linkWindowStart: doc.linkWindowStart ?? null,
      firstLinkedAt: doc.firstLinkedAt ?? null,
      analysisRequestedAt: doc.analysisRequestedAt ?? null,
      closedAt: doc.closedAt ?? null,
      accounts: (doc.accounts ?? []).map((a): AccountEnrichment => ({
        accountId: a.accountId,
        starts: a.starts ?? [],
        enriched: a.enriched ? { at: a.enriched.at, attempt: a.enriched.attempt } : null,
      })),
    },
    armed: (doc.armed ?? []).map((d) => ({
      deadlineId: d.deadlineId,
      kind: d.kind,
      accountId: d.accountId ?? null,
      attempt: d.attempt ?? null,
      since: d.since,
    })),
  };
}

/** Revisions kept behind the newest, so a writer that read one of them still finds its successor taken. */
const KEPT_REVISIONS = 5;

const revisionId = (applicationId: string, rev: number) => `${applicationId}:${rev}`;

/**
 * Loads and stores timelines with optimistic concurrency, every access by `_id`. Each revision
 * is a new document `<applicationId>:<rev>`: writing revision n + 1 is an insert, so of two
 * writers that read revision n only one succeeds. The head `<applicationId>` (collection
 * `timeline_heads`) is a copy of a recent revision, written after it: a read starts there and
 * follows the revisions after it, so a head left behind by a crash or a slow writer costs a
 * lookup more, never a lost revision.
 */
export function createTimelineRepository(models: Pick<JanitorModels, 'timelines' | 'timelineHeads' | 'deadlines'>) {
  const { timelines, timelineHeads } = models;

  return {
    /**
     * The newest revision; with `headOnly`, the head as it is, which may lag behind by the
     * revision of a writer that died before moving the head, or be missing while the first
     * revision exists (a save based on it then fails as a conflict, and reading again with
     * `headOnly: false` finds that revision).
     */
    async get(applicationId: string, options: { headOnly?: boolean } = {}): Promise<StoredTimeline | null> {
      let doc = await timelineHeads.findById(applicationId).lean<Doc>();
      if (options.headOnly) return doc ? toStored(doc) : null;
      for (;;) {
        const next = await timelines.findById(revisionId(applicationId, (doc?.rev ?? 0) + 1)).lean<Doc>();
        if (!next) break;
        doc = next;
      }
      return doc ? toStored(doc) : null;
    },

    /**
     * Writes the revision after `rev` (0: the first), with the deadlines that may be armed;
     * false when another writer got there first.
     */
    async save(timeline: Timeline, armed: DeadlineRef[], rev: number): Promise<boolean> {
      const next = rev + 1;
      const fields = { ...timeline, rev: next, armed };
      try {
        await timelines.create({ _id: revisionId(timeline.applicationId, next), ...fields });
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
      try {
        // Never moves the head back (on MongoDB; elsewhere a rare step back costs a lookup more).
        await timelineHeads.updateOne(
          { _id: timeline.applicationId, rev: { $lt: next } },
          { $set: fields },
          { upsert: true },
        );
      } catch (error) {
        if (!isDuplicateKey(error)) throw error; // the head is at `next` or later already
      }
      if (next > KEPT_REVISIONS)
        await timelines.deleteOne({ _id: revisionId(timeline.applicationId, next - KEPT_REVISIONS) });
      return true;
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
