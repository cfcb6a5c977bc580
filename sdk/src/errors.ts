import type { ErrorBody } from './types';

/** Anything this package throws on purpose. */
export class LoanError extends Error {
  /** Whether the same call may succeed if made again later (the client already retried it). */
  readonly retriable: boolean;

  constructor(message: string, options: { retriable: boolean; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.retriable = options.retriable;
  }
}

/**
 * The API answered with an error, in its shape `{statusCode, message, error}`. `message` is
 * the primary signal (there is no machine-readable code beyond the status).
 */
export class LoanApiError extends LoanError implements ErrorBody {
  readonly statusCode: number;
  /** The HTTP status name, e.g. `Bad Request`. */
  readonly error: string;
  /** `x-correlation-id` of the request: quote it when asking about a call. */
  readonly requestId: string | null;
  readonly headers: Headers;

  constructor(body: ErrorBody, headers: Headers, retriable: boolean) {
    super(body.message, { retriable });
    this.statusCode = body.statusCode;
    this.error = body.error;
    this.headers = headers;
    this.requestId = headers.get('x-correlation-id');
  }

  /** The error as the API sent it. */
  toJSON(): ErrorBody {
    return { statusCode: this.statusCode, message: this.message, error: this.error };
  }
}

/** 4xx: the request must change before it can succeed (429 aside). */
export class LoanClientError extends LoanApiError {
  constructor(body: ErrorBody, headers: Headers, retriable = false) {
    super(body, headers, retriable);
  }
}

/** 400: a field missing or invalid, or the application is in the wrong state for the call. */
export class BadRequestError extends LoanClientError {}

/** 401: the API key is missing or invalid. */
export class AuthenticationError extends LoanClientError {}

/** 403: the idempotencyKey belongs to another account. */
export class PermissionDeniedError extends LoanClientError {}

/** 404: no such application (or delivery), or not yours. */
export class NotFoundError extends LoanClientError {}

/** 409: the idempotencyKey's application is past linking: use a new key. */
export class ConflictError extends LoanClientError {}

/** 429: over a rate limit. `retryAfterMs` says when the window resets, when the API said. */
export class RateLimitError extends LoanClientError {
  readonly retryAfterMs: number | null;

  constructor(body: ErrorBody, headers: Headers, retryAfterMs: number | null) {
    super(body, headers, true);
    this.retryAfterMs = retryAfterMs;
  }
}

/** 5xx: the service failed; retrying (with the same idempotencyKey) is safe. */
export class LoanServerError extends LoanApiError {
  constructor(body: ErrorBody, headers: Headers) {
    super(body, headers, true);
  }
}

/** No answer: the connection failed or the request timed out, after every retry. */
export class LoanConnectionError extends LoanError {
  constructor(message: string, cause: unknown) {
    super(message, { retriable: true, cause });
  }
}

/** Why a webhook was refused by `verifyWebhook`. */
export type WebhookVerificationFailure =
  'missing_signature' | 'signature_mismatch' | 'timestamp_out_of_tolerance' | 'invalid_payload' | 'unknown_event';

/**
 * A webhook request that must not be trusted (`missing_signature`, `signature_mismatch`,
 * `timestamp_out_of_tolerance`: answer 401) or that is signed but not an event this version knows (`invalid_payload`,
 * `unknown_event`).
 */
export class WebhookVerificationError extends LoanError {
  readonly reason: WebhookVerificationFailure;

  constructor(reason: WebhookVerificationFailure, message: string) {
    super(message, { retriable: false });
    this.reason = reason;
  }
}

/** The error class of an error answer, by status. */
export function apiErrorOf(
  status: number,
  body: ErrorBody,
  headers: Headers,
  retryAfterMs: number | null,
): LoanApiError {
  switch (status) {
    case 400:
      return new BadRequestError(body, headers);
    case 401:
      return new AuthenticationError(body, headers);
    case 403:
      return new PermissionDeniedError(body, headers);
    case 404:
      return new NotFoundError(body, headers);
    case 409:
      return new ConflictError(body, headers);
    case 429:
      return new RateLimitError(body, headers, retryAfterMs);
  }
  if (status >= 500) return new LoanServerError(body, headers);
  return new LoanClientError(body, headers);
}
