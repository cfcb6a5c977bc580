import { randomUUID } from 'node:crypto';
import { BUILTIN_POLICY, BUILTIN_POLICY_VERSION, type CreditPolicy } from '@loan/contracts';
import { ServiceError, rawCollection } from '@loan/runtime';
import { emptyBook, type PolicyBook } from '../domain/policy/versions';
import type { AppliedPolicy } from '../domain/scoreApplication/scoreApplication';
import type { PolicyModels } from './models';

export interface PolicyDoc {
  _id: string;
  clientId: string;
  version: number;
  policy: CreditPolicy;
  createdAt: Date;
  createdBy: string;
}

export interface BookDoc {
  _id: string;
  lastVersion: number;
  activations: PolicyBook['activations'];
  challenger: PolicyBook['challenger'];
  rev: number;
}

export interface ChangeDoc {
  _id: string;
  clientId: string;
  version: number | null;
  action: string;
  actor: string;
  at: Date;
}

/** A stored version of a lender's policy. */
export interface StoredPolicy {
  version: number;
  policy: CreditPolicy;
  createdAt: Date | null;
  createdBy: string | null;
}

const BUILTIN_STORED: StoredPolicy = {
  version: BUILTIN_POLICY_VERSION,
  policy: BUILTIN_POLICY,
  createdAt: null,
  createdBy: null,
};

const idOf = (clientId: string, version: number) => `${clientId}/${version}`;

const toBook = (clientId: string, doc: BookDoc | null): PolicyBook & { rev: number } =>
  doc
    ? {
        clientId,
        lastVersion: doc.lastVersion,
        activations: (doc.activations ?? []).map((a) => ({ ...a, at: new Date(a.at) })),
        challenger: doc.challenger ? { ...doc.challenger, since: new Date(doc.challenger.since) } : null,
        rev: doc.rev ?? 0,
      }
    : { ...emptyBook(clientId), rev: 0 };

/**
 * A lender's policies: immutable numbered versions, and the book of which is active and which
 * is the challenger. Every replica reads the book for each analysis, so an activation is in
 * force everywhere for the next analysis without a restart.
 */
export function createPolicyRepository(models: PolicyModels) {
  const policies = rawCollection<PolicyDoc>(models.policies);
  const books = rawCollection<BookDoc>(models.books);
  const changes = rawCollection<ChangeDoc>(models.changes);

  async function book(clientId: string) {
    return toBook(clientId, await books.findOne({ _id: clientId }));
  }

  async function get(clientId: string, version: number): Promise<StoredPolicy | null> {
    if (version === BUILTIN_POLICY_VERSION) return BUILTIN_STORED;
    const doc = await policies.findOne({ _id: idOf(clientId, version) });
    return doc
      ? { version: doc.version, policy: doc.policy, createdAt: doc.createdAt, createdBy: doc.createdBy }
      : null;
  }

  return {
    book,
    get,

    async list(clientId: string): Promise<StoredPolicy[]> {
      const docs = await policies.find({ clientId }).sort({ version: 1 }).toArray();
      return [
        BUILTIN_STORED,
        ...docs.map((d) => ({ version: d.version, policy: d.policy, createdAt: d.createdAt, createdBy: d.createdBy })),
      ];
    },

    /** Stores a new version under the next number of the lender's book. */
    async create(clientId: string, policy: CreditPolicy, actor: string, now: Date): Promise<StoredPolicy> {
      const updated = await books.findOneAndUpdate(
        { _id: clientId },
        { $inc: { lastVersion: 1 }, $setOnInsert: { activations: [], challenger: null, rev: 0 } },
        { upsert: true, returnDocument: 'after' },
      );
      const version = updated!.lastVersion;
      await policies.insertOne({
        _id: idOf(clientId, version),
        clientId,
        version,
        policy,
        createdAt: now,
        createdBy: actor,
      });
      return { version, policy, createdAt: now, createdBy: actor };
    },

    /** Writes a changed book if nobody changed it since `rev` was read; false otherwise. */
    async saveBook(next: PolicyBook, rev: number): Promise<boolean> {
      const written = await books.updateOne(
        { _id: next.clientId, rev },
        { $set: { activations: next.activations, challenger: next.challenger, rev: rev + 1 } },
      );
      if (written.matchedCount === 1) return true;
      if (rev !== 0) return false;
      // A lender without a book yet: the first change creates it.
      try {
        await books.insertOne({
          _id: next.clientId,
          lastVersion: next.lastVersion,
          activations: next.activations,
          challenger: next.challenger,
          rev: 1,
        });
        return true;
      } catch {
        return false;
      }
    },

    async recordChange(change: Omit<ChangeDoc, '_id'>) {
      await changes.insertOne({ _id: randomUUID(), ...change });
    },

    async changesOf(clientId: string) {
      return changes.find({ clientId }).sort({ at: 1 }).toArray();
    },

    /** A version the book names, to decide with. */
    async resolve(clientId: string, version: number): Promise<AppliedPolicy> {
      const stored = await get(clientId, version);
      // Versions are written before the book names them and never deleted: a miss is a read of a
      // lagging replica, worth another try.
      if (!stored) throw new ServiceError(`Policy version ${version} of ${clientId} not found`, { retriable: true });
      return { version, policy: stored.policy };
    },
  };
}
export type PolicyRepository = ReturnType<typeof createPolicyRepository>;
