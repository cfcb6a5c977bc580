import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import {
  AuditEntryView,
  AuditListQuery,
  AuditPage,
  ClientView,
  CreateClientRequest,
  CreateClientResponse,
  StaffInvitation,
  RotateKeyResponse,
  RotateWebhookSecretBody,
  RotateWebhookSecretResponse,
  UpdateClientRequest,
} from '@loan/contracts';
import { Examples } from './examples';
import { staffEmail } from './lenderApi';
import { failure, malformedJson, notJson, ok } from './responses';
import { z } from 'zod';

/**
 * The route table of the operator's side of the gateway: the admin API of client accounts
 * (`x-admin-token`) and the provider's webhooks. Served at `/admin/openapi.json`, behind the
 * admin token. A new route needs one entry here.
 */

const clients = 'Client accounts';
const provider = 'Provider webhooks';
const audit = 'Audit';

export const adminTags = [
  {
    name: clients,
    description: 'Lender accounts: API keys (shown once, stored hashed), webhook URL and secrets, provider keys.',
  },
  {
    name: audit,
    description:
      'Changes of lender accounts and their staff (by the operator, named by its admin token, or by the lender) and refused admin tokens, kept in the gateway’s database for AUDIT_RETENTION; nothing changes or removes an entry sooner.',
  },
  {
    name: provider,
    description:
      'Where the account-linking provider posts its webhooks. `/mono` is verified with PROVIDER_WEBHOOK_SECRET (one provider app for every lender); `/mono/{clientId}` with the providerWebhookSecret of that lender’s own provider app, and can only touch that lender’s applications.',
  },
];

const ClientId = z.object({
  id: z
    .string()
    .meta({ param: { description: 'The clientId returned at creation' }, example: Examples.client.clientId }),
});

const adminErrors = {
  401: failure(401, 'x-admin-token missing or wrong', {
    'no token': 'Missing x-admin-token header',
    'wrong token': 'Invalid admin token',
  }),
  413: failure(413, 'Body over 16 KiB', { 'too large': 'Request body is too large' }),
  429: failure(429, 'Too many failed authentications from this address', {
    'failed authentications': 'Too many failed authentications from this address; try again later',
  }),
  500: failure(500, 'A database failure: retry', { internal: 'Internal server error' }),
};
const clientNotFound = failure(404, 'No such client', { 'not found': 'Client not found' });
const concurrent = failure(409, 'The client was changed at the same time: retry', {
  concurrent: 'The client was changed concurrently; retry',
});

const ClientViewSchema = ClientView.meta({ id: 'Client' });
const adminSecurity = [{ adminToken: [] }];

