import { createHmac, timingSafeEqual } from 'node:crypto';
import { waitFor } from '../testing/helpers';
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

/**
 * The README's flow for one application: initiate, the applicant links an account in the
 * sandbox's widget (persona `salaried`), finalize-linking, analyze; each step waits for the
 * webhook that says it is done. Returns the application's id and its decision webhook.
 */
export async function toDecision(lender: Lender, sandboxUrl: string) {
  const { receiver, api } = lender;
  const events = (applicationId: string, name: string) =>
    receiver.received.filter((r) => r.body.event === name && r.body.data?.applicationId === applicationId);

  const start = await api('POST', '/api/applications/initiate', applicant({ bvn: '22200000001' }));
  expect(start.status).toBe(201);
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
  expect((await api('POST', `/api/applications/${applicationId}/finalize-linking`)).status).toBe(200);
  await waitFor(() => events(applicationId, 'application.ready_for_analysis').length === 1, {
    timeoutMs: 60_000,
    what: 'ready_for_analysis',
  });
  expect((await api('POST', `/api/applications/${applicationId}/analyze`)).status).toBe(200);
  const decisions = await waitFor(
    () => events(applicationId, 'application.decision').length > 0 && events(applicationId, 'application.decision'),
    { timeoutMs: 120_000, what: 'application.decision' },
  );
  return { applicationId, decision: decisions[0]! };
}
