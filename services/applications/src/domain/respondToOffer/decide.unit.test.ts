import { randomUUID } from 'node:crypto';
import { endOfWorkingDaysAfter, isNigerianWorkingDay, type Decision } from '@loan/contracts';
import type { Application } from '../application';
import { expireOffer, offerMadeBy, respondToOffer, toOfferView } from './decide';

const decidedAt = new Date('2026-12-21T09:00:00.000Z');

function approved(overrides: Partial<Application> = {}, decidedOn = decidedAt): Application {
  const decision = {
    decision: 'APPROVED',
    timestamp: decidedOn.toISOString(),
    approval_details: { approved_amount: 300_000, approved_tenor: 6, approved_interest: 5, monthly_payment: 59_105.26 },
    key_facts: null,
  } as unknown as Decision;
  return {
    applicationId: randomUUID(),
    clientId: 'client-a',
    applicantId: randomUUID(),
    idempotencyKey: 'k',
    status: 'COMPLETED',
    applicant: { firstName: 'A', lastName: 'B', email: 'a@example.com', phone: null, bvnSealed: null },
    loan: { amount: 300_000, tenor: 6, interestRate: 5, purpose: null },
    providerKeySealed: 'sealed',
    widgetUrl: 'http://sandbox/widget',
    linkWindowStart: decidedAt,
    linkingLocked: true,
    readyAnnounced: true,
    firstLinkedAt: decidedAt,
    accounts: [],
    analysis: { analysisId: 'a-1', requestedAt: decidedAt },
    decision,
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

const at = (iso: string) => new Date(iso);

describe('working days in Lagos', () => {
  it('when a cooling-off starts on Christmas Eve, then Christmas, Boxing Day and the weekend do not count: it ends on the 30th, midnight in Lagos', () => {
    // Thu 24 Dec 2026; Fri 25 and Sat 26 are holidays, Sun 27 a weekend; Mon 28, Tue 29, Wed 30 count.
    expect(endOfWorkingDaysAfter(at('2026-12-24T10:00:00Z'), 3).toISOString()).toBe('2026-12-30T22:59:59.999Z');
    // 23:30 UTC on Wednesday is already Thursday in Lagos: the count starts from Thursday.
    expect(endOfWorkingDaysAfter(at('2026-12-23T23:30:00Z'), 3).toISOString()).toBe('2026-12-30T22:59:59.999Z');
    expect(['2026-06-12', '2026-10-01', '2026-12-26', '2026-12-27'].map(isNigerianWorkingDay)).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(isNigerianWorkingDay('2026-12-28')).toBe(true);
  });
});

describe('answering an offer', () => {
  it('when the applicant accepts, then the offer is ACCEPTED with its cooling-off end, the event carries the terms, and the same answer again changes nothing', () => {
    const state = approved();
    const now = at('2026-12-24T10:00:00Z');
    const outcome = respondToOffer(state, { response: 'ACCEPTED', now });
    if (!outcome.ok) throw new Error(outcome.message);
    expect(toOfferView(outcome.state, now)).toMatchObject({
      status: 'ACCEPTED',
      acceptedAt: now.toISOString(),
      coolingOffEndsAt: '2026-12-30T22:59:59.999Z',
      expiresAt: '2026-12-28T09:00:00.000Z',
    });
    expect(outcome.effects).toEqual([
      {
        kind: 'event',
        event: 'application.offer_accepted',
        data: expect.objectContaining({
          approval_details: state.decision!.approval_details,
          acceptedAt: now.toISOString(),
          coolingOffEndsAt: '2026-12-30T22:59:59.999Z',
        }),
      },
      // For scoring, which takes a disbursement only on an accepted offer.
      {
        kind: 'fact',
        fact: {
          type: 'OfferAnswered',
          applicantId: state.applicantId,
          response: 'ACCEPTED',
          answeredAt: now.toISOString(),
        },
      },
    ]);
    const again = respondToOffer(outcome.state, { response: 'ACCEPTED', now: at('2026-12-24T11:00:00Z') });
    expect(again).toMatchObject({ ok: true, effects: [] });
    const decline = respondToOffer(outcome.state, { response: 'DECLINED', now });
    expect(decline).toMatchObject({
      ok: false,
      code: 'INVALID_STATE',
      message: expect.stringMatching(/already accepted/),
    });
  });

  it('when the applicant withdraws within the cooling-off period, then WITHDRAWN is sent once, a second withdrawal answers as the first, and after the period it is refused', () => {
    const accepted = respondToOffer(approved(), { response: 'ACCEPTED', now: at('2026-12-24T10:00:00Z') });
    if (!accepted.ok) throw new Error(accepted.message);
    const late = respondToOffer(accepted.state, { response: 'WITHDRAWN', now: at('2026-12-30T23:00:00Z') });
    expect(late).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^The cooling-off period ended at 2026-12-30T22:59:59.999Z/),
    });
    const withdrawn = respondToOffer(accepted.state, { response: 'WITHDRAWN', now: at('2026-12-30T22:00:00Z') });
    if (!withdrawn.ok) throw new Error(withdrawn.message);
    expect(withdrawn.effects.map((e) => (e as { event: string }).event)).toEqual(['application.offer_withdrawn']);
    expect(toOfferView(withdrawn.state, at('2026-12-31T00:00:00Z'))?.status).toBe('WITHDRAWN');
    const twice = respondToOffer(withdrawn.state, { response: 'WITHDRAWN', now: at('2026-12-31T00:00:00Z') });
    expect(twice).toMatchObject({ ok: true, effects: [] });
    const reaccept = respondToOffer(withdrawn.state, { response: 'ACCEPTED', now: at('2026-12-31T00:00:00Z') });
    expect(reaccept).toMatchObject({ ok: false, message: expect.stringMatching(/accepted and withdrawn/) });
  });

  it('when the offer has expired, is declined, or there is none, then acceptance is refused saying why', () => {
    const state = approved();
    expect(toOfferView(state, at('2026-12-28T09:00:01Z'))?.status).toBe('EXPIRED');
    expect(respondToOffer(state, { response: 'ACCEPTED', now: at('2026-12-28T09:00:01Z') })).toMatchObject({
      ok: false,
      message: 'The offer expired at 2026-12-28T09:00:00.000Z',
    });
    expect(respondToOffer(state, { response: 'WITHDRAWN', now: at('2026-12-22T09:00:00Z') })).toMatchObject({
      ok: false,
      message: 'Only an accepted offer can be withdrawn',
    });
    const declined = approved({ decision: { ...approved().decision!, decision: 'DECLINED' } });
    expect(toOfferView(declined, decidedAt)).toBeNull();
    expect(respondToOffer(declined, { response: 'ACCEPTED', now: decidedAt })).toMatchObject({
      ok: false,
      message: 'This application has no offer to answer (its decision grants no terms)',
    });
    const referred = approved({ decision: { ...approved().decision!, decision: 'MANUAL_REVIEW' } });
    expect(respondToOffer(referred, { response: 'ACCEPTED', now: decidedAt })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/awaits the lender.s review/),
    });
  });
});

