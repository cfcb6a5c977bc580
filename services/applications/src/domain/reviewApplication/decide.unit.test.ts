import { randomUUID } from 'node:crypto';
import {
  DEFAULT_DISCLOSURE,
  EventData,
  keyFactsOf,
  monthlyPayment,
  roundToKobo,
  type Decision,
  type ReviewRequest,
} from '@loan/contracts';
import type { Application } from '../application';
import { confirmReview, reviewApplication, toQueueItem } from './decide';

const decidedAt = new Date('2026-11-01T09:00:00.000Z');
const now = new Date('2026-11-01T10:00:00.000Z');
const later = new Date('2026-11-01T11:00:00.000Z');

const decision = (outcome: Decision['decision'] = 'MANUAL_REVIEW'): Decision => ({
  score: 610,
  decision: outcome,
  score_band: 'MEDIUM_RISK',
  timestamp: decidedAt.toISOString(),
  applicant_id: 'ignored',
  approval_details: { approved_amount: 500_000, approved_tenor: 12, approved_interest: 5, monthly_payment: 56_412.71 },
  counter_offer: null,
  risk_factors: [],
  score_breakdown: {
    total: 610,
    cash_flow_health: 0,
    income_stability: 0,
    debt_service_capacity: 0,
    account_behavior: 0,
    credit_history: 0,
  },
  explainability: { primary_reason: 'x', key_strengths: [], key_weaknesses: [] },
  eligible_tenors: [12],
  manual_review_reasons: [{ code: 'BUREAU_UNAVAILABLE', description: 'The credit bureau could not be reached' }],
  regulatory_compliance: {
    thin_file: false,
    identity_verified: true,
    credit_bureau_checked: false,
    affordability_assessed: true,
  },
  scorecard_version: 'test',
});

/** A COMPLETED application asking ₦500,000 over 12 months at 5%, with ₦80,000 a month of room. */
function referred(overrides: Partial<Application> = {}): Application {
  return {
    applicationId: randomUUID(),
    clientId: 'client-a',
    applicantId: randomUUID(),
    idempotencyKey: 'k',
    status: 'COMPLETED',
    applicant: { firstName: 'Adaeze', lastName: 'Okafor', email: 'ada@example.com', phone: null, bvnSealed: null },
    loan: { amount: 500_000, tenor: 12, interestRate: 5, purpose: null },
    providerKeySealed: 'sealed',
    widgetUrl: 'http://sandbox/widget',
    linkWindowStart: decidedAt,
    linkingLocked: true,
    readyAnnounced: true,
    firstLinkedAt: decidedAt,
    accounts: [],
    analysis: { analysisId: 'a-1', requestedAt: decidedAt },
    decision: decision(),
    repaymentCapacity: 80_000,
    review: null,
    failureReason: null,
    abandonReason: null,
    handled: [],
    createdAt: decidedAt,
    updatedAt: decidedAt,
    ...overrides,
  };
}

const approve = (extra: Partial<ReviewRequest> = {}): ReviewRequest => ({
  outcome: 'APPROVED',
  reasonCode: 'INCOME_VERIFIED',
  reviewer: 'officer-1',
  ...extra,
});

