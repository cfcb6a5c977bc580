import type { Clock } from '@loan/runtime';
import type { Decision } from '@loan/contracts';
import { waitFor } from '@testing/helpers';
import {
  call,
  createClient,
  decidedApplication,
  startApplications,
  startGateway,
  startJanitor,
  startNotifier,
  startReceiver,
  startSandbox,
  suiteNamespace,
  testBus,
  type Running,
} from '@testing/stack';
import { Examples } from './entry-points/http/openapi/examples';

/**
 * An offer under the lender's own terms, over real HTTP, the real broker, registry and database:
 * the applications service fixes its expiry and cooling-off from the terms its decision carries,
 * the janitor's deadline tells it when an unanswered offer expired, and the notifier delivers
 * `application.offer_expired` to the lender's webhook. Decisions come in as scoring would report
 * them (3 days to answer, 5 working days of cooling-off). Time is the applications' and the
 * janitor's clock, moved forward by the test: nothing waits for the wall clock.
 */
const ns = suiteNamespace();
let offsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
/** Moves the services' clock forward to `iso` (never back). */
const advanceTo = (iso: string) => {
  offsetMs = Math.max(offsetMs, Date.parse(iso) - Date.now());
};

const services: Running[] = [];
let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let gateway: Running;
let applications: Running;
let lender: Awaited<ReturnType<typeof createClient>>;
const bus = testBus(ns, 'offer-expiry-test');

beforeAll(async () => {
  receiver = await startReceiver();
  const notifier = await startNotifier(ns, { WEBHOOK_RETRY_BASE: '200ms' });
  services.push(notifier);
  gateway = await startGateway(ns, { RATE_LIMITS_ENABLED: 'false', NOTIFIER_URL: notifier.url });
  services.push(gateway);
  sandbox = await startSandbox(`${gateway.url}/provider/webhooks/mono`);
  applications = await startApplications(ns, { PROVIDER_BASE_URL: sandbox.url }, clock);
  services.push(applications);
  services.push(await startJanitor(ns, { JANITOR_POLL_INTERVAL: '100ms' }, clock));
  await bus.connect();
  lender = await createClient(gateway.url, { webhookUrl: `${receiver.url}/hooks` });
});

afterAll(async () => {
  await bus.disconnect();
  for (const s of services.reverse()) await s.stop();
  await sandbox?.stop();
  await receiver?.close();
});

const api = (method: string, path: string, body?: unknown) => call(gateway.url, lender.apiKey, method, path, body);

/** Monday 21 December 2026, 10:00 in Lagos: the week of Christmas and Boxing Day. */
const MADE_AT = '2026-12-21T09:00:00.000Z';

/** An application decided APPROVED at MADE_AT under a policy of 3 days' validity and 5 working days' cooling-off. */
const decided = () =>
  decidedApplication({ gatewayUrl: gateway.url, bus, applications }, lender, (applicantId) => ({
    decision: {
      ...(Examples.decision as unknown as Decision),
      decision: 'APPROVED',
      timestamp: MADE_AT,
      applicant_id: applicantId,
      offer_terms: { validity_days: 3, cooling_off_working_days: 5 },
    },
    repaymentCapacity: 100_000,
  }));

/** The application of the first case, accepted before its expiry. */
let acceptedId = '';

describe("offers under the lender's terms", () => {
  it('when the policy gives 3 days and 5 working days, then the offer expires 3 days after it was made and an acceptance on 23 December cools off to the end of the 31st, Christmas and Boxing Day counted out', async () => {
    const app = await decided();
    acceptedId = app.applicationId;
    const open = (await api('GET', `/api/applications/${app.applicationId}`)).body.offer;
    expect(open).toMatchObject({
      status: 'OPEN',
      madeAt: MADE_AT,
      expiresAt: '2026-12-24T09:00:00.000Z',
      validityDays: 3,
      coolingOffWorkingDays: 5,
      expiredAt: null,
    });

    advanceTo('2026-12-23T11:00:00.000Z');
    const accepted = await api('POST', `/api/applications/${app.applicationId}/offer`, { response: 'ACCEPTED' });
    expect(accepted.status).toBe(200);
    // Thu 24, then Mon 28 to Thu 31: Fri 25 and Sat 26 are holidays, Sun 27 a weekend.
    expect(accepted.body.offer).toMatchObject({ status: 'ACCEPTED', coolingOffEndsAt: '2026-12-31T22:59:59.999Z' });
    await waitFor(
      () => receiver.events('application.offer_accepted').some((e) => e.data.applicationId === app.applicationId),
      {
        what: 'application.offer_accepted by webhook',
      },
    );
    expect(
      receiver.events('application.offer_accepted').find((e) => e.data.applicationId === app.applicationId).data,
    ).toMatchObject({ coolingOffEndsAt: '2026-12-31T22:59:59.999Z' });
  });

  it('when an offer stands unanswered past its expiry, then the lender gets application.offer_expired once by webhook, the application shows it EXPIRED, and a late acceptance is a 400', async () => {
    const app = await decided();
    advanceTo('2026-12-24T08:59:00.000Z');
    expect((await api('GET', `/api/applications/${app.applicationId}`)).body.offer.status).toBe('OPEN');

    advanceTo('2026-12-24T09:00:01.000Z');
    const expired = await waitFor(
      () => receiver.events('application.offer_expired').find((e) => e.data.applicationId === app.applicationId),
      { what: 'application.offer_expired by webhook' },
    );
    expect(expired).toMatchObject({
      event: 'application.offer_expired',
      data: {
        applicationId: app.applicationId,
        applicantId: app.applicantId,
        madeAt: MADE_AT,
        expiresAt: '2026-12-24T09:00:00.000Z',
        expiredAt: expect.any(String),
      },
    });
    const offer = (await api('GET', `/api/applications/${app.applicationId}`)).body.offer;
    expect(offer).toMatchObject({ status: 'EXPIRED', expiredAt: expired.data.expiredAt, acceptedAt: null });

    const late = await api('POST', `/api/applications/${app.applicationId}/offer`, { response: 'ACCEPTED' });
    expect([late.status, late.body]).toEqual([
      400,
      { statusCode: 400, message: 'The offer expired at 2026-12-24T09:00:00.000Z', error: 'Bad Request' },
    ]);

    // The delivery log files it under the application, as the console's timeline shows it.
    const deliveries = await api('GET', `/api/webhooks/deliveries?applicationId=${app.applicationId}`);
    expect(deliveries.body.data.map((d: { event: string }) => d.event)).toContain('application.offer_expired');
    expect(
      receiver.events('application.offer_expired').filter((e) => e.data.applicationId === app.applicationId),
    ).toHaveLength(1);
    // The offer accepted in time passed the same expiry: its deadline was cancelled by the answer.
    expect((await api('GET', `/api/applications/${acceptedId}`)).body.offer.status).toBe('ACCEPTED');
    expect(receiver.events('application.offer_expired').filter((e) => e.data.applicationId === acceptedId)).toEqual([]);
  });
});