/** An approved application whose decision's policy version set its own offer terms. */
const underTerms = (validity_days: number, cooling_off_working_days: number, decidedOn = decidedAt) => {
  const state = approved({}, decidedOn);
  return { ...state, decision: { ...state.decision!, offer_terms: { validity_days, cooling_off_working_days } } };
};

const offerDeadline = (state: Application, since: string) => ({
  deadlineId: `offer_expiry:${state.applicationId}:${since}`,
  kind: 'offer_expiry' as const,
  clientId: state.clientId,
  applicationId: state.applicationId,
  accountId: null,
  attempt: null,
  since,
  dueAt: since,
  firedAt: since,
});

describe("the lender's offer terms", () => {
  it('when the decision carries 3 days of validity and 5 working days of cooling-off, then the offer expires 3 days after it was made and an acceptance cools off over 5 working days, Christmas and Boxing Day counted out', () => {
    // Made Mon 21 Dec 2026 10:00 Lagos; accepted Wed 23 Dec: Thu 24, Mon 28, Tue 29, Wed 30, Thu 31 count.
    const state = underTerms(3, 5);
    expect(toOfferView(state, decidedAt)).toMatchObject({
      status: 'OPEN',
      expiresAt: '2026-12-24T09:00:00.000Z',
      validityDays: 3,
      coolingOffWorkingDays: 5,
    });
    const now = at('2026-12-23T12:00:00Z');
    const accepted = respondToOffer(state, { response: 'ACCEPTED', now });
    if (!accepted.ok) throw new Error(accepted.message);
    expect(toOfferView(accepted.state, now)?.coolingOffEndsAt).toBe('2026-12-31T22:59:59.999Z');
    expect(accepted.effects[0]).toMatchObject({ data: { coolingOffEndsAt: '2026-12-31T22:59:59.999Z' } });
  });

  it('when days of validity would end before the second working day after the offer, then it stands to the end of that working day', () => {
    // Made Thu 24 Dec 2026: two days end on Saturday; the working days after it are Mon 28 and Tue 29.
    const state = underTerms(2, 3, at('2026-12-24T09:00:00.000Z'));
    expect(toOfferView(state, decidedAt)?.expiresAt).toBe('2026-12-29T22:59:59.999Z');
  });

  it('when a decision was made before lenders set offer terms, then the offer keeps 7 days and 3 working days', () => {
    expect(toOfferView(approved(), decidedAt)).toMatchObject({
      expiresAt: '2026-12-28T09:00:00.000Z',
      validityDays: 7,
      coolingOffWorkingDays: 3,
    });
  });
});

