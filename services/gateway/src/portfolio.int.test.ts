import { Decision, PortfolioReport, dayIn, type DecisionOutcome } from '@loan/contracts';
import { waitFor } from '@testing/helpers';
import {
  call,
  applicant,
  createClient,
  decidedApplication,
  startApplications,
  startGateway,
  startNotifier,
  startSandbox,
  suiteNamespace,
  testBus,
  type Running,
} from '@testing/stack';
import { Examples } from './entry-points/http/openapi/examples';

/**
 * A lender's numbers over a period (`GET /api/portfolio`) over real HTTP: the gateway asks the
 * applications service by command and the notifier over its internal API, against the real
 * broker, registry and database; and the lender's time zone, which sets whose days those are.
 */
const ns = suiteNamespace();
let gateway: Running;
let applications: Running;
let notifier: Running;
let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let lender: Awaited<ReturnType<typeof createClient>>;
let other: Awaited<ReturnType<typeof createClient>>;
const bus = testBus(ns, 'portfolio-test');

beforeAll(async () => {
  notifier = await startNotifier(ns);
  gateway = await startGateway(ns, {
    RATE_LIMIT_INITIATE: '1000',
    RATE_LIMIT_GLOBAL: '1000',
    RATE_LIMIT_ANALYZE: '1000',
    NOTIFIER_URL: notifier.url,
  });
  sandbox = await startSandbox(`${gateway.url}/provider/webhooks/mono`);
  applications = await startApplications(ns, { PROVIDER_BASE_URL: sandbox.url });
  await bus.connect();
  lender = await createClient(gateway.url);
  other = await createClient(gateway.url);
});

afterAll(async () => {
  await bus.disconnect();
  for (const s of [applications, gateway, notifier]) await s?.stop();
  await sandbox?.stop();
});

const portfolio = (query = '', key = lender.apiKey) => call(gateway.url, key, 'GET', `/api/portfolio${query}`);

/** An application taken to COMPLETED with `outcome`, decided now. */
const decided = (outcome: DecisionOutcome, amount: number, score: number) =>
  decidedApplication({ gatewayUrl: gateway.url, bus, applications }, lender, (applicantId) => ({
    decision: Decision.parse({
      ...Examples.decision,
      decision: outcome,
      score,
      applicant_id: applicantId,
      timestamp: new Date().toISOString(),
      approval_details: { ...Examples.decision.approval_details, approved_amount: amount },
    }),
  }));