describe('reviewing a MANUAL_REVIEW decision', () => {
  it('when the terms fit and no threshold applies, then the review is final at once and application.review_completed carries the ask priced by the scorecard formula', () => {
    const state = referred();
    const outcome = reviewApplication(state, {
      request: approve({ note: ' Salary confirmed ' }),
      confirmationAbove: null,
      now,
    });
    if (!outcome.ok) throw new Error(outcome.message);
    expect(outcome.state.status).toBe('COMPLETED');
    expect(outcome.state.review).toMatchObject({
      status: 'FINAL',
      reviewer: 'officer-1',
      note: 'Salary confirmed',
      override: false,
      reviewedAt: now,
    });
    const terms = {
      approved_amount: 500_000,
      approved_tenor: 12,
      approved_interest: 5,
      monthly_payment: roundToKobo(monthlyPayment(500_000, 5, 12)),
    };
    expect(outcome.effects).toEqual([
      {
        kind: 'event',
        event: 'application.review_completed',
        data: {
          applicationId: state.applicationId,
          applicantId: state.applicantId,
          outcome: 'APPROVED',
          approval_details: terms,
          reviewer: 'officer-1',
          reasonCode: 'INCOME_VERIFIED',
          note: 'Salary confirmed',
          reviewedAt: now.toISOString(),
          // Disclosed as approving the ask on the review's day (in Lagos), without fees: the decision named none.
          key_facts: keyFactsOf({
            principal: 500_000,
            tenorMonths: 12,
            monthlyRatePercent: 5,
            terms: DEFAULT_DISCLOSURE,
            disbursementDate: '2026-11-01',
            payDayOfMonth: null,
          }),
        },
      },
      // For scoring, which measures the loan's outcomes against the terms granted.
      {
        kind: 'fact',
        fact: {
          type: 'DecisionReviewed',
          applicantId: state.applicantId,
          outcome: 'APPROVED',
          terms: { amount: 500_000, tenor: 12, interestRate: 5 },
          reviewedAt: now.toISOString(),
        },
      },
    ]);
    expect(
      EventData['application.review_completed'].safeParse((outcome.effects[0] as { data: unknown }).data).success,
    ).toBe(true);
  });

  it('when the application is not COMPLETED or its decision is not MANUAL_REVIEW, then it is refused as INVALID_STATE (400)', () => {
    for (const state of [
      referred({ status: 'PROCESSING', decision: null }),
      referred({ decision: decision('APPROVED') }),
    ]) {
      expect(reviewApplication(state, { request: approve(), confirmationAbove: null, now })).toMatchObject({
        ok: false,
        code: 'INVALID_STATE',
      });
    }
  });

  it('when the outcome and terms do not go together, then it is refused as INVALID_REVIEW (400)', () => {
    const terms = { amount: 300_000, tenor: 12, interestRate: 5 };
    const cases: ReviewRequest[] = [
      { outcome: 'DECLINED', reasonCode: 'FRAUD_SUSPECTED', reviewer: 'officer-1', terms },
      { outcome: 'COUNTER_OFFER', reasonCode: 'LOWER_AMOUNT', reviewer: 'officer-1' },
      {
        outcome: 'COUNTER_OFFER',
        reasonCode: 'LOWER_AMOUNT',
        reviewer: 'officer-1',
        terms: { amount: 500_000, tenor: 12, interestRate: 5 },
      },
    ];
    for (const request of cases) {
      expect(reviewApplication(referred(), { request, confirmationAbove: null, now })).toMatchObject({
        ok: false,
        code: 'INVALID_REVIEW',
      });
    }
  });

  it('when the payment is beyond the repayment capacity, then it needs override and a note, and with both it is recorded as an override', () => {
    const terms = { amount: 1_000_000, tenor: 12, interestRate: 5 };
    const request = approve({ terms });
    const without = reviewApplication(referred(), { request, confirmationAbove: null, now });
    expect(without).toMatchObject({ ok: false, code: 'INVALID_REVIEW' });
    expect(!without.ok && without.message).toContain('override');
    expect(
      reviewApplication(referred(), { request: { ...request, override: true }, confirmationAbove: null, now }),
    ).toMatchObject({ ok: false, code: 'INVALID_REVIEW' });
    const granted = reviewApplication(referred(), {
      request: { ...request, override: true, note: 'Guarantor signed' },
      confirmationAbove: null,
      now,
    });
    expect(granted).toMatchObject({ ok: true, state: { review: { override: true, status: 'FINAL' } } });
  });

  it('when the payment is exactly the repayment capacity, then no override is needed (compared unrounded, as the scorecard does)', () => {
    const state = referred({ repaymentCapacity: monthlyPayment(500_000, 5, 12) });
    expect(reviewApplication(state, { request: approve(), confirmationAbove: null, now })).toMatchObject({
      ok: true,
      state: { review: { override: false } },
    });
    const below = referred({ repaymentCapacity: monthlyPayment(500_000, 5, 12) - 0.01 });
    expect(reviewApplication(below, { request: approve(), confirmationAbove: null, now })).toMatchObject({
      ok: false,
      code: 'INVALID_REVIEW',
    });
  });

  it('when scoring recorded no repayment capacity, then any terms need an override; a decline never does', () => {
    const state = referred({ repaymentCapacity: null });
    expect(reviewApplication(state, { request: approve(), confirmationAbove: null, now })).toMatchObject({
      ok: false,
      code: 'INVALID_REVIEW',
    });
    const declined = reviewApplication(state, {
      request: { outcome: 'DECLINED', reasonCode: 'NO_INCOME', reviewer: 'o' },
      confirmationAbove: 0,
      now,
    });
    expect(declined).toMatchObject({
      ok: true,
      state: { review: { status: 'FINAL', terms: null, confirmationRequired: false } },
    });
  });

  it('when a review is final, then another one is refused (400), and the same one sent again is answered as it was', () => {
    const first = reviewApplication(referred(), { request: approve(), confirmationAbove: null, now });
    if (!first.ok) throw new Error(first.message);
    const again = reviewApplication(first.state, { request: approve(), confirmationAbove: null, now: later });
    expect(again).toMatchObject({ ok: true, effects: [] });
    expect(again.ok && again.state).toBe(first.state);
    const other = reviewApplication(first.state, {
      request: approve({ reviewer: 'officer-2' }),
      confirmationAbove: null,
      now: later,
    });
    expect(other).toMatchObject({ ok: false, code: 'INVALID_STATE' });
  });
});

