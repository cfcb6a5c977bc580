import { randomUUID } from 'node:crypto';
import { Router, type Request } from 'express';
import { CreateClientRequest, RotateWebhookSecretRequest, UpdateClientRequest, checkWebhookUrl } from '@loan/contracts';
import type { Clock, Logger, Sealer } from '@loan/runtime';
import { HttpError } from '../../domain/errors';
import { hashApiKey, newApiKey, newWebhookSecret } from '../../domain/keys';
import type { ClientRecord, ClientRepository } from '../../data-access/clientRepository';
import { allowOnlyRoutedMethods, requireJson, route, validate } from './support';

/**
 * Admin API of the local contract: create a client, change its webhook URL, provider key or
 * provider webhook secret, rotate its API key or webhook secret. Keys are shown once and stored hashed; secrets sealed.
 */
export function adminRoutes(deps: {
  clients: ClientRepository;
  sealer: Sealer;
  clock: Clock;
  webhookSecretOverlapMs: number;
  /** Whether webhook URLs may use http and name private addresses (local stacks only). */
  allowPrivateWebhookUrls: boolean;
  onKeyChange: () => void;
  logger: Logger;
}) {
  const { clients, sealer, clock } = deps;
  const router = Router();

  /**
   * The audit trail: one line per admin change, saying what, to which client, from where and
   * when (the log line's time). Never a key, secret or URL credential.
   */
  function audit(req: Request, action: string, clientId: string, changed: string[] = []) {
    deps.logger.info({ audit: { action, clientId, changed, ip: req.ip, correlationId: req.header('x-correlation-id') ?? null } }, 'admin action');
  }

  /** A webhook URL the notifier would refuse to deliver to is refused here, saying why. */
  function webhookUrlOf(url: string | null | undefined): string | null | undefined {
    if (url === null || url === undefined) return url;
    const check = checkWebhookUrl(url, { allowPrivate: deps.allowPrivateWebhookUrls });
    if (!check.ok) throw new HttpError(400, `webhookUrl is refused: ${check.reason}`);
    return url;
  }

  async function load(id: string | string[] | undefined): Promise<ClientRecord> {
    const client = typeof id === 'string' ? await clients.get(id) : null;
    if (!client) throw new HttpError(404, 'Client not found');
    return client;
  }

  async function save(next: ClientRecord) {
    if (!(await clients.update(next, clock.now()))) {
      throw new HttpError(409, 'The client was changed concurrently; retry');
    }
  }

  router.post(
    '/clients',
    requireJson(),
    route(async (req, res) => {
      const body = validate(CreateClientRequest, req.body ?? {});
      const apiKey = newApiKey();
      const webhookSecret = newWebhookSecret();
      const record: ClientRecord = {
        clientId: randomUUID(),
        name: body.name,
        apiKeyHash: hashApiKey(apiKey),
        webhookUrl: webhookUrlOf(body.webhookUrl) ?? null,
        webhookSecrets: [{ secret: sealer.seal(webhookSecret), validUntil: null }],
        providerSecretKey: body.providerSecretKey ? sealer.seal(body.providerSecretKey) : null,
        providerWebhookSecret: body.providerWebhookSecret ? sealer.seal(body.providerWebhookSecret) : null,
        version: 1,
      };
      await clients.create(record, clock.now());
      audit(req, 'client.create', record.clientId, Object.keys(body));
      res.status(201).json({ clientId: record.clientId, apiKey, webhookSecret });
    }),
  );

  router.get(
    '/clients/:id',
    route(async (req, res) => {
      const client = await load(req.params.id);
      res.json({
        clientId: client.clientId,
        name: client.name,
        webhookUrl: client.webhookUrl,
        providerKeyConfigured: client.providerSecretKey !== null,
        providerWebhookSecretConfigured: client.providerWebhookSecret !== null,
        version: client.version,
      });
    }),
  );

  router.patch(
    '/clients/:id',
    requireJson(),
    route(async (req, res) => {
      const body = validate(UpdateClientRequest, req.body ?? {});
      const client = await load(req.params.id);
      const next: ClientRecord = { ...client, version: client.version + 1 };
      if (body.webhookUrl !== undefined) next.webhookUrl = webhookUrlOf(body.webhookUrl) ?? null;
      if (body.providerSecretKey !== undefined) {
        next.providerSecretKey = body.providerSecretKey === null ? null : sealer.seal(body.providerSecretKey);
      }
      if (body.providerWebhookSecret !== undefined) {
        next.providerWebhookSecret = body.providerWebhookSecret === null ? null : sealer.seal(body.providerWebhookSecret);
      }
      await save(next);
      deps.onKeyChange();
      audit(req, 'client.update', next.clientId, Object.keys(body));
      res.json({
        clientId: next.clientId,
        name: next.name,
        webhookUrl: next.webhookUrl,
        providerKeyConfigured: next.providerSecretKey !== null,
        providerWebhookSecretConfigured: next.providerWebhookSecret !== null,
        version: next.version,
      });
    }),
  );

  router.post(
    '/clients/:id/rotate-key',
    route(async (req, res) => {
      const client = await load(req.params.id);
      const apiKey = newApiKey();
      await save({ ...client, apiKeyHash: hashApiKey(apiKey), version: client.version + 1 });
      deps.onKeyChange();
      audit(req, 'client.rotate-key', client.clientId);
      res.json({ clientId: client.clientId, apiKey });
    }),
  );

  router.post(
    '/clients/:id/rotate-webhook-secret',
    route(async (req, res) => {
      const body = validate(RotateWebhookSecretRequest, req.body && Object.keys(req.body).length > 0 ? req.body : undefined);
      const client = await load(req.params.id);
      const now = clock.now();
      const overlapMs = body.overlapSeconds !== undefined ? body.overlapSeconds * 1000 : deps.webhookSecretOverlapMs;
      const validUntil = new Date(now.getTime() + overlapMs);
      const webhookSecret = newWebhookSecret();
      const previous = client.webhookSecrets
        .filter((s) => s.validUntil === null || s.validUntil > now)
        .map((s) => ({ secret: s.secret, validUntil: s.validUntil && s.validUntil < validUntil ? s.validUntil : validUntil }));
      await save({
        ...client,
        webhookSecrets: [{ secret: sealer.seal(webhookSecret), validUntil: null }, ...previous].slice(0, 3),
        version: client.version + 1,
      });
      audit(req, 'client.rotate-webhook-secret', client.clientId);
      res.json({ clientId: client.clientId, webhookSecret, previousSecretValidUntil: validUntil.toISOString() });
    }),
  );

  return allowOnlyRoutedMethods(router);
}
