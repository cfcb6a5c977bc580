import type { mongo } from 'mongoose';
import { isLegacySealed, isSealed, SealPurposes, type PurposeSealer, type SealPurpose } from './seal';

/** Every sealed string in a document, with its dot path (array items by index). */
function sealedValues(value: unknown, path: string[] = []): { path: string; value: string }[] {
  if (typeof value === 'string') return isSealed(value) && path.length > 0 ? [{ path: path.join('.'), value }] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => sealedValues(item, [...path, String(i)]));
  if (value && typeof value === 'object' && !(value instanceof Date) && !Buffer.isBuffer(value)) {
    return Object.entries(value).flatMap(([key, item]) => sealedValues(item, [...path, key]));
  }
  return [];
}

/** Fields that hold a client's secrets, wherever they sit (`webhookSecrets.<i>.secret` among them). */
const CLIENT_SECRET_FIELDS = new Set([
  'secret',
  'providerSecretKey',
  'providerWebhookSecret',
  'providerKeySealed',
  'providerKey',
]);

/**
 * The purpose a value sealed before purposes was for, from the field that holds it: these
 * values carry none, and must be sealed again for the purpose their readers open them for.
 */
export function legacyPurposeOf(path: string): SealPurpose {
  const field =
    path
      .split('.')
      .filter((part) => !/^\d+$/.test(part))
      .at(-1) ?? '';
  if (CLIENT_SECRET_FIELDS.has(field)) return 'client-secrets';
  if (field === 'totpSecret') return 'staff-credentials';
  if (field === 'sealedResult') return 'command-replies';
  return 'personal-data';
}

export interface ResealCount {
  resealed: number;
  /** Changed by the service meanwhile (it wrote a fresh value): left alone. */
  changed: number;
  /** Sealed under a key that is neither DATA_KEY nor in DATA_KEY_PREVIOUS (or for no purpose known). */
  unknownKey: number;
}

/**
 * Re-seals under the current data key, in the current format, every value of every collection
 * of a database that was sealed under another key or before purposes (those are sealed again
 * for the purpose of the field that holds them, {@link legacyPurposeOf}; the others keep the
 * purpose they open for). Each value is replaced only if the document still holds it, so a
 * service writing at the same time is never overwritten; running it again finds nothing left to do.
 */
export async function resealDatabase(db: mongo.Db, sealer: PurposeSealer): Promise<ResealCount> {
  const count: ResealCount = { resealed: 0, changed: 0, unknownKey: 0 };
  const purposeOf = (path: string, value: string): SealPurpose | null => {
    if (isLegacySealed(value)) return legacyPurposeOf(path);
    for (const purpose of SealPurposes) {
      const candidate = sealer.for(purpose);
      if (candidate.isCurrent(value)) return null;
      try {
        candidate.open(value);
        return purpose;
      } catch {
        // Not for this purpose: try the next.
      }
    }
    throw new Error('Sealed under an unknown key');
  };
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
    const collection = db.collection(name);
    for await (const doc of collection.find({})) {
      for (const { path, value } of sealedValues(doc)) {
        let resealed: string;
        try {
          const purpose = purposeOf(path, value);
          if (purpose === null) continue;
          const target = sealer.for(purpose);
          resealed = target.seal(target.open(value));
        } catch {
          count.unknownKey++;
          continue;
        }
        const written = await collection.updateOne({ _id: doc._id, [path]: value }, { $set: { [path]: resealed } });
        if (written.modifiedCount === 1) count.resealed++;
        else count.changed++;
      }
    }
  }
  return count;
}
