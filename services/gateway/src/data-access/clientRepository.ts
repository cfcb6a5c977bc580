import { randomUUID } from 'node:crypto';
import { RECORD_RETENTION_YEARS, Topics, type ClientChanged } from '@loan/contracts';
import { withTraceContext, type OutboxRelay, type Sealer } from '@loan/runtime';
import type { ClientModel } from './clientModel';

export interface ClientRecord {
  clientId: string;
  name: string;
  apiKeyHash: string;
  webhookUrl: string | null;
  /** Newest first; `createdAt` is absent on secrets issued before it was recorded. */
  webhookSecrets: { secret: string; validUntil: Date | null; createdAt?: Date | null }[];
  providerSecretKey: string | null;
  /** Sealed: the webhook secret of the client's own provider app, when it has one. */
  providerWebhookSecret: string | null;
  /** The maker-checker threshold of reviews, in Naira; null: every review is final at once. */
  reviewConfirmationAbove: number | null;
  /** The IANA time zone of the lender's days and times; null: Africa/Lagos. */
  timeZone: string | null;
  /** Years an ended application's records are kept; null: the default (5). */
  recordRetentionYears?: number | null;
  version: number;
}

type Doc = Omit<ClientRecord, 'clientId'> & { _id: string };
const toRecord = (doc: Doc): ClientRecord => ({
  clientId: doc._id,
  name: doc.name,
  apiKeyHash: doc.apiKeyHash,
  webhookUrl: doc.webhookUrl ?? null,
  webhookSecrets: (doc.webhookSecrets ?? []).map((s) => ({
    secret: s.secret,
    validUntil: s.validUntil ?? null,
    createdAt: s.createdAt ?? null,
  })),
  providerSecretKey: doc.providerSecretKey ?? null,
  providerWebhookSecret: doc.providerWebhookSecret ?? null,
  reviewConfirmationAbove: doc.reviewConfirmationAbove ?? null,
  timeZone: doc.timeZone ?? null,
  recordRetentionYears: doc.recordRetentionYears ?? null,
  version: doc.version,
});

/** The fact other services project: the client as it now is (secrets stay sealed). */
function changed(record: ClientRecord, now: Date): ClientChanged {
  return {
    clientId: record.clientId,
    name: record.name,
    webhookUrl: record.webhookUrl,
    webhookSecrets: record.webhookSecrets.map((s) => ({
      secret: s.secret,
      validUntil: s.validUntil ? s.validUntil.toISOString() : null,
    })),
    providerSecretKey: record.providerSecretKey,
    version: record.version,
    changedAt: now.toISOString(),
    recordRetentionYears: record.recordRetentionYears ?? RECORD_RETENTION_YEARS.default,
  };
}

/** Client accounts; every change publishes the client's new state through the outbox. */
export function createClientRepository(deps: { model: ClientModel; relay: OutboxRelay; sealer: Sealer }) {
  const { model, relay } = deps;

  const entry = (record: ClientRecord, now: Date) => ({
    id: randomUUID(),
    topic: Topics.clients,
    key: record.clientId,
    value: changed(record, now),
    headers: withTraceContext(),
  });

  return {
    async findByKeyHash(apiKeyHash: string): Promise<ClientRecord | null> {
      const doc = await model.findOne({ apiKeyHash }, { outbox: 0 }).lean<Doc>();
      return doc ? toRecord(doc) : null;
    },

    async get(clientId: string): Promise<ClientRecord | null> {
      const doc = await model.findById(clientId, { outbox: 0 }).lean<Doc>();
      return doc ? toRecord(doc) : null;
    },

    async create(record: ClientRecord, now: Date): Promise<void> {
      await model.create({
        _id: record.clientId,
        ...record,
        createdAt: now,
        updatedAt: now,
        outbox: [entry(record, now)],
        outboxPending: true,
      });
      await relay.flush(record.clientId);
    },

    /** Applies a change if the client is still at `record.version - 1`; false on a conflict. */
    async update(record: ClientRecord, now: Date): Promise<boolean> {
      const { clientId, ...fields } = record;
      const res = await model.updateOne(
        { _id: clientId, version: record.version - 1 },
        { $set: { ...fields, updatedAt: now, outboxPending: true }, $push: { outbox: entry(record, now) } },
      );
      if (res.modifiedCount !== 1) return false;
      await relay.flush(clientId);
      return true;
    },
  };
}
export type ClientRepository = ReturnType<typeof createClientRepository>;
