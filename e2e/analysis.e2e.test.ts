import { Decision } from '@loan/contracts';
import { waitFor } from '../testing/helpers';
import { applicant, call, startWholeStack, suiteNamespace } from '../testing/stack';

/**
 * Every application that enters PROCESSING leaves it, as a lender sees it: through the gateway,
 * with every service, the sandbox provider and bureau, and webhooks to a receiver. A 0% loan is
 * decided like any other.
 */
const ns = suiteNamespace();
let stack: Awaited<ReturnType<typeof startWholeStack>>;

const ANALYSIS_TIMEOUT_MS = 15_000;
const timings = {
  ENRICHMENT_TIMEOUT: '2m',
  ANALYSIS_TIMEOUT: `${ANALYSIS_TIMEOUT_MS / 1000}s`,
  WEBHOOK_RETRY_BASE: '300ms',
  RATE_LIMITS_ENABLED: 'false',
};

beforeAll(async () => {
  stack = await startWholeStack(ns, timings);
});

afterAll(async () => {
  await stack?.stop();
});

const api = (method: string, path: string, body?: unknown) =>
  call(stack.gatewayUrl, stack.lender.apiKey, method, path, body);
const service = (name: string) => stack.services.find((s) => s.name === name)!;

const eventsOf = (applicationId: string, name: string) =>
  stack.receiver.received.map((r) => r.body).filter((b) => b.data?.applicationId === applicationId && b.event === name);

/** Initiates, links one salaried account, finalizes and waits for ready_for_analysis. */
async function readyApplication(patch: Record<string, unknown> = {}) {
  const start = await api('POST', '/api/applications/initiate', applicant(patch));
  expect(start.status).toBe(201);
  const { applicationId, applicantId, widgetUrl } = start.body;
  const linked = await fetch(`${new URL(widgetUrl).origin}/sandbox/link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ widgetUrl, persona: 'salaried' }),
  });
  expect(linked.status).toBe(200);
  await waitFor(() => eventsOf(applicationId, 'account.enrichment_ready')[0], {
    timeoutMs: 60_000,
    what: 'account.enrichment_ready',
  });
  expect((await api('POST', `/api/applications/${applicationId}/finalize-linking`)).status).toBe(200);
  await waitFor(() => eventsOf(applicationId, 'application.ready_for_analysis')[0], {
    timeoutMs: 30_000,
    what: 'ready_for_analysis',
  });
  return { applicationId: applicationId as string, applicantId: applicantId as string };
}

async function analyze(applicationId: string) {
  const res = await api('POST', `/api/applications/${applicationId}/analyze`);
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('PROCESSING');
}

describe('PROCESSING always ends', () => {
  it('when a lender asks for a 0% loan, then it is decided like any other, the instalment being the amount over the tenor', async () => {
    const { applicationId } = await readyApplication({
      bvn: '22200000001',
      amount: 120_000,
      tenor: 6,
      interestRate: 0,
    });
    await analyze(applicationId);
    const event = await waitFor(() => eventsOf(applicationId, 'application.decision')[0], {
      timeoutMs: 60_000,
      what: 'application.decision',
    });
    expect(event.data.status).toBe('COMPLETED');
    const decision = Decision.parse(event.data.decision);
    expect(decision.decision).toBe('APPROVED');
    expect(decision.approval_details).toEqual({
      approved_amount: 120_000,
      approved_tenor: 6,
      approved_interest: 0,
      monthly_payment: 20_000,
    });
    expect((await api('GET', `/api/applications/${applicationId}`)).body.loan.interestRate).toBe(0);
  });

  it('when scoring cannot score an application (its copy of the bank data unreadable), then application.failed arrives with reason scoring_error, not analysis_timeout', async () => {
    const { applicationId, applicantId } = await readyApplication();
    const profiles = service('scoring').runtime.db.model('Profile');
    await waitFor(() => profiles.exists({ applicationId }), { what: "scoring's profile" });
    // A record that no longer reads as an enriched profile: the same error on every try.
    await profiles.collection.updateMany({ applicationId }, { $set: { 'profile.insights': null } });
    await analyze(applicationId);
    const failed = await waitFor(() => eventsOf(applicationId, 'application.failed')[0], {
      timeoutMs: 60_000,
      what: 'application.failed',
    });
    expect(failed.data).toEqual({ applicationId, applicantId, status: 'FAILED', reason: 'scoring_error' });
    expect(eventsOf(applicationId, 'application.decision')).toHaveLength(0);
    expect((await api('GET', `/api/applications/${applicationId}`)).body).toMatchObject({
      status: 'FAILED',
      failureReason: 'scoring_error',
    });
  });

  it(
    'when no outcome of an analysis ever comes (scoring is down), then the analysis deadline fails it with reason analysis_timeout',
    async () => {
      const { applicationId, applicantId } = await readyApplication();
      const scoring = service('scoring');
      await scoring.stop();
      stack.services.splice(stack.services.indexOf(scoring), 1);
      const asked = Date.now();
      await analyze(applicationId);
      expect((await api('GET', `/api/applications/${applicationId}`)).body.status).toBe('PROCESSING');
      const failed = await waitFor(() => eventsOf(applicationId, 'application.failed')[0], {
        timeoutMs: ANALYSIS_TIMEOUT_MS + 60_000,
        what: 'application.failed',
      });
      expect(failed.data).toEqual({ applicationId, applicantId, status: 'FAILED', reason: 'analysis_timeout' });
      expect(Date.now() - asked).toBeGreaterThanOrEqual(ANALYSIS_TIMEOUT_MS);
      expect((await api('GET', `/api/applications/${applicationId}`)).body).toMatchObject({
        status: 'FAILED',
        failureReason: 'analysis_timeout',
      });
      expect(eventsOf(applicationId, 'application.failed')).toHaveLength(1);
    },
    ANALYSIS_TIMEOUT_MS + 180_000,
  );
});
