import { Router } from 'express';
import {
  AuditListQuery,
  CreateClientRequest,
  CreateOwnerRequest,
  DEFAULT_TIME_ZONE,
  RECORD_RETENTION_YEARS,
  RotateWebhookSecretRequest,
  UpdateClientRequest,
} from '@loan/contracts';
import { BadCursorError, type AuditEntry, type AuditLog } from '../../data-access/auditLog';
import type { StaffAccounts } from '../../data-access/staffAccounts';
import { HttpError } from './errors';
import type { ClientAccounts } from '../../data-access/clientAccounts';
import type { ClientRecord } from '../../data-access/clientRepository';
import { actorOf, allowOnlyRoutedMethods, requireJson, route, rotationBody, validate } from './support';

const adminView = (client: ClientRecord) => ({
  clientId: client.clientId,
  name: client.name,
  webhookUrl: client.webhookUrl,
  providerKeyConfigured: client.providerSecretKey !== null,
  providerWebhookSecretConfigured: client.providerWebhookSecret !== null,
  reviewConfirmationAbove: client.reviewConfirmationAbove,
  timeZone: client.timeZone ?? DEFAULT_TIME_ZONE,
  recordRetentionYears: client.recordRetentionYears ?? RECORD_RETENTION_YEARS.default,
  version: client.version,
});

const auditView = (entry: AuditEntry) => ({ ...entry, at: entry.at.toISOString() });

/** A client id in the path names a client only when it is one string. */
const clientIdOf = (id: string | string[] | undefined) => (typeof id === 'string' ? id : '');

/**
 * Admin API of the local contract: create a client, change its webhook URL, provider key or
 * provider webhook secret, rotate its API key or webhook secret. The changes themselves are the
 * client accounts' (`data-access/clientAccounts.ts`), which the lender's own `/api/client` shares.
 */
export function adminRoutes(deps: { accounts: ClientAccounts; staff: StaffAccounts; audit: Pick<AuditLog, 'page'> }) {
  const { accounts, staff } = deps;
  const router = Router();

  router.post(
    '/clients',
    requireJson(),
    route(async (req, res) => {
      const body = validate(CreateClientRequest, req.body ?? {});
      res.status(201).json(await accounts.create(body, actorOf('admin', req, res)));
    }),
  );

  router.get(
    '/clients/:id',
    route(async (req, res) => {
      res.json(adminView(await accounts.load(clientIdOf(req.params.id))));
    }),
  );

  router.patch(
    '/clients/:id',
    requireJson(),
    route(async (req, res) => {
      const body = validate(UpdateClientRequest, req.body ?? {});
      res.json(adminView(await accounts.update(clientIdOf(req.params.id), body, actorOf('admin', req, res))));
    }),
  );

  router.post(
    '/clients/:id/rotate-key',
    route(async (req, res) => {
      res.json(await accounts.rotateKey(clientIdOf(req.params.id), actorOf('admin', req, res)));
    }),
  );

  router.post(
    '/clients/:id/rotate-webhook-secret',
    route(async (req, res) => {
      const body = validate(RotateWebhookSecretRequest, rotationBody(req.body));
      res.json(
        await accounts.rotateWebhookSecret(clientIdOf(req.params.id), body.overlapSeconds, actorOf('admin', req, res)),
      );
    }),
  );

  // The lender's first owner: an invitation like an owner's own, refused once the lender has an owner.
  router.post(
    '/clients/:id/owner',
    requireJson(),
    route(async (req, res) => {
      const client = await accounts.load(clientIdOf(req.params.id));
      const body = validate(CreateOwnerRequest, req.body ?? {});
      res.status(201).json(await staff.createOwner(client.clientId, body.email, actorOf('admin', req, res)));
    }),
  );

  // The audit of account changes and refused admin tokens, newest first (read-only: nothing changes or removes an entry).
  router.get(
    '/audit',
    route(async (req, res) => {
      const query = validate(AuditListQuery, req.query);
      try {
        const page = await deps.audit.page({
          limit: query.limit,
          ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
        });
        res.json({ items: page.items.map(auditView), nextCursor: page.nextCursor });
      } catch (error) {
        if (error instanceof BadCursorError) throw new HttpError(400, error.message);
        throw error;
      }
    }),
  );

  return allowOnlyRoutedMethods(router);
}
