import type { ApplicationView, DeliveryView } from './api';
import { SCORE_BREAKDOWN_MAX } from '@loan/contracts';
import {
  BREAKDOWN_MAX,
  BREAKDOWN_PARTS,
  deliverySummary,
  monthLabel,
  monthlyFlowsOf,
  storyOf,
  termsOf,
  tracesUrl,
  when,
  whenUtc,
} from './model';

const account = (
  id: string,
  linkedAt: string,
  monthlyFlows?: { month: string; inflow: number; outflow: number }[],
) => ({
  accountId: id,
  providerAccountId: `p-${id}`,
  institution: 'GTBank',
  accountNumber: '0123456789',
  enrichmentStatus: 'READY' as const,
  linkedAt,
  monthlyFlows: monthlyFlows ?? [],
});

const application = (accounts: ApplicationView['accounts']): ApplicationView =>
  ({
    applicationId: 'a',
    applicantId: 'b',
    status: 'COMPLETED',
    applicant: { firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com' },
    loan: { amount: 300000, tenor: 6, interestRate: 5, purpose: null },
    linkingLocked: true,
    accounts,
    decision: null,
    failureReason: null,
    abandonReason: null,
    createdAt: '2026-11-24T10:00:00.000Z',
    updatedAt: '2026-11-24T10:05:00.000Z',
  }) as ApplicationView;

const delivery = (
  createdAt: string,
  codes: (number | null)[],
  status: DeliveryView['status'],
  manual: boolean[] = [],
): DeliveryView => ({
  id: `d-${createdAt}`,
  eventId: 'e',
  event: 'account.linked',
  applicationId: 'a',
  status,
  reason: null,
  attempts: codes.map((statusCode, n) => ({
    at: createdAt,
    statusCode,
    error: null,
    durationMs: 5,
    manual: manual[n] ?? false,
  })),
  nextAttemptAt: null,
  createdAt,
  updatedAt: createdAt,
  deliveredAt: null,
});

describe('the console model', () => {
  it('when an application was decided, then its story runs in order and each delivery is folded under the step it announced', () => {
    const app = {
      ...application([
        { ...account('x', '2026-11-24T10:01:00.000Z'), enrichedAt: '2026-11-24T10:01:30.000Z' },
        {
          ...account('y', '2026-11-24T10:02:00.000Z'),
          accountNumber: '9876543210',
          enrichedAt: '2026-11-24T10:02:40.000Z',
        },
      ]),
      linkingFinalizedAt: '2026-11-24T10:03:00.000Z',
      analysisRequestedAt: '2026-11-24T10:04:00.000Z',
      decision: {
        decision: 'DECLINED',
        score: 41.2,
        timestamp: '2026-11-24T10:04:02.000Z',
      } as ApplicationView['decision'],
    };
    const sent = (event: string, createdAt: string) =>
      ({ ...delivery(createdAt, [200], 'DELIVERED'), id: `${event}@${createdAt}`, event }) as DeliveryView;
    const deliveries = [
      sent('application.decision', '2026-11-24T10:04:03.000Z'),
      sent('account.linked', '2026-11-24T10:02:01.000Z'),
      sent('account.linked', '2026-11-24T10:01:01.000Z'),
      sent('account.enrichment_ready', '2026-11-24T10:02:41.000Z'),
      sent('account.enrichment_ready', '2026-11-24T10:01:31.000Z'),
      sent('application.ready_for_analysis', '2026-11-24T10:03:01.000Z'),
    ];
    expect(
      storyOf(app, deliveries).map((s) => [s.at.slice(11, 19), s.title, s.detail, s.deliveries.map((d) => d.id)]),
    ).toEqual([
      ['10:00:00', 'Application created', undefined, []],
      ['10:01:00', 'Bank account linked: GTBank 0123456789', undefined, ['account.linked@2026-11-24T10:01:01.000Z']],
      [
        '10:01:30',
        'Statement read: GTBank 0123456789',
        undefined,
        ['account.enrichment_ready@2026-11-24T10:01:31.000Z'],
      ],
      ['10:02:00', 'Bank account linked: GTBank 9876543210', undefined, ['account.linked@2026-11-24T10:02:01.000Z']],
      [
        '10:02:40',
        'Statement read: GTBank 9876543210',
        undefined,
        ['account.enrichment_ready@2026-11-24T10:02:41.000Z'],
      ],
      ['10:03:00', 'Linking finished', 'no more accounts can be linked', []],
      ['10:03:01', 'Ready for analysis', undefined, ['application.ready_for_analysis@2026-11-24T10:03:01.000Z']],
      ['10:04:00', 'Analysis asked for', undefined, []],
      ['10:04:02', 'Decided: Declined', 'score 41.2 of 100', ['application.decision@2026-11-24T10:04:03.000Z']],
    ]);
  });

  it('when an offer stood unanswered and expired, then the story shows it made and expired, the expiry webhook under its step', () => {
    const app = {
      ...application([]),
      decision: {
        decision: 'APPROVED',
        score: 88,
        timestamp: '2026-11-24T10:04:02.000Z',
      } as ApplicationView['decision'],
      offer: {
        status: 'EXPIRED',
        madeAt: '2026-11-24T10:04:02.000Z',
        expiresAt: '2026-11-27T10:04:02.000Z',
        acceptedAt: null,
        declinedAt: null,
        coolingOffEndsAt: null,
        withdrawnAt: null,
        expiredAt: '2026-11-27T10:04:03.000Z',
        validityDays: 3,
        coolingOffWorkingDays: 5,
      } as ApplicationView['offer'],
    };
    const expiry = {
      ...delivery('2026-11-27T10:04:04.000Z', [200], 'DELIVERED'),
      id: 'expired',
      event: 'application.offer_expired',
    } as DeliveryView;
    expect(storyOf(app, [expiry]).map((s) => [s.title, s.detail, s.deliveries.map((d) => d.id)])).toEqual([
      ['Application created', undefined, []],
      ['Decided: Approved', 'score 88 of 100', []],
      ['Offer made', '3 days to answer', []],
      ['Offer expired', 'unanswered', ['expired']],
    ]);
  });

  it('when a step comes later on a skewed clock, then the story keeps its order; an event no step tells has a step of its own', () => {
    const app = {
      ...application([]),
      linkingFinalizedAt: null,
      analysisRequestedAt: null,
      abandonReason: 'no_link' as const,
      updatedAt: '2026-11-25T10:00:00.000Z',
    };
    // Created after it was abandoned, by a clock behind: still the first step.
    const story = storyOf({ ...app, createdAt: '2026-11-25T10:00:01.000Z' }, [
      { ...delivery('2026-11-25T10:00:02.000Z', [], 'PENDING'), event: 'application.abandoned' },
      {
        ...delivery('2026-11-25T10:00:03.000Z', [], 'PENDING'),
        id: 'odd',
        event: 'application.something_new' as DeliveryView['event'],
      },
    ]);
    expect(story.map((s) => [s.title, s.detail, s.deliveries.length])).toEqual([
      ['Application created', undefined, 0],
      ['Application abandoned', 'the applicant linked no bank account in time', 1],
      ['Webhook: Application something new', undefined, 1],
    ]);
  });

  it('when an attempt got no answer, then the summary says so', () => {
    expect(deliverySummary(delivery('2026-11-24T10:03:00.000Z', [null], 'FAILED'))).toBe(
      'Failed after 1 attempt (no answer)',
    );
  });

  it('when a delivered event was redelivered and the redelivery failed, then the summary says delivered and shows the redelivery apart', () => {
    const d = delivery('2026-11-24T10:03:00.000Z', [200, 500], 'DELIVERED', [false, true]);
    expect(deliverySummary(d)).toBe('Delivered after 1 attempt (200); redelivered once (500)');
    const skipped = delivery('2026-11-24T10:03:00.000Z', [200, 200], 'DELIVERED', [true, true]);
    expect(deliverySummary(skipped)).toBe('Delivered, redelivered 2 times (200, 200)');
  });

  it('when accounts report monthly flows, then the months are summed over the accounts; when none does, there are none', () => {
    const app = application([
      account('x', '2026-11-24T10:01:00.000Z', [
        { month: '2026-02', inflow: 100, outflow: 40 },
        { month: '2026-01', inflow: 50, outflow: 10 },
      ]),
      account('y', '2026-11-24T10:01:00.000Z', [{ month: '2026-02', inflow: 1, outflow: 2 }]),
    ]);
    expect(monthlyFlowsOf(app)).toEqual([
      { month: '2026-01', inflow: 50, outflow: 10 },
      { month: '2026-02', inflow: 101, outflow: 42 },
    ]);
    expect(monthlyFlowsOf(application([account('x', '2026-11-24T10:01:00.000Z')]))).toBeNull();
  });

  it('when times and months are shown, then times read in Lagos to the second (UTC on hover) and months in words', () => {
    expect(when('2026-11-24T10:05:09.123Z')).toBe('2026-11-24 11:05:09 WAT');
    expect(when('2026-12-31T23:30:00.000Z')).toBe('2027-01-01 00:30:00 WAT');
    expect(whenUtc('2026-11-24T10:05:09.123Z')).toBe('2026-11-24 10:05:09 UTC');
    expect(monthLabel('2026-03')).toBe('Mar 2026');
  });

  it('when an account reports a partial month, then the month summed over the accounts is partial', () => {
    const app = application([
      account('x', '2026-11-24T10:01:00.000Z', [
        { month: '2026-10', inflow: 100, outflow: 40, partial: false },
        { month: '2026-11', inflow: 50, outflow: 10, partial: true },
      ]),
      account('y', '2026-11-24T10:01:00.000Z', [{ month: '2026-11', inflow: 1, outflow: 2, partial: false }]),
    ]);
    expect(monthlyFlowsOf(app)!.map((f) => [f.month, f.partial === true])).toEqual([
      ['2026-10', false],
      ['2026-11', true],
    ]);
  });
});

describe('the score breakdown', () => {
  it("when the parts are shown against their maxima, then the maxima are the scorecard's and add up to the total of 100", () => {
    expect(Object.fromEntries(BREAKDOWN_PARTS.map(([key]) => [key, BREAKDOWN_MAX[key]]))).toEqual(SCORE_BREAKDOWN_MAX);
    expect(BREAKDOWN_PARTS.reduce((sum, [key]) => sum + BREAKDOWN_MAX[key], 0)).toBe(BREAKDOWN_MAX.total);
    expect(BREAKDOWN_MAX.total).toBe(100);
  });
});

describe('the terms a decision shows', () => {
  type Decision = NonNullable<ApplicationView['decision']>;
  const asked = { approved_amount: 500_000, approved_tenor: 6, approved_interest: 5, monthly_payment: 98_508.73 };
  const counter = {
    amount: 250_000,
    tenor: 6,
    interest_rate: 5,
    monthly_payment: 49_254.37,
    reason: 'The ask takes 50% of income; ₦250,000 is affordable',
  };
  const zeros = { approved_amount: 0, approved_tenor: 0, approved_interest: 0, monthly_payment: 0 };
  const decision = (d: Partial<Decision>) =>
    ({
      decision: 'APPROVED',
      approval_details: asked,
      counter_offer: null,
      eligible_tenors: [6, 9, 12],
      ...d,
    }) as Decision;
  const counterTerms = {
    approved_amount: 250_000,
    approved_tenor: 6,
    approved_interest: 5,
    monthly_payment: 49_254.37,
  };

  it('when the ask is approved, then its terms are shown once as the approved terms, with the affordable tenors', () => {
    expect(termsOf(decision({}))).toEqual({
      heading: 'Approved terms',
      terms: asked,
      reason: null,
      tenors: [6, 9, 12],
    });
  });

  it('when a counter-offer is made, then its terms are shown once, as offered instead, with why', () => {
    expect(
      termsOf(decision({ decision: 'COUNTER_OFFER', approval_details: counterTerms, counter_offer: counter })),
    ).toEqual({
      heading: 'Offered instead',
      terms: counterTerms,
      reason: counter.reason,
      tenors: [6, 9, 12],
    });
  });

  it('when an application is referred, then what an analyst could grant is shown once; nothing when scoring found nothing affordable', () => {
    expect(
      termsOf(decision({ decision: 'MANUAL_REVIEW', approval_details: counterTerms, counter_offer: counter })),
    ).toEqual({
      heading: 'An analyst could grant',
      terms: counterTerms,
      reason: counter.reason,
      tenors: [6, 9, 12],
    });
    expect(
      termsOf(decision({ decision: 'MANUAL_REVIEW', approval_details: asked, eligible_tenors: [] })),
    ).toMatchObject({ heading: 'An analyst could grant', reason: null, tenors: [] });
    expect(termsOf(decision({ decision: 'MANUAL_REVIEW', approval_details: zeros, eligible_tenors: [] }))).toBeNull();
  });

  it('when an application is declined, then no terms are shown', () => {
    expect(termsOf(decision({ decision: 'DECLINED', approval_details: zeros, eligible_tenors: [] }))).toBeNull();
  });
});

describe('the link to an application’s traces', () => {
  it('when a trace UI is configured, then the link searches the gateway’s spans for the application id around its lifetime', () => {
    const url = new URL(
      tracesUrl('http://localhost:16686/', {
        applicationId: '6f1d0c2e-1111-4222-8333-444455556666',
        createdAt: '2026-03-01T09:00:00.000Z',
        updatedAt: '2026-03-01T09:05:00.000Z',
      }),
    );
    expect(url.origin + url.pathname).toBe('http://localhost:16686/search');
    expect(url.searchParams.get('service')).toBe('gateway');
    expect(JSON.parse(url.searchParams.get('tags')!)).toEqual({
      'loan.application_id': '6f1d0c2e-1111-4222-8333-444455556666',
    });
    expect(url.searchParams.get('lookback')).toBe('custom');
    expect(Number(url.searchParams.get('start'))).toBe(Date.parse('2026-03-01T08:00:00.000Z') * 1000);
    expect(Number(url.searchParams.get('end'))).toBe(Date.parse('2026-03-01T10:05:00.000Z') * 1000);
  });
});
