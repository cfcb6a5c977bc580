import { ConflictError, createLoanClient, verifyWebhook } from '@loan/client';
import { waitFor } from '../testing/helpers';
import { applicant, call, startWholeStack, suiteNamespace } from '../testing/stack';

/**
 * A lender's review of a MANUAL_REVIEW decision, as the lender meets it: through the gateway,
 * with every service, the sandbox provider and bureau, and webhooks to its receiver. The
 * bureau's error BVN refers a salaried applicant (BUREAU_UNAVAILABLE); the ask is above the
 * lender's maker-checker threshold, so an officer's approval waits for a second reviewer.
 */
const ns = suiteNamespace();
let stack: Awaited<ReturnType<typeof startWholeStack>>;

beforeAll(async () => {
  stack = await startWholeStack(ns, {
    ENRICHMENT_TIMEOUT: '2m',
    WEBHOOK_RETRY_BASE: '300ms',
    RATE_LIMITS_ENABLED: 'false',
  });
});

afterAll(async () => {
  await stack?.stop();
});

const api = (method: string, path: string, body?: unknown) =>
  call(stack.gatewayUrl, stack.lender.apiKey, method, path, body);

/** The webhooks of one application as received, in order, each verified as the lender's receiver would. */
const received = (applicationId: string) =>
  stack.receiver.received
    .filter((r) => r.body?.data?.applicationId === applicationId)
    .map((r) => verifyWebhook(r.raw, r.headers['x-signature'] as string, stack.lender.webhookSecret));

describe('reviewing a MANUAL_REVIEW decision', () => {
  it('when an officer approves above the threshold and a manager confirms, then the receiver gets a signed application.review_completed after application.decision', async () => {
    expect((await api('PATCH', '/api/client', { reviewConfirmationAbove: 250_000 })).status).toBe(200);
    // The bureau answers 503 for this BVN: the decision is referred for review.
    const start = await api(
      'POST',
      '/api/applications/initiate',
      applicant({ bvn: '22200000005', amount: 500_000, tenor: 12, interestRate: 5 }),
    );
    expect(start.status).toBe(201);
    const { applicationId, applicantId, widgetUrl } = start.body as {
      applicationId: string;
      applicantId: string;
      widgetUrl: string;
    };
    const linked = await fetch(`${new URL(widgetUrl).origin}/sandbox/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ widgetUrl, persona: 'salaried' }),
    });
    expect(linked.status).toBe(200);
    await waitFor(() => received(applicationId).find((e) => e.event === 'account.enrichment_ready'), {
      timeoutMs: 60_000,
      what: 'account.enrichment_ready',
    });
    expect((await api('POST', `/api/applications/${applicationId}/finalize-linking`)).status).toBe(200);
    await waitFor(() => received(applicationId).find((e) => e.event === 'application.ready_for_analysis'), {
      timeoutMs: 30_000,
      what: 'application.ready_for_analysis',
    });
    expect((await api('POST', `/api/applications/${applicationId}/analyze`)).status).toBe(200);
    const decision = await waitFor(() => received(applicationId).find((e) => e.event === 'application.decision'), {
      timeoutMs: 60_000,
      what: 'application.decision',
    });
    if (decision.event !== 'application.decision') throw new Error('not a decision');
    expect(decision.data.decision.decision).toBe('MANUAL_REVIEW');
    expect(decision.data.decision.manual_review_reasons.map((r) => r.code)).toContain('BUREAU_UNAVAILABLE');
    // A referral discloses what approving would: the key facts of the terms scoring would grant.
    expect(decision.data.decision.key_facts).toMatchObject({ principal: 500_000, tenor_months: 12 });

    // The lender's backend through @loan/client.
    const client = createLoanClient({ apiKey: stack.lender.apiKey, baseUrl: stack.gatewayUrl });
    const queue: string[] = [];
    for await (const item of client.reviews({ status: 'OPEN', limit: 2 })) queue.push(item.applicationId);
    expect(queue).toContain(applicationId);

    const made = await client.reviewApplication(applicationId, {
      outcome: 'APPROVED',
      reasonCode: 'INCOME_VERIFIED',
      note: 'Salary and employer confirmed by phone; the bureau was down',
      reviewer: 'officer-1042',
    });
    expect(made.review).toMatchObject({ status: 'PENDING_CONFIRMATION', confirmationRequired: true });
    await expect(client.confirmReview(applicationId, { reviewer: 'officer-1042' })).rejects.toBeInstanceOf(
      ConflictError,
    );

    const confirmed = await client.confirmReview(applicationId, { reviewer: 'manager-0007' });
    expect(confirmed.review).toMatchObject({ status: 'FINAL', confirmedBy: 'manager-0007' });

    const completed = await waitFor(
      () => received(applicationId).find((e) => e.event === 'application.review_completed'),
      {
        timeoutMs: 30_000,
        what: 'application.review_completed',
      },
    );
    expect(completed.data).toEqual({
      applicationId,
      applicantId,
      outcome: 'APPROVED',
      approval_details: {
        approved_amount: 500_000,
        approved_tenor: 12,
        approved_interest: 5,
        monthly_payment: 56_412.71,
      },
      reviewer: 'officer-1042',
      reasonCode: 'INCOME_VERIFIED',
      note: 'Salary and employer confirmed by phone; the bureau was down',
      reviewedAt: confirmed.review.reviewedAt,
      // The Key Facts Statement of the terms granted, as the detail shows it.
      key_facts: confirmed.review.key_facts,
    });
    expect(completed.data.key_facts).toMatchObject({
      principal: 500_000,
      tenor_months: 12,
      interest_rate_monthly_percent: 5,
      total_fees: 0,
      schedule: expect.arrayContaining([expect.objectContaining({ number: 12 })]),
    });
    const order = received(applicationId).map((e) => e.event);
    expect(order.indexOf('application.decision')).toBeLessThan(order.indexOf('application.review_completed'));
    expect(order.filter((e) => e === 'application.review_completed')).toHaveLength(1);

    const detail = await api('GET', `/api/applications/${applicationId}`);
    expect(detail.body).toMatchObject({
      status: 'COMPLETED',
      review: { status: 'FINAL', reviewer: 'officer-1042', confirmedBy: 'manager-0007' },
    });
    const done = await client.listReviews({ status: 'DONE', limit: 100 });
    expect(done.items.map((i) => i.applicationId)).toContain(applicationId);
  });
});
