import type { RequestHandler } from 'express';
import {
  AnalyzeResponse,
  ApplicationPage,
  ApplicationView,
  ChallengerReport,
  ClientSettings,
  ConfirmReviewRequest,
  ReviewPage,
  ReviewRequest,
  ReviewView,
  ClientView,
  CreditPolicy,
  PolicyCreated,
  PolicyList,
  PolicyVersionView,
  SimulateRequest,
  SimulationResult,
  CreateClientRequest,
  CreateClientResponse,
  DeliveryPage,
  DeliveryView,
  FinalizeLinkingResponse,
  InitiateRequest,
  InitiateResponse,
  LinkAccountRequest,
  LinkAccountResponse,
  ReplayRequest,
  ReplayResult,
  RotateKeyResponse,
  RotateWebhookSecretRequest,
  RotateWebhookSecretResponse,
  UpdateClientRequest,
  UpdateClientSettingsRequest,
  WebhookEnvelope,
  EventNames,
} from '@loan/contracts';
import { createLogger, createMetrics, createSealer, systemClock } from '@loan/runtime';
import { createHttpApp } from '../app';
import { adminRoutes } from '../adminRoutes';
import { createClientAccounts } from '../../../data-access/clientAccounts';
import { applicationRoutes, reviewRoutes } from '../applicationRoutes';
import { userRoutes } from '../userRoutes';
import { clientRoutes } from '../clientRoutes';
import { deliveryRoutes } from '../deliveryRoutes';
import { portfolioRoutes } from '../portfolioRoutes';
import { policyRoutes } from '../policyRoutes';
import { performanceRoutes } from '../performanceRoutes';
import { scoringCaller } from '../scoringForward';
import { providerWebhookRoutes } from '../providerWebhookRoutes';
import { servedRoutes } from '../support';
import { consoleRoutes } from '../consoleRoutes';
import { adminDocument, lenderDocument, type OpenApiDocument } from './document';
import { EventExamples, Examples } from './examples';

/**
 * The documents are generated from the route tables; these tests hold the tables to what the
 * app really serves, and the examples to the contracts.
 */

/** The app as the gateway assembles it. Nothing is called: only its routes are read. */
function assembledApp() {
  const pass: RequestHandler = (_req, _res, next) => next();
  const logger = createLogger('gateway', 'silent');
  const sealer = createSealer('a-data-key-for-listing-routes-only');
  const unused = {} as never;
  const accounts = createClientAccounts({
    clients: unused,
    sealer,
    clock: systemClock,
    webhookSecretOverlapMs: 0,
    allowPrivateWebhookUrls: false,
    onKeyChange: () => undefined,
    logger,
  });
  const scoring = scoringCaller({ scoringUrl: 'http://127.0.0.1:1', internalToken: 'unused-token', unavailable: '' });
  const performance = performanceRoutes({ scoring, authenticate: pass, limit: () => pass });
  return createHttpApp({
    metrics: createMetrics('gateway-openapi-test'),
    logger,
    trustProxy: false,
    performance: performance.performance,
    outcomes: performance.outcomes,
    api: applicationRoutes({
      commands: unused,
      sealer,
      signer: unused,
      staff: unused,
      scoring,
      authenticate: pass,
      limit: () => pass,
    }),
    reviews: reviewRoutes({ commands: unused, authenticate: pass, limit: () => pass }),
    portfolio: portfolioRoutes({
      commands: unused,
      notifierUrl: 'http://127.0.0.1:1',
      internalToken: 'unused-token',
      clock: systemClock,
      authenticate: pass,
      limit: () => pass,
    }),
    deliveries: deliveryRoutes({
      notifierUrl: 'http://127.0.0.1:1',
      internalToken: 'unused-token',
      authenticate: pass,
      limit: () => pass,
    }),
    policies: policyRoutes({
      scoringUrl: 'http://127.0.0.1:1',
      internalToken: 'unused-token',
      authenticate: pass,
      limit: () => pass,
    }),
    client: clientRoutes({ accounts, clock: systemClock, authenticate: pass, limit: () => pass }),
    console: consoleRoutes({
      sessions: unused,
      staff: unused,
      clients: unused,
      failures: unused,
      times: { ttlMs: 1000, idleMs: 1000 },
      clock: systemClock,
      authenticate: pass,
      limit: () => pass,
      logger,
      production: false,
    }),
    adminGuard: pass,
    admin: adminRoutes({ accounts, staff: unused, audit: unused }),
    users: userRoutes({ staff: unused, authenticate: pass, limit: () => pass }),
    providerWebhooks: providerWebhookRoutes({
      bus: unused,
      secret: 'unused-secret',
      clients: unused,
      sealer,
      clock: systemClock,
      logger,
      received: unused,
    }),
    publicUrl: () => 'http://127.0.0.1:1',
    jwks: async () => ({ keys: [] }),
  });
}

