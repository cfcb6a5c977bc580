import type { mongo } from 'mongoose';
import { isSealed, type Sealer } from './seal';

/** A field that holds personal data, stored in plain text by releases that did not seal it. */
export interface PlainField {
  collection: string;
  /** Dot path within a document; `*` stands for every item of an array. */
  path: string;
  /** An object (a provider's raw result) that is stored as one sealed JSON string. */
  json?: boolean;
}

export interface SealPlainCount {
  sealed: number;
  /** Changed by the service meanwhile (its own write seals them): left alone. */
  changed: number;
}

/** The values at a path with `*` for array items, each with its concrete dot path. */
function valuesAt(value: unknown, segments: string[], at: string[] = []): { path: string; value: unknown }[] {
  if (segments.length === 0) return [{ path: at.join('.'), value }];
  const [head, ...rest] = segments;
  if (head === '*') {
    return Array.isArray(value) ? value.flatMap((item, i) => valuesAt(item, rest, [...at, String(i)])) : [];
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  const next = (value as Record<string, unknown>)[head!];
  return next === undefined ? [] : valuesAt(next, rest, [...at, head!]);
}

/**
 * Seals the plain-text personal data that documents written before it was sealed still hold, in
 * the given fields of a database's collections; sealed values, empty strings and nulls are left
 * as they are. A document's values are replaced only if the document is still as it was read
 * (its `rev`, or each value where it has none), so a service writing at the same time is never
 * overwritten; running it again finds nothing left to do.
 */
export async function sealPlainFields(
  db: mongo.Db,
  sealer: Pick<Sealer, 'seal'>,
  fields: readonly PlainField[],
): Promise<SealPlainCount> {
  const count: SealPlainCount = { sealed: 0, changed: 0 };
  for (const collection of new Set(fields.map((f) => f.collection))) {
    const own = fields.filter((f) => f.collection === collection);
    const coll = db.collection(collection);
    for await (const doc of coll.find({})) {
      const set: Record<string, string> = {};
      const unchanged: Record<string, unknown> = {};
      for (const field of own) {
        for (const { path, value } of valuesAt(doc, field.path.split('.'))) {
          if (
            field.json
              ? value !== null && typeof value === 'object'
              : typeof value === 'string' && value !== '' && !isSealed(value)
          ) {
            set[path] = sealer.seal(field.json ? JSON.stringify(value) : (value as string));
            unchanged[path] = value;
          }
        }
      }
      const paths = Object.keys(set).length;
      if (paths === 0) continue;
      const filter = typeof doc.rev === 'number' ? { _id: doc._id, rev: doc.rev } : { _id: doc._id, ...unchanged };
      const written = await coll.updateOne(filter, { $set: set });
      if (written.modifiedCount === 1) count.sealed += paths;
      else count.changed += paths;
    }
  }
  return count;
}

/**
 * Where each service's database kept personal data in plain text before it was sealed, by the
 * service that owns the database (the database's name ends in `_<service>`).
 */
export const plainPersonalFields: Readonly<Record<string, readonly PlainField[]>> = {
  applications: [
    { collection: 'applications', path: 'applicant.firstName' },
    { collection: 'applications', path: 'applicant.lastName' },
    { collection: 'applications', path: 'applicant.email' },
    { collection: 'applications', path: 'applicant.phone' },
    { collection: 'applications', path: 'accounts.*.holderName' },
  ],
  enrichment: [
    { collection: 'bank_data', path: 'profile.holderName' },
    { collection: 'bank_data', path: 'profile.income.streams.*.lastIncomeDescription' },
    { collection: 'enrichment_jobs', path: 'income.result', json: true },
    { collection: 'enrichment_jobs', path: 'insights.result', json: true },
  ],
};
