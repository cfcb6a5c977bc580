import { Router, type RequestHandler, type Response } from 'express';
import {
  ApplicationsPortfolio,
  DEFAULT_TIME_ZONE,
  DeliveryHealth,
  PORTFOLIO_DEFAULT_DAYS,
  PORTFOLIO_MAX_DAYS,
  PortfolioQuery,
  addDays,
  dayCount,
  dayIn,
  zonedDayRange,
  type CommandReply,
  type PortfolioReport,
} from '@loan/contracts';
import type { Clock } from '@loan/runtime';
import { ReplyTimeoutError, type CommandBus } from '../../data-access/commandBus';
import { HttpError, STATUS_OF } from './errors';
import { allowOnlyRoutedMethods, ctx, route, validate } from './support';

const NOTIFIER_TIMEOUT_MS = 10_000;
const TOO_SLOW = 'The portfolio took too long to count; retry it, or ask for a shorter period';
const DELIVERIES_UNAVAILABLE = 'The webhook delivery log is unavailable right now; retry the request';

/**
 * `GET /api/portfolio`: the lender's numbers over a period of its days (the last 30 by
 * default, at most 366). The applications service counts the applications it owns, the
 * notifier the webhook deliveries; the gateway asks both and answers one report.
 */
export function portfolioRoutes(deps: {
  commands: CommandBus;
  notifierUrl: string;
  /** Presented to the notifier, which answers nobody else. */
  internalToken: string;
  clock: Clock;
  authenticate: RequestHandler;
  limit: (kind: 'other') => RequestHandler;
}): Router {
  const router = Router();
  const notifier = deps.notifierUrl.replace(/\/+$/, '');

  async function applicationsOf(res: Response, period: { from: string; to: string; timeZone: string }) {
    const { client, correlationId } = ctx(res);
    let reply: CommandReply;
    try {
      reply = await deps.commands.send({ type: 'GetPortfolio', clientId: client!.clientId, correlationId, ...period });
    } catch (error) {
      if (error instanceof ReplyTimeoutError) throw new HttpError(500, TOO_SLOW);
      throw error;
    }
    if (!reply.ok) throw new HttpError(STATUS_OF[reply.code], reply.message);
    return ApplicationsPortfolio.parse(reply.result);
  }

  async function deliveriesOf(res: Response, range: { createdFrom?: string; createdBefore?: string }) {
    const { client, correlationId } = ctx(res);
    const url = new URL(`${notifier}/internal/deliveries/health`);
    url.searchParams.set('from', range.createdFrom!);
    url.searchParams.set('before', range.createdBefore!);
    const headers: Record<string, string> = {
      'x-client-id': client!.clientId,
      'x-internal-token': deps.internalToken,
      accept: 'application/json',
    };
    if (correlationId) headers['x-correlation-id'] = correlationId;
    try {
      const answer = await fetch(url, {
        headers,
        redirect: 'manual',
        signal: AbortSignal.timeout(NOTIFIER_TIMEOUT_MS),
      });
      if (!answer.ok) throw new Error(`notifier answered ${answer.status}`);
      return DeliveryHealth.parse(await answer.json());
    } catch {
      throw new HttpError(500, DELIVERIES_UNAVAILABLE);
    }
  }

  router.use(deps.authenticate);
  router.get(
    '/',
    deps.limit('other'),
    route(async (req, res) => {
      const query = validate(PortfolioQuery, req.query);
      const timeZone = ctx(res).client!.timeZone ?? DEFAULT_TIME_ZONE;
      const to = query.to ?? (query.from ? undefined : dayIn(deps.clock.now(), timeZone));
      const period = {
        from: query.from ?? addDays(to!, -(PORTFOLIO_DEFAULT_DAYS - 1)),
        to: to ?? addDays(query.from!, PORTFOLIO_DEFAULT_DAYS - 1),
        timeZone,
      };
      if (dayCount(period.from, period.to) > PORTFOLIO_MAX_DAYS) {
        throw new HttpError(
          400,
          `The period is longer than ${PORTFOLIO_MAX_DAYS} days; choose a later from or an earlier to`,
        );
      }
      const [applications, webhooks] = await Promise.all([
        applicationsOf(res, period),
        deliveriesOf(res, zonedDayRange(period.from, period.to, timeZone)),
      ]);
      const report: PortfolioReport = { ...period, ...applications, webhooks };
      res.set('cache-control', 'no-store').json(report);
    }),
  );
  return allowOnlyRoutedMethods(router);
}
