import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import mongoose from 'mongoose';
import { Topics, type ApplicationFact, type ScoringResult } from '@loan/contracts';
import { TEST_BVNS, consumerHitResponse } from '@loan/sandbox';
import { waitFor } from '@testing/helpers';
import {
  applicant,
  baseEnv,
  call,
  consumedToEnd,
  createClient,
  startApplications,
  startEnrichment,
  startGateway,
  startSandbox,
  suiteNamespace,
  testBus,
  type Running,
} from '@testing/stack';

/**
 * A scoring process killed (SIGKILL: no shutdown, no offset commit, nothing flushed) while an
 * analysis is in flight, and a new one started on the same topics and database: the analysis
 * is redelivered, decided once, and the application gets exactly one decision. Scoring runs as
 * a real child process from its build; the rest of the system runs in this process.
 */
const ROOT = join(__dirname, '../../..');
const ENTRY = join(ROOT, 'services/scoring/dist/start.js');
const ns = suiteNamespace();
const bus = testBus(ns, 'scoring-restart-test');
const services: Running[] = [];
const children = new Set<ChildProcess>();
let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let bureau: Awaited<ReturnType<typeof startHeldBureau>>;
let db: mongoose.Connection;
let gatewayUrl: string;
let apiKey: string;

const facts: ApplicationFact[] = [];
const results: ScoringResult[] = [];
const events: Array<{ event: string; applicationId: string; data: Record<string, unknown> }> = [];

/**
 * A CRC-shaped bureau (the sandbox's report) that holds every lookup unanswered while
 * `holding`: a scoring process asking it is stuck mid-analysis until it is released.
 */
async function startHeldBureau() {
  const lookups: string[] = [];
  const held: ServerResponse[] = [];
  let holding = true;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const bvn = String((JSON.parse(body || '{}') as { bvn?: string }).bvn ?? '');
      lookups.push(bvn);
      if (holding) {
        held.push(res);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(consumerHitResponse(bvn, new Date())));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    lookups,
    release: () => {
      holding = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface ScoringProcess {
  child: ChildProcess;
  logs: string[];
  /** Resolves with the signal that ended the process, or its exit code. */
  exited: Promise<string | number | null>;
}

/** Starts `node services/scoring/dist/start.js`; resolves once it says it has started. */
function startScoringProcess(extra: Record<string, string>): Promise<ScoringProcess> {
  const child = spawn(process.execPath, [ENTRY], {
    cwd: ROOT,
    env: baseEnv(ns, 'scoring', { LOG_LEVEL: 'info', PROFILE_WAIT: '10s', ...extra }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const logs: string[] = [];
  const exited = new Promise<string | number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve(signal ?? code);
    }),
  );
  return new Promise((resolve, reject) => {
    let pending = '';
    child.stderr!.on('data', (chunk: Buffer) => logs.push(chunk.toString('utf8')));
    child.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        logs.push(line);
        if (line.includes('"scoring service started"')) resolve({ child, logs, exited });
      }
    });
    void exited.then((how) =>
      reject(new Error(`scoring exited (${String(how)}) before starting:\n${logs.join('\n')}`)),
    );
  });
}

const api = (method: string, path: string, body?: unknown) => call(gatewayUrl, apiKey, method, path, body);
const analyses = () =>
  db.collection<{ _id: string; applicationId: string; status: string; outboxPending?: boolean }>('analyses');

