import { rawCollection, type OutboxEntry, type Sealer } from '@loan/runtime';
import type { ConsentEnd, EnrichmentJob, IncomePart, InsightsPart } from '../domain/job';
import type { EnrichmentModels } from './models';

export interface StoredJob {
  job: EnrichmentJob;
  rev: number;
  /** Whether the outbox held unpublished entries when the job was read. */
  outboxPending: boolean;
}

type Doc = Record<string, unknown> & { _id: string; rev: number };

const date = (v: unknown): Date | null => (v ? new Date(v as string | Date) : null);

/**
 * The provider's results name the account's holder and carry the statement's narrations, which
 * may name the applicant too: each is stored as one sealed JSON string. Jobs written before
 * that hold the result as an object, read as it is (and sealed at the job's next write).
 */
const sealedResult = (sealer: Sealer, result: Record<string, unknown> | null) =>
  result === null ? null : sealer.seal(JSON.stringify(result));
const openedResult = (sealer: Sealer, stored: unknown): Record<string, unknown> | null =>
  typeof stored === 'string'
    ? (JSON.parse(sealer.open(stored)) as Record<string, unknown>)
    : ((stored as Record<string, unknown> | null) ?? null);

function toPart(raw: unknown, sealer: Sealer): IncomePart {
  const p = (raw ?? {}) as Record<string, unknown>;
  return {
    status: (p.status as IncomePart['status']) ?? 'NOT_STARTED',
    startedAt: date(p.startedAt),
    signalledAt: date(p.signalledAt),
    doneAt: date(p.doneAt),
    result: openedResult(sealer, p.result),
  };
}

function toJob(doc: Doc, sealer: Sealer): EnrichmentJob {
  const d = doc as Record<string, unknown>;
  const insights = (d.insights ?? {}) as Record<string, unknown>;
  return {
    accountId: doc._id,
    applicationId: d.applicationId as string,
    applicantId: d.applicantId as string,
    clientId: d.clientId as string,
    providerAccountId: d.providerAccountId as string,
    institution: (d.institution as string | null) ?? null,
    accountNumber: (d.accountNumber as string | null) ?? null,
    providerKeySealed: d.providerKeySealed as string,
    attempt: d.attempt as number,
    since: d.since as string,
    status: d.status as EnrichmentJob['status'],
    income: toPart(d.income, sealer),
    insights: { ...toPart(insights, sealer), jobId: (insights.jobId as string | null) ?? null } satisfies InsightsPart,
    nextTryAt: date(d.nextTryAt),
    failures: (d.failures as number) ?? 0,
    lastError: (d.lastError as string | null) ?? null,
    handledFacts: (d.handledFacts as string[]) ?? [],
    enrichedAt: date(d.enrichedAt),
    failedAt: date(d.failedAt),
    closedAt: date(d.closedAt),
    scrubbedAt: date(d.scrubbedAt),
    consentEnd: (d.consentEnd as ConsentEnd | null | undefined) ?? null,
    unlinkPending: d.unlinkPending === true,
    createdAt: new Date(d.createdAt as string),
    updatedAt: new Date(d.updatedAt as string),
  };
}

function toFields(job: EnrichmentJob, sealer: Sealer): Record<string, unknown> {
  const { accountId: _id, ...rest } = job;
  return {
    ...rest,
    income: { ...job.income, result: sealedResult(sealer, job.income.result) },
    insights: { ...job.insights, result: sealedResult(sealer, job.insights.result) },
  };
}

/**
 * Loads and stores enrichment jobs with optimistic concurrency (a revision number per document);
 * the per-message reads and writes go through the driver's collection, the job's fields as
 * they are but for the provider's results (sealed).
 */
export function createJobRepository(models: EnrichmentModels, sealer: Sealer) {
  const model = models.jobs;
  const jobs = rawCollection<Doc>(model);
  const active = { status: 'PENDING', closedAt: null, scrubbedAt: null };
  return {
    async get(accountId: string): Promise<StoredJob | null> {
      const doc = await jobs.findOne({ _id: accountId }, { projection: { outbox: 0 } });
      return doc ? { job: toJob(doc, sealer), rev: doc.rev, outboxPending: doc.outboxPending === true } : null;
    },

    /** Inserts a new job; an existing one for the account makes this throw (code 11000). */
    async insert(job: EnrichmentJob, outbox: OutboxEntry[] = []): Promise<void> {
      await jobs.insertOne({
        _id: job.accountId,
        rev: 1,
        ...toFields(job, sealer),
        outbox,
        outboxPending: outbox.length > 0,
      });
    },

    /** Writes the new state if nobody changed the document since `rev`; false on a conflict. */
    async replace(job: EnrichmentJob, rev: number, outbox: OutboxEntry[] = []): Promise<boolean> {
      const update: Record<string, unknown> = { $set: { ...toFields(job, sealer), rev: rev + 1 } };
      if (outbox.length > 0) {
        (update.$set as Record<string, unknown>).outboxPending = true;
        update.$push = { outbox: { $each: outbox } };
      }
      const res = await jobs.updateOne({ _id: job.accountId, rev }, update);
      return res.modifiedCount === 1;
    },

    /**
     * When every pending job is next due. Reads the whole collection on FerretDB: for the
     * periodic reload of the worker's schedule, never for a message.
     */
    async activeSchedule(): Promise<Array<{ accountId: string; nextTryAt: Date | null }>> {
      const docs = await model
        .find(active, { _id: 1, nextTryAt: 1 })
        .lean<{ _id: string; nextTryAt?: Date | null }[]>();
      return docs.map((d) => ({ accountId: d._id, nextTryAt: date(d.nextTryAt) }));
    },

    /** Jobs whose application is not closed yet, for the start-up check of the lookups (a whole read). */
    async open(): Promise<Array<{ accountId: string; applicationId: string; providerAccountId: string }>> {
      const docs = await model
        .find({ closedAt: null }, { _id: 1, applicationId: 1, providerAccountId: 1 })
        .lean<{ _id: string; applicationId: string; providerAccountId: string }[]>();
      return docs.map((d) => ({
        accountId: d._id,
        applicationId: d.applicationId,
        providerAccountId: d.providerAccountId,
      }));
    },

    /** Ids of an application's jobs by a query on the collection: only for a scrub (rare), as a safety net. */
    async idsByApplication(applicationId: string): Promise<string[]> {
      const docs = await model.find({ applicationId }, { _id: 1 }).lean<{ _id: string }[]>();
      return docs.map((d) => d._id);
    },

    /** Accounts whose consent ended and that are not unlinked at the provider yet: read at start, after a crash. */
    async unlinksPending(): Promise<string[]> {
      const docs = await model.find({ unlinkPending: true }, { _id: 1 }).lean<{ _id: string }[]>();
      return docs.map((d) => d._id);
    },
  };
}
export type JobRepository = ReturnType<typeof createJobRepository>;
