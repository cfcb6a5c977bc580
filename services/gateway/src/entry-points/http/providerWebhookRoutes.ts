import { Router, type Request } from 'express';
import { FACT_TYPE_HEADER, Topics } from '@loan/contracts';
import { type Clock, type KafkaBus, type Logger, type Sealer } from '@loan/runtime';
import type { Counter } from 'prom-client';
import { HttpError } from './errors';
import { safeEqual } from '../../domain/keys';
import { toProviderCallback } from '../../domain/providerCallback';
import type { ClientRepository } from '../../data-access/clientRepository';
import { allowOnlyRoutedMethods, route } from './support';

/**
 * The provider's webhooks. A webhook is verified (`mono-webhook-secret`, constant time) and
 * published before it is acknowledged, so the provider retries anything we did not keep.
 *
 * `/mono` is verified with the deployment-wide secret (PROVIDER_WEBHOOK_SECRET: one provider
 * app for every lender). `/mono/:clientId` is a lender's own provider app: verified with that
 * client's provider webhook secret, and the callback names the client, so it can only touch
 * that client's applications and accounts.
 */
export function providerWebhookRoutes(deps: {
  bus: KafkaBus;
  secret: string;
  clients: Pick<ClientRepository, 'get'>;
  sealer: Sealer;
  clock: Clock;
  logger: Logger;
  received: Counter<'outcome'>;
}) {
  const router = Router();

  function refuse(req: Request): never {
    deps.received.inc({ outcome: 'rejected' });
    deps.logger.warn(
      { ip: req.ip, clientId: req.params.clientId ?? null },
      'provider webhook with a wrong secret rejected',
    );
    throw new HttpError(401, 'Invalid webhook secret');
  }

  async function accept(req: Request, clientId: string | null) {
    const raw = (req as unknown as { rawBody?: Buffer }).rawBody ?? Buffer.from(JSON.stringify(req.body ?? {}));
    const callback = toProviderCallback(req.body, raw, deps.clock.now());
    if (!callback) {
      deps.received.inc({ outcome: 'invalid' });
      throw new HttpError(400, 'Webhook body must have an event, a data object and an account id');
    }
    // The kind travels in a header too, so that consumers pass over the kinds they ignore undecoded.
    await deps.bus.publish(Topics.providerCallbacks, [
      {
        key: callback.providerAccountId,
        value: clientId ? { ...callback, clientId } : callback,
        headers: { [FACT_TYPE_HEADER]: callback.kind },
      },
    ]);
    deps.received.inc({ outcome: 'accepted' });
  }

  router.post(
    '/mono',
    route(async (req, res) => {
      const given = req.header('mono-webhook-secret');
      if (!given || !safeEqual(given, deps.secret)) refuse(req);
      await accept(req, null);
      res.json({ received: true });
    }),
  );

  router.post(
    '/mono/:clientId',
    route(async (req, res) => {
      const given = req.header('mono-webhook-secret');
      const clientId = String(req.params.clientId);
      // An unknown client, one without a secret of its own, or a wrong secret: the same 401.
      const client = given && /^[0-9a-f-]{36}$/.test(clientId) ? await deps.clients.get(clientId) : null;
      const expected = client?.providerWebhookSecret ? deps.sealer.open(client.providerWebhookSecret) : null;
      if (!given || !expected || !safeEqual(given, expected)) refuse(req);
      await accept(req, clientId);
      res.json({ received: true });
    }),
  );

  return allowOnlyRoutedMethods(router);
}
