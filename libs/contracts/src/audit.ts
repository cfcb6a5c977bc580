import { z } from 'zod';
import { PageParams } from './primitives';

/** `GET /admin/audit`: a page of the audit, newest first. */
export const AuditListQuery = z.strictObject(
  { ...PageParams },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `Unknown query parameter ${issue.keys.join(', ')}; allowed: limit, cursor`
        : undefined,
  },
);
export type AuditListQuery = z.input<typeof AuditListQuery>;

/** One entry of the audit: an account change, or a refused admin token. */
export const AuditEntryView = z.object({
  id: z.string(),
  /** When it happened (ISO 8601). */
  at: z.string(),
  /** `client.create`, `client.update`, `client.rotate-key`, `client.rotate-webhook-secret`, `user.invite`, ..., `admin.denied`. */
  action: z.string(),
  /** The operator (admin API) or the lender (its API key or console). */
  actor: z.enum(['admin', 'client']),
  /** Which admin caller (ADMIN_TOKENS' name; "admin" for ADMIN_TOKEN); null for a lender and a refused token. */
  adminName: z.string().nullable(),
  /** The lender's staff user who acted on the console; null otherwise. */
  userId: z.string().nullable(),
  /** The lender account acted on; null for a refused admin token. */
  clientId: z.string().nullable(),
  /** What else: the fields changed (never their values), the user acted on, the route a refused token asked for. */
  details: z.record(z.string(), z.unknown()),
  ip: z.string().nullable(),
  correlationId: z.string().nullable(),
});
export type AuditEntryView = z.infer<typeof AuditEntryView>;

export const AuditPage = z.object({
  items: z.array(AuditEntryView),
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type AuditPage = z.infer<typeof AuditPage>;
