import { randomUUID } from 'node:crypto';
import { Topics, type Decision, type PublicEventRecord } from '@loan/contracts';
import { waitFor } from '@testing/helpers';
import { call, decidedApplication, startLenderApi, suiteNamespace } from '@testing/stack';
import { Examples } from './entry-points/http/openapi/examples';

/**
 * Offers over real HTTP: `POST /api/applications/:id/offer` takes the applicant's answer, the
 * application's detail shows the offer, and each answer is an event on `loan.events.v1`, against
 * the real broker, registry and database; decisions come in as scoring would report them.
 */
const ns = suiteNamespace();
let stack: Awaited<ReturnType<typeof startLenderApi>>;
const events: PublicEventRecord[] = [];

beforeAll(async () => {
  stack = await startLenderApi(ns, 'offer-api-test');
  await stack.bus.consume({
    groupId: `offer-events-${randomUUID()}`,
    topics: [Topics.events],
    handle: async (m) => void events.push(m.value as PublicEventRecord),
  });
});

afterAll(async () => {
  await stack?.stop();
});

const api = (method: string, path: string, body?: unknown, key = stack.lender.apiKey) =>
  call(stack.gateway.url, key, method, path, body);
const answer = (id: string, body: unknown, key?: string) => api('POST', `/api/applications/${id}/offer`, body, key);

/** An application decided `outcome` at `decidedAt` (now by default). */
const decided = (outcome: Decision['decision'], decidedAt = new Date()) =>
  decidedApplication(
    { gatewayUrl: stack.gateway.url, bus: stack.bus, applications: stack.applications },
    stack.lender,
    (applicantId) => ({
      decision: {
        ...(Examples.decision as unknown as Decision),
        decision: outcome,
        timestamp: decidedAt.toISOString(),
        applicant_id: applicantId,
      },
      repaymentCapacity: 100_000,
    }),
  );

const eventsOf = (applicationId: string, name: string) =>
  events.filter((e) => e.event === name && e.applicationId === applicationId);

describe('offers', () => {
  it('when the applicant accepts an approved offer and then withdraws within the cooling-off period, then the detail shows each step and each is one event', async () => {
    const app = await decided('APPROVED');
    const before = (await api('GET', `/api/applications/${app.applicationId}`)).body.offer;
    expect(before).toMatchObject({
      status: 'OPEN',
      terms: Examples.decision.approval_details,
      acceptedAt: null,
      coolingOffEndsAt: null,
    });
    expect(Date.parse(before.expiresAt) - Date.parse(before.madeAt)).toBe(7 * 86_400_000);

    const accepted = await answer(app.applicationId, { response: 'ACCEPTED' });
    expect(accepted.status).toBe(200);
    expect(accepted.body.offer).toMatchObject({ status: 'ACCEPTED', acceptedAt: expect.any(String) });
    expect(Date.parse(accepted.body.offer.coolingOffEndsAt)).toBeGreaterThan(
      Date.parse(accepted.body.offer.acceptedAt),
    );
    expect((await answer(app.applicationId, { response: 'ACCEPTED' })).body).toEqual(accepted.body);
    const decline = await answer(app.applicationId, { response: 'DECLINED' });
    expect([decline.status, decline.body.message]).toEqual([
      400,
      expect.stringMatching(/^The offer was already accepted on /),
    ]);

    const withdrawn = await answer(app.applicationId, { response: 'WITHDRAWN' });
    expect(withdrawn.body.offer).toMatchObject({ status: 'WITHDRAWN', withdrawnAt: expect.any(String) });
    expect((await answer(app.applicationId, { response: 'WITHDRAWN' })).body).toEqual(withdrawn.body);

    await waitFor(() => eventsOf(app.applicationId, 'application.offer_withdrawn').length === 1, {
      what: 'application.offer_withdrawn',
    });
    expect(eventsOf(app.applicationId, 'application.offer_accepted')).toHaveLength(1);
    expect(eventsOf(app.applicationId, 'application.offer_accepted')[0]!.data).toMatchObject({
      approval_details: Examples.decision.approval_details,
      acceptedAt: accepted.body.offer.acceptedAt,
      coolingOffEndsAt: accepted.body.offer.coolingOffEndsAt,
    });
    const order = events.filter((e) => e.applicationId === app.applicationId).map((e) => e.event);
    expect(order.indexOf('application.decision')).toBeLessThan(order.indexOf('application.offer_accepted'));
  });

  it('when an offer is declined, expired, or there is none, or the answer is invalid, then 4xx says why and nothing is recorded', async () => {
    const declinedOffer = await decided('COUNTER_OFFER');
    expect((await answer(declinedOffer.applicationId, { response: 'DECLINED' })).body.offer.status).toBe('DECLINED');
    await waitFor(() => eventsOf(declinedOffer.applicationId, 'application.offer_declined').length === 1, {
      what: 'application.offer_declined',
    });
    // A declined offer is still a standing COUNTER_OFFER decision: it may be contested.
    expect(
      (await api('GET', `/api/applications/${declinedOffer.applicationId}`)).body.contestAvailability.available,
    ).toBe(true);

    const old = await decided('APPROVED', new Date(Date.now() - 8 * 86_400_000));
    expect((await api('GET', `/api/applications/${old.applicationId}`)).body.offer.status).toBe('EXPIRED');
    const late = await answer(old.applicationId, { response: 'ACCEPTED' });
    expect([late.status, late.body.message]).toEqual([400, expect.stringMatching(/^The offer expired at /)]);

    const refused = await decided('DECLINED');
    expect((await api('GET', `/api/applications/${refused.applicationId}`)).body.offer).toBeNull();
    const none = await answer(refused.applicationId, { response: 'ACCEPTED' });
    expect([none.status, none.body.message]).toEqual([
      400,
      'This application has no offer to answer (its decision grants no terms)',
    ]);

    const open = await decided('APPROVED');
    for (const [body, message] of [
      [{}, /^response must be one of: ACCEPTED, DECLINED, WITHDRAWN$/],
      [{ response: 'accepted' }, /^response must be one of: ACCEPTED, DECLINED, WITHDRAWN$/],
      [{ response: 'ACCEPTED', by: 'x' }, /^Unknown field by; only response is allowed$/],
      [{ response: 'WITHDRAWN' }, /^Only an accepted offer can be withdrawn$/],
    ] as const) {
      const res = await answer(open.applicationId, body);
      expect([res.status, res.body.message]).toEqual([400, expect.stringMatching(message)]);
    }
    const elsewhere = await answer(open.applicationId, { response: 'ACCEPTED' }, stack.other.apiKey);
    expect([elsewhere.status, elsewhere.body.message]).toEqual([404, 'Application not found']);
    expect((await api('GET', `/api/applications/${open.applicationId}`)).body.offer.status).toBe('OPEN');
    expect(eventsOf(open.applicationId, 'application.offer_accepted')).toHaveLength(0);
  });
});
