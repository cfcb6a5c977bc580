import { randomUUID } from 'node:crypto';
import { endOfWorkingDaysAfter, isNigerianWorkingDay, type Decision } from '@loan/contracts';
import type { Application } from '../application';
import { respondToOffer, toOfferView } from './decide';

const decidedAt = new Date('2026-12-21T09:00:00.000Z');

function approved(overrides: Partial<Application> = {}): Application {
  const decision = {
    decision: 'APPROVED',
    timestamp: decidedAt.toISOString(),
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
