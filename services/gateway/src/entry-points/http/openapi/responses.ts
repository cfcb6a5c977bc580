import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { ErrorBody, errorBody } from '@loan/contracts';
import type { z } from 'zod';

/** Building blocks of the route tables: the spec's error shape and the headers we send. */

export const ErrorSchema = ErrorBody.meta({
  id: 'Error',
  description: 'Every error answer (spec section 7): the HTTP status, a plain-language cause and the status name.',
  example: errorBody(404, 'Application not found'),
});

export const rateLimitHeaders = {
  'X-RateLimit-Limit': {
    description: 'Requests allowed in the current 60-second window for this operation',
    schema: { type: 'integer' as const },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current window',
    schema: { type: 'integer' as const, minimum: 0 },
  },
  'X-RateLimit-Reset': {
    description: 'When the current window resets, in Unix seconds',
    schema: { type: 'integer' as const },
  },
};

const correlationHeader = {
  'x-correlation-id': {
    description:
      'The id of this request in our logs (yours when you sent a valid one); quote it when you report a problem',
    schema: { type: 'string' as const },
  },
};

/** A JSON answer with its example; limited operations also announce their rate-limit headers. */
export function ok(
  description: string,
  schema: z.ZodType,
  example: unknown,
  opts: { limited?: boolean; links?: ResponseConfig['links'] } = {},
): ResponseConfig {
  return {
    description,
    headers: { ...correlationHeader, ...(opts.limited ? rateLimitHeaders : {}) },
    content: { 'application/json': { schema, example } },
    ...(opts.links ? { links: opts.links } : {}),
  };
}

/** An error answer; each cause is an example whose message is the one the service sends. */
export function failure(status: number, description: string, causes: Record<string, string>): ResponseConfig {
  const examples = Object.fromEntries(
    Object.entries(causes).map(([name, message]) => [name, { summary: name, value: errorBody(status, message) }]),
  );
  const headers: ResponseConfig['headers'] =
    status === 429
      ? {
          ...correlationHeader,
          'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
        }
      : status === 405
        ? { ...correlationHeader, Allow: { description: 'The methods this path has', schema: { type: 'string' } } }
        : correlationHeader;
  return { description, headers, content: { 'application/json': { schema: ErrorSchema, examples } } };
}

/** Statuses every authenticated call of the lender API can answer. */
export const lenderErrors = {
  401: failure(401, 'x-api-key missing or not a key of ours', {
    'no key': 'Missing x-api-key header',
    'wrong key': 'Invalid API key',
  }),
  413: failure(413, 'Body over 16 KiB', { 'too large': 'Request body is too large' }),
  429: failure(429, 'Rate limit exceeded (see Rate limits); wait for Retry-After', {
    'over the limit': 'Rate limit of 20 requests per minute exceeded; retry after the window resets',
    'failed authentications': 'Too many failed authentications from this address; try again later',
  }),
  500: failure(500, 'A downstream failure or timeout: retry with backoff', {
    'took too long': 'The request took too long to process; retry it (initiate with the same idempotencyKey)',
    internal: 'Internal server error',
  }),
} satisfies Record<number, ResponseConfig>;

export const malformedJson = { 'malformed JSON': 'Request body is not valid JSON' };
export const notJson = failure(415, 'The body is not application/json', {
  'not JSON': 'Content-Type must be application/json',
  'not UTF-8': 'Unsupported request body encoding',
});
