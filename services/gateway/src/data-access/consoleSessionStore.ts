import { Schema, type Connection } from 'mongoose';
import type { ConsoleSession } from '../domain/consoleSession';

/** Console sessions, shared by every gateway replica; removed when they end (revocation is deletion). */
const consoleSessionSchema = new Schema(
  {
    _id: { type: String, required: true },
    clientId: { type: String, required: true, index: true },
    userId: { type: String, default: null, index: true },
    role: { type: String, default: null },
    via: { type: String, required: true },
    csrfToken: { type: String, required: true },
    createdAt: { type: Date, required: true },
    lastSeenAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true, index: true },
  },
  { versionKey: false, collection: 'console_sessions' },
);
export const consoleSessionModel = (db: Connection) => db.model('ConsoleSession', consoleSessionSchema);
export type ConsoleSessionModel = ReturnType<typeof consoleSessionModel>;

type Doc = Omit<ConsoleSession, 'id'> & { _id: string };
const toSession = (doc: Doc): ConsoleSession => ({
  id: doc._id,
  clientId: doc.clientId,
  userId: doc.userId ?? null,
  role: doc.role ?? null,
  via: doc.via,
  csrfToken: doc.csrfToken,
  createdAt: doc.createdAt,
  lastSeenAt: doc.lastSeenAt,
  expiresAt: doc.expiresAt,
});

/**
 * Where console sessions live: every replica finds a session here, and ending one (sign-out, a
 * key rotation, a change of a staff user) deletes it, so a copied cookie opens nothing after.
 */
export function createConsoleSessionStore(model: ConsoleSessionModel) {
  return {
    async create(session: ConsoleSession): Promise<void> {
      const { id, ...fields } = session;
      await model.create({ _id: id, ...fields });
    },
    async find(id: string): Promise<ConsoleSession | null> {
      const doc = await model.findById(id).lean<Doc>();
      return doc ? toSession(doc) : null;
    },
    /** Records activity; never moves it back (two replicas may touch at once). */
    async touch(id: string, now: Date): Promise<void> {
      await model.updateOne({ _id: id, lastSeenAt: { $lt: now } }, { $set: { lastSeenAt: now } });
    },
    async end(id: string): Promise<void> {
      await model.deleteOne({ _id: id });
    },
    /** Ends the lender's sessions signed in with its API key, but `keep` (the one that rotated it). */
    async endKeySessions(clientId: string, keep?: string): Promise<number> {
      const res = await model.deleteMany({ clientId, via: 'api-key', ...(keep ? { _id: { $ne: keep } } : {}) });
      return res.deletedCount ?? 0;
    },
    /** Ends every session of a staff user, but `keep` (the one that changed its own password). */
    async endUserSessions(clientId: string, userId: string, keep?: string): Promise<number> {
      const res = await model.deleteMany({ clientId, userId, ...(keep ? { _id: { $ne: keep } } : {}) });
      return res.deletedCount ?? 0;
    },
    /** Removes sessions past their absolute end (idle ones are refused on use and go at their end). */
    async prune(now: Date): Promise<void> {
      await model.deleteMany({ expiresAt: { $lt: now } });
    },
  };
}
export type ConsoleSessionStore = ReturnType<typeof createConsoleSessionStore>;
