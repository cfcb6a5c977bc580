import { isDuplicateKey } from '@loan/runtime';
import type { AccountEnrichment, Timeline } from '../domain/timeline';
import type { JanitorModels } from './models';

export interface StoredTimeline {
  timeline: Timeline;
  rev: number;
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
}

function toTimeline(doc: Doc): Timeline {
  return {
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
  };
}

const KEPT_REVISIONS = 5;

/** Loads and stores timelines with optimistic concurrency: each revision is a new document. */
export function createTimelineRepository(models: Pick<JanitorModels, 'timelines'>) {
  const { timelines } = models;
  return {
    async get(applicationId: string): Promise<StoredTimeline | null> {
      const doc = await timelines.findOne({ applicationId }).sort({ rev: -1 }).lean<Doc>();
      return doc ? { timeline: toTimeline(doc), rev: doc.rev } : null;
    },

    /** Writes the revision after `rev` (0: the first); false when another writer got there first. */
    async save(timeline: Timeline, rev: number): Promise<boolean> {
      const next = rev + 1;
      try {
        await timelines.create({ _id: `${timeline.applicationId}:${next}`, rev: next, ...timeline });
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
      // A few older revisions stay, so a writer that read one of them still finds its successor taken.
      await timelines.deleteMany({ applicationId: timeline.applicationId, rev: { $lte: next - KEPT_REVISIONS } });
      return true;
    },
  };
}
export type TimelineRepository = ReturnType<typeof createTimelineRepository>;