describe('an offer expiring', () => {
  it('when the deadline of the standing offer passes unanswered, then it is recorded EXPIRED once with application.offer_expired, and acceptance stays refused', () => {
    const state = underTerms(3, 5);
    const now = at('2026-12-24T09:00:00.500Z');
    const expired = expireOffer(state, offerDeadline(state, decidedAt.toISOString()), now);
    expect(expired?.effects).toEqual([
      {
        kind: 'event',
        event: 'application.offer_expired',
        data: {
          applicationId: state.applicationId,
          applicantId: state.applicantId,
          madeAt: decidedAt.toISOString(),
          expiresAt: '2026-12-24T09:00:00.000Z',
          expiredAt: now.toISOString(),
        },
      },
    ]);
    expect(toOfferView(expired!.state, now)).toMatchObject({ status: 'EXPIRED', expiredAt: now.toISOString() });
    // A redelivered deadline finds it recorded.
    expect(expireOffer(expired!.state, offerDeadline(state, decidedAt.toISOString()), now)).toBeNull();
    expect(respondToOffer(expired!.state, { response: 'ACCEPTED', now })).toMatchObject({
      ok: false,
      code: 'INVALID_STATE',
      message: 'The offer expired at 2026-12-24T09:00:00.000Z',
    });
  });

  it('when the offer was answered, or the deadline was armed for another offer, then the deadline changes nothing', () => {
    const state = underTerms(3, 5);
    const accepted = respondToOffer(state, { response: 'ACCEPTED', now: at('2026-12-22T09:00:00Z') });
    if (!accepted.ok) throw new Error(accepted.message);
    const since = decidedAt.toISOString();
    expect(expireOffer(accepted.state, offerDeadline(state, since), at('2026-12-24T10:00:00Z'))).toBeNull();
    expect(expireOffer(state, offerDeadline(state, '2026-12-20T09:00:00.000Z'), at('2026-12-24T10:00:00Z'))).toBeNull();
    const declined = approved({ decision: { ...approved().decision!, decision: 'DECLINED' } });
    expect(expireOffer(declined, offerDeadline(declined, since), at('2026-12-29T10:00:00Z'))).toBeNull();
  });

  it('when a change makes an offer, then the janitor is told when it expires; a change that keeps the same offer tells nothing', () => {
    const state = underTerms(3, 5);
    const before = { ...state, status: 'PROCESSING' as const, decision: null };
    expect(offerMadeBy(before, state)).toEqual([
      {
        kind: 'fact',
        fact: {
          type: 'OfferMade',
          applicantId: state.applicantId,
          madeAt: decidedAt.toISOString(),
          expiresAt: '2026-12-24T09:00:00.000Z',
        },
      },
    ]);
    expect(offerMadeBy(state, { ...state, updatedAt: at('2026-12-22T00:00:00Z') })).toEqual([]);
    // A final review granting terms makes the offer: it stands from the review, under the decision's terms.
    const referred = { ...state, decision: { ...state.decision!, decision: 'MANUAL_REVIEW' as const } };
    const reviewedAt = at('2026-12-22T15:00:00.000Z');
    const reviewed: Application = {
      ...referred,
      review: {
        outcome: 'APPROVED',
        status: 'FINAL',
        terms: state.decision!.approval_details,
        reasonCode: 'VERIFIED_INCOME',
        note: null,
        override: false,
        reviewer: 'analyst-1',
        keyFacts: null,
        confirmedBy: null,
        confirmationRequired: false,
        madeAt: reviewedAt,
        reviewedAt,
      },
    };
    expect(offerMadeBy(referred, reviewed)).toEqual([
      {
        kind: 'fact',
        fact: expect.objectContaining({
          type: 'OfferMade',
          madeAt: reviewedAt.toISOString(),
          expiresAt: '2026-12-25T15:00:00.000Z',
        }),
      },
    ]);
    const declined = approved({ decision: { ...approved().decision!, decision: 'DECLINED' } });
    expect(offerMadeBy(before, declined)).toEqual([]);
  });
});
