// Fills the performance page of a local stack with a demonstration book: a lender of its own,
// applicants of several personas taken through the whole service (initiate, a sandbox link,
// enrichment, the decision; a referral reviewed, the offer accepted), and for each loan the
// outcomes the sandbox says a loan to that persona would have, reported through the lender API
// in one bulk upload. Every figure of the page then comes from those stored outcomes.
//
//   RATE_LIMITS_ENABLED=false npm start         (in another terminal, until READY)
//   node examples/performance-demo/demo.mjs     (LOANS=300 CONCURRENCY=6 by default)
//
// The demonstration asks a few thousand questions in a couple of minutes from one address, past
// the 60 a minute the gateway allows each address by default: start the stack with the limits
// lifted as above. Against a stack with its limits, it stops at the first 429 and says so.
//
// The service takes no outcome dated before the decision or after today, and the decisions are
// made today: the book's months are told in one day (every outcome dated today), so its vintage
// is this month and its figures are bad rates, Gini, KS and calibration, not seasoning.
const env = process.env;
const baseUrl = (env.LOAN_BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
const adminToken = env.LOAN_ADMIN_TOKEN ?? 'local-admin-token';
const loans = Number(env.LOANS ?? 300);
const concurrency = Number(env.CONCURRENCY ?? 6);
const timeoutMs = Number(env.TIMEOUT_SECONDS ?? 120) * 1000;

/** Who applies: persona, and how often. */
const MIX = [
  ['salaried', 30],
  ['salaried_high', 10],
  ['gig', 15],
  ['heavy_betting', 15],
  ['debt_stressed', 15],
  ['overdrawn', 10],
  ['thin_file', 5],
];
const personaOf = (i) => {
  let n = i % 100;
  for (const [persona, weight] of MIX) {
    if (n < weight) return persona;
    n -= weight;
  }
  return 'salaried';
};

class RateLimited extends Error {}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line) => console.error(`[demo] ${line}`);

