import { Router, type Request, type RequestHandler, type Response } from 'express';
import { HttpError } from './errors';
import { allowOnlyRoutedMethods, ctx, requireJson, route } from './support';

/** Query parameters of the delivery log the notifier understands; anything else is dropped. */
const LIST_PARAMS = ['applicationId', 'eventId', 'event', 'status', 'limit', 'cursor'] as const;
const NOTIFIER_TIMEOUT_MS = 10_000;
const UNAVAILABLE = 'The webhook delivery log is unavailable right now; retry the request';

/**
 * The caller's webhook delivery log: list, one delivery, redelivery and replay. The notifier
 * owns deliveries; the gateway authenticates, rate-limits and forwards, naming the caller in
 * `x-client-id` so that every answer is scoped to its own deliveries. Mounted at `/api/webhooks`.
 */
export function deliveryRoutes(deps: {
  notifierUrl: string;
  /** Presented to the notifier, which answers nobody else. */
  internalToken: string;
  authenticate: RequestHandler;
  limit: (kind: 'other') => RequestHandler;
}): Router {
  const router = Router();
  const base = deps.notifierUrl.replace(/\/+$/, '');

  async function forward(req: Request, res: Response, path: string, body?: unknown) {
    const { client, correlationId } = ctx(res);
    const url = new URL(`${base}/internal/deliveries${path}`);
    if (req.method === 'GET') {
      for (const name of LIST_PARAMS) {
        const value = req.query[name];
        if (typeof value === 'string') url.searchParams.set(name, value);
      }
    }
    const headers: Record<string, string> = {
      'x-client-id': client!.clientId,
      'x-internal-token': deps.internalToken,
      accept: 'application/json',
    };
    if (correlationId) headers['x-correlation-id'] = correlationId;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let upstream: Awaited<ReturnType<typeof fetch>>;
    let payload: unknown;
    try {
      upstream = await fetch(url, {
        method: req.method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(NOTIFIER_TIMEOUT_MS),
      });
      payload = await upstream.json();
    } catch {
      // Unreachable, too slow, or not JSON: the lender can only retry.
      throw new HttpError(500, UNAVAILABLE);
    }
    if (upstream.status >= 500) throw new HttpError(500, UNAVAILABLE);
    res.status(upstream.status).json(payload);
  }

  const deliveryPath = (req: Request) => `/${encodeURIComponent(String(req.params.id ?? ''))}`;

  router.use(deps.authenticate);

  router.get(
    '/deliveries',
    deps.limit('other'),
    route((req, res) => forward(req, res, '')),
  );

  router.post(
    '/deliveries/replay',
    deps.limit('other'),
    requireJson(),
    route((req, res) => forward(req, res, '/replay', req.body ?? {})),
  );

  router.get(
    '/deliveries/:id',
    deps.limit('other'),
    route((req, res) => forward(req, res, deliveryPath(req))),
  );

  router.post(
    '/deliveries/:id/redeliver',
    deps.limit('other'),
    route((req, res) => forward(req, res, `${deliveryPath(req)}/redeliver`, {})),
  );

  return allowOnlyRoutedMethods(router);
}