describe('GET /api/portfolio', () => {
  it('when a lender has no application yet, then it answers the last 30 days in Lagos, every count 0 and every rate null', async () => {
    const res = await portfolio();
    expect(res.status).toBe(200);
    const report = PortfolioReport.parse(res.body);
    expect(report.timeZone).toBe('Africa/Lagos');
    expect(report.to).toBe(dayIn(new Date(), 'Africa/Lagos'));
    expect(report.days).toHaveLength(30);
    expect(report.days[0]!.day).toBe(report.from);
    expect(report.applications).toBe(0);
    expect(report.approvalRate).toBeNull();
    expect(report.averageApprovedAmount).toBeNull();
    expect(report.webhooks).toEqual({
      deliveries: 0,
      byStatus: { PENDING: 0, DELIVERED: 0, FAILED: 0, SKIPPED: 0 },
      deliveredRate: null,
    });
  });

  it('when applications are decided, then it counts them by status, decision, day and score, with the approval rate, the mean approved amount, the time to decision and the deliveries, and nothing of another lender', async () => {
    await decided('APPROVED', 300_000, 91);
    await decided('APPROVED', 500_001, 84.5);
    await decided('DECLINED', 0, 22);
    const pending = await call(gateway.url, lender.apiKey, 'POST', '/api/applications/initiate', applicant());
    expect(pending.status).toBe(201);
    await call(gateway.url, other.apiKey, 'POST', '/api/applications/initiate', applicant());

    // The notifier records each event as a delivery (SKIPPED: this lender has no webhook URL).
    const report = await waitFor(
      async () => {
        const res = await portfolio();
        const body = PortfolioReport.parse(res.body);
        return body.webhooks.byStatus.SKIPPED >= 3 ? body : null;
      },
      { what: 'the decisions to be recorded as deliveries' },
    );
    expect(report.applications).toBe(4);
    expect(report.byStatus).toMatchObject({ COMPLETED: 3, PENDING_LINKING: 1 });
    expect(report.byDecision).toEqual({ APPROVED: 2, COUNTER_OFFER: 0, MANUAL_REVIEW: 0, DECLINED: 1 });
    expect(report.approvalRate).toBeCloseTo(2 / 3, 10);
    expect(report.averageApprovedAmount).toBe(400_001);
    const band = (from: number) => report.scoreBands.find((b) => b.from === from)!.count;
    expect([band(90), band(80), band(20), band(50)]).toEqual([1, 1, 1, 0]);
    expect(report.decisionTime.decided).toBe(3);
    expect(report.decisionTime.medianSeconds).not.toBeNull();
    expect(report.decisionTime.buckets.reduce((n, b) => n + b.count, 0)).toBe(3);
    const today = report.days.at(-1)!;
    expect(today.day).toBe(
      dayIn(new Date((pending.body as { createdAt?: string }).createdAt ?? Date.now()), 'Africa/Lagos'),
    );
    expect(report.days.reduce((n, d) => n + d.created, 0)).toBe(4);
    expect(report.days.reduce((n, d) => n + d.undecided, 0)).toBe(1);
    expect(report.webhooks.deliveredRate).toBeNull();

    // A period before any of them counts none of them.
    const before = await portfolio('?from=2026-01-01&to=2026-01-31');
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ from: '2026-01-01', to: '2026-01-31', applications: 0 });
    expect(before.body.days).toHaveLength(31);

    const theirs = PortfolioReport.parse((await portfolio('', other.apiKey)).body);
    expect(theirs.applications).toBe(1);
  });

  it('when the period is not one, then it answers 400 naming the problem', async () => {
    const problems: [string, string][] = [
      ['?from=2026-13-01', 'from must be a date (YYYY-MM-DD)'],
      ['?from=2026-11-02&to=2026-11-01', 'from must not be after to'],
      ['?from=2025-01-01&to=2026-11-01', 'The period is longer than 366 days; choose a later from or an earlier to'],
      ['?status=COMPLETED', 'Unknown query parameter status; allowed: from, to'],
    ];
    for (const [query, message] of problems) {
      const res = await portfolio(query);
      expect({ query, status: res.status, body: res.body }).toEqual({
        query,
        status: 400,
        body: { statusCode: 400, error: 'Bad Request', message },
      });
    }
    expect((await portfolio('', null as unknown as string)).status).toBe(401);
  });
});

describe('a lender’s time zone', () => {
  it('when a lender sets its time zone, then its account shows it, and its portfolio and list count in its days', async () => {
    const zoned = await createClient(gateway.url);
    const api = (method: string, path: string, body?: unknown) => call(gateway.url, zoned.apiKey, method, path, body);
    expect((await api('GET', '/api/client')).body.timeZone).toBe('Africa/Lagos');

    // Kiritimati is UTC+14: most of the time its day is not Lagos's.
    const set = await api('PATCH', '/api/client', { timeZone: 'Pacific/Kiritimati' });
    expect(set.status).toBe(200);
    expect(set.body.timeZone).toBe('Pacific/Kiritimati');
    const started = await api('POST', '/api/applications/initiate', applicant());
    expect(started.status).toBe(201);
    const view = await api('GET', `/api/applications/${started.body.applicationId}`);
    const createdAt = new Date(view.body.createdAt as string);
    const day = dayIn(createdAt, 'Pacific/Kiritimati');

    const report = PortfolioReport.parse((await api('GET', `/api/portfolio?from=${day}&to=${day}`)).body);
    expect(report).toMatchObject({ timeZone: 'Pacific/Kiritimati', applications: 1 });
    expect(report.days).toEqual([expect.objectContaining({ day, created: 1, undecided: 1 })]);
    const listed = await api('GET', `/api/applications?from=${day}&to=${day}`);
    expect(listed.body.items.map((i: { applicationId: string }) => i.applicationId)).toEqual([
      started.body.applicationId,
    ]);
    // The day after, in that zone, holds none of it.
    const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    expect((await api('GET', `/api/applications?from=${next}`)).body.items).toEqual([]);

    const refused = await api('PATCH', '/api/client', { timeZone: 'Lagos' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('timeZone must be an IANA time zone name, such as Africa/Lagos');
    const back = await api('PATCH', '/api/client', { timeZone: null });
    expect(back.body.timeZone).toBe('Africa/Lagos');
  });
});
