import type { Request, Response } from 'express';
import { createLogger } from '@loan/runtime';
import { Refusal } from '../../domain/errors';
import { HttpError } from './errors';
import { errorHandler } from './support';

/** What the error handler answers for an error thrown by a route or a middleware. */
function answer(error: unknown) {
  const sent: { status?: number; body?: unknown; headers?: Record<string, string> } = {};
  const res = {
    locals: {},
    headersSent: false,
    setHeader(name: string, value: string) {
      sent.headers = { ...sent.headers, [name]: value };
      return res;
    },
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

  it('when a domain or data-access refusal is thrown, then its code gives the status and its message goes out in the error shape', () => {
    expect(answer(new Refusal('INVALID', 'password must be at least 12 characters'))).toEqual({
      status: 400,
      body: { statusCode: 400, message: 'password must be at least 12 characters', error: 'Bad Request' },
    });
    expect(answer(new Refusal('UNAUTHENTICATED', 'Wrong e-mail address')).status).toBe(401);
    expect(answer(new Refusal('FORBIDDEN', 'The current password is wrong')).status).toBe(403);
    expect(answer(new Refusal('NOT_FOUND', 'User not found')).status).toBe(404);
    expect(answer(new Refusal('CONFLICT', 'The user was changed concurrently; retry')).status).toBe(409);
  });

  it('when an account must wait after failed sign-ins, then the answer is 429 with Retry-After in seconds', () => {
    expect(answer(new Refusal('TOO_MANY_ATTEMPTS', 'Too many failed sign-ins; try again in 30 s', 30))).toEqual({
      status: 429,
      headers: { 'Retry-After': '30' },
      body: { statusCode: 429, message: 'Too many failed sign-ins; try again in 30 s', error: 'Too Many Requests' },
    });
  });

  it('when the edge throws an HttpError, then its status, message and headers go out as they are', () => {
    expect(answer(new HttpError(415, 'Content-Type must be application/json', { 'X-Test': '1' }))).toEqual({
      status: 415,
      headers: { 'X-Test': '1' },
      body: { statusCode: 415, message: 'Content-Type must be application/json', error: 'Unsupported Media Type' },
    });
  });
});
