import { randomBytes } from 'node:crypto';
import { Schema, type Connection } from 'mongoose';
import { z } from 'zod';
import { INVALID_CURSOR, cursorCodec } from '../domain/pageCursor';

/** One entry of the audit: who did what to which account, from where, and whether it was let. */
export interface AuditEntry {
  id: string;
  at: Date;
  /** `client.create`, `client.rotate-key`, `user.invite`, `admin.denied`, ... */
  action: string;
  /** The operator (admin API) or the lender (its API key or console). */
  actor: 'admin' | 'client';
  /** The admin caller's name (ADMIN_TOKENS; "admin" for ADMIN_TOKEN); null for a lender or a refused token. */
  adminName: string | null;
  /** The staff user who acted on the console; null with the API key or on the admin API. */
  userId: string | null;
  clientId: string | null;
  /** What else the entry says: the fields changed (never their values), the user acted on, the route refused. */
  details: Record<string, unknown>;
  ip: string | null;
  correlationId: string | null;
}

export type NewAuditEntry = Omit<
  AuditEntry,
  'id' | 'at' | 'adminName' | 'userId' | 'clientId' | 'details' | 'ip' | 'correlationId'
> &
  Partial<Pick<AuditEntry, 'adminName' | 'userId' | 'clientId' | 'details' | 'ip' | 'correlationId'>>;

const auditSchema = new Schema(
  {
    _id: { type: String, required: true },
    at: { type: Date, required: true },
    action: { type: String, required: true },
    actor: { type: String, required: true },
    adminName: { type: String, default: null },
    userId: { type: String, default: null },
    clientId: { type: String, default: null },
    details: { type: Schema.Types.Mixed, default: {} },
    ip: { type: String, default: null },
    correlationId: { type: String, default: null },
    /** When the retention (AUDIT_RETENTION) ends: the entry is removed then, and nothing removes it sooner. */
    expiresAt: { type: Date, required: true, index: true },
  },
  { versionKey: false, collection: 'audit_log', minimize: false },
);
auditSchema.index({ at: -1, _id: -1 });
export const auditModel = (db: Connection) => db.model('AuditEntry', auditSchema);
export type AuditModel = ReturnType<typeof auditModel>;

type Doc = Omit<AuditEntry, 'id'> & { _id: string; expiresAt: Date };
const toEntry = (doc: Doc): AuditEntry => ({
  id: doc._id,
  at: doc.at,
  action: doc.action,
  actor: doc.actor,
  adminName: doc.adminName ?? null,
  userId: doc.userId ?? null,
  clientId: doc.clientId ?? null,
  details: doc.details ?? {},
  ip: doc.ip ?? null,
  correlationId: doc.correlationId ?? null,
});

/** A position in the audit, newest first: opaque to callers. */
const auditCursor = cursorCodec(z.string().regex(/^[A-Za-z0-9-]{1,64}$/));

export class BadCursorError extends Error {}

let sequence = 0;
/**
 * An entry's id: its time, a count of this process's entries and a random part, so that entries
 * of one millisecond page back in the order this replica wrote them.
 */
const idAt = (now: Date) =>
  [
    now.getTime().toString(16).padStart(12, '0'),
    (sequence++ % 2 ** 32).toString(16).padStart(8, '0'),
    randomBytes(6).toString('hex'),
  ].join('-');

/**
 * The audit of account changes and failed admin attempts, in the gateway's database and shared
 * by every replica. Append-only: entries are added and read, never changed; the only removal is
 * `expire`, which drops entries whose retention (`retentionMs`, AUDIT_RETENTION) has ended (the
 * way rate windows and console sessions are pruned: FerretDB runs no TTL indexes).
 */
export function createAuditLog(deps: { model: AuditModel; retentionMs: number }) {
  const { model } = deps;
  return {
    async append(entry: NewAuditEntry, now: Date): Promise<AuditEntry> {
      const doc = {
        _id: idAt(now),
        at: now,
        action: entry.action,
        actor: entry.actor,
        adminName: entry.adminName ?? null,
        userId: entry.userId ?? null,
        clientId: entry.clientId ?? null,
        details: entry.details ?? {},
        ip: entry.ip ?? null,
        correlationId: entry.correlationId ?? null,
        expiresAt: new Date(now.getTime() + deps.retentionMs),
      };
      await model.create(doc);
      return toEntry(doc);
    },
    /** One page, newest first; `nextCursor` is null on the last. Throws {@link BadCursorError} for a cursor it did not make. */
    async page(query: { cursor?: string; limit: number }): Promise<{ items: AuditEntry[]; nextCursor: string | null }> {
      const position = query.cursor === undefined ? null : auditCursor.decode(query.cursor);
      if (query.cursor !== undefined && !position) throw new BadCursorError(INVALID_CURSOR);
      const after = position ? { at: new Date(position.at), id: position.id } : null;
      const filter = after ? { $or: [{ at: { $lt: after.at } }, { at: after.at, _id: { $lt: after.id } }] } : {};
      const docs = await model
        .find(filter)
        .sort({ at: -1, _id: -1 })
        .limit(query.limit + 1)
        .lean<Doc[]>();
      const items = docs.slice(0, query.limit).map(toEntry);
      const last = items[items.length - 1];
      return {
        items,
        nextCursor:
          docs.length > query.limit && last ? auditCursor.encode({ at: last.at.toISOString(), id: last.id }) : null,
      };
    },
    /** Removes only entries whose retention has ended. */
    async expire(now: Date): Promise<void> {
      await model.deleteMany({ expiresAt: { $lt: now } });
    },
  };
}
export type AuditLog = ReturnType<typeof createAuditLog>;

/** Writes an entry of the audit; a failure to write is logged with the entry, never lost silently. */
export interface AuditRecorder {
  record(entry: NewAuditEntry): Promise<void>;
}

export function auditRecorder(deps: {
  log: Pick<AuditLog, 'append'>;
  clock: { now(): Date };
  logger: { error(obj: object, msg: string): void };
}): AuditRecorder {
  return {
    async record(entry) {
      try {
        await deps.log.append(entry, deps.clock.now());
      } catch (err) {
        deps.logger.error({ err, audit: entry }, 'audit entry not written to the audit log');
      }
    },
  };
}
