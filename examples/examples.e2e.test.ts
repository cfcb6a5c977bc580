import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { createLoanClient, signWebhook } from '@loan/client';
import { waitFor } from '../testing/helpers';
import { applicant, createClient, startWholeStack, suiteNamespace } from '../testing/stack';

/**
 * The two examples run as a lender runs them (`node <file>`, with @loan/client as built for
 * publishing) against the whole stack: every service, the sandbox, the real broker, registry
 * and database.
 */
const ns = suiteNamespace();
let stack: Awaited<ReturnType<typeof startWholeStack>>;
const running: ChildProcess[] = [];

beforeAll(async () => {
  stack = await startWholeStack(ns, { WEBHOOK_RETRY_BASE: '200ms', RATE_LIMITS_ENABLED: 'false' });
});

afterAll(async () => {
  for (const child of running) if (child.exitCode === null) child.kill('SIGTERM');
  await stack?.stop();
});

/** Runs an example; its stdout is JSON lines, collected as they come. */
function run(file: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [path.join(__dirname, file)], {
    cwd: path.dirname(path.join(__dirname, file)),
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  const lines: Record<string, any>[] = [];
  let stderr = '';
  let rest = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = rest + chunk.toString('utf8');
    const parts = text.split('\n');
    rest = parts.pop()!;
    for (const line of parts) if (line.trim()) lines.push(JSON.parse(line));
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  return { child, lines, exited, stderr: () => stderr };
}

/** A port nobody listens on right now, for a process that must know its address before it starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function link(widgetUrl: string) {
  const res = await fetch(`${new URL(widgetUrl).origin}/sandbox/link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ widgetUrl, persona: 'salaried' }),
  });
  expect(res.status).toBe(200);
}

describe('examples/lender-backend', () => {
  it('when run with a lender account, then it drives an application from initiate to a decision the service also reports', async () => {
    const port = await freePort();
    const lender = await createClient(stack.gatewayUrl, { webhookUrl: `http://127.0.0.1:${port}/webhooks` });
    const backend = run('lender-backend/backend.mjs', {
      LOAN_BASE_URL: stack.gatewayUrl,
      LOAN_API_KEY: lender.apiKey,
      LOAN_WEBHOOK_SECRET: lender.webhookSecret,
      PORT: String(port),
      ACCOUNTS: '2',
    });
    const code = await backend.exited;
    expect({ code, stderr: backend.stderr() }).toEqual({ code: 0, stderr: '' });
    const steps = backend.lines.map((l) => l.step);
    expect(steps.filter((s) => s === 'account enriched')).toHaveLength(2);
    // The order the spec asks of a lender: finalize after every enrichment, analyze after ready_for_analysis.
    expect(steps.lastIndexOf('account enriched')).toBeLessThan(steps.indexOf('finalize-linking'));
    expect(steps.indexOf('finalize-linking')).toBeLessThan(steps.indexOf('analyze'));
    expect(steps.at(-1)).toBe('decision');
    const decision = backend.lines.at(-1)!;

    const client = createLoanClient({ apiKey: lender.apiKey, baseUrl: stack.gatewayUrl });
    const view = await client.getApplication(decision.applicationId);
    expect(view.status).toBe('COMPLETED');
    expect(view.accounts).toHaveLength(2);
    expect(decision).toMatchObject({
      decision: view.decision!.decision,
      score: view.decision!.score,
      scoreBand: view.decision!.score_band,
      approvedAmount: view.decision!.approval_details.approved_amount,
    });
  });

  it('when run with the admin token of the local stack, then it makes its own account and reaches a decision', async () => {
    const backend = run('lender-backend/backend.mjs', {
      LOAN_BASE_URL: stack.gatewayUrl,
      LOAN_ADMIN_TOKEN: 'local-admin-token',
      PORT: '0',
    });
    const code = await backend.exited;
    expect({ code, stderr: backend.stderr() }).toEqual({ code: 0, stderr: '' });
    expect(backend.lines.map((l) => l.step)).toEqual(
      expect.arrayContaining(['account created', 'initiate', 'finalize-linking', 'analyze', 'decision']),
    );
    expect(backend.lines.at(-1)!.decision).toMatch(/^(APPROVED|COUNTER_OFFER|MANUAL_REVIEW|DECLINED)$/);
  });
});

describe('examples/performance-demo', () => {
  it('when run against the local stack, then its applicants become loans whose outcomes the performance figures count', async () => {
    const demo = run('performance-demo/demo.mjs', { LOAN_BASE_URL: stack.gatewayUrl, LOANS: '14', CONCURRENCY: '4' });
    const code = await demo.exited;
    expect({ code, refused: demo.stderr().match(/applicant \d+: .*/g) ?? [] }).toEqual({ code: 0, refused: [] });
    const summary = demo.lines.at(-1)!;
    expect(summary.applicants).toBe(14);
    const granted =
      (summary.decisions.APPROVED ?? 0) +
      (summary.decisions.COUNTER_OFFER ?? 0) +
      (summary.decisions.MANUAL_REVIEW ?? 0);
    expect(granted).toBeGreaterThan(0);
    expect(summary.upload).toMatchObject({ accepted: summary.outcomeRows, refused: 0 });

    // The figures are the stored outcomes': read back with the demo's own key.
    const client = createLoanClient({ apiKey: summary.apiKey, baseUrl: stack.gatewayUrl });
    const performance = await client.getPerformance();
    expect(performance.loans).toBe(granted);
    expect(performance).toMatchObject({ loans: summary.performance.loans, badRate: summary.performance.badRate });
  });
});

