import { randomUUID } from 'node:crypto';
import { Topics, type ApplicationCommand, type Decision, type PublicEventRecord } from '@loan/contracts';
import { waitFor } from '@testing/helpers';
import { call, decidedApplication, startLenderApi, suiteNamespace } from '@testing/stack';
import { Examples } from './entry-points/http/openapi/examples';

/**
 * Contests of decisions (NDPA s.37) over real HTTP: `POST /api/applications/:id/contest`, the
 * review queue it puts the application back in, its maker-checker review and the
 * `application.review_completed` that cites it, and every refusal, against the real broker,
 * registry and database; decisions come in as scoring would report them.
 */
const ns = suiteNamespace();
let stack: Awaited<ReturnType<typeof startLenderApi>>;
const events: PublicEventRecord[] = [];
const commands: ApplicationCommand[] = [];

beforeAll(async () => {
  stack = await startLenderApi(ns, 'contest-api-test');
  await stack.bus.consume({
    groupId: `contest-events-${randomUUID()}`,
    topics: [Topics.events],
    handle: async (m) => void events.push(m.value as PublicEventRecord),
  });
  await stack.bus.consume({
    groupId: `contest-commands-${randomUUID()}`,
    topics: [Topics.applicationCommands],
    handle: async (m) => void commands.push(m.value as ApplicationCommand),
  });
});

afterAll(async () => {
  await stack?.stop();
});

const api = (method: string, path: string, body?: unknown, key: string | null = stack.lender.apiKey) =>
  call(stack.gateway.url, key, method, path, body);
const contest = (id: string, body: unknown, key?: string | null) =>
  api('POST', `/api/applications/${id}/contest`, body, key);
const review = (id: string, body: unknown) => api('POST', `/api/applications/${id}/review`, body);
const confirm = (id: string, reviewer: string) => api('POST', `/api/applications/${id}/review/confirm`, { reviewer });
const errorOf = (statusCode: number, message: RegExp) => ({
  statusCode,
  message: expect.stringMatching(message),
  error: expect.any(String),
});

/** An application of the lender decided `outcome` by the scorecard (the ask: ₦300,000 over 6 months at 5%). */
const decided = (outcome: Decision['decision']) =>
  decidedApplication(
    { gatewayUrl: stack.gateway.url, bus: stack.bus, applications: stack.applications },
    stack.lender,
    (applicantId) => ({
      decision: {
        ...(Examples.decision as unknown as Decision),
        decision: outcome,
        applicant_id: applicantId,
        manual_review_reasons:
          outcome === 'MANUAL_REVIEW'
            ? [{ code: 'BUREAU_UNAVAILABLE', description: 'The credit bureau could not be reached' }]
            : [],
      },
      repaymentCapacity: 100_000,
    }),
  );

const queueIds = async (status: 'OPEN' | 'DONE') =>
  ((await api('GET', `/api/reviews?status=${status}&limit=100`)).body.items as { applicationId: string }[]).map(
    (i) => i.applicationId,
  );

const statement = 'My salary moved to Zenith in September; the October statement shows it.';

