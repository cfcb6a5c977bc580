import { Router } from 'express';
import { z } from 'zod';
import type { Logger } from '../logger';
import { faultInjection, type Faults } from '../provider/faults';
import { scenarioFor } from './profiles';
import { consumerHitResponse, consumerNoHitResponse, errorResponse } from './report';

export interface BureauOptions {
  faults: Faults;
  clock: () => Date;
  /** How long the timeout test BVN takes to answer. */
  slowDelayMs: number;
  logger: Logger;
}

export interface Bureau {
  router: Router;
  /** Drops answers still being held back. */
  stop(): void;
}

const ReportBody = z.union([
  z.object({ bvn: z.string() }).transform((body) => body.bvn),
  z.object({ BVN_NO: z.string() }).transform((body) => body.BVN_NO),
]);

/**
 * A CRC-like consumer credit report looked up by BVN: `POST /bureau/v1/consumer/report`
 * with `x-api-key` (any non-empty key) and `{bvn}`.
 */
export function createBureau({ faults, clock, slowDelayMs, logger }: BureauOptions): Bureau {
  const router = Router();
  const held = new Set<NodeJS.Timeout>();
  const log = logger.child({ component: 'bureau' });

  router.post(
    '/bureau/v1/consumer/report',
    (req, res, next) => {
      const key = req.header('x-api-key');
      if (key && key.trim() !== '') return next();
      res.status(401).json(errorResponse('E401', 'Missing x-api-key header'));
    },
    faultInjection(faults, 'bureau', clock),
    (req, res) => {
      const parsed = ReportBody.safeParse(req.body ?? {});
      const bvn = parsed.success ? parsed.data.trim() : '';
      if (!/^\d{11}$/.test(bvn)) {
        res.status(400).json(errorResponse('E400', 'bvn must be exactly 11 digits'));
        return;
      }
      const scenario = scenarioFor(bvn);
      log.info({ scenario }, 'consumer report requested');
      switch (scenario) {
        case 'no_record':
          res.json(consumerNoHitResponse(bvn, clock()));
          return;
        case 'error':
          res.status(503).json(errorResponse('E503', 'Bureau service temporarily unavailable'));
          return;
        case 'timeout': {
          const timer = setTimeout(() => {
            held.delete(timer);
            if (!res.writableEnded && !res.destroyed) res.json(consumerHitResponse(bvn, clock()));
          }, slowDelayMs);
          held.add(timer);
          res.on('close', () => {
            clearTimeout(timer);
            held.delete(timer);
          });
          return;
        }
        case 'hit':
          res.json(consumerHitResponse(bvn, clock()));
          return;
      }
    },
  );

  return {
    router,
    stop: () => {
      for (const timer of held) clearTimeout(timer);
      held.clear();
    },
  };
}
