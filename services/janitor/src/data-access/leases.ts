import { rawCollection } from '@loan/runtime';
import { createLegacyDeadlines, insertOnce } from './legacyDeadlines';
import type { JanitorModels } from './models';
import type { TimelineDoc } from './timelineRepository';

/** Where a fired deadline's message waits to be published: the timeline's outbox, or the previous version's outcome's. */
export interface PendingMessage {
  outbox: 'timeline' | 'outcome';
  /** The document holding it: the application id, or the previous version's deadline id. */
  documentId: string;
}

/**
 * The takeover of publications a replica left behind: a fired deadline's message still in its
 * outbox a lease after it fired (the replica that fired it died or lost the broker) is published
 * by the one replica that wins the lease of the period, an insert into `deadline_publish_leases`
 * under a deterministic id.
 */
export function createPublishLeases(
  models: Pick<JanitorModels, 'leases' | 'timelineHeads' | 'deadlines' | 'outcomes'>,
) {
  const { leases } = models;
  const heads = rawCollection<TimelineDoc>(models.timelineHeads);
  const legacy = createLegacyDeadlines(models);

  return {
    /**
     * Fired deadlines whose message is still unpublished a lease after they fired. Each lease
     * period after that, one replica takes the publication over: returns those this call took.
     */
    async takeOverUnpublished(now: Date, leaseMs: number, limit: number): Promise<PendingMessage[]> {
      const before = new Date(now.getTime() - leaseMs);
      const [stale, staleHeads] = await Promise.all([
        legacy.unpublishedSince(before, limit),
        heads
          .find({ outboxPending: true, outboxAt: { $lte: before } }, { projection: { _id: 1, outboxAt: 1 }, limit })
          .toArray(),
      ]);
      const candidates: (PendingMessage & { since: Date })[] = [
        ...stale.map((d) => ({ outbox: 'outcome' as const, documentId: d.deadlineId, since: d.firedAt })),
        ...staleHeads.map((doc) => ({
          outbox: 'timeline' as const,
          documentId: doc._id,
          since: new Date(doc.outboxAt ?? 0),
        })),
      ];
      const taken: PendingMessage[] = [];
      for (const { since, ...pending } of candidates) {
        const period = Math.floor((now.getTime() - since.getTime()) / leaseMs);
        // A timeline's outbox may fill again after a later firing: its periods count from that
        // firing. An outcome's id is as the previous version took it, so both versions compete.
        const leaseId =
          pending.outbox === 'timeline'
            ? `${pending.documentId}:${since.getTime()}:${period}`
            : `${pending.documentId}:${period}`;
        if (await insertOnce(() => leases.create({ _id: leaseId, takenAt: now }))) taken.push(pending);
      }
      return taken;
    },
  };
}
export type PublishLeases = ReturnType<typeof createPublishLeases>;
