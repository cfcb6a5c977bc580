import { createHmac, timingSafeEqual } from 'node:crypto';
import { pause, waitFor } from '../testing/helpers';
import { applicant, call, startReceiver } from '../testing/stack';

/**
 * A lender of the deployed platform, as the container tier drives it: created through the admin
 * API, with its webhook receiver in this process, reached by the notifier's container at
 * `receiverHost` (the Docker network's gateway address).
 */
export async function newLender(
  gatewayUrl: string,
  adminToken: string | undefined,
  receiverHost: string,
  name: string,
) {
  const receiver = await startReceiver(undefined, '0.0.0.0');
  const created = await fetch(`${gatewayUrl}/admin/clients`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-admin-token': adminToken ?? '' },
    body: JSON.stringify({
      name,
      providerSecretKey: 'test_sk_sandbox',
      webhookUrl: `http://${receiverHost}:${new URL(receiver.url).port}/hooks`,
    }),
  });
  if (created.status !== 201) {
    await receiver.close();
    throw new Error(`POST /admin/clients answered ${created.status}: ${await created.text()}`);
  }
  const lender = (await created.json()) as { apiKey: string; webhookSecret: string };
  const signed = (r: (typeof receiver.received)[number]) => {
    const expected = createHmac('sha256', lender.webhookSecret).update(r.raw).digest();
    const given = Buffer.from(String(r.headers['x-signature']), 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  const api = (method: string, p: string, body?: unknown) => call(gatewayUrl, lender.apiKey, method, p, body);
  return { ...lender, receiver, signed, api };
}

export type Lender = Awaited<ReturnType<typeof newLender>>;

type Answer = Awaited<ReturnType<Lender['api']>>;
type Retried = Answer & { retried: boolean };

/**
 * A call made as the error guide tells a lender to make it: a 500 (the platform took too long,
 * as a stack still warming up on a busy machine can) is sent again, up to three times. Retrying
 * is safe: an initiate with the same idempotencyKey never opens a second application, and a
 * step already taken answers what the spec says of a repeat. Returns the last answer and
 * whether an earlier one was a 500 (the step may have been taken by it).
 */
async function retried(call: () => Promise<Answer>, what: string): Promise<Retried> {
  for (let attempt = 1; ; attempt += 1) {
    const answer = await call();
    if (answer.status !== 500 || attempt === 3) return { ...answer, retried: attempt > 1 };
    console.warn(`[lender] ${what} answered 500 (${JSON.stringify(answer.body)}); sending it again`);
    await pause(2_000 * attempt);
  }
}

/** Fails with the step's answer in the message, so that a failure says what the platform said. */
function expectStatus(answer: Retried, what: string, accepted: (a: Retried) => boolean) {
  if (!accepted(answer)) throw new Error(`${what} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
}

/**
 * The README's flow for one application: initiate, the applicant links an account in the
 * sandbox's widget (persona `salaried`), finalize-linking, analyze; each step waits for the
 * webhook that says it is done. Returns the application's id and its decision webhook.
 */
export async function toDecision(lender: Lender, sandboxUrl: string) {
  const { receiver, api } = lender;
  const events = (applicationId: string, name: string) =>
    receiver.received.filter((r) => r.body.event === name && r.body.data?.applicationId === applicationId);

  const body = applicant({ bvn: '22200000001' });
  const start = await retried(() => api('POST', '/api/applications/initiate', body), 'initiate');
  // 201 opens it; after a 500 the same key may find it opened already (200, resumed).
  expectStatus(start, 'initiate', (a) => a.status === 201 || (a.retried && a.status === 200));
  const { applicationId, widgetUrl } = start.body as { applicationId: string; widgetUrl: string };
  const linked = await fetch(`${sandboxUrl}/sandbox/link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ widgetUrl, persona: 'salaried' }),
  });
  expect(linked.status).toBe(200);
  await waitFor(() => events(applicationId, 'account.enrichment_ready').length === 1, {
    timeoutMs: 120_000,
    what: 'account.enrichment_ready',
  });
  const finalized = await retried(
    () => api('POST', `/api/applications/${applicationId}/finalize-linking`),
    'finalize-linking',
  );
  expectStatus(finalized, 'finalize-linking', (a) => a.status === 200);
  await waitFor(() => events(applicationId, 'application.ready_for_analysis').length === 1, {
    timeoutMs: 60_000,
    what: 'ready_for_analysis',
  });
  const analyzed = await retried(() => api('POST', `/api/applications/${applicationId}/analyze`), 'analyze');
  // After a 500 the analysis may have begun already: a repeat is refused for its status.
  expectStatus(
    analyzed,
    'analyze',
    (a) => a.status === 200 || (a.retried && a.status === 400 && /PROCESSING|COMPLETED/.test(String(a.body?.message))),
  );
  const decisions = await waitFor(
    () => events(applicationId, 'application.decision').length > 0 && events(applicationId, 'application.decision'),
    { timeoutMs: 120_000, what: 'application.decision' },
  );
  return { applicationId, decision: decisions[0]! };
}