async function http(method, url, { key, body, headers = {}, raw } = {}) {
  const res = await fetch(url, {
    method,
    headers: {
      ...(key ? { 'x-api-key': key } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  if (res.status === 429)
    throw new RateLimited(
      'The gateway limits this address to 60 calls a minute: start the stack with RATE_LIMITS_ENABLED=false npm start for the demonstration',
    );
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = text;
  }
  return { status: res.status, body: json };
}

async function until(what, check) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(300);
  }
}

/** One applicant through the service: its loan's terms, or null when declined or failed. */
async function applicantToLoan(key, i) {
  const persona = personaOf(i);
  const amount = 50_000 + 25_000 * (i % 12);
  const tenor = [3, 6, 9, 12][i % 4];
  const api = (method, path, body) => http(method, `${baseUrl}${path}`, { key, body });
  const started = await api('POST', '/api/applications/initiate', {
    firstName: 'Demo',
    lastName: `Applicant${i}`,
    email: `demo${i}@example.com`,
    amount,
    tenor,
    interestRate: 5,
    idempotencyKey: `performance-demo-${Date.now().toString(36)}-${i}`,
  });
  if (started.status !== 201) throw new Error(`initiate answered ${started.status}: ${JSON.stringify(started.body)}`);
  const { applicationId, widgetUrl } = started.body;
  const sandbox = new URL(widgetUrl).origin;
  const linked = await http('POST', `${sandbox}/sandbox/link`, { body: { widgetUrl, persona } });
  if (linked.status !== 200) throw new Error(`the sandbox's link answered ${linked.status}`);
  const view = async () => (await api('GET', `/api/applications/${applicationId}`)).body;
  await until('the account to be enriched', async () => {
    const v = await view();
    return v.accounts?.length > 0 && v.accounts.every((a) => a.enrichmentStatus !== 'PENDING') ? v : null;
  });
  await api('POST', `/api/applications/${applicationId}/finalize-linking`);
  await until(
    'analyze to be taken',
    async () => (await api('POST', `/api/applications/${applicationId}/analyze`)).status === 200,
  );
  const done = await until('the decision', async () => {
    const v = await view();
    return ['COMPLETED', 'FAILED'].includes(v.status) ? v : null;
  });
  if (done.status !== 'COMPLETED') return { persona, decision: 'FAILED' };
  let terms = done.decision.approval_details;
  if (done.decision.decision === 'DECLINED') return { persona, decision: 'DECLINED' };
  if (done.decision.decision === 'MANUAL_REVIEW') {
    const reviewed = await api('POST', `/api/applications/${applicationId}/review`, {
      outcome: 'APPROVED',
      reasonCode: 'DEMO_APPROVED',
      reviewer: 'demo-officer',
      override: true,
      note: 'Approved for the demonstration book',
    });
    if (reviewed.status !== 200)
      throw new Error(`review answered ${reviewed.status}: ${JSON.stringify(reviewed.body)}`);
    if (reviewed.body.review.status !== 'FINAL') return { persona, decision: 'MANUAL_REVIEW' };
    terms = reviewed.body.review.approval_details;
  }
  const accepted = await api('POST', `/api/applications/${applicationId}/offer`, { response: 'ACCEPTED' });
  if (accepted.status !== 200)
    throw new Error(`accepting the offer answered ${accepted.status}: ${JSON.stringify(accepted.body)}`);
  const story = await http(
    'GET',
    `${sandbox}/sandbox/outcomes?persona=${persona}&seed=${applicationId}&amount=${terms.approved_amount}&tenor=${terms.approved_tenor}`,
  );
  return { persona, decision: done.decision.decision, applicationId, terms, steps: story.body.steps };
}

async function main() {
  // The service's days are Lagos's (UTC+1 all year): after 23:00 UTC its today is tomorrow's date.
  const today = new Date(Date.now() + 3_600_000).toISOString().slice(0, 10);
  let key = env.LOAN_API_KEY;
  if (!key) {
    const created = await http('POST', `${baseUrl}/admin/clients`, {
      headers: { 'x-admin-token': adminToken },
      body: { name: 'Demo lender (performance)', providerSecretKey: 'sandbox-demo-key' },
    });
    if (created.status !== 201)
      throw new Error(`creating the demo lender answered ${created.status}: ${JSON.stringify(created.body)}`);
    key = created.body.apiKey;
    log(`a lender of its own: clientId ${created.body.clientId}, API key ${key} (sign in to the console with it)`);
  }
  const made = [];
  let next = 0;
  const worker = async () => {
    while (next < loans) {
      const i = next++;
      try {
        made.push(await applicantToLoan(key, i));
      } catch (error) {
        if (error instanceof RateLimited) throw error;
        log(`applicant ${i}: ${error.message}`);
      }
      if (made.length % 20 === 0) log(`${made.length} of ${loans} applicants decided`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));

  const rows = [];
  for (const loan of made.filter((m) => m.applicationId)) {
    const base = { applicationId: loan.applicationId };
    rows.push({
      ...base,
      idempotencyKey: `${loan.applicationId}-0`,
      type: 'DISBURSED',
      amount: loan.terms.approved_amount,
      tenor: loan.terms.approved_tenor,
      date: today,
    });
    loan.steps.forEach((step, n) => {
      const { month, ...outcome } = step;
      void month; // the book is told in one day: see the top of this file
      rows.push({ ...base, idempotencyKey: `${loan.applicationId}-${n + 1}`, ...outcome, date: today });
    });
  }
  // Scoring learns of each acceptance a moment after it: a disbursement it has not heard of yet
  // is refused, and the file is sent again (rows already taken are answered as before).
  let upload;
  for (let attempt = 0; attempt < 10; attempt++) {
    upload = await http('POST', `${baseUrl}/api/outcomes`, {
      key,
      headers: { 'content-type': 'application/x-ndjson' },
      raw: rows.map((row) => JSON.stringify(row)).join('\n'),
    });
    if (upload.status !== 200) throw new Error(`the upload answered ${upload.status}: ${JSON.stringify(upload.body)}`);
    const waiting = upload.body.results.filter((r) => r.status === 400 && /has not accepted/.test(r.message ?? ''));
    if (waiting.length === 0) break;
    await sleep(1000);
  }
  const performance = (await http('GET', `${baseUrl}/api/performance`, { key })).body;
  const byDecision = {};
  for (const m of made) byDecision[m.decision] = (byDecision[m.decision] ?? 0) + 1;
  console.log(
    JSON.stringify({
      applicants: made.length,
      decisions: byDecision,
      outcomeRows: rows.length,
      upload: { accepted: upload.body.accepted, repeated: upload.body.repeated, refused: upload.body.refused },
      performance: {
        loans: performance.loans,
        badRate: performance.badRate,
        gini: performance.discrimination.gini,
        ks: performance.discrimination.ks,
        note: performance.discrimination.note,
      },
      console: `${baseUrl}/console/#/performance`,
      apiKey: env.LOAN_API_KEY ? undefined : key,
    }),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