describe('examples/webhook-receiver', () => {
  it('when the service delivers to it, then it takes signed events once, refuses forgeries and keeps working through a secret rotation', async () => {
    const lender = await createClient(stack.gatewayUrl);
    const receiver = run('webhook-receiver/receiver.mjs', {
      WEBHOOK_SECRET: lender.webhookSecret,
      WEBHOOK_SECRET_PREVIOUS: 'whsec_previous_secret_of_this_test',
      PORT: '0',
    });
    const listening = await waitFor(() => receiver.lines.find((l) => l.outcome === 'listening'), {
      what: 'the receiver to listen',
    });
    const url = `${listening.url}webhooks`;
    const admin = { 'content-type': 'application/json', 'x-admin-token': 'local-admin-token' };
    const patched = await fetch(`${stack.gatewayUrl}/admin/clients/${lender.clientId}`, {
      method: 'PATCH',
      headers: admin,
      body: JSON.stringify({ webhookUrl: url }),
    });
    expect(patched.status).toBe(200);

    // Real deliveries: account.linked for an account the applicant links.
    const client = createLoanClient({ apiKey: lender.apiKey, baseUrl: stack.gatewayUrl });
    const { idempotencyKey: _key, ...input } = applicant();
    const started = await client.initiate(input);
    await link(started.widgetUrl);
    const received = await waitFor(
      () =>
        receiver.lines.find(
          (l) =>
            l.outcome === 'received' && l.event === 'account.linked' && l.data.applicationId === started.applicationId,
        ),
      { timeoutMs: 60_000, what: 'account.linked at the receiver' },
    );
    const [delivery] = (await client.listDeliveries({ eventId: received.eventId })).data;
    expect(delivery).toMatchObject({ status: 'DELIVERED', event: 'account.linked' });
    expect(delivery!.attempts.at(-1)!.statusCode).toBe(200);

    // A redelivery is the same event again: taken (200) but not handled twice.
    await client.redeliver(delivery!.id);
    await waitFor(() => receiver.lines.find((l) => l.outcome === 'duplicate' && l.eventId === received.eventId), {
      what: 'the duplicate',
    });
    expect(receiver.lines.filter((l) => l.outcome === 'received' && l.eventId === received.eventId)).toHaveLength(1);

    // Forged, unsigned, and signed with the previous secret (the rotation overlap).
    const body = JSON.stringify({
      id: '7d3c1b2a-0f9e-4d8c-8b7a-6e5d4c3b2a19',
      event: 'application.failed',
      data: {
        applicationId: started.applicationId,
        applicantId: started.applicantId,
        status: 'FAILED',
        reason: 'scoring_error',
      },
      timestamp: new Date().toISOString(),
    });
    const post = (headers: Record<string, string>) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    expect((await post({ 'x-signature': signWebhook(body, 'whsec_somebody_else') })).status).toBe(401);
    expect((await post({})).status).toBe(401);
    expect((await post({ 'x-signature': signWebhook(body, 'whsec_previous_secret_of_this_test') })).status).toBe(200);
    expect((await fetch(url)).status).toBe(405);
    expect(receiver.lines.filter((l) => l.outcome === 'rejected')).toHaveLength(2);

    receiver.child.kill('SIGINT');
    expect(await receiver.exited).toBe(0);
  });
});
