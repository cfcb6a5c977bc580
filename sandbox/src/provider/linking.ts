import { COMMERCIAL_BANKS, DEFAULT_PERSONA, createRng, type Institution, type PersonaId } from '../personas';
import { lookupSession } from './sessions';
import type { LinkedAccount, LinkSession, ProviderStore } from './store';
import type { WebhookSender } from './webhooks';

export interface LinkRequest {
  sessionId: string;
  /** Defaults to a commercial bank chosen from the seed. */
  institution?: Institution;
  /** Defaults to `salaried`. */
  persona?: PersonaId;
}

export type LinkError = 'SESSION_NOT_FOUND' | 'SESSION_EXPIRED' | 'SESSION_CLOSED' | 'ACCOUNT_NOT_FOUND';

export type LinkOutcome =
  { ok: true; account: LinkedAccount; reauthorised: boolean } | { ok: false; error: LinkError; session?: LinkSession };

export interface Linking {
  /** Links one more account into the session (or re-links the account of a reauth session). */
  link(request: LinkRequest): LinkOutcome;
}

export interface LinkingOptions {
  store: ProviderStore;
  webhooks: WebhookSender;
  clock: () => Date;
}

const RETRIEVED_DATA = ['identity', 'balance', 'transactions'];

/** `mono.events.account_connected` data. */
export function accountConnectedData(account: LinkedAccount) {
  return {
    id: account.id,
    customer: account.customerId,
    meta: { data_status: 'AVAILABLE', auth_method: account.authMethod, ref: account.ref },
  };
}

/** `mono.events.account_updated` data: the account in the webhook's camelCase shape. */
export function accountUpdatedData(account: LinkedAccount) {
  const details = account.data.account;
  return {
    account: {
      _id: account.id,
      name: details.name,
      accountNumber: details.account_number,
      currency: details.currency,
      balance: details.balance,
      type: details.type,
      bvn: details.bvn,
      authMethod: account.authMethod,
      institution: {
        name: details.institution.name,
        bankCode: details.institution.bank_code,
        type: details.institution.type,
      },
    },
    meta: {
      data_status: 'AVAILABLE',
      auth_method: account.authMethod,
      ref: account.ref,
      retrieved_data: RETRIEVED_DATA,
    },
  };
}

/**
 * Completing a link, whether from the widget or from `POST /sandbox/link`. The n-th account
 * of a session is generated from the seed `<sessionId>:<n>`, so the same session always
 * yields the same accounts.
 */
export function createLinking({ store, webhooks, clock }: LinkingOptions): Linking {
  function reauthorise(session: LinkSession): LinkOutcome {
    const account = session.accountId ? store.accounts.get(session.accountId) : undefined;
    if (!account) return { ok: false, error: 'ACCOUNT_NOT_FOUND' };
    if (!session.linkedAccountIds.includes(account.id)) session.linkedAccountIds.push(account.id);
    webhooks.send(account.id, 'mono.events.account_reauthorized', { account: { _id: account.id } });
    return { ok: true, account, reauthorised: true };
  }

  return {
    link: (request) => {
      const now = clock();
      const found = lookupSession(store.sessions, request.sessionId, now);
      if (!found.ok) return found;
      const session = found.session;
      if (session.scope === 'reauth') return reauthorise(session);

      const seed = `${session.id}:${session.linkedAccountIds.length}`;
      const institution = request.institution ?? createRng(`institution:${seed}`).pick(COMMERCIAL_BANKS);
      const persona = request.persona ?? DEFAULT_PERSONA;
      const account = store.addAccount(
        {
          sessionId: session.id,
          customerId: session.customer.id,
          ref: session.ref,
          persona,
          institution,
          authMethod: institution.numbering === 'phone' ? 'mobile_banking' : 'internet_banking',
          linkedAt: now,
        },
        {
          persona,
          seed,
          holderName: session.customer.name,
          institution,
          now,
          email: session.customer.email,
          ...(session.customer.bvn ? { bvn: session.customer.bvn } : {}),
        },
      );
      session.linkedAccountIds.push(account.id);
      webhooks.send(account.id, 'mono.events.account_connected', accountConnectedData(account));
      webhooks.send(account.id, 'mono.events.account_updated', accountUpdatedData(account));
      return { ok: true, account, reauthorised: false };
    },
  };
}
