import { randomUUID } from 'node:crypto';
import {
  Topics,
  type Decision,
  type PublicEventRecord,
  type ReviewQueueItem,
  type ReviewRequest,
  type ReviewView,
} from '@loan/contracts';
import { commandSender, type CommandInput } from '@testing/commands';
import { waitFor } from '@testing/helpers';
import { startApplications, suiteNamespace, testBus, testSealer, type Running } from '@testing/stack';
import type { ApplicationModel } from './data-access/applicationModel';
import { createApplicationRepository } from './data-access/applicationRepository';
import type { Application } from './domain/application';

/**
 * Reviews of MANUAL_REVIEW decisions through the applications service's own entry points: the
 * gateway's commands on `loan.applications.commands` (answered on a reply topic), scoring
 * results on `loan.scoring.results`, and the public events on `loan.events.v1`, against the real
 * broker, registry and database.
 */
const ns = suiteNamespace();
const sealer = testSealer();
const bus = testBus(ns, 'applications-review-test');
const events: PublicEventRecord[] = [];
let applications: Running;
let repo: ReturnType<typeof createApplicationRepository>;
let lender: Awaited<ReturnType<typeof commandSender>>;

beforeAll(async () => {
  applications = await startApplications(ns);
  repo = createApplicationRepository(
    applications.runtime.db.model('Application') as unknown as ApplicationModel,
    sealer,
  );
  await bus.connect();
  lender = await commandSender(bus, 'review-test');
  await bus.consume({
    groupId: 'review-test-events',
    topics: [Topics.events],
    handle: async (m) => void events.push(m.value as PublicEventRecord),
  });
});

afterAll(async () => {
  await bus.disconnect();
  await applications?.stop();
});

type Input = CommandInput;

/** A review as the gateway sends it: who reviewed and their note sealed. */
function reviewCommand(
  clientId: string,
  applicationId: string,
  request: ReviewRequest,
  confirmationAbove: number | null,
): Input {
  const { reviewer, note, ...review } = request;
  return {
    type: 'ReviewApplication',
    clientId,
    applicationId,
    review,
    reviewer: sealer.seal(reviewer),
    note: note === undefined ? null : sealer.seal(note),
    confirmationAbove,
  };
}

const confirmCommand = (clientId: string, applicationId: string, reviewer: string): Input => ({
  type: 'ConfirmReview',
  clientId,
  applicationId,
  reviewer: sealer.seal(reviewer),
});

const send = (input: Input) => lender.send(input);

function decision(outcome: Decision['decision'], applicantId: string, at: Date): Decision {
  return {
    score: 612,
    decision: outcome,
    score_band: 'MEDIUM_RISK',
    timestamp: at.toISOString(),
    applicant_id: applicantId,
    approval_details: {
      approved_amount: 500_000,
      approved_tenor: 12,
      approved_interest: 5,
      monthly_payment: 56_412.71,
    },
    counter_offer: null,
    risk_factors: [],
    score_breakdown: {
      total: 612,
      cash_flow_health: 150,
      income_stability: 140,
      debt_service_capacity: 120,
      account_behavior: 110,
      credit_history: 92,
    },
    explainability: { primary_reason: 'The credit bureau could not be reached', key_strengths: [], key_weaknesses: [] },
    eligible_tenors: [12],
    manual_review_reasons:
      outcome === 'MANUAL_REVIEW'
        ? [{ code: 'BUREAU_UNAVAILABLE', description: 'The credit bureau could not be reached' }]
        : [],
    regulatory_compliance: {
      thin_file: false,
      identity_verified: true,
      credit_bureau_checked: false,
      affordability_assessed: true,
    },
    scorecard_version: 'test',
  };
}

/**
 * An application of `clientId` waiting for its analysis, then scored as `outcome` through the
 * scoring results topic: it is COMPLETED once `application.decision` is out.
 */
