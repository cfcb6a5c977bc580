import { randomUUID } from 'node:crypto';
import {
  BUILTIN_POLICY,
  DEFAULT_TIME_ZONE,
  dayIn,
  LoanOutcomes,
  SimulationResult,
  OutcomeAnswer,
  OutcomeRecorded,
  PerformanceReportView,
  Topics,
  type Decision,
} from '@loan/contracts';
import { waitFor } from '@testing/helpers';
import {
  accountEnriched,
  call,
  linkedApplication,
  startLenderApi,
  startScoring,
  suiteNamespace,
  type Running,
} from '@testing/stack';
import { persona } from './domain/__tests__/personas';

/**
 * Loan outcomes end to end over real HTTP, the real broker, registry and database: the gateway,
 * the applications service and scoring, which decides the application from a salaried
 * applicant's bank data, takes the outcomes the lender reports, keeps the loan's state and the
 * lender's counts, and publishes each accepted outcome on `loan.outcomes.v1`.
 */
const ns = suiteNamespace();
const TOKEN = 'an-outcomes-test-internal-token';
let scoring: Running;
let stack: Awaited<ReturnType<typeof startLenderApi>>;
const published: OutcomeRecorded[] = [];

beforeAll(async () => {
  scoring = await startScoring(ns, {
    BUREAU_BASE_URL: 'http://127.0.0.1:9',
    BUREAU_TIMEOUT: '500ms',
    PROFILE_WAIT: '5s',
    INTERNAL_TOKEN: TOKEN,
  });
  stack = await startLenderApi(ns, 'outcomes-test', { SCORING_URL: scoring.url, INTERNAL_TOKEN: TOKEN });
  await stack.bus.consume({
    groupId: `outcomes-${randomUUID()}`,
    topics: [Topics.outcomes],
    handle: async (m) => void published.push(m.value as OutcomeRecorded),
  });
});

afterAll(async () => {
  await stack?.stop();
  await scoring?.stop();
});

const api = (method: string, path: string, body?: unknown, key = stack.lender.apiKey) =>
  call(stack.gateway.url, key, method, path, body);