export const adminOperations: RouteConfig[] = [
  {
    method: 'post',
    path: '/admin/clients',
    operationId: 'createClient',
    tags: [clients],
    security: adminSecurity,
    summary: 'Create a lender account; answers its API key and webhook secret, once',
    request: {
      body: {
        required: true,
        content: {
          'application/json': {
            schema: CreateClientRequest.meta({ id: 'CreateClientRequest', example: Examples.createClientRequest }),
          },
        },
      },
    },
    responses: {
      201: ok(
        'Account created',
        CreateClientResponse.meta({ id: 'CreateClientResponse' }),
        Examples.createClientResponse,
        {
          links: {
            GetClient: { operationId: 'getClient', parameters: { id: '$response.body#/clientId' } },
            UpdateClient: { operationId: 'updateClient', parameters: { id: '$response.body#/clientId' } },
            RotateApiKey: { operationId: 'rotateApiKey', parameters: { id: '$response.body#/clientId' } },
            RotateWebhookSecret: { operationId: 'rotateWebhookSecret', parameters: { id: '$response.body#/clientId' } },
          },
        },
      ),
      400: failure(400, 'An invalid field, or a webhook URL the notifier would refuse', {
        'no name': 'name is required',
        'refused URL': 'webhookUrl is refused: the host is a private or loopback address',
        ...malformedJson,
      }),
      401: adminErrors[401],
      413: adminErrors[413],
      415: notJson,
      429: adminErrors[429],
      500: adminErrors[500],
    },
  },
  {
    method: 'get',
    path: '/admin/clients/{id}',
    operationId: 'getClient',
    tags: [clients],
    security: adminSecurity,
    summary: 'A lender account (never its keys or secrets)',
    request: { params: ClientId },
    responses: {
      200: ok('The account', ClientViewSchema, Examples.client),
      401: adminErrors[401],
      404: clientNotFound,
      413: adminErrors[413],
      429: adminErrors[429],
      500: adminErrors[500],
    },
  },
  {
    method: 'patch',
    path: '/admin/clients/{id}',
    operationId: 'updateClient',
    tags: [clients],
    security: adminSecurity,
    summary: 'Change the webhook URL, provider key or provider webhook secret (null removes)',
    request: {
      params: ClientId,
      body: {
        required: true,
        content: {
          'application/json': {
            schema: UpdateClientRequest.meta({ id: 'UpdateClientRequest', example: Examples.updateClientRequest }),
          },
        },
      },
    },
    responses: {
      200: ok('The account as changed', ClientViewSchema, Examples.client),
      400: failure(400, 'An invalid field', { 'bad URL': 'webhookUrl: webhookUrl must be a URL', ...malformedJson }),
      401: adminErrors[401],
      404: clientNotFound,
      409: concurrent,
      413: adminErrors[413],
      415: notJson,
      429: adminErrors[429],
      500: adminErrors[500],
    },
  },
  {
    method: 'post',
    path: '/admin/clients/{id}/owner',
    operationId: 'createFirstOwner',
    tags: [clients],
    security: adminSecurity,
    summary: 'Invite the first owner of a lender: the one who then invites the lender’s other staff',
    description:
      'The same one-time invitation link as `POST /api/users` (`invitationUrl` when no mailer sends it). Refused once the lender has an owner. Until its owner has an account a lender may still sign in to the console with its API key; from then on staff sign in with e-mail and password.',
    request: {
      params: ClientId,
      body: {
        required: true,
        content: {
          'application/json': {
            schema: z
              .strictObject({ email: staffEmail })
              .meta({ id: 'CreateOwnerRequest', example: Examples.createOwnerRequest }),
          },
        },
      },
    },
    responses: {
      201: ok('The invitation', StaffInvitation.meta({ id: 'StaffInvitation' }), {
        ...Examples.staffInvitation,
        email: 'owner@acme-lending.example',
        role: 'owner',
      }),
      400: failure(400, 'No or an invalid e-mail address, or another field', {
        'bad e-mail': 'email: email must be a valid e-mail address',
        'other field': 'Unknown field name; only email is taken',
        ...malformedJson,
      }),
      401: adminErrors[401],
      404: clientNotFound,
      409: failure(409, 'The lender already has an owner', {
        'has an owner': 'This lender already has an owner; owners invite further users',
      }),
      413: adminErrors[413],
      415: notJson,
      429: adminErrors[429],
      500: adminErrors[500],
    },
  },
  {
    method: 'post',
    path: '/admin/clients/{id}/rotate-key',
    operationId: 'rotateApiKey',
    tags: [clients],
    security: adminSecurity,
    summary: 'Issue a new API key; the old one stops working at once',
    request: { params: ClientId },
    responses: {
      200: ok('The new key, shown once', RotateKeyResponse.meta({ id: 'RotateKeyResponse' }), Examples.rotateKey),
      400: failure(400, 'Malformed JSON', malformedJson),
      401: adminErrors[401],
      404: clientNotFound,
      409: concurrent,
      413: adminErrors[413],
      429: adminErrors[429],
      500: adminErrors[500],
    },
  },
  {
    method: 'post',
    path: '/admin/clients/{id}/rotate-webhook-secret',
    operationId: 'rotateWebhookSecret',
    tags: [clients],
    security: adminSecurity,
    summary: 'Issue a new webhook secret; the previous one keeps signing x-signature-previous for the overlap',
    request: {
      params: ClientId,
      body: {
        required: false,
        content: {
          'application/json': {
            schema: RotateWebhookSecretBody.meta({
              id: 'RotateWebhookSecretRequest',
              example: Examples.rotateWebhookSecretRequest,
            }),
          },
        },
      },
    },
    responses: {
      200: ok(
        'The new secret, shown once',
        RotateWebhookSecretResponse.meta({ id: 'RotateWebhookSecretResponse' }),
        Examples.rotateWebhookSecret,
      ),
      400: failure(400, 'An invalid overlap', {
        'bad overlap': 'overlapSeconds: Too big: expected number to be <=604800',
        ...malformedJson,
      }),
      401: adminErrors[401],
      404: clientNotFound,
      409: concurrent,
      413: adminErrors[413],
      429: adminErrors[429],
      500: adminErrors[500],
    },
  },
];

