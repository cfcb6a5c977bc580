import { Router, type Request, type RequestHandler, type Response } from 'express';
import { relay, scoringCaller } from './scoringForward';
import { allowOnlyRoutedMethods, requireJson, route } from './support';
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
  const call = scoringCaller({
    scoringUrl: deps.scoringUrl,
    internalToken: deps.internalToken,
    unavailable: UNAVAILABLE,
  });
  const forward = async (req: Request, res: Response, path: string, body?: unknown) =>
    relay(res, await call(req, res, `/policies${path}`, { body }));

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