beforeAll(async () => {
  // The child runs the build: bring it up to date with the sources under test.
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'services/scoring'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  bureau = await startHeldBureau();
  const gateway = await startGateway(ns, { RATE_LIMITS_ENABLED: 'false' });
  gatewayUrl = gateway.url;
  services.push(gateway);
  sandbox = await startSandbox(`${gateway.url}/provider/webhooks/mono`, { SANDBOX_JOB_DELAY: '200ms' });
  services.push(
    ...(await Promise.all([
      startApplications(ns, { PROVIDER_BASE_URL: sandbox.url }),
      startEnrichment(ns, { PROVIDER_BASE_URL: sandbox.url }),
    ])),
  );
  ({ apiKey } = await createClient(gateway.url));
  const env = baseEnv(ns, 'scoring');
  db = await mongoose
    .createConnection(String(env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/'), { dbName: env.MONGO_DB })
    .asPromise();
  await bus.connect();
  await bus.consume({
    groupId: 'restart-reader',
    topics: [Topics.applicationFacts, Topics.scoringResults, Topics.events],
    handle: async ({ topic, value }) => {
      if (topic === Topics.applicationFacts) facts.push(value as ApplicationFact);
      else if (topic === Topics.scoringResults) results.push(value as ScoringResult);
      else events.push(value as (typeof events)[number]);
    },
  });
}, 240_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await bus.disconnect();
  for (const service of services.reverse()) await service.stop();
  await sandbox?.stop();
  await bureau?.close();
  await db?.close();
});

describe('scoring killed mid-analysis', () => {
  it('when the scoring process is killed while the bureau lookup is in flight and a new one starts, then the application gets exactly one decision', async () => {
    const first = await startScoringProcess({ BUREAU_BASE_URL: bureau.url, BUREAU_TIMEOUT: '5m' });

    const start = await api(
      'POST',
      '/api/applications/initiate',
      applicant({ bvn: TEST_BVNS.clean, amount: 250_000, tenor: 6 }),
    );
    expect(start.status).toBe(201);
    const { applicationId, widgetUrl } = start.body as { applicationId: string; widgetUrl: string };
    const linked = await fetch(`${sandbox.url}/sandbox/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ widgetUrl, persona: 'salaried' }),
    });
    expect(linked.status).toBe(200);
    await waitFor(
      async () =>
        (await api('GET', `/api/applications/${applicationId}`)).body?.accounts?.[0]?.enrichmentStatus === 'READY',
      { timeoutMs: 60_000, what: 'the account to be enriched' },
    );
    expect((await api('POST', `/api/applications/${applicationId}/finalize-linking`)).status).toBe(200);
    await waitFor(
      () => events.some((e) => e.applicationId === applicationId && e.event === 'application.ready_for_analysis'),
      {
        timeoutMs: 30_000,
        what: 'application.ready_for_analysis',
      },
    );
    expect((await api('POST', `/api/applications/${applicationId}/analyze`)).body).toMatchObject({
      status: 'PROCESSING',
    });
    const requested = await waitFor(
      () => facts.find((f) => f.applicationId === applicationId && f.type === 'AnalysisRequested'),
      { what: 'the AnalysisRequested fact' },
    );
    const analysisId = requested.type === 'AnalysisRequested' ? requested.analysisId : '';

    // Mid-analysis: the bureau is asked and does not answer; nothing is stored before the
    // decision, so the restarted process starts the analysis over.
    await waitFor(() => bureau.lookups.length === 1, {
      timeoutMs: 60_000,
      what: 'the first process to ask the bureau',
    });
    expect(await analyses().findOne({ _id: analysisId })).toBeNull();
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    expect(results.filter((r) => r.analysisId === analysisId)).toHaveLength(0);

    bureau.release();
    const second = await startScoringProcess({ BUREAU_BASE_URL: bureau.url, BUREAU_TIMEOUT: '5s' });
    const decided = await waitFor(
      () => events.find((e) => e.applicationId === applicationId && e.event === 'application.decision'),
      { timeoutMs: 120_000, what: 'application.decision after the restart' },
    );
    await waitFor(async () => (await analyses().findOne({ _id: analysisId }))?.outboxPending === false, {
      what: 'the outbox of the analysis to be published',
    });
    // A clean stop of the second process: nothing of it can publish any more after this. Once
    // this test's reader has handled the results and events up to where they end now, a result
    // or decision published twice would be among what it read.
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    await consumedToEnd(bus, 'restart-reader', [Topics.scoringResults, Topics.events]);

    const scored = results.filter((r) => r.analysisId === analysisId);
    expect(scored).toHaveLength(1);
    expect(scored[0]).toMatchObject({ type: 'ApplicationScored', applicationId });
    const decision = scored[0]!.type === 'ApplicationScored' ? scored[0]!.decision : null;
    expect(decision?.regulatory_compliance.credit_bureau_checked).toBe(true);
    expect(bureau.lookups).toEqual([TEST_BVNS.clean, TEST_BVNS.clean]);
    expect(await analyses().countDocuments({ applicationId })).toBe(1);
    expect(await analyses().findOne({ _id: analysisId })).toMatchObject({ status: 'DECIDED' });
    expect(events.filter((e) => e.applicationId === applicationId && e.event === 'application.decision')).toHaveLength(
      1,
    );
    expect(decided.data).toMatchObject({ applicationId, status: 'COMPLETED', score: decision?.score });
    const view = await api('GET', `/api/applications/${applicationId}`);
    expect(view.body).toMatchObject({
      status: 'COMPLETED',
      decision: { score: decision?.score, decision: decision?.decision },
    });
  }, 300_000);
});
