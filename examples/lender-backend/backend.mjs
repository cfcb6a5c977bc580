// A lender's backend driving one loan application through the service with @loan/client:
// initiate -> the applicant links a bank account (here: the sandbox links one for them) ->
// finalize-linking once every account is enriched -> analyze after ready_for_analysis -> the
// decision, all driven by the service's signed webhooks.
//
//   LOAN_API_KEY=lk_... LOAN_WEBHOOK_SECRET=whsec_... PORT=4100 node backend.mjs
//   LOAN_ADMIN_TOKEN=local-admin-token PORT=4100 node backend.mjs     (local stack: makes its own account)
import { createServer } from 'node:http';
import {
  createLoanClient,
  PREVIOUS_SIGNATURE_HEADER,
  SIGNATURE_HEADER,
  verifyWebhook,
  WebhookVerificationError,
} from '@loan/client';

const env = process.env;
const baseUrl = env.LOAN_BASE_URL ?? 'http://127.0.0.1:8080';
const host = env.HOST ?? '127.0.0.1';
const port = Number(env.PORT ?? 4100);
/** How many accounts the sandbox links, and as which persona (GET <sandbox>/sandbox/personas lists them). */
const accountsToLink = Number(env.ACCOUNTS ?? 1);
const persona = env.PERSONA ?? 'salaried';
/** `sandbox`: link through the sandbox's API; `browser`: print the widget address for a person to open. */
const linkMode = env.LINK ?? 'sandbox';
const timeoutMs = Number(env.TIMEOUT_SECONDS ?? 600) * 1000;

function log(step, fields = {}) {
  console.log(JSON.stringify({ at: new Date().toISOString(), step, ...fields }));
}

function fail(step, fields) {
  log(step, fields);
  process.exitCode = 1;
  shutdown();
}

/** The application this backend drives, and what it has heard of it so far. */
const state = { applicationId: null, linked: new Set(), enriched: new Set(), finalized: false, analyzed: false };
const seenEvents = new Set();
let client;
let secrets;

/** Each event moves the application one step; every step is safe to repeat (deliveries are at least once). */
async function onEvent(event) {
  if (event.data.applicationId && event.data.applicationId !== state.applicationId) return;
  switch (event.event) {
    case 'account.linked':
      state.linked.add(event.data.accountId);
      log('account linked', { accountId: event.data.accountId, institution: event.data.institution });
      break;
    case 'account.enrichment_ready':
      state.enriched.add(event.data.accountId);
      log('account enriched', { accountId: event.data.accountId });
      break;
    case 'account.enrichment_failed': {
      if (!state.linked.has(event.data.accountId)) return;
      // Remedy from the spec: re-link that account.
      const relink = await client.linkAccount(state.applicationId, { accountId: event.data.accountId });
      log('enrichment failed, re-linking', { accountId: event.data.accountId, widgetUrl: relink.widgetUrl });
      if (linkMode === 'sandbox') await linkInSandbox(relink.widgetUrl);
      return;
    }
    case 'application.ready_for_analysis':
      if (!state.analyzed) {
        state.analyzed = true;
        const answer = await client.analyze(state.applicationId);
        log('analyze', { status: answer.status });
      }
      return;
    case 'application.decision': {
      const { decision } = event.data;
      log('decision', {
        applicationId: state.applicationId,
        decision: decision.decision,
        score: decision.score,
        scoreBand: decision.score_band,
        approvedAmount: decision.approval_details.approved_amount,
        approvedTenor: decision.approval_details.approved_tenor,
        monthlyPayment: decision.approval_details.monthly_payment,
        counterOffer: decision.counter_offer,
        primaryReason: decision.explainability.primary_reason,
      });
      shutdown();
      return;
    }
    case 'application.failed':
      return fail('failed', { reason: event.data.reason });
    case 'application.abandoned':
      return fail('abandoned', { reason: event.data.reason });
  }
  // Finalize once every linked account is enriched (and, with the sandbox, all of them are linked).
  const allLinked = linkMode !== 'sandbox' || state.linked.size >= accountsToLink;
  const allEnriched = state.linked.size > 0 && [...state.linked].every((id) => state.enriched.has(id));
  if (!state.finalized && allLinked && allEnriched) {
    state.finalized = true;
    const answer = await client.finalizeLinking(state.applicationId);
    log('finalize-linking', { status: answer.status });
  }
}

