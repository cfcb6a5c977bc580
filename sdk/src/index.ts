export { createLoanClient } from './client';
export type {
  InitiateInput,
  InitiateResult,
  LoanClient,
  LoanClientOptions,
  RequestOptions,
  RetryInfo,
  ReviewResult,
} from './client';
export { backoffDelay, DEFAULT_RETRY_POLICY, retryAfterMs, retryDelay } from './backoff';
export type { AttemptFailure, RetryPolicy } from './backoff';
export {
  apiErrorOf,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  LoanApiError,
  LoanClientError,
  LoanConnectionError,
  LoanError,
  LoanServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  WebhookVerificationError,
} from './errors';
export type { WebhookVerificationFailure } from './errors';
export {
  PREVIOUS_SIGNATURE_HEADER,
  SIGNATURE_HEADER,
  STANDARD_HEADERS,
  TIMESTAMP_TOLERANCE_SECONDS,
  signStandardWebhook,
  signWebhook,
  verifyWebhook,
  type WebhookHeaders,
} from './webhooks';
export { EVENT_NAMES } from './types';
export type * from './types';
export { VERSION } from './version';
