import { Router, type RequestHandler, type Response } from 'express';
import { RotateWebhookSecretRequest, UpdateClientSettingsRequest } from '@loan/contracts';
import type { Clock } from '@loan/runtime';
import { settingsOf, type ClientAccounts } from '../../data-access/clientAccounts';
import { actorOf, allowOnlyRoutedMethods, ctx, requireJson, route, rotationBody, validate } from './support';

/**
 * The caller's own account, mounted at `/api/client`: its settings, its webhook URL, and the
 * rotation of its API key and webhook secret. The same changes as the admin API's, through the
 * same client accounts, only ever on the client the API key belongs to.
 */
export function clientRoutes(deps: {
  accounts: ClientAccounts;
  clock: Clock;
  authenticate: RequestHandler;
  limit: (kind: 'other') => RequestHandler;
}): Router {
  const { accounts } = deps;
  const router = Router();
  const own = (res: Response) => ctx(res).client!.clientId;

  router.use(deps.authenticate);

  router.get(
    '/',
    deps.limit('other'),
    route(async (_req, res) => {
      res.json(settingsOf(await accounts.load(own(res)), deps.clock.now()));
    }),
  );

  router.patch(
    '/',
    deps.limit('other'),
    requireJson(),
    route(async (req, res) => {
      const body = validate(UpdateClientSettingsRequest, req.body ?? {});
      const next = await accounts.update(own(res), body, actorOf('client', req, res));
      res.json(settingsOf(next, deps.clock.now()));
    }),
  );

  router.post(
    '/rotate-key',
    deps.limit('other'),
    route(async (req, res) => {
      res.json(await accounts.rotateKey(own(res), actorOf('client', req, res)));
    }),
  );

  router.post(
    '/rotate-webhook-secret',
    deps.limit('other'),
    requireJson(),
    route(async (req, res) => {
      const body = validate(RotateWebhookSecretRequest, rotationBody(req.body));
      res.json(await accounts.rotateWebhookSecret(own(res), body.overlapSeconds, actorOf('client', req, res)));
    }),
  );

  return allowOnlyRoutedMethods(router);
}
