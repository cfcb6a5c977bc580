import type { CommandErrorCode } from '@loan/contracts';

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

/** The one place command error codes become HTTP statuses. */
export const STATUS_OF: Record<CommandErrorCode, number> = {
  INVALID_STATE: 400,
  NO_ACCOUNTS: 400,
  NOT_FOUND: 404,
  KEY_OWNED_BY_OTHER_CLIENT: 403,
  KEY_IN_USE: 409,
  PROVIDER_UNAVAILABLE: 500,
  PROVIDER_KEY_MISSING: 500,
  INVALID_REVIEW: 400,
  REVIEW_CONFLICT: 409,
};
