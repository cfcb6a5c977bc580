/**
 * An error that says whether trying again may help: a retriable error is thrown back to the
 * consumer so the message is redelivered; a non-retriable one dead-letters the message.
 */
export class ServiceError extends Error {
  readonly retriable: boolean;
  constructor(message: string, options: { retriable: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'ServiceError';
    this.retriable = options.retriable;
  }
}

export const isRetriable = (error: unknown): boolean => (error instanceof ServiceError ? error.retriable : true);
