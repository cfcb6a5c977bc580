import { Schema, type Connection } from 'mongoose';
import { outboxFields } from '@loan/runtime';

/** A lender's account: API key hash, webhook endpoint and secrets, provider key (sealed). */
const clientSchema = new Schema(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    apiKeyHash: { type: String, required: true, unique: true },
    webhookUrl: { type: String, default: null },
    webhookSecrets: {
      type: [new Schema({ secret: String, validUntil: Date, createdAt: Date }, { _id: false })],
      default: [],
    },
    providerSecretKey: { type: String, default: null },
    providerWebhookSecret: { type: String, default: null },
    reviewConfirmationAbove: { type: Number, default: null },
    timeZone: { type: String, default: null },
    recordRetentionYears: { type: Number, default: null },
    version: { type: Number, required: true },
    createdAt: Date,
    updatedAt: Date,
    ...outboxFields,
  },
  { versionKey: false, collection: 'clients', minimize: false },
);

export const clientModel = (db: Connection) => db.model('Client', clientSchema);
export type ClientModel = ReturnType<typeof clientModel>;

/** One counter per rate-limit bucket and window; shared by every gateway replica. */
const rateWindowSchema = new Schema(
  {
    _id: { type: String, required: true },
    count: { type: Number, required: true },
    expiresAt: { type: Date, required: true, index: true },
  },
  { versionKey: false, collection: 'rate_windows' },
);
export const rateWindowModel = (db: Connection) => db.model('RateWindow', rateWindowSchema);
export type RateWindowModel = ReturnType<typeof rateWindowModel>;
