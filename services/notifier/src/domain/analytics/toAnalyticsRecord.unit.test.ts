import { randomUUID } from 'node:crypto';
import { AnalyticsRecord, buildEvent } from '@loan/contracts';
import { toAnalyticsRecord } from './toAnalyticsRecord';

const pseudonym = (kind: string, id: string) => `${kind}#${id.length}`;

describe('the analysts\u2019 record of a public event', () => {
  it('when an account is linked, then the record has pseudonyms and the bank, never the account number or the applicant', () => {
    const ids = { applicationId: randomUUID(), applicantId: randomUUID(), accountId: randomUUID() };
    const event = buildEvent({
      id: randomUUID(),
      event: 'account.linked',
      clientId: 'client-a',
      applicationId: ids.applicationId,
      data: { ...ids, institution: 'GTBank', accountNumber: '0123456785' },
      at: new Date('2026-11-24T10:00:00.000Z'),
    });
    const record = AnalyticsRecord.parse(toAnalyticsRecord(event, pseudonym));
    expect(record).toEqual({
      id: event.id,
      event: 'account.linked',
      at: '2026-11-24T10:00:00.000Z',
      lender: 'lender#8',
      application: 'application#36',
      account: 'account#36',
      institution: 'GTBank',
      accountCount: null,
      reason: null,
      decision: null,
    });
    const raw = JSON.stringify(record);
    for (const secret of ['0123456785', ids.applicationId, ids.applicantId, ids.accountId, 'client-a'])
      expect(raw).not.toContain(secret);
  });

  it('when a decision is made, then the record names the policy version that made it', () => {
    const ids = { applicationId: randomUUID(), applicantId: randomUUID() };
    const decision = {
      score: 81.5,
      decision: 'COUNTER_OFFER' as const,
      score_band: 'MEDIUM_RISK' as const,
      timestamp: '2026-11-24T10:00:00.000Z',
      applicant_id: ids.applicantId,
      approval_details: {
        approved_amount: 300_000,
        approved_tenor: 12,
        approved_interest: 5,
        monthly_payment: 33_847.62,
      },
      counter_offer: {
        amount: 300_000,
        tenor: 12,
        interest_rate: 5,
        monthly_payment: 33_847.62,
        reason: 'Longer tenor.',
      },
      risk_factors: [],
      score_breakdown: {
        total: 81.5,
        cash_flow_health: 15,
        income_stability: 15,
        debt_service_capacity: 20,
        account_behavior: 20,
        credit_history: 11.5,
      },
      explainability: { primary_reason: 'Counter-offer.', key_strengths: [], key_weaknesses: [] },
      eligible_tenors: [12],
      manual_review_reasons: [],
      regulatory_compliance: {
        thin_file: false,
        identity_verified: true,
        credit_bureau_checked: true,
        affordability_assessed: true,
      },
      scorecard_version: '2026.11-1',
      policy_version: 3,
    };
    const event = buildEvent({
      id: randomUUID(),
      event: 'application.decision',
      clientId: 'client-a',
      applicationId: ids.applicationId,
      data: {
        applicationId: ids.applicationId,
        applicantId: ids.applicantId,
        status: 'COMPLETED',
        score: 81.5,
        decision,
      },
      at: new Date('2026-11-24T10:00:00.000Z'),
    });
    const record = AnalyticsRecord.parse(toAnalyticsRecord(event, pseudonym));
    expect(record.decision).toMatchObject({ outcome: 'COUNTER_OFFER', policyVersion: 3 });
  });
});

describe('the analysts\u2019 record of a review', () => {
  it('when a review is completed, then the record has its outcome and terms, the reviewer as a pseudonym and no note', () => {
    const ids = { applicationId: randomUUID(), applicantId: randomUUID() };
    const event = buildEvent({
      id: randomUUID(),
      event: 'application.review_completed',
      clientId: 'client-a',
      applicationId: ids.applicationId,
      data: {
        ...ids,
        outcome: 'COUNTER_OFFER',
        approval_details: {
          approved_amount: 150_000,
          approved_tenor: 12,
          approved_interest: 5,
          monthly_payment: 16_923.62,
        },
        reviewer: 'officer-ada@lender.example',
        reasonCode: 'INCOME_VERIFIED',
        note: 'Payslips of Ada Obi checked by phone',
        reviewedAt: '2026-11-24T11:00:00.000Z',
      },
      at: new Date('2026-11-24T11:00:00.000Z'),
    });
    const record = AnalyticsRecord.parse(toAnalyticsRecord(event, pseudonym));
    expect(record.review).toEqual({
      outcome: 'COUNTER_OFFER',
      reviewer: `reviewer#${'client-a:officer-ada@lender.example'.length}`,
      reasonCode: 'INCOME_VERIFIED',
      approvedAmount: 150_000,
      approvedTenor: 12,
    });
    expect(record.decision).toBeNull();
    const raw = JSON.stringify(record);
    for (const secret of ['officer-ada', 'Ada Obi', ids.applicationId, ids.applicantId, 'client-a'])
      expect(raw).not.toContain(secret);
  });
});