async function scored(clientId: string, outcome: Decision['decision'] = 'MANUAL_REVIEW', decidedAt = new Date()) {
  const applicationId = randomUUID();
  const applicantId = randomUUID();
  const analysisId = randomUUID();
  const now = new Date();
  const state: Application = {
    applicationId,
    clientId,
    applicantId,
    idempotencyKey: `review-${applicationId}`,
    status: 'PROCESSING',
    applicant: { firstName: 'Adaeze', lastName: 'Okafor', email: 'ada@example.com', phone: null, bvnSealed: null },
    loan: { amount: 500_000, tenor: 12, interestRate: 5, purpose: null },
    providerKeySealed: sealer.for('client-secrets').seal('test_sk'),
    widgetUrl: 'http://127.0.0.1:9/widget',
    linkWindowStart: now,
    linkingLocked: true,
    readyAnnounced: true,
    firstLinkedAt: now,
    accounts: [],
    analysis: { analysisId, requestedAt: now },
    decision: null,
    repaymentCapacity: null,
    review: null,
    failureReason: null,
    abandonReason: null,
    handled: [],
    createdAt: now,
    updatedAt: now,
  };
  await repo.insert(state, []);
  await bus.publish(Topics.scoringResults, [
    {
      key: applicationId,
      value: {
        type: 'ApplicationScored',
        factId: randomUUID(),
        clientId,
        applicationId,
        applicantId,
        analysisId,
        at: new Date().toISOString(),
        decision: decision(outcome, applicantId, decidedAt),
        // ₦80,000 a month of room: the ask's ₦56,412.71 fits, ₦1m over 12 months does not.
        repaymentCapacity: 80_000,
      },
    },
  ]);
  await waitFor(async () => (await repo.get(applicationId))?.state.status === 'COMPLETED', { what: 'the decision' });
  return { applicationId, applicantId };
}

const counterOffer = (reviewer: string) => ({
  outcome: 'COUNTER_OFFER' as const,
  terms: { amount: 400_000, tenor: 12, interestRate: 5 },
  reasonCode: 'LOWER_AMOUNT',
  note: 'A smaller amount fits the verified salary',
  reviewer,
});

const eventsOf = (applicationId: string) => events.filter((e) => e.applicationId === applicationId).map((e) => e.event);

