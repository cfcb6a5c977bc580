import type { CommandErrorCode } from '@loan/contracts';
import { Refusal, type RefusalCode } from '../../domain/errors';

/** An expected failure at the HTTP edge, in the spec's error shape. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** The one place expected failures (command error codes and the gateway's refusals) become HTTP statuses. */
export const STATUS_OF: Record<CommandErrorCode | RefusalCode, number> = {
  INVALID_STATE: 400,
  NO_ACCOUNTS: 400,
  NOT_FOUND: 404,
  KEY_OWNED_BY_OTHER_CLIENT: 403,
  KEY_IN_USE: 409,
  PROVIDER_UNAVAILABLE: 500,
  PROVIDER_KEY_MISSING: 500,
  INVALID_REVIEW: 400,
  REVIEW_CONFLICT: 409,
  INVALID: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  CONFLICT: 409,
  TOO_MANY_ATTEMPTS: 429,
};

/** The HTTP answer to an expected failure (an HttpError as it is, a refusal by its code); null for any other error. */
export function asHttpError(error: unknown): HttpError | null {
  if (error instanceof HttpError) return error;
  if (error instanceof Refusal) {
    const headers: Record<string, string> =
      error.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(error.retryAfterSeconds) };
    return new HttpError(STATUS_OF[error.code], error.message, headers);
  }
  return null;
}
