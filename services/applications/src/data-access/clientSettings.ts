import { Schema, type Connection } from 'mongoose';
import { RECORD_RETENTION_YEARS, type ClientChanged } from '@loan/contracts';
import { applyVersioned } from '@loan/runtime';

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
      return applyVersioned(model, change.clientId, fields);
    },

    /** Years the client's ended applications are kept. */
    async recordRetentionYears(clientId: string): Promise<number> {
      const doc = await model.findById(clientId, { recordRetentionYears: 1 }).lean<{ recordRetentionYears: number }>();
      return doc?.recordRetentionYears ?? RECORD_RETENTION_YEARS.default;
    },
  };
}
export type ClientSettingsRepository = ReturnType<typeof createClientSettingsRepository>;
