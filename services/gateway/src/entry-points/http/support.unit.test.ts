import type { Request, Response } from 'express';
import { createLogger } from '@loan/runtime';
import { errorHandler } from './support';

/** What the error handler answers for an error thrown by a route or a middleware. */
function answer(error: unknown) {
  const sent: { status?: number; body?: unknown } = {};
  const res = {
    locals: {},
    headersSent: false,
    setHeader: () => res,
    status(code: number) {
      sent.status = code;
      return res;
    },
    json(body: unknown) {
      sent.body = body;
      return res;
    },
  };
  errorHandler(createLogger('gateway', 'silent'))(
    error,
    { method: 'POST', path: '/api/applications/initiate' } as Request,
    res as unknown as Response,
    () => {},
  );
  return sent;
}

describe('errorHandler', () => {
  it('when a dependency fails with a 4xx of its own (the schema registry answering 409), then the lender gets 500 and not its message', () => {
    const registry = Object.assign(
      new Error('Confluent_Schema_Registry - RuleViolationException: Incompatible artifact'),
      { status: 409 },
    );
    expect(answer(registry)).toEqual({
      status: 500,
      body: { statusCode: 500, message: 'Internal server error', error: 'Internal Server Error' },
    });
  });

  it('when express or body-parser refuses a request with a 4xx made to be shown, then that status and message go out in the error shape', () => {
    // body-parser's http-errors: `expose` is set on every 4xx it makes.
    const refused = Object.assign(new Error('unsupported charset "LATIN-9"'), { status: 415, expose: true });
    expect(answer(refused)).toEqual({
      status: 415,
      body: { statusCode: 415, message: 'unsupported charset "LATIN-9"', error: 'Unsupported Media Type' },
    });
  });
});