describe('maker-checker', () => {
  const counter = {
    outcome: 'COUNTER_OFFER' as const,
    terms: { amount: 400_000, tenor: 12, interestRate: 5 },
    reasonCode: 'LOWER_AMOUNT',
    reviewer: 'Officer-1',
  };

  it('when the amount is above the threshold, then the review awaits confirmation with no event, and another review meanwhile is a conflict (409)', () => {
    const made = reviewApplication(referred(), { request: counter, confirmationAbove: 250_000, now });
    if (!made.ok) throw new Error(made.message);
    expect(made.state.review).toMatchObject({
      status: 'PENDING_CONFIRMATION',
      confirmationRequired: true,
      reviewedAt: null,
    });
    expect(made.effects).toEqual([]);
    const second = reviewApplication(made.state, {
      request: approve({ reviewer: 'officer-2' }),
      confirmationAbove: 250_000,
      now: later,
    });
    expect(second).toMatchObject({ ok: false, code: 'REVIEW_CONFLICT' });
  });

  it('when the amount is at the threshold, then no confirmation is needed', () => {
    const made = reviewApplication(referred(), { request: counter, confirmationAbove: 400_000, now });
    expect(made).toMatchObject({ ok: true, state: { review: { status: 'FINAL', confirmationRequired: false } } });
  });

  it('when the maker confirms their own review, then it is a conflict (409), whatever the case of the staff id', () => {
    const made = reviewApplication(referred(), { request: counter, confirmationAbove: 250_000, now });
    if (!made.ok) throw new Error(made.message);
    expect(confirmReview(made.state, { reviewer: ' officer-1 ', now: later })).toMatchObject({
      ok: false,
      code: 'REVIEW_CONFLICT',
    });
  });

  it('when another reviewer confirms, then the review is final and application.review_completed names the maker, at the confirmation time', () => {
    const made = reviewApplication(referred(), { request: counter, confirmationAbove: 250_000, now });
    if (!made.ok) throw new Error(made.message);
    const confirmed = confirmReview(made.state, { reviewer: 'manager-7', now: later });
    if (!confirmed.ok) throw new Error(confirmed.message);
    expect(confirmed.state.review).toMatchObject({ status: 'FINAL', confirmedBy: 'manager-7', reviewedAt: later });
    expect(confirmed.effects).toMatchObject([
      {
        event: 'application.review_completed',
        data: { outcome: 'COUNTER_OFFER', reviewer: 'Officer-1', reviewedAt: later.toISOString() },
      },
      { kind: 'fact', fact: { type: 'DecisionReviewed', outcome: 'COUNTER_OFFER', reviewedAt: later.toISOString() } },
    ]);
    expect(confirmReview(confirmed.state, { reviewer: 'manager-7', now: later })).toMatchObject({
      ok: true,
      effects: [],
    });
    expect(confirmReview(confirmed.state, { reviewer: 'manager-8', now: later })).toMatchObject({
      ok: false,
      code: 'INVALID_STATE',
    });
  });

  it('when there is no review to confirm, then confirm is refused (400)', () => {
    expect(confirmReview(referred(), { reviewer: 'manager-7', now })).toMatchObject({
      ok: false,
      code: 'INVALID_STATE',
    });
  });
});

