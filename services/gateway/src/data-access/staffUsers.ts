import { Schema, type Connection } from 'mongoose';
import type { StaffRole } from '@loan/contracts';

/** A member of a lender's staff, as the gateway stores it. */
export interface StaffUserRecord {
  userId: string;
  clientId: string;
  /** Lower-cased; unique within the lender. */
  email: string;
  role: StaffRole;
  status: 'invited' | 'active';
  /** scrypt (see domain/staff.ts); null until the invitation is accepted. */
  passwordHash: string | null;
  /** Sealed base32 TOTP secret: offered with the invitation, kept when enrolled. */
  totpSecret: string | null;
  totpEnabled: boolean;
  /** The last TOTP step accepted, so no code is good twice. */
  totpLastStep: number | null;
  /** SHA-256 of the open invitation's token, and when it lapses. */
  invitation: { tokenHash: string; expiresAt: Date } | null;
  failedSignIns: number;
  /** No sign-in is checked before this (after repeated failures); null when free. */
  signInBlockedUntil: Date | null;
  createdAt: Date;
  /** Who invited the user: a user id, `api-key` or `admin`. */
  createdBy: string;
  version: number;
}

const staffUserSchema = new Schema(
  {
    _id: { type: String, required: true },
    clientId: { type: String, required: true },
    email: { type: String, required: true },
    role: { type: String, required: true },
    status: { type: String, required: true },
    passwordHash: { type: String, default: null },
    totpSecret: { type: String, default: null },
    totpEnabled: { type: Boolean, default: false },
    totpLastStep: { type: Number, default: null },
    invitation: { type: new Schema({ tokenHash: String, expiresAt: Date }, { _id: false }), default: null },
    failedSignIns: { type: Number, default: 0 },
    signInBlockedUntil: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    createdBy: { type: String, required: true },
    version: { type: Number, required: true },
  },
  { versionKey: false, collection: 'staff_users', minimize: false },
);
staffUserSchema.index({ clientId: 1, email: 1 }, { unique: true });
staffUserSchema.index({ 'invitation.tokenHash': 1 }, { sparse: true });

/** A lender's staff settings: whether every user must sign in with a TOTP code. */
const staffSettingsSchema = new Schema(
  { _id: { type: String, required: true }, requireTotp: { type: Boolean, default: false } },
  { versionKey: false, collection: 'staff_settings' },
);

export const staffUserModel = (db: Connection) => db.model('StaffUser', staffUserSchema);
export const staffSettingsModel = (db: Connection) => db.model('StaffSettings', staffSettingsSchema);
type UserModel = ReturnType<typeof staffUserModel>;
type SettingsModel = ReturnType<typeof staffSettingsModel>;

type Doc = Omit<StaffUserRecord, 'userId'> & { _id: string };
const toRecord = ({ _id, ...doc }: Doc): StaffUserRecord => ({
  userId: _id,
  ...doc,
  passwordHash: doc.passwordHash ?? null,
  totpSecret: doc.totpSecret ?? null,
  totpEnabled: doc.totpEnabled ?? false,
  totpLastStep: doc.totpLastStep ?? null,
  invitation: doc.invitation?.tokenHash
    ? { tokenHash: doc.invitation.tokenHash, expiresAt: doc.invitation.expiresAt }
    : null,
  failedSignIns: doc.failedSignIns ?? 0,
  signInBlockedUntil: doc.signInBlockedUntil ?? null,
});

/** Staff users and the lender-wide staff settings; every change is conditional on the version read. */
export function createStaffUserRepository(deps: { users: UserModel; settings: SettingsModel }) {
  const { users, settings } = deps;
  return {
    async create(record: StaffUserRecord): Promise<void> {
      const { userId, ...fields } = record;
      await users.create({ _id: userId, ...fields });
    },
    async get(clientId: string, userId: string): Promise<StaffUserRecord | null> {
      const doc = await users.findOne({ _id: userId, clientId }).lean<Doc>();
      return doc ? toRecord(doc) : null;
    },
    async byEmail(clientId: string, email: string): Promise<StaffUserRecord | null> {
      const doc = await users.findOne({ clientId, email }).lean<Doc>();
      return doc ? toRecord(doc) : null;
    },
    /** Everyone with this e-mail address, across lenders (sign-in names no lender). */
    async allByEmail(email: string): Promise<StaffUserRecord[]> {
      const docs = await users.find({ email }).limit(20).lean<Doc[]>();
      return docs.map(toRecord);
    },
    async byInvitation(tokenHash: string): Promise<StaffUserRecord | null> {
      const doc = await users.findOne({ 'invitation.tokenHash': tokenHash }).lean<Doc>();
      return doc ? toRecord(doc) : null;
    },
    async list(clientId: string): Promise<StaffUserRecord[]> {
      const docs = await users.find({ clientId }).sort({ createdAt: 1, _id: 1 }).limit(500).lean<Doc[]>();
      return docs.map(toRecord);
    },
    async countOwners(clientId: string): Promise<number> {
      return users.countDocuments({ clientId, role: 'owner' });
    },
    /** Writes the record if it is still at `record.version - 1`; false on a conflict. */
    async update(record: StaffUserRecord): Promise<boolean> {
      const { userId, ...fields } = record;
      const res = await users.updateOne(
        { _id: userId, clientId: record.clientId, version: record.version - 1 },
        { $set: fields },
      );
      return res.modifiedCount === 1;
    },
    async remove(clientId: string, userId: string): Promise<boolean> {
      const res = await users.deleteOne({ _id: userId, clientId });
      return res.deletedCount === 1;
    },
    async requireTotp(clientId: string): Promise<boolean> {
      const doc = await settings.findById(clientId).lean<{ requireTotp?: boolean }>();
      return doc?.requireTotp ?? false;
    },
    async setRequireTotp(clientId: string, requireTotp: boolean): Promise<void> {
      await settings.updateOne({ _id: clientId }, { $set: { requireTotp } }, { upsert: true });
    },
  };
}
export type StaffUserRepository = ReturnType<typeof createStaffUserRepository>;
