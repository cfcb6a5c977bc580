import { randomUUID } from 'node:crypto';
import { DEFAULT_TIME_ZONE, RECORD_RETENTION_YEARS, checkWebhookUrl, type ClientSettings } from '@loan/contracts';
import type { Clock, Logger, Sealer } from '@loan/runtime';
import type { AuditRecorder } from './auditLog';
import type { ClientRecord, ClientRepository } from './clientRepository';
import { Refusal } from '../domain/errors';
import { hashApiKey, newApiKey, newWebhookSecret } from '../domain/keys';

/** Who asks for a change of a client account, for the audit line. */
export interface Actor {
  /** The operator with the admin token, or the lender itself with its API key. */
  kind: 'admin' | 'client';
  /** The admin caller's name (ADMIN_TOKENS; "admin" for ADMIN_TOKEN). */
  adminName?: string;
  ip: string | undefined;
  correlationId: string | null;
  /** The console session that asked, if any (it survives a rotation of the key it asks for). */
  sessionId?: string;
  /** The staff user of that session; null when it signed in with the API key. */
  userId?: string | null;
}

/** What an actor puts in an audit entry. */
export const entryOf = (by: Actor) => ({
  actor: by.kind,
  adminName: by.adminName ?? null,
  userId: by.userId ?? null,
  ip: by.ip ?? null,
  correlationId: by.correlationId,
});

/** Webhook secrets kept at most: the current one and those still in their overlap. */
const MAX_WEBHOOK_SECRETS = 3;

/**
 * The secrets after a rotation: the new one first, then the ones still valid, each ending at
 * `validUntil` at the latest (never extended), at most {@link MAX_WEBHOOK_SECRETS} in all.
 */
export function rotatedSecrets(
  secrets: ClientRecord['webhookSecrets'],
  fresh: { secret: string; createdAt: Date },
  now: Date,
  validUntil: Date,
): ClientRecord['webhookSecrets'] {
  const previous = secrets
    .filter((s) => s.validUntil === null || s.validUntil > now)
    .map((s) => ({ ...s, validUntil: s.validUntil && s.validUntil < validUntil ? s.validUntil : validUntil }));
  return [{ secret: fresh.secret, validUntil: null, createdAt: fresh.createdAt }, ...previous].slice(
    0,
    MAX_WEBHOOK_SECRETS,
  );
}

/** What a lender sees of its own account: the secrets signing now, never their values. */
export function settingsOf(client: ClientRecord, now: Date): ClientSettings {
  return {
    clientId: client.clientId,
    name: client.name,
    webhookUrl: client.webhookUrl,
    webhookSecrets: client.webhookSecrets
      .filter((s) => s.validUntil === null || s.validUntil > now)
      .map((s) => ({
        ...(s.createdAt ? { createdAt: s.createdAt.toISOString() } : {}),
        validUntil: s.validUntil ? s.validUntil.toISOString() : null,
      })),
    providerKeyConfigured: client.providerSecretKey !== null,
    reviewConfirmationAbove: client.reviewConfirmationAbove,
    timeZone: client.timeZone ?? DEFAULT_TIME_ZONE,
    recordRetentionYears: client.recordRetentionYears ?? RECORD_RETENTION_YEARS.default,
  };
}

/**
 * Changes of client accounts, whoever asks: the admin API for any client, the lender API for
 * the caller's own. Keys are shown once and stored hashed; secrets sealed. Every change writes
 * one audit line (what, to which client, by whom, from where; never a key, secret or URL
 * credential) and publishes the client's new state through the repository's outbox.
 */