/** Public routes that are not operations of a document: the documents themselves, and the decision records' key set. */
const DOCUMENTATION = [
  'get /.well-known/jwks.json',
  'get /api/openapi.json',
  'get /api/docs',
  'get /api/docs/init.js',
  'get /api/docs/page.css',
  'get /api/docs/assets/swagger-ui.css',
  'get /api/docs/assets/swagger-ui-bundle.js',
  'get /api/docs/assets/swagger-ui-standalone-preset.js',
  'get /api/docs/assets/favicon-32x32.png',
  'get /admin/openapi.json',
];

/** The console's own routes: its page and its session (its API is the lender API, below). */
const CONSOLE = [
  'get /console',
  'get /console/session',
  'post /console/session',
  'delete /console/session',
  'post /console/invitation',
  'post /console/invitation/accept',
  'post /console/password',
  'post /console/totp',
  'post /console/totp/confirm',
];
const CONSOLE_API = '/console/api/';

const operationsOf = (doc: OpenApiDocument) =>
  Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    Object.keys(item as object)
      .filter((k) => ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'].includes(k))
      .map((method) => `${method} ${path}`),
  );

const lender = lenderDocument('http://127.0.0.1:1');
const admin = adminDocument('http://127.0.0.1:1');

describe('the OpenAPI documents', () => {
  it('when the app serves a route, then a document describes it, and every documented operation is served', () => {
    const app = assembledApp();
    const all = servedRoutes((app as unknown as { router: { stack: unknown[] } }).router.stack).map(
      (r) => `${r.method} ${r.path}`,
    );
    const isConsole = (r: string) => / \/console(\/|$)/.test(r);
    const served = all.filter((r) => !isConsole(r));
    const documented = [...operationsOf(lender), ...operationsOf(admin)];
    expect(served.length).toBeGreaterThan(15);
    expect(served.filter((r) => !DOCUMENTATION.includes(r) && !documented.includes(r))).toEqual([]);
    // The console serves exactly the lender API under /console/api, and its own page and session.
    const consoleApi = all
      .filter((r) => r.includes(` ${CONSOLE_API}`))
      .map((r) => r.replace(` ${CONSOLE_API}`, ' /api/'));
    expect(consoleApi.sort()).toEqual(operationsOf(lender).sort());
    expect(all.filter((r) => isConsole(r) && !r.includes(` ${CONSOLE_API}`)).sort()).toEqual([...CONSOLE].sort());
    expect(documented.filter((r) => !served.includes(r))).toEqual([]);
    expect(DOCUMENTATION.filter((r) => !served.includes(r))).toEqual([]);
  });

  it('when an operation of the lender API is documented, then it lists 401, 429 and 500 in the error shape', () => {
    for (const [path, item] of Object.entries(lender.paths ?? {})) {
      for (const [method, op] of Object.entries(
        item as Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>,
      )) {
        for (const status of ['401', '429', '500']) {
          expect([`${method} ${path}`, status, op.responses[status]?.content?.['application/json']?.schema]).toEqual([
            `${method} ${path}`,
            status,
            { $ref: '#/components/schemas/Error' },
          ]);
        }
      }
    }
  });

  it('when a field has a constraint, then the document states it', () => {
    const initiate = (lender.components!.schemas!.InitiateRequest as { properties: Record<string, any> }).properties;
    expect(initiate.bvn.anyOf[0]).toMatchObject({ type: 'string', pattern: '^\\d{11}$' });
    expect(initiate.phone.anyOf[0]).toMatchObject({ minLength: 10, maxLength: 15 });
    expect(initiate.firstName).toMatchObject({ minLength: 2, maxLength: 100 });
    expect(initiate.amount).toMatchObject({ exclusiveMinimum: 0, maximum: 100_000_000 });
    expect(initiate.tenor).toMatchObject({ type: 'integer', exclusiveMinimum: 0, maximum: 60 });
    expect(initiate.interestRate).toMatchObject({ minimum: 0, maximum: 100 });
    expect(initiate.purpose.anyOf[0]).toMatchObject({ maxLength: 500 });
    expect(initiate.idempotencyKey).toMatchObject({ minLength: 1, maxLength: 255 });
  });

  it('when a limited operation answers, then its rate-limit headers are documented', () => {
    const created = (lender.paths!['/api/applications/initiate'] as any).post.responses['201'];
    expect(Object.keys(created.headers)).toEqual(
      expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']),
    );
    const limited = (lender.paths!['/api/applications/initiate'] as any).post.responses['429'];
    expect(Object.keys(limited.headers)).toContain('Retry-After');
  });

  it('when initiate answers, then links lead to every operation on the application (for stateful testing)', () => {
    const links = (lender.paths!['/api/applications/initiate'] as any).post.responses['201'].links;
    expect(
      Object.values(links)
        .map((l: any) => l.operationId)
        .sort(),
    ).toEqual(['analyzeApplication', 'finalizeLinking', 'getApplication', 'linkAccount']);
  });

  it('when an event is sent, then the webhooks section describes it with its example', () => {
    expect(Object.keys(lender.webhooks ?? {}).sort()).toEqual([...EventNames].sort());
    for (const event of EventNames) {
      const body = (lender.webhooks as any)[event].post.requestBody.content['application/json'];
      expect(body.example).toEqual(EventExamples[event]);
    }
  });

  it('when the admin document is generated, then it uses the admin token and not the API key', () => {
    expect(JSON.stringify(admin)).not.toContain('x-api-key');
    expect((admin.components!.securitySchemes as any).adminToken).toMatchObject({
      in: 'header',
      name: 'x-admin-token',
    });
  });
});