describe('the review queue', () => {
  it('when an application is listed, then its reasons, score, ask, the terms scoring would grant and its age are shown', () => {
    const item = toQueueItem(referred(), now);
    expect(item).toMatchObject({
      score: 610,
      loan: { amount: 500_000, tenor: 12, interestRate: 5 },
      manual_review_reasons: [{ code: 'BUREAU_UNAVAILABLE' }],
      approval_details: { approved_amount: 500_000 },
      decidedAt: decidedAt.toISOString(),
      ageSeconds: 3600,
      review: null,
    });
  });
});

describe('the key facts of a review', () => {
  it('when a reviewer counter-offers a decision that disclosed fees and a pay day, then the review discloses its own terms with the same fees and pay day; a decline discloses none', () => {
    const disclosure = {
      fees: { managementPercent: 2, insurancePercent: 1, vatPercent: 7.5, collection: 'SPREAD' as const },
      schedule: { alignToPayDay: true, daysAfterPayDay: 1 },
    };
    const decidedFacts = keyFactsOf({
      principal: 500_000,
      tenorMonths: 12,
      monthlyRatePercent: 5,
      terms: disclosure,
      disbursementDate: '2026-11-01',
      payDayOfMonth: 25,
    });
    const state = referred({ decision: { ...decision(), key_facts: decidedFacts } });
    const outcome = reviewApplication(state, {
      request: approve({ outcome: 'COUNTER_OFFER', terms: { amount: 300_000, tenor: 6, interestRate: 5 } }),
      confirmationAbove: null,
      now,
    });
    if (!outcome.ok) throw new Error(outcome.message);
    const facts = outcome.state.review!.keyFacts!;
    expect(facts).toEqual(
      keyFactsOf({
        principal: 300_000,
        tenorMonths: 6,
        monthlyRatePercent: 5,
        terms: disclosure,
        disbursementDate: '2026-11-01',
        payDayOfMonth: 25,
      }),
    );
    expect(facts).toMatchObject({ total_fees: 9675, schedule_basis: { kind: 'PAY_DATE', pay_day_of_month: 25 } });
    expect((outcome.effects[0] as { data: { key_facts: unknown } }).data.key_facts).toEqual(facts);

    const declined = reviewApplication(state, {
      request: approve({ outcome: 'DECLINED' }),
      confirmationAbove: null,
      now,
    });
    if (!declined.ok) throw new Error(declined.message);
    expect(declined.state.review!.keyFacts).toBeNull();
    expect((declined.effects[0] as { data: Record<string, unknown> }).data).not.toHaveProperty('key_facts');
  });
});
