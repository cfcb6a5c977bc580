import type { mongo } from 'mongoose';
import { isSealed, type createSealer } from './seal';

type KeyedSealer = ReturnType<typeof createSealer>;

/** Every sealed string in a document, with its dot path (array items by index). */
function sealedValues(value: unknown, path: string[] = []): { path: string; value: string }[] {
  if (typeof value === 'string') return isSealed(value) && path.length > 0 ? [{ path: path.join('.'), value }] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => sealedValues(item, [...path, String(i)]));
  if (value && typeof value === 'object' && !(value instanceof Date) && !Buffer.isBuffer(value)) {
    return Object.entries(value).flatMap(([key, item]) => sealedValues(item, [...path, key]));
  }
  return [];
}

export interface ResealCount {
  resealed: number;
  /** Changed by the service meanwhile (it wrote a fresh value): left alone. */
  changed: number;
  /** Sealed under a key that is neither DATA_KEY nor in DATA_KEY_PREVIOUS. */
  unknownKey: number;
}

/**
 * Re-seals under the current data key every value of every collection of a database that was
 * sealed under another key (or before key ids). Each value is replaced only if the document
 * still holds it, so a service writing at the same time is never overwritten; running it again
 * finds nothing left to do.
 */
export async function resealDatabase(db: mongo.Db, sealer: KeyedSealer): Promise<ResealCount> {
  const count: ResealCount = { resealed: 0, changed: 0, unknownKey: 0 };
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
    const collection = db.collection(name);
    for await (const doc of collection.find({})) {
      for (const { path, value } of sealedValues(doc)) {
        if (sealer.keyIdOf(value) === sealer.keyId) continue;
        let plain: string;
        try {
          plain = sealer.open(value);
        } catch {
          count.unknownKey++;
          continue;
        }
        const written = await collection.updateOne({ _id: doc._id, [path]: value }, { $set: { [path]: sealer.seal(plain) } });
        if (written.modifiedCount === 1) count.resealed++;
        else count.changed++;
      }
    }
  }
  return count;
}