/** Reports an outcome with an idempotency key. */
async function report(applicationId: string, key: string | null, body: unknown, apiKey = stack.lender.apiKey) {
  const response = await fetch(`${stack.gateway.url}/api/applications/${applicationId}/outcomes`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

async function upload(contentType: string, text: string) {
  const response = await fetch(`${stack.gateway.url}/api/outcomes`, {
    method: 'POST',
    headers: { 'x-api-key': stack.lender.apiKey, 'content-type': contentType },
    body: text,
  });
  return { status: response.status, body: await response.json() };
}

/** Today in Lagos: the service's days (a decision made after 23:00 UTC is dated the next day). */
const today = () => dayIn(new Date(), DEFAULT_TIME_ZONE);

/**
 * An application of the salaried applicant decided by scoring itself (its bank data reported
 * enriched as the enrichment service would), reviewed APPROVED if scoring referred it, and its
 * offer accepted unless `accept` is false.
 */
async function decidedLoan(accept = true): Promise<{ applicationId: string; decision: Decision; granted: number }> {
  const app = await linkedApplication(stack.gateway.url, stack.lender);
  expect((await api('POST', `/api/applications/${app.applicationId}/finalize-linking`)).status).toBe(200);
  const [account] = persona('salaried').accounts;
  const enriched = accountEnriched({
    clientId: stack.lender.clientId,
    applicationId: app.applicationId,
    applicantId: app.applicantId,
    accountId: app.accountId,
  });
  if (enriched.type !== 'AccountEnriched') throw new Error('not an enrichment');
  await stack.bus.publish(Topics.enrichmentResults, [
    {
      key: app.applicationId,
      value: { ...enriched, profile: { ...account!, accountId: app.accountId, providerAccountId: 'p' } },
    },
  ]);
  await waitFor(async () => (await api('POST', `/api/applications/${app.applicationId}/analyze`)).status === 200, {
    what: 'analyze to be accepted',
  });
  const view = await waitFor(
    async () => {
      const v = await api('GET', `/api/applications/${app.applicationId}`);
      return v.body.status === 'COMPLETED' ? v.body : null;
    },
    { what: 'scoring to decide the application' },
  );
  const decision = view.decision as Decision;
  let granted = decision.approval_details.approved_amount;
  if (decision.decision === 'MANUAL_REVIEW') {
    const reviewed = await api('POST', `/api/applications/${app.applicationId}/review`, {
      outcome: 'APPROVED',
      reasonCode: 'INCOME_VERIFIED',
      reviewer: 'officer-1',
      override: true,
      note: 'Salary confirmed by payslip',
    });
    expect(reviewed.status).toBe(200);
    granted = reviewed.body.review.approval_details.approved_amount;
  } else expect(['APPROVED', 'COUNTER_OFFER']).toContain(decision.decision);
  if (accept) {
    const accepted = await api('POST', `/api/applications/${app.applicationId}/offer`, { response: 'ACCEPTED' });
    expect(accepted.status).toBe(200);
  }
  return { applicationId: app.applicationId, decision, granted };
}

/** Waits for scoring to learn of the acceptance (a fact from applications), then disburses. */
async function disburse(applicationId: string, amount: number, key = `disbursed-${applicationId}`) {
  return waitFor(
    async () => {
      const answer = await report(applicationId, key, { type: 'DISBURSED', amount, date: today(), tenor: 6 });
      return answer.status === 201 || answer.status === 200 ? answer : null;
    },
    { what: 'the disbursement to be taken' },
  );
}

describe('loan outcomes', () => {
  it('when the lender reports a loan from disbursement to write-off, then each outcome is taken once, in order, its state follows, and each goes on loan.outcomes.v1 without personal data', async () => {
    const { applicationId, granted } = await decidedLoan();

    const over = await waitFor(
      async () => {
        const answer = await report(applicationId, 'too-much', {
          type: 'DISBURSED',
          amount: granted + 1,
          date: today(),
          tenor: 6,
        });
        return /above the approved/.test(answer.body.message ?? '') ? answer : null;
      },
      { what: 'a disbursement above the approved amount to be refused' },
    );
    expect(over.status).toBe(400);

    const first = await disburse(applicationId, granted);
    expect(first.status).toBe(201);
    expect(OutcomeAnswer.safeParse(first.body).success).toBe(true);
    expect(first.body.loan).toMatchObject({ status: 'OPEN', outcomes: 1, currentDaysPastDue: 0, bad: false });

    // The same key and outcome: answered as the first time. The same key, another outcome: 409.
    const again = await report(applicationId, `disbursed-${applicationId}`, {
      type: 'DISBURSED',
      amount: granted,
      date: today(),
      tenor: 6,
    });
    expect([again.status, again.body]).toEqual([200, first.body]);
    const reused = await report(applicationId, `disbursed-${applicationId}`, {
      type: 'DISBURSED',
      amount: granted - 1,
      date: today(),
      tenor: 6,
    });
    expect([reused.status, reused.body.message]).toEqual([409, expect.stringMatching(/used for another outcome/)]);

    const missed = await report(applicationId, 'missed-1', {
      type: 'INSTALMENT_MISSED',
      number: 1,
      daysPastDue: 95,
      date: today(),
    });
    expect([missed.status, missed.body.loan]).toEqual([
      201,
      expect.objectContaining({ currentDaysPastDue: 95, ever30: true, ever90: true, bad: true }),
    ]);
    const beyond = await report(applicationId, 'paid-9', {
      type: 'INSTALMENT_PAID',
      number: 9,
      amount: 100,
      date: today(),
    });
    expect([beyond.status, beyond.body.message]).toEqual([400, 'instalment 9 is past the tenor of 6']);

    const written = await report(applicationId, 'written-off', {
      type: 'WRITTEN_OFF',
      outstanding: granted,
      date: today(),
    });
    expect(written.body.loan).toMatchObject({ status: 'WRITTEN_OFF', writtenOff: true });
    const after = await report(applicationId, 'paid-after', {
      type: 'INSTALMENT_PAID',
      number: 1,
      amount: 100,
      date: today(),
    });
    expect([after.status, after.body.message]).toEqual([400, 'the loan was written off: nothing follows']);

    const read = await api('GET', `/api/applications/${applicationId}/outcomes`);
    expect(LoanOutcomes.safeParse(read.body).success).toBe(true);
    expect(read.body.outcomes.map((o: { type: string; sequence: number }) => [o.sequence, o.type])).toEqual([
      [1, 'DISBURSED'],
      [2, 'INSTALMENT_MISSED'],
      [3, 'WRITTEN_OFF'],
    ]);

    const events = await waitFor(
      async () => {
        const mine = published.filter((e) => e.applicationId === applicationId);
        return mine.length >= 3 ? mine : null;
      },
      { what: 'the outcomes on loan.outcomes.v1' },
    );
    expect(events.map((e) => [e.sequence, e.outcome.type, e.loan.status])).toEqual([
      [1, 'DISBURSED', 'OPEN'],
      [2, 'INSTALMENT_MISSED', 'OPEN'],
      [3, 'WRITTEN_OFF', 'WRITTEN_OFF'],
    ]);
    for (const event of events) expect(OutcomeRecorded.safeParse(event).success).toBe(true);
    const text = JSON.stringify(events);
    for (const personal of ['Chinedu', 'firstName', 'email', 'phone', 'bvn']) expect(text).not.toContain(personal);
  });

  it('when an outcome is bad, early, not the lender’s or about no loan, then it is refused with a reason and nothing is stored', async () => {
    const notAccepted = await decidedLoan(false);
    const refused = await report(notAccepted.applicationId, 'd-1', {
      type: 'DISBURSED',
      amount: 1000,
      date: today(),
      tenor: 3,
    });
    expect([refused.status, refused.body.message]).toEqual([400, expect.stringMatching(/has not accepted the offer/)]);
    const none = await api('GET', `/api/applications/${notAccepted.applicationId}/outcomes`);
    expect(none.status).toBe(404);

    const { applicationId } = await decidedLoan();
    const cases: [string | null, unknown, RegExp][] = [
      [null, { type: 'DISBURSED', amount: 1000, date: today(), tenor: 3 }, /Idempotency-Key header is required/],
      ['k', { type: 'DISBURSED', amount: 1000, date: '2026-02-30', tenor: 3 }, /date: must be a day/],
      ['k', { type: 'LOST', date: today() }, /type/],
      ['k', { type: 'DISBURSED', amount: -5, date: today(), tenor: 3 }, /amount/],
      ['k', { type: 'DISBURSED', amount: 1000, date: today(), tenor: 3, bvn: '12345678901' }, /bvn/],
      ['k', { type: 'INSTALMENT_PAID', number: 1, amount: 10, date: today() }, /no disbursement yet/],
      ['k', { type: 'DISBURSED', amount: 1000, date: '2099-01-01', tenor: 3 }, /after today/],
    ];
    for (const [key, body, reason] of cases) {
      const answer = await waitFor(async () => {
        const a = await report(applicationId, key, body);
        // Until scoring learns of the acceptance, a disbursement is refused for that instead.
        return /has not accepted/.test(a.body.message ?? '') ? null : a;
      });
      expect([answer.status, answer.body.message]).toEqual([400, expect.stringMatching(reason)]);
      expect(answer.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    }
    expect((await api('GET', `/api/applications/${applicationId}/outcomes`)).status).toBe(404);

    // Another lender's application is not found; an application not decided has no loan.
    const theirs = await report(applicationId, 'x', { type: 'REPAID', date: today() }, stack.other.apiKey);
    expect(theirs.status).toBe(404);
    const fresh = await api('POST', '/api/applications/initiate', {
      ...(await import('@testing/stack')).applicant(),
    });
    const early = await report(fresh.body.applicationId, 'x', { type: 'REPAID', date: today() });
    expect([early.status, early.body.message]).toEqual([
      400,
      expect.stringMatching(/no decision yet \(status: PENDING_LINKING\)/),
    ]);
  });

  it('when the lender uploads outcomes in bulk, then each row is answered by line, the valid ones are kept and a row sent again is answered as the first time', async () => {
    const { applicationId, granted } = await decidedLoan();
    await disburse(applicationId, granted);
    const rows = [
      JSON.stringify({
        applicationId,
        idempotencyKey: 'b-1',
        type: 'INSTALMENT_PAID',
        number: 1,
        amount: 1000,
        date: today(),
      }),
      '{not json',
      JSON.stringify({
        applicationId,
        idempotencyKey: 'b-2',
        type: 'INSTALMENT_PAID',
        number: 0,
        amount: 1000,
        date: today(),
      }),
      JSON.stringify({
        applicationId,
        idempotencyKey: 'b-3',
        type: 'INSTALMENT_MISSED',
        number: 1,
        daysPastDue: 3,
        date: today(),
      }),
      JSON.stringify({ applicationId: randomUUID(), idempotencyKey: 'b-4', type: 'REPAID', date: today() }),
      '',
      JSON.stringify({
        applicationId,
        idempotencyKey: 'b-5',
        type: 'INSTALMENT_MISSED',
        number: 2,
        daysPastDue: 40,
        date: today(),
      }),
    ].join('\n');
    const first = await upload('application/x-ndjson', rows);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ rows: 6, accepted: 2, repeated: 0, refused: 4 });
    expect(first.body.results.map((r: { line: number; status: number }) => [r.line, r.status])).toEqual([
      [1, 201],
      [2, 400],
      [3, 400],
      [4, 400],
      [5, 404],
      [7, 201],
    ]);
    expect(first.body.results[1].message).toBe('not a JSON object');
    expect(first.body.results[2].message).toMatch(/number/);
    expect(first.body.results[3].message).toBe('instalment 1 was reported paid');

    const again = await upload('application/x-ndjson', rows);
    expect(again.body).toMatchObject({ accepted: 0, repeated: 2, refused: 4 });

    const csv = [
      'applicationId,idempotencyKey,type,date,amount,tenor,number,daysPastDue,outstanding,early',
      `${applicationId},c-1,INSTALMENT_MISSED,${today()},,,2,65,,`,
      `${applicationId},c-2,DEFAULTED,${today()},,,,,${granted},`,
      `${applicationId},c-3,DISBURSED,${today()},10,3,,,,`,
    ].join('\r\n');
    const fromCsv = await upload('text/csv', csv);
    expect(fromCsv.body.results.map((r: { line: number; status: number }) => [r.line, r.status])).toEqual([
      [2, 201],
      [3, 201],
      [4, 400],
    ]);
    const loan = (await api('GET', `/api/applications/${applicationId}/outcomes`)).body.loan;
    expect(loan).toMatchObject({ status: 'DEFAULTED', maxDaysPastDue: 65, defaulted: true, instalmentsPaid: [1] });

    // The same rows as JSON: answered as taken before.
    const asJson = await upload(
      'application/json',
      JSON.stringify({ rows: rows.split('\n').flatMap((line) => (line.startsWith('{"') ? [JSON.parse(line)] : [])) }),
    );
    expect(asJson.body).toMatchObject({ rows: 5, accepted: 0, repeated: 2, refused: 3 });
    expect((await upload('application/json', '{"rows": 3}')).body.message).toBe(
      'rows is required: an array of outcomes',
    );
    expect((await upload('text/plain', rows)).status).toBe(415);
    expect((await upload('application/x-ndjson', '\n\n')).body.message).toBe('The upload has no rows');
  });

  it('when the lender reads its performance, then the figures count its loans by its own bad definition and say when there are too few to mean anything', async () => {
    const good = await decidedLoan();
    await disburse(good.applicationId, good.granted);
    await report(good.applicationId, 'g-repaid', { type: 'REPAID', date: today() });
    const late = await decidedLoan();
    await disburse(late.applicationId, late.granted);
    await report(late.applicationId, 'l-missed', {
      type: 'INSTALMENT_MISSED',
      number: 1,
      daysPastDue: 45,
      date: today(),
    });

    const read = await api('GET', '/api/performance');
    expect(read.status).toBe(200);
    expect(PerformanceReportView.safeParse(read.body).success).toBe(true);
    const report90 = read.body;
    // The suite's loans so far: written off (bad), defaulted at 65 days (bad), repaid, 45 days late.
    expect(report90).toMatchObject({
      loans: 4,
      bad: 2,
      badDefinition: { daysPastDue: 90, writtenOff: true, defaulted: true },
    });
    expect(report90.discrimination).toMatchObject({ gini: null, auc: null, ks: null });
    expect(report90.discrimination.note).toMatch(/at least 200/);
    for (const band of report90.byBand)
      expect([band.badRate, band.note]).toEqual([null, expect.stringMatching(/at least 30/)]);
    const month = today().slice(0, 7);
    expect(report90.vintages).toEqual([expect.objectContaining({ vintage: month, loans: 4 })]);
    // Every decision of the suite is counted for the drift, too few for a PSI.
    expect(report90.drift.currentDecisions).toBeGreaterThanOrEqual(5);
    expect(report90.drift.note).toMatch(/at least 100/);

    const set = await api('PUT', '/api/performance/settings', {
      bad: { daysPastDue: 30, writtenOff: false, defaulted: false },
    });
    expect(set.status).toBe(200);
    const report30 = (await api('GET', '/api/performance')).body;
    // 30+ days past due only: the written-off loan (95 days), the defaulted one (65), the one 45 days late.
    expect(report30).toMatchObject({ loans: 4, bad: 3 });
    const single = await api('GET', `/api/applications/${late.applicationId}/outcomes`);
    expect(single.body.loan.bad).toBe(true);

    expect(
      (await api('PUT', '/api/performance/settings', { bad: { daysPastDue: 45, writtenOff: true, defaulted: true } }))
        .status,
    ).toBe(400);
    expect((await api('GET', '/api/performance?from=2026-12-01&to=2026-11-01')).status).toBe(400);
    // Another lender sees none of it.
    expect((await api('GET', '/api/performance', undefined, stack.other.apiKey)).body).toMatchObject({
      loans: 0,
      bad: 0,
    });

    // A draft replayed on the lender's past applications: against the outcomes of those that became
    // loans, and under a shock.
    const draft = await api('POST', '/api/policies', { ...BUILTIN_POLICY, name: 'Stricter' });
    expect(draft.status).toBe(201);
    const simulated = await api('POST', `/api/policies/${draft.body.version}/simulate`, {
      stress: { cpiPercent: 30, expenseIncreasePercent: 20 },
    });
    expect(simulated.status).toBe(200);
    expect(SimulationResult.safeParse(simulated.body).success).toBe(true);
    const { backtest, stress } = simulated.body;
    expect(backtest.withOutcomes).toBe(4);
    expect(backtest.bothApproved.loans + backtest.draftWouldDecline.loans).toBeLessThanOrEqual(4);
    expect(backtest.bothApproved.note).toMatch(/at least 30/);
    expect(backtest.limits.join(' ')).toMatch(/reject inference is out of scope/);
    expect(stress).toMatchObject({ cpiPercent: 30, expenseIncreasePercent: 20 });
    expect(stress.failing).toBeLessThanOrEqual(stress.approvals);

    const csv = await fetch(`${stack.gateway.url}/api/performance?format=csv`, {
      headers: { 'x-api-key': stack.lender.apiKey },
    });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toBe('table,group,measure,value,count,note');
    expect(lines).toContain('overall,all,bad_rate,0.75,4,');
  });
});