export function createClientAccounts(deps: {
  clients: ClientRepository;
  sealer: Sealer;
  clock: Clock;
  webhookSecretOverlapMs: number;
  /** Whether webhook URLs may use http and name private addresses (local stacks only). */
  allowPrivateWebhookUrls: boolean;
  /** Called after a change of a key or of what the key lookup caches, so no stale key is accepted. */
  onKeyChange: () => void;
  /** Called after a rotation of the API key: the console sessions it opened end (but the rotating one). */
  onKeyRotated?: (clientId: string, by: Actor) => Promise<void>;
  /** The durable audit (the gateway's `audit_log`) beside the log line. */
  audit?: AuditRecorder;
  logger: Logger;
}) {
  const { clients, sealer, clock } = deps;

  async function audit(by: Actor, action: string, clientId: string, changed: string[] = []) {
    deps.logger.info(
      {
        audit: {
          action,
          actor: by.kind,
          ...(by.adminName !== undefined ? { adminName: by.adminName } : {}),
          ...(by.userId !== undefined ? { userId: by.userId } : {}),
          clientId,
          changed,
          ip: by.ip,
          correlationId: by.correlationId,
        },
      },
      `${by.kind} action`,
    );
    await deps.audit?.record({ ...entryOf(by), action, clientId, details: { changed } });
  }

  /** A webhook URL the notifier would refuse to deliver to is refused here, saying why. */
  function webhookUrlOf(url: string | null | undefined): string | null | undefined {
    if (url === null || url === undefined) return url;
    const check = checkWebhookUrl(url, { allowPrivate: deps.allowPrivateWebhookUrls });
    if (!check.ok) throw new Refusal('INVALID', `webhookUrl is refused: ${check.reason}`);
    return url;
  }

  async function load(clientId: string): Promise<ClientRecord> {
    const client = await clients.get(clientId);
    if (!client) throw new Refusal('NOT_FOUND', 'Client not found');
    return client;
  }

  async function save(next: ClientRecord) {
    if (!(await clients.update(next, clock.now()))) {
      throw new Refusal('CONFLICT', 'The client was changed concurrently; retry');
    }
  }

  return {
    load,

    async create(
      body: { name: string; webhookUrl?: string; providerSecretKey?: string; providerWebhookSecret?: string },
      by: Actor,
    ) {
      const apiKey = newApiKey();
      const webhookSecret = newWebhookSecret();
      const now = clock.now();
      const record: ClientRecord = {
        clientId: randomUUID(),
        name: body.name,
        apiKeyHash: hashApiKey(apiKey),
        webhookUrl: webhookUrlOf(body.webhookUrl) ?? null,
        webhookSecrets: [{ secret: sealer.seal(webhookSecret), validUntil: null, createdAt: now }],
        providerSecretKey: body.providerSecretKey ? sealer.seal(body.providerSecretKey) : null,
        providerWebhookSecret: body.providerWebhookSecret ? sealer.seal(body.providerWebhookSecret) : null,
        reviewConfirmationAbove: null,
        timeZone: null,
        recordRetentionYears: null,
        version: 1,
      };
      await clients.create(record, now);
      await audit(by, 'client.create', record.clientId, Object.keys(body));
      return { clientId: record.clientId, apiKey, webhookSecret };
    },

    /** Applies the fields given (null clears one); the others stay as they are. */
    async update(
      clientId: string,
      changes: {
        webhookUrl?: string | null;
        providerSecretKey?: string | null;
        providerWebhookSecret?: string | null;
        reviewConfirmationAbove?: number | null;
        timeZone?: string | null;
        recordRetentionYears?: number | null;
      },
      by: Actor,
    ): Promise<ClientRecord> {
      const client = await load(clientId);
      const next: ClientRecord = { ...client, version: client.version + 1 };
      if (changes.webhookUrl !== undefined) next.webhookUrl = webhookUrlOf(changes.webhookUrl) ?? null;
      if (changes.providerSecretKey !== undefined) {
        next.providerSecretKey = changes.providerSecretKey === null ? null : sealer.seal(changes.providerSecretKey);
      }
      if (changes.providerWebhookSecret !== undefined) {
        next.providerWebhookSecret =
          changes.providerWebhookSecret === null ? null : sealer.seal(changes.providerWebhookSecret);
      }
      if (changes.reviewConfirmationAbove !== undefined) next.reviewConfirmationAbove = changes.reviewConfirmationAbove;
      if (changes.timeZone !== undefined) next.timeZone = changes.timeZone;
      if (changes.recordRetentionYears !== undefined) next.recordRetentionYears = changes.recordRetentionYears;
      await save(next);
      deps.onKeyChange();
      await audit(by, 'client.update', clientId, Object.keys(changes));
      return next;
    },

    /** A new API key, shown once; the old one is refused from now on. */
    async rotateKey(clientId: string, by: Actor) {
      const client = await load(clientId);
      const apiKey = newApiKey();
      await save({ ...client, apiKeyHash: hashApiKey(apiKey), version: client.version + 1 });
      deps.onKeyChange();
      await deps.onKeyRotated?.(clientId, by);
      await audit(by, 'client.rotate-key', clientId);
      return { clientId, apiKey };
    },

    /**
     * A new webhook secret, shown once. The previous ones keep signing (`x-signature-previous`)
     * for `overlapSeconds` (WEBHOOK_SECRET_OVERLAP by default), so receivers can switch over.
     */
    async rotateWebhookSecret(clientId: string, overlapSeconds: number | undefined, by: Actor) {
      const client = await load(clientId);
      const now = clock.now();
      const overlapMs = overlapSeconds !== undefined ? overlapSeconds * 1000 : deps.webhookSecretOverlapMs;
      const validUntil = new Date(now.getTime() + overlapMs);
      const webhookSecret = newWebhookSecret();
      await save({
        ...client,
        webhookSecrets: rotatedSecrets(
          client.webhookSecrets,
          { secret: sealer.seal(webhookSecret), createdAt: now },
          now,
          validUntil,
        ),
        version: client.version + 1,
      });
      await audit(by, 'client.rotate-webhook-secret', clientId);
      return { clientId, webhookSecret, previousSecretValidUntil: validUntil.toISOString() };
    },
  };
}
export type ClientAccounts = ReturnType<typeof createClientAccounts>;
