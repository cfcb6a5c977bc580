import type { ApplicationView, DeliveryView } from './api';
import { deliverySummary, monthLabel, monthlyFlowsOf, timelineOf, when } from './model';

const account = (id: string, linkedAt: string, monthlyFlows?: { month: string; inflow: number; outflow: number }[]) => ({
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

const delivery = (createdAt: string, codes: (number | null)[], status: DeliveryView['status']): DeliveryView => ({
  id: `d-${createdAt}`,
  eventId: 'e',
  event: 'account.linked',
  applicationId: 'a',
  status,
  reason: null,
  attempts: codes.map((statusCode) => ({ at: createdAt, statusCode, error: null, durationMs: 5 })),
  nextAttemptAt: null,
  createdAt,
  updatedAt: createdAt,
  deliveredAt: null,
});

describe('the console model', () => {
  it('when an application has accounts and deliveries, then its timeline lists them oldest first with the response codes', () => {
    const app = application([account('x', '2026-11-24T10:01:00.000Z')]);
    const entries = timelineOf(app, [delivery('2026-11-24T10:03:00.000Z', [500, 200], 'DELIVERED'), delivery('2026-11-24T10:02:00.000Z', [], 'PENDING')]);
    expect(entries.map((e) => [e.at.slice(11, 16), e.title, e.detail])).toEqual([
      ['10:00', 'Application created', 'Status now COMPLETED'],
      ['10:01', 'Account linked: GTBank 0123456789', 'Enrichment READY'],
      ['10:02', 'Webhook account.linked', 'PENDING, no attempt yet'],
      ['10:03', 'Webhook account.linked', 'DELIVERED after 2 attempts (500, 200)'],
    ]);
  });

  it('when an attempt got no answer, then the summary says so', () => {
    expect(deliverySummary(delivery('2026-11-24T10:03:00.000Z', [null], 'FAILED'))).toBe('FAILED after 1 attempt (no answer)');
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

  it('when times and months are shown, then they read in UTC', () => {
    expect(when('2026-11-24T10:05:09.123Z')).toBe('2026-11-24 10:05 UTC');
    expect(monthLabel('2026-03')).toBe('Mar 2026');
  });
});
