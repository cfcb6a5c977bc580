import { Schema, type Connection } from 'mongoose';
import { RECORD_RETENTION_YEARS, type ClientChanged } from '@loan/contracts';
import { isDuplicateKey } from '@loan/runtime';

/** What the service keeps of each client account: the settings that shape its applications' records. */
const clientSettingsSchema = new Schema(
  {
    _id: { type: String, required: true },
    recordRetentionYears: { type: Number, required: true },
    version: { type: Number, required: true },
    changedAt: Date,
  },
  { versionKey: false, collection: 'client_settings' },
);

export const clientSettingsModel = (db: Connection) => db.model('ClientSettings', clientSettingsSchema);
type ClientSettingsModel = ReturnType<typeof clientSettingsModel>;

/**
 * The projection of client accounts from `loan.gateway.clients` (the lender's record retention):
 * the highest version wins, so a replayed or reordered change never undoes a newer one. A client
 * the projection has not heard of keeps records for the default period.
 */
export function createClientSettingsRepository(model: ClientSettingsModel) {
  return {
    /** Applies a client change; false when the projection already holds that version or a newer one. */
    async apply(change: ClientChanged): Promise<boolean> {
      const fields = {
        recordRetentionYears: change.recordRetentionYears ?? RECORD_RETENTION_YEARS.default,
        version: change.version,
        changedAt: new Date(change.changedAt),
      };
      // One consumer handles a client's partition at a time: read, compare and write is safe.
      for (let attempt = 0; attempt < 3; attempt++) {
        const current = await model.findById(change.clientId, { version: 1 }).lean<{ version: number }>();
        if (current && current.version >= change.version) return false;
        if (current) {
          await model.updateOne({ _id: change.clientId }, { $set: fields });
          return true;
        }
        try {
          await model.create({ _id: change.clientId, ...fields });
          return true;
        } catch (error) {
          if (!isDuplicateKey(error)) throw error;
        }
      }
      return false;
    },

    /** Years the client's ended applications are kept. */
    async recordRetentionYears(clientId: string): Promise<number> {
      const doc = await model.findById(clientId, { recordRetentionYears: 1 }).lean<{ recordRetentionYears: number }>();
      return doc?.recordRetentionYears ?? RECORD_RETENTION_YEARS.default;
    },
  };
}
export type ClientSettingsRepository = ReturnType<typeof createClientSettingsRepository>;