export const auditOperations: RouteConfig[] = [
  {
    method: 'get',
    path: '/admin/audit',
    operationId: 'listAudit',
    tags: [audit],
    security: adminSecurity,
    summary: 'The audit, newest first, a page at a time',
    description:
      'Account changes (`client.create`, `client.update`, `client.rotate-key`, `client.rotate-webhook-secret`, `user.*`) with who made them (`actor`, and `adminName` for the operator: the name of its token in ADMIN_TOKENS, `admin` for ADMIN_TOKEN), and refused admin tokens (`admin.denied`, at most AUTH_FAILURE_LIMIT per address and window). Pass `nextCursor` as `cursor` for the next, older page. Any other query parameter is a 400.',
    request: {
      query: AuditListQuery.extend({
        cursor: AuditListQuery.shape.cursor.meta({ description: 'The `nextCursor` of the previous page; opaque' }),
      }),
    },
    responses: {
      200: ok(
        'A page of the audit',
        AuditPage.extend({ items: z.array(AuditEntryView.meta({ id: 'AuditEntry' })) }).meta({ id: 'AuditPage' }),
        Examples.auditPage,
      ),
      400: failure(400, 'An invalid query parameter (the message names it), or an unknown one', {
        'bad limit': 'limit must be an integer between 1 and 100',
        'bad cursor': 'cursor is not valid; use the nextCursor of a previous page',
        'unknown parameter': 'Unknown query parameter page; allowed: limit, cursor',
      }),
      401: adminErrors[401],
      413: adminErrors[413],
      429: adminErrors[429],
      500: adminErrors[500],
    },
  },
];

const Id = z.string().min(1);
/** Where the gateway finds the provider account of a webhook (domain/providerCallback.ts). */
const ProviderWebhookData = z
  .union([
    z
      .object({ account: z.union([z.object({ _id: Id }).passthrough(), z.object({ id: Id }).passthrough(), Id]) })
      .passthrough(),
    z.object({ id: Id }).passthrough(),
    z.object({ accountId: Id }).passthrough(),
  ])
  .meta({
    description:
      'Names the provider account: data.account (with _id or id, or the id itself), data.id or data.accountId',
  });
const ProviderWebhook = z
  .object({
    event: Id.meta({ example: 'mono.events.account_updated' }),
    data: ProviderWebhookData,
  })
  .passthrough()
  .meta({ id: 'ProviderWebhook', example: Examples.providerWebhook });
const ProviderSecret = z.object({
  'mono-webhook-secret': z.string().meta({ description: 'The webhook secret of the provider app' }),
});
const Received = z.object({ received: z.literal(true) }).meta({ id: 'ProviderWebhookReceived' });

const providerResponses = {
  200: ok('Kept: the provider need not retry', Received, { received: true }),
  400: failure(400, 'Not a provider webhook', {
    'not a webhook': 'Webhook body must have an event, a data object and an account id',
    ...malformedJson,
  }),
  401: failure(401, 'Wrong or missing mono-webhook-secret', { 'wrong secret': 'Invalid webhook secret' }),
  413: adminErrors[413],
  500: failure(500, 'Not kept (the broker is unavailable): the provider retries', {
    internal: 'Internal server error',
  }),
};

export const providerOperations: RouteConfig[] = [
  {
    method: 'post',
    path: '/provider/webhooks/mono',
    operationId: 'receiveProviderWebhook',
    tags: [provider],
    security: [],
    summary: 'A webhook of the deployment’s provider app',
    request: {
      headers: ProviderSecret,
      body: { required: true, content: { 'application/json': { schema: ProviderWebhook } } },
    },
    responses: providerResponses,
  },
  {
    method: 'post',
    path: '/provider/webhooks/mono/{clientId}',
    operationId: 'receiveClientProviderWebhook',
    tags: [provider],
    security: [],
    summary: 'A webhook of one lender’s own provider app',
    request: {
      params: z.object({
        clientId: z.string().meta({ param: { description: 'The lender whose provider app this is' } }),
      }),
      headers: ProviderSecret,
      body: { required: true, content: { 'application/json': { schema: ProviderWebhook } } },
    },
    responses: providerResponses,
  },
];
