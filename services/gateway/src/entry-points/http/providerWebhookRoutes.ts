import { Router } from 'express';
import { Topics } from '@loan/contracts';
import type { Clock, KafkaBus, Logger } from '@loan/runtime';
import type { Counter } from 'prom-client';
import { HttpError } from '../../domain/errors';
import { safeEqual } from '../../domain/keys';
import { toProviderCallback } from '../../domain/providerCallback';
import { allowOnlyRoutedMethods, route } from './support';

/**
 * The provider's webhooks. A webhook is verified (`mono-webhook-secret`, constant time) and
 * published before it is acknowledged, so the provider retries anything we did not keep.
 */
export function providerWebhookRoutes(deps: {
  bus: KafkaBus;
  secret: string;
  clock: Clock;
  logger: Logger;
  received: Counter<'outcome'>;
}) {
  const router = Router();
  router.post(
    '/mono',
    route(async (req, res) => {
      const given = req.header('mono-webhook-secret');
      if (!given || !safeEqual(given, deps.secret)) {
        deps.received.inc({ outcome: 'rejected' });
        deps.logger.warn({ ip: req.ip }, 'provider webhook with a wrong secret rejected');
        throw new HttpError(401, 'Invalid webhook secret');
      }
      const raw = (req as unknown as { rawBody?: Buffer }).rawBody ?? Buffer.from(JSON.stringify(req.body ?? {}));
      const callback = toProviderCallback(req.body, raw, deps.clock.now());
      if (!callback) {
        deps.received.inc({ outcome: 'invalid' });
        throw new HttpError(400, 'Webhook body must have an event, a data object and an account id');
      }
      await deps.bus.publish(Topics.providerCallbacks, [{ key: callback.providerAccountId, value: callback }]);
      deps.received.inc({ outcome: 'accepted' });
      res.json({ received: true });
    }),
  );
  return allowOnlyRoutedMethods(router);
}