/** In production the applicant opens widgetUrl in a browser; the sandbox can link without one. */
async function linkInSandbox(widgetUrl) {
  const res = await fetch(`${new URL(widgetUrl).origin}/sandbox/link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ widgetUrl, persona }),
  });
  if (!res.ok) throw new Error(`sandbox link answered ${res.status}: ${await res.text()}`);
}

// Events are handled one at a time, in the order they arrive.
let queue = Promise.resolve();
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let event;
    try {
      event = verifyWebhook(
        Buffer.concat(chunks),
        [req.headers[SIGNATURE_HEADER], req.headers[PREVIOUS_SIGNATURE_HEADER]],
        secrets ?? [],
      );
    } catch (error) {
      const known = error instanceof WebhookVerificationError;
      const signed = known && (error.reason === 'unknown_event' || error.reason === 'invalid_payload');
      res.writeHead(signed ? 200 : 401).end();
      if (!signed) log('webhook refused', { reason: known ? error.reason : String(error) });
      return;
    }
    res.writeHead(200).end();
    if (seenEvents.has(event.id)) return;
    seenEvents.add(event.id);
    queue = queue
      .then(() => onEvent(event))
      .catch((error) => fail('error', { message: error.message, statusCode: error.statusCode }));
  });
});

let stopping = false;
function shutdown() {
  if (stopping) return;
  stopping = true;
  clearTimeout(deadline);
  server.close();
  server.closeAllConnections();
  // Idle keep-alive connections to the service close on their own; do not wait for them.
  setTimeout(() => process.exit(), 1_000).unref();
}
const deadline = setTimeout(
  () =>
    fail('timeout', {
      seconds: timeoutMs / 1000,
      state: { ...state, linked: state.linked.size, enriched: state.enriched.size },
    }),
  timeoutMs,
);
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, shutdown);

/** For the local stack only: an account of its own whose webhooks come to this backend. */
async function createSandboxAccount(webhookUrl) {
  const res = await fetch(`${baseUrl}/admin/clients`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-admin-token': env.LOAN_ADMIN_TOKEN },
    body: JSON.stringify({ name: 'Example lender backend', webhookUrl, providerSecretKey: 'test_sk_sandbox' }),
  });
  if (res.status !== 201) throw new Error(`creating the account answered ${res.status}: ${await res.text()}`);
  return res.json();
}

async function main() {
  await new Promise((resolve) => server.listen(port, host, resolve));
  const webhookUrl = env.WEBHOOK_PUBLIC_URL ?? `http://${host}:${server.address().port}/webhooks`;
  log('listening', { webhookUrl });

  let apiKey = env.LOAN_API_KEY;
  secrets = [env.LOAN_WEBHOOK_SECRET, env.LOAN_WEBHOOK_SECRET_PREVIOUS].filter(Boolean);
  if (!apiKey && env.LOAN_ADMIN_TOKEN) {
    const account = await createSandboxAccount(webhookUrl);
    apiKey = account.apiKey;
    secrets = [account.webhookSecret];
    log('account created', { clientId: account.clientId });
  }
  if (!apiKey || secrets.length === 0) {
    throw new Error(
      'Set LOAN_API_KEY and LOAN_WEBHOOK_SECRET (your account, its webhookUrl pointing here), or LOAN_ADMIN_TOKEN on the local stack',
    );
  }
  client = createLoanClient({
    apiKey,
    baseUrl,
    onRetry: (r) => log('retry', { method: r.method, path: r.path, statusCode: r.statusCode, delayMs: r.delayMs }),
  });

  const application = await client.initiate({
    firstName: 'Chinedu',
    lastName: 'Okonkwo',
    email: 'chinedu.okonkwo@example.com',
    phone: '08031234567',
    bvn: env.BVN ?? '22200000001',
    amount: Number(env.AMOUNT ?? 300_000),
    tenor: Number(env.TENOR ?? 6),
    interestRate: Number(env.INTEREST_RATE ?? 5),
    purpose: 'Stock for a provisions shop',
    // Store the key with your loan record: the same key resumes the application instead of duplicating it.
    ...(env.IDEMPOTENCY_KEY ? { idempotencyKey: env.IDEMPOTENCY_KEY } : {}),
  });
  state.applicationId = application.applicationId;
  log('initiate', {
    applicationId: application.applicationId,
    idempotencyKey: application.idempotencyKey,
    resumed: application.resumed,
    widgetUrl: application.widgetUrl,
  });
  if (linkMode === 'sandbox') {
    for (let i = 0; i < accountsToLink; i++) await linkInSandbox(application.widgetUrl);
    log('linked in the sandbox', { accounts: accountsToLink, persona });
  } else {
    log('waiting for the applicant', { open: application.widgetUrl });
  }
}

main().catch((error) => fail('error', { message: error.message, statusCode: error.statusCode }));