describe('contesting a decision', () => {
  it('when a DECLINED decision is contested, then it is back in the queue with the statement, its review needs a second reviewer even with no threshold, and the final review resolves the contest and cites it in application.review_completed', async () => {
    await api('PATCH', '/api/client', { reviewConfirmationAbove: null });
    const app = await decided('DECLINED');
    const before = await api('GET', `/api/applications/${app.applicationId}`);
    expect(before.body.contestAvailability).toEqual({
      available: true,
      reason: null,
      how: `POST /api/applications/${app.applicationId}/contest`,
    });
    expect(before.body.contest).toBeNull();
    expect(await queueIds('OPEN')).not.toContain(app.applicationId);

    const opened = await contest(app.applicationId, { statement: `  ${statement} ` });
    expect(opened.status).toBe(200);
    expect(opened.body).toEqual({
      applicationId: app.applicationId,
      status: 'COMPLETED',
      contest: {
        contestId: expect.any(String),
        status: 'OPEN',
        contestedOutcome: 'DECLINED',
        statement,
        openedAt: expect.any(String),
        resolvedAt: null,
        priorReview: null,
      },
    });
    const { contestId } = opened.body.contest;
    // A retry of the same contest answers as the first; another statement is a conflict.
    expect((await contest(app.applicationId, { statement })).body).toEqual(opened.body);
    const another = await contest(app.applicationId, { statement: 'Something else entirely' });
    expect([another.status, another.body]).toEqual([409, errorOf(409, /contested once$/)]);

    const queued = (await api('GET', '/api/reviews?limit=100')).body.items.find(
      (i: { applicationId: string }) => i.applicationId === app.applicationId,
    );
    expect(queued).toMatchObject({ review: null, contest: { contestId, status: 'OPEN', statement } });
    const during = await api('GET', `/api/applications/${app.applicationId}`);
    expect(during.body).toMatchObject({
      decision: { decision: 'DECLINED' },
      review: null,
      contest: { contestId, status: 'OPEN' },
      contestAvailability: { available: false, reason: expect.stringMatching(/contested once$/) },
    });

    const made = await review(app.applicationId, {
      outcome: 'APPROVED',
      reasonCode: 'NEW_EMPLOYER_VERIFIED',
      note: 'The October salary is there',
      reviewer: 'officer-1',
    });
    expect(made.status).toBe(200);
    expect(made.body.review).toMatchObject({
      status: 'PENDING_CONFIRMATION',
      confirmationRequired: true,
      contestId,
      approval_details: { approved_amount: 300_000, approved_tenor: 6 },
    });
    const own = await confirm(app.applicationId, 'officer-1');
    expect([own.status, own.body]).toEqual([409, errorOf(409, /cannot confirm it/)]);
    const confirmed = await confirm(app.applicationId, 'manager-1');
    expect(confirmed.body.review).toMatchObject({ status: 'FINAL', confirmedBy: 'manager-1', contestId });

    const after = await api('GET', `/api/applications/${app.applicationId}`);
    expect(after.body).toMatchObject({
      status: 'COMPLETED',
      decision: { decision: 'DECLINED' },
      review: { outcome: 'APPROVED', status: 'FINAL', contestId },
      contest: { contestId, status: 'RESOLVED', resolvedAt: expect.any(String), statement },
      contestAvailability: { available: false },
    });
    expect(await queueIds('DONE')).toContain(app.applicationId);
    expect(await queueIds('OPEN')).not.toContain(app.applicationId);

    const completed = await waitFor(
      () =>
        events.find((e) => e.event === 'application.review_completed' && e.data.applicationId === app.applicationId) ??
        null,
      { what: 'application.review_completed of the contest' },
    );
    expect(completed.data).toMatchObject({ outcome: 'APPROVED', reviewer: 'officer-1', contestId });
    // The applicant's statement is sealed on the command topic.
    const contests = await waitFor(
      () => {
        const mine = commands.filter((c) => c.type === 'ContestDecision' && c.applicationId === app.applicationId);
        return mine.length >= 3 ? mine : null;
      },
      { what: 'the contest commands' },
    );
    expect(JSON.stringify(contests)).not.toContain('Zenith');
    // And in the applications service's database: sealed like the applicant's identity.
    const stored = await stack.applications.runtime.db.model('Application').findById(app.applicationId).lean();
    expect(JSON.stringify(stored)).toContain(contestId);
    expect(JSON.stringify(stored)).not.toContain('Zenith');
  });

  it('when a COUNTER_OFFER or a reviewed-DECLINED referral is contested, then it reopens with the earlier review kept, and its new review may decline again', async () => {
    const counter = await decided('COUNTER_OFFER');
    const opened = await contest(counter.applicationId, { statement });
    expect(opened.body.contest).toMatchObject({ contestedOutcome: 'COUNTER_OFFER', priorReview: null });

    const referral = await decided('MANUAL_REVIEW');
    const underReview = await contest(referral.applicationId, { statement });
    expect([underReview.status, underReview.body]).toEqual([400, errorOf(400, /awaits the lender.s review/)]);
    const declined = await review(referral.applicationId, {
      outcome: 'DECLINED',
      reasonCode: 'INCOME_UNVERIFIED',
      reviewer: 'officer-1',
    });
    expect(declined.body.review.status).toBe('FINAL');
    const reopened = await contest(referral.applicationId, { statement });
    expect(reopened.status).toBe(200);
    expect(reopened.body.contest).toMatchObject({
      contestedOutcome: 'DECLINED',
      priorReview: { outcome: 'DECLINED', status: 'FINAL', reviewer: 'officer-1', contestId: null },
    });
    expect((await api('GET', `/api/applications/${referral.applicationId}`)).body.review).toBeNull();
    const again = await review(referral.applicationId, {
      outcome: 'DECLINED',
      reasonCode: 'INCOME_UNVERIFIED',
      reviewer: 'officer-2',
    });
    expect(again.body.review).toMatchObject({
      status: 'PENDING_CONFIRMATION',
      contestId: reopened.body.contest.contestId,
    });
    expect((await confirm(referral.applicationId, 'manager-1')).body.review.status).toBe('FINAL');
    const detail = await api('GET', `/api/applications/${referral.applicationId}`);
    expect(detail.body.contest).toMatchObject({ status: 'RESOLVED', priorReview: { reviewer: 'officer-1' } });
  });

  it('when the decision is APPROVED, not yet made, unknown or another lender’s, or the statement is invalid, then 4xx says why and nothing is contested', async () => {
    const approved = await decided('APPROVED');
    const refused = await contest(approved.applicationId, { statement });
    expect([refused.status, refused.body]).toEqual([
      400,
      errorOf(400, /^Only a DECLINED or COUNTER_OFFER decision is contested; this application's decision is APPROVED$/),
    ]);
    const detail = await api('GET', `/api/applications/${approved.applicationId}`);
    expect(detail.body.contest).toBeNull();
    expect(detail.body.contestAvailability).toMatchObject({
      available: false,
      reason: expect.stringMatching(/APPROVED/),
    });

    const fresh = await api('POST', '/api/applications/initiate', {
      email: 'ada@example.com',
      bvn: '22212345678',
      firstName: 'Ada',
      lastName: 'Obi',
      amount: 100_000,
      tenor: 6,
      interestRate: 5,
      idempotencyKey: randomUUID(),
    });
    expect(fresh.status).toBe(201);
    const early = await contest(fresh.body.applicationId, { statement });
    expect([early.status, early.body]).toEqual([
      400,
      errorOf(400, /^Cannot contest application with status: PENDING_LINKING/),
    ]);

    const declined = await decided('DECLINED');
    for (const [body, message] of [
      [{}, /^statement is required/],
      [{ statement: '   ' }, /^statement must not be empty/],
      [{ statement: 'x'.repeat(4001) }, /^statement must be at most 4000 characters$/],
      [{ statement: 7 }, /^statement is required and must be a string/],
      [{ statement, reviewer: 'x' }, /^Unknown field reviewer; only statement is allowed$/],
    ] as const) {
      const res = await contest(declined.applicationId, body);
      expect([res.status, res.body]).toEqual([400, errorOf(400, message)]);
    }
    const notJson = await fetch(`${stack.gateway.url}/api/applications/${declined.applicationId}/contest`, {
      method: 'POST',
      headers: { 'x-api-key': stack.lender.apiKey, 'content-type': 'text/plain' },
      body: statement,
    });
    expect(notJson.status).toBe(415);
    for (const [id, key] of [
      [randomUUID(), stack.lender.apiKey],
      ['not-a-uuid', stack.lender.apiKey],
      [declined.applicationId, stack.other.apiKey],
    ] as const) {
      const res = await contest(id, { statement }, key);
      expect([res.status, res.body]).toEqual([404, errorOf(404, /^Application not found$/)]);
    }
    const unchanged = await api('GET', `/api/applications/${declined.applicationId}`);
    expect(unchanged.body).toMatchObject({ contest: null, contestAvailability: { available: true } });
  });
});
