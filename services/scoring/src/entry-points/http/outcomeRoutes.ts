import { Router, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import {
  DEFAULT_TIME_ZONE,
  Limits,
  OutcomeReport,
  OutcomeRow,
  PerformanceSettings,
  addDays,
  dayIn,
  daysFrom,
  errorBody,
  policyProblems,
} from '@loan/contracts';
import type { Clock, Logger } from '@loan/runtime';
import type { OutcomeRepository } from '../../data-access/outcomeRepository';
import { driftReport } from '../../domain/performance/drift';
import { performanceReport } from '../../domain/performance/report';
import { performanceCsv } from '../../domain/performance/csv';
import type { OutcomeBook } from './outcomeBook';

/** Rows of one call of the batch route (the gateway splits a bulk upload into such calls). */
export const BATCH_ROWS = 200;

/** The longest period the drift compares, in days. */
const MAX_PERIOD_DAYS = 366;

const Day = (name: string) => z.iso.date({ error: `${name} must be a day as YYYY-MM-DD` });
const PerformanceQuery = z.strictObject({
  asOf: Day('asOf').optional(),
  from: Day('from').optional(),
  to: Day('to').optional(),
  baselineFrom: Day('baselineFrom').optional(),
  baselineTo: Day('baselineTo').optional(),
  format: z.enum(['json', 'csv'], { error: 'format must be json or csv' }).optional(),
});

const Batch = z.strictObject({ rows: z.array(z.unknown()).min(1).max(BATCH_ROWS) });

const send = (res: Response, answer: { status: number; body: unknown }) => res.status(answer.status).json(answer.body);
const bad = (res: Response, message: string) => res.status(400).json(errorBody(400, message));

/** The caller (named by the gateway), or a 401. */
function clientOf(req: Request, res: Response): string | null {
  const clientId = req.header('x-client-id');
  if (!clientId) res.status(401).json(errorBody(401, 'Missing x-client-id header'));
  return clientId ?? null;
}

const wrap =
  (handler: (req: Request, res: Response, clientId: string) => Promise<unknown>): RequestHandler =>
  async (req, res, next) => {
    const clientId = clientOf(req, res);
    if (!clientId) return;
    try {
      await handler(req, res, clientId);
    } catch (error) {
      next(error);
    }
  };

/** A period `from`..`to` of at most a year, checked. */
function period(from: string, to: string, name: string): string[] | string {
  if (from > to) return `${name}: the period starts (${from}) after it ends (${to})`;
  const days = daysFrom(from, to);
  if (days.length > MAX_PERIOD_DAYS) return `${name}: a period is at most ${MAX_PERIOD_DAYS} days`;
  return days;
}

/**
 * Loan outcomes and the lender's performance figures, for the gateway to serve once it has
 * authenticated the lender (named in `x-client-id`).
 */
export function outcomeRoutes(deps: {
  book: OutcomeBook;
  repo: OutcomeRepository;
  clock: Clock;
  logger: Logger;
}): Router {
  const { book, repo, clock } = deps;
  const router = Router();

  router.post(
    '/outcomes/batch',
    wrap(async (req, res, clientId) => {
      const batch = Batch.safeParse(req.body);
      if (!batch.success) return bad(res, policyProblems(batch.error).join('; '));
      const results = [];
      const parsed = batch.data.rows.map((raw) => OutcomeRow.safeParse(raw));
      // Rows of applications with neither a loan nor a decision are answered without a read each.
      const [known, badDefinition] = await Promise.all([
        repo.known(parsed.flatMap((row) => (row.success ? [row.data.applicationId] : []))),
        book.badDefinition(clientId),
      ]);
      for (const [index, row] of parsed.entries()) {
        if (!row.success) {
          results.push({ index, status: 400, message: policyProblems(row.error).join('; ') });
          continue;
        }
        const { applicationId, idempotencyKey, ...report } = row.data;
        if (!known.has(applicationId)) {
          results.push({ index, status: 404, message: `Application ${applicationId} not found, or not decided yet` });
          continue;
        }
        const answer = await book.record(
          clientId,
          applicationId,
          idempotencyKey,
          report as OutcomeReport,
          badDefinition,
        );
        const body = answer.body as { message?: string; outcome?: { outcomeId: string; sequence: number } };
        results.push(
          answer.status < 300
            ? { index, status: answer.status, outcomeId: body.outcome!.outcomeId, sequence: body.outcome!.sequence }
            : { index, status: answer.status, message: body.message ?? 'refused' },
        );
      }
      res.json({ results });
    }),
  );

  router.post(
    '/outcomes/:applicationId',
    wrap(async (req, res, clientId) => {
      const applicationId = String(req.params.applicationId);
      if (!z.uuid().safeParse(applicationId).success)
        return send(res, { status: 404, body: errorBody(404, `Application ${applicationId} not found`) });
      const key = req.header('idempotency-key') ?? '';
      if (!key || key.length > Limits.maxIdempotencyKey)
        return bad(res, `Idempotency-Key header is required (1 to ${Limits.maxIdempotencyKey} characters)`);
      const report = OutcomeReport.safeParse(req.body);
      if (!report.success) return bad(res, policyProblems(report.error).join('; '));
      send(res, await book.record(clientId, applicationId, key, report.data));
    }),
  );

  router.get(
    '/outcomes/:applicationId',
    wrap(async (req, res, clientId) => send(res, await book.loan(clientId, String(req.params.applicationId)))),
  );

  router.get(
    '/performance/settings',
    wrap(async (_req, res, clientId) => res.json({ bad: await book.badDefinition(clientId) })),
  );

  router.put(
    '/performance/settings',
    wrap(async (req, res, clientId) => {
      const settings = PerformanceSettings.safeParse(req.body);
      if (!settings.success) return bad(res, policyProblems(settings.error).join('; '));
      await repo.saveSettings(clientId, settings.data.bad, req.header('x-actor') ?? `client:${clientId}`, clock.now());
      res.json(settings.data);
    }),
  );

  router.get(
    '/performance',
    wrap(async (req, res, clientId) => {
      const query = PerformanceQuery.safeParse(req.query);
      if (!query.success) return bad(res, policyProblems(query.error).join('; '));
      const today = dayIn(clock.now(), DEFAULT_TIME_ZONE);
      const asOf = query.data.asOf ?? today;
      // The drift: the 30 days to asOf against the 30 before them, unless the lender picks.
      const to = query.data.to ?? asOf;
      const from = query.data.from ?? addDays(to, -29);
      const baselineTo = query.data.baselineTo ?? addDays(from, -1);
      const baselineFrom = query.data.baselineFrom ?? addDays(baselineTo, -29);
      const current = period(from, to, 'from/to');
      if (typeof current === 'string') return bad(res, current);
      const baseline = period(baselineFrom, baselineTo, 'baselineFrom/baselineTo');
      if (typeof baseline === 'string') return bad(res, baseline);
      const [cells, badDefinition, baseCounts, currentCounts] = await Promise.all([
        repo.cells(clientId),
        book.badDefinition(clientId),
        repo.decisionsOn(clientId, baseline),
        repo.decisionsOn(clientId, current),
      ]);
      const report = {
        ...performanceReport(cells, badDefinition, asOf),
        drift: {
          baseline: { from: baselineFrom, to: baselineTo },
          period: { from, to },
          ...driftReport(baseCounts, currentCounts),
        },
      };
      if (query.data.format === 'csv') {
        res.type('text/csv').attachment(`performance-${asOf}.csv`).send(performanceCsv(report));
        return;
      }
      res.json(report);
    }),
  );

  return router;
}