describe('reviews of MANUAL_REVIEW decisions', () => {
  it('when a review above the threshold is confirmed by another reviewer, then application.review_completed follows application.decision and the detail shows both reviewers', async () => {
    const clientId = `c-${randomUUID()}`;
    const { applicationId } = await scored(clientId);
    const made = await send(reviewCommand(clientId, applicationId, counterOffer('officer-1'), 250_000));
    expect(made).toMatchObject({
      ok: true,
      result: { review: { status: 'PENDING_CONFIRMATION', confirmationRequired: true } },
    });

    expect(await send(confirmCommand(clientId, applicationId, 'officer-1'))).toMatchObject({
      ok: false,
      code: 'REVIEW_CONFLICT',
    });
    const other = await send(
      reviewCommand(clientId, applicationId, { outcome: 'DECLINED', reasonCode: 'X', reviewer: 'officer-2' }, 250_000),
    );
    expect(other).toMatchObject({ ok: false, code: 'REVIEW_CONFLICT' });

    const confirmed = await send(confirmCommand(clientId, applicationId, 'manager-1'));
    expect(confirmed).toMatchObject({ ok: true, result: { review: { status: 'FINAL', confirmedBy: 'manager-1' } } });

    await waitFor(() => eventsOf(applicationId).includes('application.review_completed'), {
      what: 'application.review_completed',
    });
    expect(eventsOf(applicationId)).toEqual(['application.decision', 'application.review_completed']);
    const completed = events.find(
      (e) => e.applicationId === applicationId && e.event === 'application.review_completed',
    )!;
    expect(completed.clientId).toBe(clientId);
    expect(completed.data).toMatchObject({
      outcome: 'COUNTER_OFFER',
      reviewer: 'officer-1',
      reasonCode: 'LOWER_AMOUNT',
      approval_details: {
        approved_amount: 400_000,
        approved_tenor: 12,
        approved_interest: 5,
        monthly_payment: 45_130.16,
      },
    });

    const detail = await send({ type: 'GetApplication', clientId, applicationId });
    expect(detail.ok && detail.result).toMatchObject({ status: 'COMPLETED', decision: { decision: 'MANUAL_REVIEW' } });
    expect(detail.ok && (detail.result.review as ReviewView)).toMatchObject({
      status: 'FINAL',
      reviewer: 'officer-1',
      confirmedBy: 'manager-1',
    });

    const again = await send(
      reviewCommand(clientId, applicationId, { outcome: 'DECLINED', reasonCode: 'X', reviewer: 'officer-3' }, null),
    );
    expect(again).toMatchObject({ ok: false, code: 'INVALID_STATE' });
  });

  it('when two reviewers review at once, then one review is taken and the other is a conflict', async () => {
    const clientId = `c-${randomUUID()}`;
    const { applicationId } = await scored(clientId);
    const answers = await Promise.all(
      ['officer-a', 'officer-b'].map((reviewer) =>
        send(reviewCommand(clientId, applicationId, counterOffer(reviewer), 100_000)),
      ),
    );
    expect(answers.filter((a) => a.ok)).toHaveLength(1);
    expect(answers.filter((a) => !a.ok)).toEqual([expect.objectContaining({ ok: false, code: 'REVIEW_CONFLICT' })]);
  });

  it('when another lender, an unknown application or a decision other than MANUAL_REVIEW is reviewed, then 404-class and 400-class refusals come back and nothing is sent', async () => {
    const clientId = `c-${randomUUID()}`;
    const { applicationId } = await scored(clientId);
    const approved = await scored(clientId, 'APPROVED');
    const review = counterOffer('officer-1');
    expect(await send(reviewCommand(`other-${clientId}`, applicationId, review, null))).toMatchObject({
      ok: false,
      code: 'NOT_FOUND',
    });
    expect(await send(confirmCommand(`other-${clientId}`, applicationId, 'm'))).toMatchObject({
      ok: false,
      code: 'NOT_FOUND',
    });
    expect(await send(reviewCommand(clientId, randomUUID(), review, null))).toMatchObject({
      ok: false,
      code: 'NOT_FOUND',
    });
    expect(await send(reviewCommand(clientId, approved.applicationId, review, null))).toMatchObject({
      ok: false,
      code: 'INVALID_STATE',
    });
    const beyond = { ...review, terms: { amount: 1_000_000, tenor: 12, interestRate: 5 }, note: undefined };
    expect(await send(reviewCommand(clientId, applicationId, beyond, null))).toMatchObject({
      ok: false,
      code: 'INVALID_REVIEW',
    });
    expect((await repo.get(applicationId))?.state.review).toBeNull();
  });

  it('when the queue is listed, then only the lender\u2019s MANUAL_REVIEW applications come, oldest decision first, page by page, OPEN until a review is final', async () => {
    const clientId = `c-${randomUUID()}`;
    const base = Date.now() - 3_600_000;
    const oldest = await scored(clientId, 'MANUAL_REVIEW', new Date(base));
    const middle = await scored(clientId, 'MANUAL_REVIEW', new Date(base + 1000));
    const newest = await scored(clientId, 'MANUAL_REVIEW', new Date(base + 2000));
    await scored(clientId, 'APPROVED', new Date(base + 500));
    await scored(`other-${clientId}`, 'MANUAL_REVIEW', new Date(base + 500));

    const first = await send({ type: 'ListReviews', clientId, status: 'OPEN', limit: 2, after: null });
    const firstItems = (first.ok ? first.result.items : []) as ReviewQueueItem[];
    expect(firstItems.map((i) => i.applicationId)).toEqual([oldest.applicationId, middle.applicationId]);
    expect(first.ok && first.result.more).toBe(true);
    expect(firstItems[0]).toMatchObject({
      score: 612,
      manual_review_reasons: [{ code: 'BUREAU_UNAVAILABLE' }],
      review: null,
    });
    expect(firstItems[0]!.ageSeconds).toBeGreaterThanOrEqual(3600);
    const last = firstItems[1]!;
    const second = await send({
      type: 'ListReviews',
      clientId,
      status: 'OPEN',
      limit: 2,
      after: { decidedAt: last.decidedAt, applicationId: last.applicationId },
    });
    expect(second.ok && (second.result.items as ReviewQueueItem[]).map((i) => i.applicationId)).toEqual([
      newest.applicationId,
    ]);
    expect(second.ok && second.result.more).toBe(false);

    await send(reviewCommand(clientId, middle.applicationId, counterOffer('officer-1'), null));
    const open = await send({ type: 'ListReviews', clientId, status: 'OPEN', limit: 10, after: null });
    expect(open.ok && (open.result.items as ReviewQueueItem[]).map((i) => i.applicationId)).toEqual([
      oldest.applicationId,
      newest.applicationId,
    ]);
    const done = await send({ type: 'ListReviews', clientId, status: 'DONE', limit: 10, after: null });
    const doneItems = (done.ok ? done.result.items : []) as ReviewQueueItem[];
    expect(doneItems.map((i) => i.applicationId)).toEqual([middle.applicationId]);
    expect(doneItems[0]!.review).toMatchObject({ status: 'FINAL', outcome: 'COUNTER_OFFER' });
  });
});
