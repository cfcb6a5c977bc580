import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  BulkOutcomeResult,
  LoanOutcomes,
  MAX_OUTCOME_ROWS,
  OutcomeAnswer,
  OutcomeReport,
  OutcomeRow,
  PerformanceReportView,
  PerformanceSettings,
} from '@loan/contracts';
import { failure, lenderErrors, malformedJson, notJson, ok } from './responses';

const outcomes = 'Loan outcomes';
const performance = 'Performance';

export const outcomeTags = [
  {
    name: outcomes,
    description:
      'How each loan turns out, as you report it: disbursed, instalments paid or missed, restructured, repaid, defaulted, written off. One at a time as they happen, or in bulk from your loan book.',
  },
  {
    name: performance,
    description:
      'Your decisions measured against those outcomes: bad rates by band, decision, policy version and challenger; Gini, AUC and KS of the score; expected against observed bad rates; vintage curves; drift of the score (PSI). Explained in the guide “Loan performance”.',
  },
];

const ApplicationId = z.object({ id: z.uuid() });
const unavailable = failure(500, 'Loan outcomes are unavailable: retry', {
  unavailable: 'Loan outcomes and performance are unavailable right now; retry the request',
});

const disbursed = { type: 'DISBURSED', amount: 425000, date: '2026-11-24', tenor: 9 };
const loanExample = {
  applicationId: '7d0c1f8e-2b1a-4c3d-9e8f-5a6b7c8d9e0f',
  status: 'OPEN',
  disbursed: { amount: 425000, date: '2026-11-24', tenor: 9 },
  tenor: 9,
  instalmentsPaid: [],
  currentDaysPastDue: 0,
  maxDaysPastDue: 0,
  ever30: false,
  ever60: false,
  ever90: false,
  restructured: false,
  defaulted: false,
  writtenOff: false,
  bad: false,
  outcomes: 1,
  lastDate: '2026-11-24',
};
const outcomeExample = {
  outcome: {
    outcomeId: '3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c',
    sequence: 1,
    recordedAt: '2026-11-24T10:15:00.000Z',
    ...disbursed,
  },
  loan: loanExample,
};

