import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { adminOperations, adminTags, auditOperations, providerOperations } from './adminApi';
import { guides } from './guides';
import { lenderOperations, lenderTags, lenderWebhooks } from './lenderApi';

/**
 * The OpenAPI 3.1 documents of the gateway, generated from the route tables (`lenderApi.ts`,
 * `adminApi.ts`) and the zod schemas of libs/contracts they name.
 */
export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

function generate(args: {
  operations: RouteConfig[];
  webhooks?: RouteConfig[];
  securitySchemes: Record<string, { type: 'apiKey'; in: 'header'; name: string; description: string }>;
}) {
  const registry = new OpenAPIRegistry();
  for (const [name, scheme] of Object.entries(args.securitySchemes))
    registry.registerComponent('securitySchemes', name, scheme);
  for (const operation of args.operations) registry.registerPath(operation);
  for (const webhook of args.webhooks ?? []) registry.registerWebhook(webhook);
  return new OpenApiGeneratorV31(registry.definitions);
}

const version = '1.0.0';

function build(): { lender: Omit<OpenApiDocument, 'servers'>; admin: Omit<OpenApiDocument, 'servers'> } {
  const lender = generate({
    operations: lenderOperations,
    webhooks: lenderWebhooks,
    securitySchemes: {
      apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'Your account’s secret API key' },
    },
  }).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Loan Application Analysis API',
      version,
      description: `Open a loan application, have the applicant link bank accounts through the account-linking widget, and receive a scored, explained decision by signed webhook. Amounts are in Naira, rates in % a month, applicants identified by an 11-digit BVN.\n\n${guides}`,
    },
    security: [{ apiKey: [] }],
    tags: lenderTags,
  });
  const admin = generate({
    operations: [...adminOperations, ...auditOperations, ...providerOperations],
    securitySchemes: {
      adminToken: {
        type: 'apiKey',
        in: 'header',
        name: 'x-admin-token',
        description: 'The ADMIN_TOKEN of the deployment',
      },
    },
  }).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Loan Application Analysis: operator API',
      version,
      description:
        'Lender accounts (admin API) and the provider webhooks the gateway receives. Not for lenders: the lender API is at /api/openapi.json.',
    },
    tags: adminTags,
  });
  return { lender, admin };
}

let built: ReturnType<typeof build> | null = null;

/** The documents are built once per process; only the server address differs per request. */
function documents() {
  built ??= build();
  return built;
}

export const lenderDocument = (serverUrl: string): OpenApiDocument => ({
  ...documents().lender,
  servers: [{ url: serverUrl }],
});
export const adminDocument = (serverUrl: string): OpenApiDocument => ({
  ...documents().admin,
  servers: [{ url: serverUrl }],
});
