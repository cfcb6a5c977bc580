import type { Request, Response } from 'express';
import { HttpError } from './errors';
import { ctx } from './support';

const SCORING_TIMEOUT_MS = 30_000;

/** An answer of scoring's internal API. */
export interface ScoringAnswer {
  status: number;
  /** Parsed JSON, or the text of a CSV. */
  payload: unknown;
  contentType: string;
}

/**
 * Calls scoring's internal API for the authenticated lender: names the caller in `x-client-id`
 * (every answer is scoped to it) and who acts in `x-actor` (a staff user by id, a console signed
 * in with the key, or the lender's backend with its key), presenting the internal token. An
 * unreachable, slow or failing scoring is a 500 saying `unavailable`, for the lender to retry.
 */
export function scoringCaller(deps: { scoringUrl: string; internalToken: string; unavailable: string }) {
  const base = deps.scoringUrl.replace(/\/+$/, '');
  return async function call(
    req: Request,
    res: Response,
    path: string,
    options: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<ScoringAnswer> {
    const { client, correlationId, consoleSession } = ctx(res);
    const clientId = client!.clientId;
    const actor = consoleSession?.userId
      ? `user:${consoleSession.userId}`
      : `${consoleSession ? 'console' : 'api-key'}:${clientId}`;
    const headers: Record<string, string> = {
      'x-client-id': clientId,
      'x-actor': actor,
      'x-internal-token': deps.internalToken,
      accept: 'application/json, text/csv',
      ...options.headers,
    };
    if (correlationId) headers['x-correlation-id'] = correlationId;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    try {
      const upstream = await fetch(`${base}/internal${path}`, {
        method: options.method ?? req.method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        redirect: 'manual',
        signal: AbortSignal.timeout(SCORING_TIMEOUT_MS),
      });
      const contentType = upstream.headers.get('content-type') ?? '';
      const payload = contentType.startsWith('text/csv') ? await upstream.text() : await upstream.json();
      if (upstream.status >= 500 || upstream.status === 401) throw new Error(`scoring answered ${upstream.status}`);
      return { status: upstream.status, payload, contentType };
    } catch {
      throw new HttpError(500, deps.unavailable);
    }
  };
}

/** Sends scoring's answer on as it came. */
export function relay(res: Response, answer: ScoringAnswer, filename?: string) {
  if (answer.contentType.startsWith('text/csv')) {
    res.status(answer.status).type('text/csv');
    if (filename) res.attachment(filename);
    res.send(answer.payload as string);
    return;
  }
  res.status(answer.status).json(answer.payload);
}
