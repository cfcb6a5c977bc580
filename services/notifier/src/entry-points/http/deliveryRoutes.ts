import { Router, type Request, type RequestHandler, type Response } from 'express';
import {
  DeliveryListQuery,
  DeliveryStatus,
  IsoTimestamp,
  ReplayRequest,
  errorBody,
  type DeliveryHealth,
} from '@loan/contracts';
import type { Clock } from '@loan/runtime';
import { z } from 'zod';
import type { DeliveryRepository } from '../../data-access/deliveryRepository';
import {
  scheduleEntryOf,
  type Delivery,
  type DeliveryHead,
  type DeliveryPolicy,
  type ScheduleEntry,
} from '../../domain/delivery';
import { isReplayable, redeliver, replay, type RequeueError } from '../../domain/requeueDelivery/decide';
import { toView } from '../../domain/view';

/** Expected failures, mapped to HTTP statuses here and nowhere else. */
const STATUS_OF: Record<RequeueError['code'] | 'INVALID' | 'NO_CLIENT', number> = {
  INVALID: 400,
  NO_CLIENT: 401,
  NOT_FOUND: 404,
  ALREADY_PENDING: 409,
};

class ApiError extends Error {
  constructor(
    readonly code: keyof typeof STATUS_OF,
    message: string,
  ) {
    super(message);
  }
}

function parse<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const field = issue.path.join('.');
    return field && !issue.message.startsWith(field) ? `${field}: ${issue.message}` : issue.message;
  });
  throw new ApiError('INVALID', [...new Set(problems)].join('; '));
}

/** Page cursors are opaque to callers: the position of the last delivery of the page. */
const encodeCursor = (d: Delivery) =>
  Buffer.from(JSON.stringify([d.createdAt.toISOString(), d.deliveryId])).toString('base64url');

function decodeCursor(cursor: string): { createdAt: Date; deliveryId: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    const createdAt = new Date(String(at));
    if (typeof id === 'string' && !Number.isNaN(createdAt.getTime())) return { createdAt, deliveryId: id };
  } catch {
    // falls through to the error below
  }
  throw new ApiError('INVALID', 'cursor is not valid; use the nextCursor of a previous page');
}

const route =
  (handler: (req: Request, res: Response, clientId: string) => Promise<void>): RequestHandler =>
  async (req, res) => {
    try {
      const clientId = req.header('x-client-id');
      if (!clientId) throw new ApiError('NO_CLIENT', 'Missing x-client-id header');
      await handler(req, res, clientId);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const status = STATUS_OF[error.code];
      res.status(status).json(errorBody(status, error.message));
    }
  };

/** The period of a delivery-health count: deliveries recorded from `from` (included) to `before` (excluded). */
const HealthQuery = z.object({ from: IsoTimestamp, before: IsoTimestamp });

const paramId = (req: Request) => String(req.params.id ?? '');

/**
 * The delivery log API, for the gateway to serve to lenders once it has authenticated them:
 * it names the caller in `x-client-id`, and every answer is scoped to that client.
 */
export function deliveryRoutes(deps: {
  repo: DeliveryRepository;
  clock: Clock;
  policy: DeliveryPolicy;
  /** Tells the dispatcher of this replica about a delivery put back on the schedule. */
  onRequeued: (entry: ScheduleEntry) => void;
}): Router {
  const { repo, clock } = deps;
  const router = Router();

  /** The schedule entry goes first: a crash between the two writes leaves no pending delivery unscheduled. */
  async function requeue(delivery: DeliveryHead) {
    const entry = scheduleEntryOf(delivery);
    if (!(await repo.addEntry(entry))) await repo.setEntry(entry);
    await repo.save(delivery);
    deps.onRequeued(entry);
  }

  router.get(
    '/deliveries',
    route(async (req, res, clientId) => {
      const query = parse(DeliveryListQuery, req.query);
      const page = await repo.list({
        clientId,
        applicationId: query.applicationId,
        eventId: query.eventId,
        event: query.event,
        status: query.status,
        limit: query.limit,
        after: query.cursor ? decodeCursor(query.cursor) : undefined,
      });
      const last = page.items[page.items.length - 1];
      res.json({ data: page.items.map(toView), nextCursor: page.more && last ? encodeCursor(last) : null });
    }),
  );

  router.get(
    '/deliveries/health',
    route(async (req, res, clientId) => {
      const query = parse(HealthQuery, req.query);
      const counts = await repo.countByStatus(clientId, new Date(query.from), new Date(query.before));
      const byStatus = Object.fromEntries(DeliveryStatus.options.map((s) => [s, counts[s] ?? 0])) as Record<
        DeliveryStatus,
        number
      >;
      const finished = byStatus.DELIVERED + byStatus.FAILED;
      const health: DeliveryHealth = {
        deliveries: Object.values(byStatus).reduce((a, b) => a + b, 0),
        byStatus,
        deliveredRate: finished === 0 ? null : byStatus.DELIVERED / finished,
      };
      res.json(health);
    }),
  );

  router.post(
    '/deliveries/replay',
    route(async (req, res, clientId) => {
      const body = parse(ReplayRequest, req.body ?? {});
      const now = clock.now();
      const filter = { since: new Date(body.since), event: body.event };
      let count = 0;
      // The oldest FAILED deliveries first, one page of them; those re-queued are no longer
      // FAILED, so calling again (while `more`) goes on where this call stopped.
      const page = await repo.failedSince(clientId, filter.since, filter.event, body.limit + 1);
      for (const delivery of page.slice(0, body.limit)) {
        if (!isReplayable(delivery, filter)) continue;
        await requeue(replay(delivery, now, deps.policy));
        count++;
      }
      res.status(202).json({ count, more: page.length > body.limit });
    }),
  );

  router.get(
    '/deliveries/:id',
    route(async (req, res, clientId) => {
      const delivery = await repo.get(paramId(req));
      if (!delivery || delivery.clientId !== clientId) throw new ApiError('NOT_FOUND', 'Delivery not found');
      res.json(toView(delivery));
    }),
  );

  router.post(
    '/deliveries/:id/redeliver',
    route(async (req, res, clientId) => {
      const decision = redeliver(await repo.get(paramId(req)), clientId, clock.now());
      if (!decision.ok) throw new ApiError(decision.code, decision.message);
      await requeue(decision.delivery);
      res.status(202).json(toView(decision.delivery));
    }),
  );

  return router;
}
