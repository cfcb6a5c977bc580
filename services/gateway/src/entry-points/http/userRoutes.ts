import { Router, type RequestHandler, type Response } from 'express';
import { InviteUserRequest, UpdateUserRequest } from '@loan/contracts';
import { z } from 'zod';
import type { StaffAccounts } from '../../data-access/staffAccounts';
import { actorOf, allowOnlyRoutedMethods, ctx, requireJson, route, validate } from './support';
import { permit } from './guards';

const StaffSettingsRequest = z.strictObject(
  { requireTotp: z.boolean({ error: 'requireTotp must be true or false' }) },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? 'Unknown field name; only requireTotp can be changed' : undefined,
  },
);

/**
 * The lender's staff, mounted at `/api/users` (with the API key) and `/console/api/users` (for
 * an owner): invite by e-mail and role, list, change a role, remove, and whether every user
 * must sign in with an authenticator code. Only ever the users of the caller's lender.
 */
export function userRoutes(deps: {
  staff: StaffAccounts;
  authenticate: RequestHandler;
  limit: (kind: 'other') => RequestHandler;
}): Router {
  const { staff } = deps;
  const router = Router();
  const own = (res: Response) => ctx(res).client!.clientId;

  router.use(deps.authenticate, deps.limit('other'), permit('users'));

  router.get(
    '/',
    route(async (_req, res) => {
      res.json(await staff.list(own(res)));
    }),
  );

  router.post(
    '/',
    requireJson(),
    route(async (req, res) => {
      const body = validate(InviteUserRequest, req.body ?? {});
      res.status(201).json(await staff.invite(own(res), body.email, body.role, actorOf('client', req, res)));
    }),
  );

  router.get(
    '/settings',
    route(async (_req, res) => {
      res.json({ requireTotp: await staff.requireTotp(own(res)) });
    }),
  );

  router.patch(
    '/settings',
    requireJson(),
    route(async (req, res) => {
      const body = validate(StaffSettingsRequest, req.body ?? {});
      res.json(await staff.setRequireTotp(own(res), body.requireTotp, actorOf('client', req, res)));
    }),
  );

  router.patch(
    '/:id',
    requireJson(),
    route(async (req, res) => {
      const body = validate(UpdateUserRequest, req.body ?? {});
      res.json(await staff.changeRole(own(res), req.params.id, body.role, actorOf('client', req, res)));
    }),
  );

  router.delete(
    '/:id',
    route(async (req, res) => {
      await staff.remove(own(res), req.params.id, actorOf('client', req, res));
      res.status(204).end();
    }),
  );

  return allowOnlyRoutedMethods(router);
}
