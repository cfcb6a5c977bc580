import {
  AnalyzeResponse,
  ApplicationView,
  ErrorBody,
  FinalizeLinkingResponse,
  InitiateRequest,
  InitiateResponse,
  LinkAccountRequest,
  LinkAccountResponse,
  WebhookEnvelope,
} from '@loan/contracts';
import { z } from 'zod';

const schema = (s: z.ZodType, io: 'input' | 'output' = 'output') =>
  z.toJSONSchema(s, { target: 'draft-2020-12', unrepresentable: 'any', io }) as Record<string, unknown>;

const json = (ref: string) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } });
const error = (description: string) => ({ description, content: json('Error') });
const idParam = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The applicationId returned by initiate',
  schema: { type: 'string', format: 'uuid' },
};

/** OpenAPI 3.1 of the lender API, generated from the same zod schemas that validate requests. */
export function buildOpenApi(serverUrl: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Loan Application Analysis API',
      version: '1.0.0',
      description:
        'Open a loan application, have the applicant link bank accounts, and receive a scored, explained decision by signed webhook. Amounts are in Naira; rates are monthly percentages.',
    },
    servers: [{ url: serverUrl }],
    security: [{ apiKey: [] }],
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas: {
        InitiateRequest: schema(InitiateRequest, 'input'),
        InitiateResponse: schema(InitiateResponse),
        FinalizeLinkingResponse: schema(FinalizeLinkingResponse),
        AnalyzeResponse: schema(AnalyzeResponse),
        LinkAccountRequest: schema(LinkAccountRequest, 'input'),
        LinkAccountResponse: schema(LinkAccountResponse),
        Application: schema(ApplicationView),
        WebhookEvent: schema(WebhookEnvelope),
        Error: schema(ErrorBody),
      },
    },
    paths: {
      '/api/applications/initiate': {
        post: {
          summary: 'Create the applicant and the application; returns the widget address',
          description:
            'A new application answers 201. The same idempotencyKey on a PENDING_LINKING or ABANDONED application resumes it (200, resumed true): a fresh widgetUrl, a new 24-hour window to link, and applicant and loan taken from this request (it replaces what was stored). Optional fields (phone, bvn, purpose) sent as null or "" are treated as absent. Bounds the spec leaves open: amount > 0 and at most 100,000,000 Naira; tenor a whole number of months, 1 to 60; interestRate a monthly percentage from 0 to 100; purpose at most 500 characters; idempotencyKey 1 to 255 characters; names 2 to 100 characters; phone 10 to 15 characters; bvn 11 digits. Bodies over 16 KiB answer 413, bodies that are not application/json 415. Rate limit: 20 per minute per client.',
          requestBody: { required: true, content: json('InitiateRequest') },
          responses: {
            201: { description: 'Application created', content: json('InitiateResponse') },
            200: { description: 'Existing application resumed', content: json('InitiateResponse') },
            400: error('Missing or invalid field'),
            401: error('Missing or invalid x-api-key'),
            403: error('idempotencyKey used by another account'),
            409: error('Application for this key is LINKED, PROCESSING, COMPLETED or FAILED'),
            413: error('Body larger than 16 KiB'),
            415: error('Body is not application/json'),
            429: error('Rate limit exceeded'),
            500: error('Provider API key not configured, or a downstream failure'),
          },
        },
      },
      '/api/applications/{id}': {
        get: {
          summary: 'Current status, accounts and decision of an application',
          parameters: [idParam],
          responses: {
            200: { description: 'The application', content: json('Application') },
            401: error('Missing or invalid x-api-key'),
            404: error('Not found or not yours'),
          },
        },
      },
      '/api/applications/{id}/finalize-linking': {
        post: {
          summary: 'Lock linking; application.ready_for_analysis follows once every account is enriched',
          parameters: [idParam],
          responses: {
            200: { description: 'Linking finalized', content: json('FinalizeLinkingResponse') },
            400: error('Not in LINKED status, or no accounts linked yet'),
            404: error('Not found or not yours'),
          },
        },
      },
      '/api/applications/{id}/analyze': {
        post: {
          summary: 'Queue the analysis; the result comes as application.decision or application.failed',
          description:
            'Call after application.ready_for_analysis. PROCESSING always ends: an analysis with no outcome within ANALYSIS_TIMEOUT (5 minutes by default) fails with application.failed, reason analysis_timeout. Rate limit: 30 per minute per client.',
          parameters: [idParam],
          responses: {
            200: { description: 'Analysis queued', content: json('AnalyzeResponse') },
            400: error('No linked (and enriched) bank accounts, or wrong status'),
            404: error('Not found or not yours'),
          },
        },
      },
      '/api/applications/{id}/link-account': {
        post: {
          summary: 'Fresh widget address; restarts enrichment for the account(s) being re-linked',
          description:
            'Pass accountId (from account.enrichment_failed) to re-link one account; without it, every account whose enrichment is not complete is restarted.',
          parameters: [idParam],
          requestBody: { required: false, content: json('LinkAccountRequest') },
          responses: {
            200: { description: 'Widget address issued', content: json('LinkAccountResponse') },
            400: error('Application is COMPLETED, FAILED or ABANDONED'),
            404: error('Not found or not yours'),
            500: error('Provider API key not configured (answered only after the application is found and can be re-linked)'),
          },
        },
      },
    },
    webhooks: {
      event: {
        post: {
          summary: 'Every event, signed with x-signature (hex HMAC-SHA256 of the raw body, keyed with the webhook secret)',
          description:
            "Events of one application arrive in order: while one is being retried (failed attempts back off from 10 seconds), that application's later events wait until its retries end; other applications are not held back. Deduplicate on id.",
          requestBody: { content: json('WebhookEvent') },
          responses: { 200: { description: 'Any 2xx within 10 seconds acknowledges the event' } },
        },
      },
    },
  };
}

/** A readable page of the same document, with no external assets. */
export function docsPage(doc: ReturnType<typeof buildOpenApi>): string {
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const rows = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops as Record<string, { summary: string; description?: string; responses: Record<string, { description: string }> }>).map(
      ([method, op]) => `<section><h2><code>${method.toUpperCase()} ${esc(path)}</code></h2><p>${esc(op.summary)}</p>${
        op.description ? `<p>${esc(op.description)}</p>` : ''
      }<ul>${Object.entries(op.responses)
        .map(([code, r]) => `<li><b>${code}</b> ${esc(r.description)}</li>`)
        .join('')}</ul></section>`,
    ),
  );
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(doc.info.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5}code{background:#f3f3f3;padding:.1rem .3rem}section{border-top:1px solid #ddd;padding:.5rem 0}</style>
</head><body><h1>${esc(doc.info.title)}</h1><p>${esc(doc.info.description)}</p>
<p>Every request carries <code>x-api-key</code>. Errors are <code>{statusCode, message, error}</code>. The machine-readable document is at <a href="/api/openapi.json">/api/openapi.json</a>.</p>
${rows.join('\n')}</body></html>`;
}
