import express, { Router, type Request, type RequestHandler } from 'express';
import { parse as parseCsv } from 'csv-parse/sync';
import { MAX_OUTCOME_ROWS, OutcomeRow, policyProblems } from '@loan/contracts';
import { HttpError } from './errors';
import { relay, type scoringCaller } from './scoringForward';
import { allowOnlyRoutedMethods, requireJson, route } from './support';

/** Rows per call to scoring (its batch route takes at most 200). */
const BATCH = 200;
/** The largest bulk upload: ten thousand rows of a few hundred bytes. */
const BULK_LIMIT = '5mb';

const NUMERIC = new Set(['amount', 'tenor', 'number', 'daysPastDue', 'outstanding']);

/** A CSV row as the outcome it names: numbers as numbers, `early` as a boolean, empty cells left out. */
function fromCsv(record: Record<string, string>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [column, raw] of Object.entries(record)) {
    const value = raw.trim();
    if (value === '') continue;
    if (NUMERIC.has(column)) row[column] = Number(value);
    else if (column === 'early')
      row[column] = value.toLowerCase() === 'true' ? true : value.toLowerCase() === 'false' ? false : value;
    else row[column] = value;
  }
  return row;
}

/** The rows of a bulk upload, each with its line, or why a line is not a row. */
export function rowsOf(contentType: string, text: string): { line: number; row?: unknown; problem?: string }[] {
  if (contentType === 'text/csv') {
    let records: Record<string, string>[];
    try {
      records = parseCsv(text, { columns: true, skip_empty_lines: true, bom: true, relax_column_count: true });
    } catch (error) {
      throw new HttpError(400, `The CSV cannot be read: ${(error as Error).message}`);
    }
    // Line 1 is the header.
    return records.map((record, i) => ({ line: i + 2, row: fromCsv(record) }));
  }
  const rows: { line: number; row?: unknown; problem?: string }[] = [];
  text.split(/\r?\n/).forEach((content, i) => {
    if (content.trim() === '') return;
    try {
      rows.push({ line: i + 1, row: JSON.parse(content) });
    } catch {
      rows.push({ line: i + 1, problem: 'not a JSON object' });
    }
  });
  return rows;
}

/** The rows of a JSON upload (`{"rows": [...]}`), numbered from 1 as lines are. */
function jsonRowsOf(body: unknown): { line: number; row?: unknown; problem?: string }[] {
  const rows = (body as { rows?: unknown } | null)?.rows;
  if (!Array.isArray(rows)) throw new HttpError(400, 'rows is required: an array of outcomes');
  return rows.map((row, i) => ({ line: i + 1, row }));
}

/**
 * The lender's loan outcomes in bulk (`POST /api/outcomes`, NDJSON or CSV) and its performance
 * figures (`GET /api/performance`, JSON or CSV) and settings, forwarded to scoring, which owns
 * the loans and their counts.
 */
export function performanceRoutes(deps: {
  scoring: ReturnType<typeof scoringCaller>;
  authenticate: RequestHandler;
  limit: (kind: 'other') => RequestHandler;
}) {
  const { scoring } = deps;
  const performance = Router();
  performance.use(deps.authenticate);
  const query = (req: Request) => {
    const at = req.originalUrl.indexOf('?');
    return at === -1 ? '' : req.originalUrl.slice(at);
  };
  performance.get(
    '/',
    deps.limit('other'),
    route(async (req, res) => relay(res, await scoring(req, res, `/performance${query(req)}`), 'performance.csv')),
  );
  performance.get(
    '/settings',
    deps.limit('other'),
    route(async (req, res) => relay(res, await scoring(req, res, '/performance/settings'))),
  );
  performance.put(
    '/settings',
    deps.limit('other'),
    requireJson(),
    route(async (req, res) => relay(res, await scoring(req, res, '/performance/settings', { body: req.body ?? {} }))),
  );

  const outcomes = Router();
  outcomes.use(deps.authenticate);
  outcomes.post(
    '/',
    deps.limit('other'),
    express.text({ type: ['application/x-ndjson', 'text/csv'], limit: BULK_LIMIT }),
    express.json({ type: 'application/json', limit: BULK_LIMIT, strict: true }),
    route(async (req, res) => {
      const contentType = (req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (contentType !== 'application/x-ndjson' && contentType !== 'text/csv' && contentType !== 'application/json')
        throw new HttpError(
          415,
          'Send the outcomes as application/x-ndjson (one JSON object a line), text/csv or application/json ({"rows": [...]})',
        );
      const lines =
        contentType === 'application/json'
          ? jsonRowsOf(req.body)
          : rowsOf(contentType, typeof req.body === 'string' ? req.body : '');
      if (lines.length === 0) throw new HttpError(400, 'The upload has no rows');
      if (lines.length > MAX_OUTCOME_ROWS)
        throw new HttpError(400, `At most ${MAX_OUTCOME_ROWS} rows in one upload; this one has ${lines.length}`);
      const results: { line: number; status: number; outcomeId?: string; sequence?: number; message?: string }[] = [];
      const valid: { line: number; row: unknown }[] = [];
      for (const line of lines) {
        if (line.problem) {
          results.push({ line: line.line, status: 400, message: line.problem });
          continue;
        }
        const parsed = OutcomeRow.safeParse(line.row);
        if (parsed.success) valid.push({ line: line.line, row: parsed.data });
        else results.push({ line: line.line, status: 400, message: policyProblems(parsed.error).join('; ') });
      }
      // In the upload's order, a batch at a time: a loan's rows keep their order.
      for (let i = 0; i < valid.length; i += BATCH) {
        const batch = valid.slice(i, i + BATCH);
        const answer = await scoring(req, res, '/outcomes/batch', {
          method: 'POST',
          body: { rows: batch.map((item) => item.row) },
        });
        if (answer.status !== 200) throw new HttpError(500, 'Outcomes are unavailable right now; send the rows again');
        const answered = (answer.payload as { results: { index: number; status: number }[] }).results;
        for (const result of answered) {
          const { index, ...rest } = result;
          results.push({ line: batch[index]!.line, ...rest });
        }
      }
      results.sort((a, b) => a.line - b.line);
      res.json({
        rows: lines.length,
        accepted: results.filter((r) => r.status === 201).length,
        repeated: results.filter((r) => r.status === 200).length,
        refused: results.filter((r) => r.status >= 400).length,
        results,
      });
    }),
  );

  return { performance: allowOnlyRoutedMethods(performance), outcomes: allowOnlyRoutedMethods(outcomes) };
}