describe('the examples of the documents', () => {
  it.each<[string, unknown, unknown]>([
    ['initiate request', InitiateRequest, Examples.initiateRequest],
    ['initiate answer', InitiateResponse, Examples.initiateCreated],
    ['resume answer', InitiateResponse, Examples.initiateResumed],
    ['finalize-linking answer', FinalizeLinkingResponse, Examples.finalizeLinking],
    ['analyze answer', AnalyzeResponse, Examples.analyze],
    ['link-account request', LinkAccountRequest, Examples.linkAccountRequest],
    ['link-account answer', LinkAccountResponse, Examples.linkAccount],
    [
      'application',
      ApplicationView,
      (lender.paths!['/api/applications/{id}'] as any).get.responses['200'].content['application/json'].example,
    ],
    ['application page', ApplicationPage, Examples.applicationPage],
    ['client settings', ClientSettings, Examples.clientSettings],
    ['client settings update', UpdateClientSettingsRequest, Examples.updateClientSettingsRequest],
    ['review request', ReviewRequest, Examples.reviewRequest],
    ['pending review', ReviewView, Examples.reviewPending.review],
    ['review confirmation request', ConfirmReviewRequest, Examples.confirmReviewRequest],
    ['confirmed review', ReviewView, Examples.reviewConfirmed.review],
    ['review queue page', ReviewPage, Examples.reviewPage],
    ['delivery', DeliveryView, Examples.delivery],
    ['delivery page', DeliveryPage, { data: [Examples.delivery], nextCursor: null }],
    ['replay request', ReplayRequest, Examples.replayRequest],
    ['replay answer', ReplayResult, Examples.replayResult],
    ['credit policy', CreditPolicy, Examples.policy],
    ['policy version', PolicyVersionView, Examples.policyVersion],
    ['policy list', PolicyList, Examples.policyList],
    ['policy creation', PolicyCreated, Examples.policyCreated],
    ['simulate request', SimulateRequest, Examples.simulateRequest],
    ['simulation', SimulationResult, Examples.simulation],
    ['challenger report', ChallengerReport, Examples.challengerReport],
    ['client creation', CreateClientRequest, Examples.createClientRequest],
    ['client credentials', CreateClientResponse, Examples.createClientResponse],
    ['client', ClientView, Examples.client],
    ['client update', UpdateClientRequest, Examples.updateClientRequest],
    ['key rotation', RotateKeyResponse, Examples.rotateKey],
    ['secret rotation request', RotateWebhookSecretRequest, Examples.rotateWebhookSecretRequest],
    ['secret rotation', RotateWebhookSecretResponse, Examples.rotateWebhookSecret],
    ...EventNames.map((e): [string, unknown, unknown] => [`event ${e}`, WebhookEnvelope, EventExamples[e]]),
  ])('when the %s example is read with its contract, then it is valid', (_name, schema, example) => {
    const parsed = (schema as { safeParse(v: unknown): { success: boolean; error?: unknown } }).safeParse(example);
    expect(parsed.error).toBeUndefined();
  });
});
