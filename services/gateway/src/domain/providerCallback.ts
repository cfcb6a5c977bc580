import { createHash } from 'node:crypto';
import type { ProviderCallback } from '@loan/contracts';

const KINDS: Record<string, ProviderCallback['kind']> = {
  'mono.events.account_connected': 'account_connected',
  'mono.events.account_updated': 'account_updated',
  'mono.events.account_reauthorized': 'account_reauthorized',
  'mono.events.account_income': 'income_ready',
  'mono.events.statement_insights': 'statement_insights_ready',
};

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/**
 * The provider account a webhook is about, wherever Mono puts it for that event: `data.account`
 * (an object with `_id` or `id`, or the id itself), else `data.id`, else `data.accountId`.
 */
function accountIdOf(data: Record<string, unknown>): string | null {
  const account = data.account;
  const nested = typeof account === 'object' && account !== null ? (account as Record<string, unknown>) : {};
  return str(nested._id) ?? str(nested.id) ?? str(account) ?? str(data.id) ?? str(data.accountId);
}

/**
 * Turns a verified provider webhook into the fact other services consume. Null when the body
 * is not a webhook we understand (no event name, or no account to attach it to).
 */
export function toProviderCallback(body: unknown, rawBody: Buffer, now: Date): ProviderCallback | null {
  if (typeof body !== 'object' || body === null) return null;
  const b = body as Record<string, unknown>;
  const event = str(b.event);
  const data = typeof b.data === 'object' && b.data !== null ? (b.data as Record<string, unknown>) : null;
  if (!event || !data) return null;
  const providerAccountId = accountIdOf(data);
  if (!providerAccountId) return null;
  const meta = typeof data.meta === 'object' && data.meta !== null ? (data.meta as Record<string, unknown>) : {};
  return {
    callbackId: str(b.event_id) ?? createHash('sha256').update(rawBody).digest('hex'),
    kind: KINDS[event] ?? 'other',
    providerEvent: event,
    providerAccountId,
    ref: str(meta.ref),
    receivedAt: now.toISOString(),
    // Ids only: the provider's account data (holder name, account number, BVN, balance) stays
    // with the provider; the enrichment service fetches it with the lender's key.
    payload: { id: providerAccountId, ...(str(meta.ref) ? { meta: { ref: str(meta.ref) } } : {}) },
  };
}