export const outcomeOperations: RouteConfig[] = [
  {
    method: 'post',
    path: '/api/applications/{id}/outcomes',
    operationId: 'reportOutcome',
    tags: [outcomes],
    summary: 'Report what happened to the loan: disbursed, paid, missed, restructured, repaid, defaulted, written off',
    description: `Report each event of the loan as it happens, with an \`Idempotency-Key\` of your own per event. The first is \`DISBURSED\` (amount, date, tenor booked): at most the amount granted (the decision's, or your final review's; more needs a review), on or after the decision's day, and only once the applicant accepted the offer (POST /api/applications/{id}/offer). Then \`INSTALMENT_PAID\` (number, amount, date), \`INSTALMENT_MISSED\` (number, days past due on the date), \`RESTRUCTURED\` (the new tenor; arrears are cleared), \`REPAID\` (closed), \`DEFAULTED\` and \`WRITTEN_OFF\` (amount outstanding). Dates are days (YYYY-MM-DD), in order, never ahead of today; nothing follows REPAID or WRITTEN_OFF; an instalment lies within the tenor, is not missed once paid, and its days past due only grow until it is paid. An outcome out of order is refused with the reason and nothing is stored. The same key and outcome again answer 200 as the first time; the same key with another outcome is a 409. Each accepted outcome goes on \`loan.outcomes.v1\` (no personal data). Rate limit: 60 a minute per IP with the other calls.`,
    request: {
      params: ApplicationId,
      headers: z.object({ 'Idempotency-Key': z.string().min(1).max(255) }),
      body: {
        required: true,
        content: { 'application/json': { schema: OutcomeReport.meta({ id: 'OutcomeReport', example: disbursed }) } },
      },
    },
    responses: {
      201: ok(
        'The outcome, taken, and the loan as it now stands',
        OutcomeAnswer.meta({ id: 'OutcomeAnswer' }),
        outcomeExample,
        {
          limited: true,
        },
      ),
      200: ok('The same key and outcome sent again: answered as the first time', OutcomeAnswer, outcomeExample, {
        limited: true,
      }),
      400: failure(400, 'An invalid outcome, an outcome out of order, or no decided loan to report on', {
        'no key': 'Idempotency-Key header is required (1 to 255 characters)',
        'not decided': 'Application has no decision yet (status: PROCESSING): outcomes follow a decided loan',
        declined: 'The application was declined: there is no loan to report on',
        'not accepted':
          'The applicant has not accepted the offer: nothing is disbursed before POST /api/applications/{id}/offer with ACCEPTED',
        'above approved': 'disbursed ₦500000, above the approved ₦425000: only a review can grant more',
        'after write-off': 'the loan was written off: nothing follows',
        'out of order': "dated 2026-11-20, before the loan's last outcome (2026-11-24): report in date order",
        'bad field': 'date: must be a day as YYYY-MM-DD',
        ...malformedJson,
      }),
      401: lenderErrors[401],
      404: failure(404, 'No such application, a malformed id, or another lender’s', {
        'not found': 'Application not found',
      }),
      409: failure(409, 'The key was used for another outcome of this loan', {
        'key reused': 'Idempotency-Key payday-2 was used for another outcome of this loan',
      }),
      413: lenderErrors[413],
      415: notJson,
      429: lenderErrors[429],
      500: unavailable,
    },
  },
  {
    method: 'get',
    path: '/api/applications/{id}/outcomes',
    operationId: 'getLoanOutcomes',
    tags: [outcomes],
    summary: 'The loan as its outcomes make it, and the outcomes in order',
    request: { params: ApplicationId },
    responses: {
      200: ok(
        'The loan',
        LoanOutcomes.meta({ id: 'LoanOutcomes' }),
        { loan: loanExample, outcomes: [outcomeExample.outcome] },
        { limited: true },
      ),
      400: failure(400, 'Not decided', {
        'not decided': 'Application has no decision yet (status: PROCESSING): outcomes follow a decided loan',
      }),
      401: lenderErrors[401],
      404: failure(404, 'No such application, or no outcome reported for it', {
        none: 'No outcome was reported for application 7d0c1f8e-2b1a-4c3d-9e8f-5a6b7c8d9e0f',
      }),
      429: lenderErrors[429],
      500: unavailable,
    },
  },
  {
    method: 'post',
    path: '/api/outcomes',
    operationId: 'uploadOutcomes',
    tags: [outcomes],
    summary: 'Outcomes in bulk: NDJSON or CSV, each row answered',
    description: `For a month-end file from your loan book: one outcome a row, each with its \`applicationId\` and its own \`idempotencyKey\` besides the fields of the single call. \`application/x-ndjson\`: one JSON object a line. \`application/json\`: \`{"rows": [...]}\`. \`text/csv\`: a header line naming the columns (\`applicationId,idempotencyKey,type,date,amount,tenor,number,daysPastDue,outstanding,early\`; the ones a type does not take left empty). Up to ${MAX_OUTCOME_ROWS} rows and 5 MB. Rows are taken in the file's order (a loan's rows in date order), each on its own: a bad row is answered with its reason and line, and the valid ones are kept. A file sent again answers its rows as the first time (200 each).`,
    request: {
      body: {
        required: true,
        content: {
          'application/json': {
            schema: z.object({ rows: z.array(OutcomeRow).max(MAX_OUTCOME_ROWS) }).meta({ id: 'OutcomeUpload' }),
          },
          'application/x-ndjson': {
            schema: z.string(),
            example:
              '{"applicationId":"7d0c1f8e-2b1a-4c3d-9e8f-5a6b7c8d9e0f","idempotencyKey":"book-2026-11-1","type":"INSTALMENT_PAID","number":1,"amount":58000,"date":"2026-12-24"}\n',
          },
          'text/csv': {
            schema: z.string(),
            example:
              'applicationId,idempotencyKey,type,date,amount,tenor,number,daysPastDue,outstanding,early\r\n7d0c1f8e-2b1a-4c3d-9e8f-5a6b7c8d9e0f,book-2026-11-2,INSTALMENT_MISSED,2026-12-31,,,2,7,,\r\n',
          },
        },
      },
    },
    responses: {
      200: ok(
        'Each row’s answer: 201 taken, 200 taken before, 4xx refused with the reason',
        BulkOutcomeResult.meta({ id: 'BulkOutcomeResult' }),
        {
          rows: 2,
          accepted: 1,
          repeated: 0,
          refused: 1,
          results: [
            { line: 1, status: 201, outcomeId: '3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c', sequence: 2 },
            { line: 2, status: 400, message: 'instalment 2 was reported paid' },
          ],
        },
        { limited: true },
      ),
      400: failure(400, 'No rows, too many rows, or a CSV that cannot be read', {
        empty: 'The upload has no rows',
        'no rows': 'rows is required: an array of outcomes',
        ...malformedJson,
        'too many': `At most ${MAX_OUTCOME_ROWS} rows in one upload; this one has 10001`,
      }),
      401: lenderErrors[401],
      413: lenderErrors[413],
      415: failure(415, 'Neither JSON, NDJSON nor CSV', {
        'wrong type':
          'Send the outcomes as application/x-ndjson (one JSON object a line), text/csv or application/json ({"rows": [...]})',
      }),
      429: lenderErrors[429],
      500: unavailable,
    },
  },
  {
    method: 'get',
    path: '/api/performance',
    operationId: 'getPerformance',
    tags: [performance],
    summary: 'How your decisions performed: bad rates, Gini, KS, calibration, vintages and drift',
    description:
      'Computed from the outcomes you reported, by counts kept as they arrive (never by reading every loan). A figure from too few loans is null with a `note` saying how many it needs: a bad rate 30 loans, calibration 50 per band, Gini/AUC/KS 200 loans with 20 bad and 20 good. Bad is by your definition (`GET /api/performance/settings`). Drift compares the scores of the decisions made from `from` to `to` (default: the 30 days to `asOf`) with those of the baseline period (`baselineFrom`..`baselineTo`, default the 30 days before), each at most 366 days. `format=csv` answers the same figures as one CSV table. Rate limit: 60 a minute per IP with the other calls.',
    request: {
      query: z.object({
        asOf: z.iso.date().optional(),
        from: z.iso.date().optional(),
        to: z.iso.date().optional(),
        baselineFrom: z.iso.date().optional(),
        baselineTo: z.iso.date().optional(),
        format: z.enum(['json', 'csv']).optional(),
      }),
    },
    responses: {
      200: {
        description: 'The figures (JSON, or CSV with `format=csv`)',
        content: {
          'application/json': { schema: PerformanceReportView.meta({ id: 'PerformanceReport' }) },
          'text/csv': { schema: z.string() },
        },
      },
      400: failure(400, 'An invalid period', {
        'bad day': 'asOf must be a day as YYYY-MM-DD',
        'backwards period': 'from/to: the period starts (2026-12-01) after it ends (2026-11-01)',
      }),
      401: lenderErrors[401],
      429: lenderErrors[429],
      500: unavailable,
    },
  },
  {
    method: 'get',
    path: '/api/performance/settings',
    operationId: 'getPerformanceSettings',
    tags: [performance],
    summary: 'What makes a loan bad for you',
    responses: {
      200: ok(
        'Your definition (by default: ever 90+ days past due, defaulted or written off)',
        PerformanceSettings.meta({ id: 'PerformanceSettings' }),
        {
          bad: { daysPastDue: 90, writtenOff: true, defaulted: true },
        },
      ),
      401: lenderErrors[401],
      429: lenderErrors[429],
      500: unavailable,
    },
  },
  {
    method: 'put',
    path: '/api/performance/settings',
    operationId: 'setPerformanceSettings',
    tags: [performance],
    summary: 'Set what makes a loan bad for you',
    description:
      '`daysPastDue` is one of 1, 30, 60, 90, 120, 180 (ever that many days past due); `writtenOff` and `defaulted` say whether those count. Every figure follows the new definition at once (they are kept by how bad each loan has been, not by one definition). In the console, a credit manager’s.',
    request: {
      body: {
        required: true,
        content: {
          'application/json': {
            schema: PerformanceSettings,
            example: { bad: { daysPastDue: 60, writtenOff: true, defaulted: true } },
          },
        },
      },
    },
    responses: {
      200: ok('The definition now', PerformanceSettings, {
        bad: { daysPastDue: 60, writtenOff: true, defaulted: true },
      }),
      400: failure(400, 'An invalid definition', {
        'bad threshold': 'bad.daysPastDue: Invalid input: expected one of 1|30|60|90|120|180',
        ...malformedJson,
      }),
      401: lenderErrors[401],
      415: notJson,
      429: lenderErrors[429],
      500: unavailable,
    },
  },
];
