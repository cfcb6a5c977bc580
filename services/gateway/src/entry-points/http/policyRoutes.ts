import { Router, type Request, type RequestHandler, type Response } from 'express';
import { HttpError } from './errors';
import { allowOnlyRoutedMethods, ctx, requireJson, route } from './support';

const SCORING_TIMEOUT_MS = 30_000;
const UNAVAILABLE = 'Credit policies are unavailable right now; retry the request';

/**
 * The caller's credit policies: versions, simulation on past analyses, activation and the
 * challenger. Scoring owns policies and the replay of its stored analyses; the gateway
 * authenticates, rate-limits and forwards over scoring's internal port, naming the caller in
 * `x-client-id` (every answer is scoped to it) and who acts in `x-actor` for the audit line.
 * Mounted at `/api/policies` and `/console/api/policies`.
 */
export function policyRoutes(deps: {
  scoringUrl: string;
  /** Presented to scoring, which answers nobody else. */
  internalToken: string;
  authenticate: RequestHandler;
  limit: (kind: 'other') => RequestHandler;
}): Router {
  const router = Router();
  const base = deps.scoringUrl.replace(/\/+$/, '');

  async function forward(req: Request, res: Response, path: string, body?: unknown) {
    const { client, correlationId, consoleSession } = ctx(res);
    const clientId = client!.clientId;
    // Who acts, for scoring's audit line: a staff user by id, a console signed in with the key,
    // or the lender's backend with its key.
    const actor = consoleSession?.userId
      ? `user:${consoleSession.userId}`
      : `${consoleSession ? 'console' : 'api-key'}:${clientId}`;
    const headers: Record<string, string> = {
      'x-client-id': clientId,
      'x-actor': actor,
      'x-internal-token': deps.internalToken,
      accept: 'application/json',
    };
    if (correlationId) headers['x-correlation-id'] = correlationId;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let upstream: Awaited<ReturnType<typeof fetch>>;
    let payload: unknown;
    try {
      upstream = await fetch(`${base}/internal/policies${path}`, {
        method: req.method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(SCORING_TIMEOUT_MS),
      });
      payload = await upstream.json();
    } catch {
      // Unreachable, too slow, or not JSON: the lender can only retry.
      throw new HttpError(500, UNAVAILABLE);
    }
    if (upstream.status >= 500 || upstream.status === 401) throw new HttpError(500, UNAVAILABLE);
    res.status(upstream.status).json(payload);
  }

  const version = (req: Request) => `/${encodeURIComponent(String(req.params.version ?? ''))}`;

  router.use(deps.authenticate);
  router.get(
    '/',
    deps.limit('other'),
    route((req, res) => forward(req, res, '')),
  );
  router.post(
    '/',
    deps.limit('other'),
    requireJson(),
    route((req, res) => forward(req, res, '', req.body ?? {})),
  );
  router.get(
    '/challenger/report',
    deps.limit('other'),
    route((req, res) => forward(req, res, '/challenger/report')),
  );
  router.delete(
    '/challenger',
    deps.limit('other'),
    route((req, res) => forward(req, res, '/challenger')),
  );
  router.get(
    '/:version',
    deps.limit('other'),
    route((req, res) => forward(req, res, version(req))),
  );
  router.post(
    '/:version/simulate',
    deps.limit('other'),
    requireJson(),
    route((req, res) => forward(req, res, `${version(req)}/simulate`, req.body ?? {})),
  );
  router.post(
    '/:version/activate',
    deps.limit('other'),
    route((req, res) => forward(req, res, `${version(req)}/activate`, {})),
  );
  router.post(
    '/:version/challenger',
    deps.limit('other'),
    route((req, res) => forward(req, res, `${version(req)}/challenger`, {})),
  );

  return allowOnlyRoutedMethods(router);
}
