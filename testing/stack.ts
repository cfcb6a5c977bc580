import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import {
  createKafkaBus,
  createLogger,
  createMetrics,
  createServiceRuntime,
  createSealer,
  parseDuration,
  type ServiceRuntime,
  systemClock,
  type Clock,
} from '@loan/runtime';
import { createMonoClient } from '@loan/provider';
import { Topics, type EnrichmentResult, type ScoringResult } from '@loan/contracts';
import { testStamp, waitFor } from './helpers';

/**
 * Starts parts of the real system in this test process, isolated from other suites by a topic
 * namespace and databases of their own, against the real broker, registry and database.
 */
export interface StackOptions {
  env?: Record<string, string>;
  clock?: Clock;
}

let logSink: string[] | null = null;

/**
 * From now on, services started by this module log every line (at their LOG_LEVEL) into a
 * list the test can read, instead of to standard output.
 */
export function captureLogs() {
  const lines: string[] = [];
  logSink = lines;
  return { lines: () => lines.slice() };
}

function runtimeOf(config: Parameters<typeof createServiceRuntime>[0]): Promise<ServiceRuntime> {
  const sink = logSink;
  if (!sink) return createServiceRuntime(config);
  const logger = createLogger(config.SERVICE_NAME, config.LOG_LEVEL, { write: (line: string) => void sink.push(line) });
  return createServiceRuntime(config, { logger });
}

export function suiteNamespace(): string {
  return `${testStamp()}.`;
}

export function baseEnv(
  ns: string,
  service: string,
  extra: Record<string, string> = {},
): Record<string, string | undefined> {
  return {
    ...process.env,
    SERVICE_NAME: service,
    KAFKA_TOPIC_NAMESPACE: ns,
    KAFKA_TOPIC_PARTITIONS: '3',
    MONGO_DB: `${ns.replace(/\W/g, '')}_${service}`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    HTTP_PORT: '0',
    GATEWAY_PORT: '0',
    SHUTDOWN_TIMEOUT: '5s',
    ...extra,
  };
}

export interface Running {
  name: string;
  url: string;
  /** Where /healthz, /readyz and /metrics are: the gateway's internal port; `url` elsewhere. */
  opsUrl: string;
  runtime: ServiceRuntime;
  stop(): Promise<void>;
}

/** The gateway, with its express app (`app`), whose route table tests can read. */
export async function startGateway(
  ns: string,
  extra: Record<string, string> = {},
  clock: Clock = systemClock,
): Promise<Running & { app: unknown }> {
  const { loadGatewayConfig, createGatewayService } = await import('@loan/gateway');
  const config = loadGatewayConfig(baseEnv(ns, 'gateway', { ALLOW_PRIVATE_WEBHOOK_URLS: 'true', ...extra }));
  const runtime = await runtimeOf(config);
  const service = createGatewayService({ runtime, config, clock });
  const { url, internalUrl } = await service.start();
  return { name: 'gateway', url, opsUrl: internalUrl, runtime, app: service.app, stop: () => service.stop() };
}

export async function startApplications(
  ns: string,
  extra: Record<string, string> = {},
  clock: Clock = systemClock,
): Promise<Running> {
  const { loadApplicationsConfig, createApplicationsService } = await import('@loan/applications');
  const config = loadApplicationsConfig(baseEnv(ns, 'applications', extra));
  const runtime = await runtimeOf(config);
  const provider = createMonoClient({
    baseUrl: config.PROVIDER_BASE_URL,
    logger: runtime.logger,
    timeoutMs: parseDuration(config.PROVIDER_TIMEOUT),
    retries: 1,
    retryBaseMs: 50,
  });
  const service = createApplicationsService({ runtime, config, provider, clock });
  const { url } = await service.start();
  return { name: 'applications', url, opsUrl: url, runtime, stop: () => service.stop() };
}

/** The sandbox provider and bureau, sending its webhooks to the given gateway. */
export async function startSandbox(webhookUrl: string, extra: Record<string, string> = {}) {
  const { createSandbox, loadConfig: loadSandboxConfig } = await import('@loan/sandbox');
  const sandbox = createSandbox(
    loadSandboxConfig({
      SANDBOX_PORT: '0',
      SANDBOX_HOST: '127.0.0.1',
      PROVIDER_WEBHOOK_URL: webhookUrl,
      PROVIDER_WEBHOOK_SECRET: 'sandbox-webhook-secret',
      SANDBOX_JOB_DELAY: '100ms',
      SANDBOX_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      ...extra,
    }),
  );
  const { url } = await sandbox.start();
  return { url, stop: () => sandbox.stop(), sandbox };
}

/** Creates a client account through the admin API. */
export async function createClient(gatewayUrl: string, body: Record<string, unknown> = {}) {
  const res = await fetch(`${gatewayUrl}/admin/clients`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-admin-token': 'local-admin-token' },
    body: JSON.stringify({ name: `Lender ${randomUUID().slice(0, 4)}`, providerSecretKey: 'test_sk_sandbox', ...body }),
  });
  if (res.status !== 201) throw new Error(`client creation failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { clientId: string; apiKey: string; webhookSecret: string };
}

/**
 * What the suites of the lender API over HTTP start: the gateway (rate limits off unless
 * `gatewayEnv` says otherwise), the sandbox provider, the applications service, a bus for
 * publishing what other services would, and two lenders (one to reach the other's data with).
 * `stop` stops whatever started, also after a failed start.
 */
export async function startLenderApi(ns: string, busName: string, gatewayEnv: Record<string, string> = {}) {
  const started: { stop(): Promise<unknown> }[] = [];
  const bus = testBus(ns, busName);
  const stop = async () => {
    await bus.disconnect();
    for (const part of started.reverse()) await part.stop();
  };
  try {
    const gateway = await startGateway(ns, { RATE_LIMITS_ENABLED: 'false', ...gatewayEnv });
    started.push(gateway);
    const sandbox = await startSandbox(`${gateway.url}/provider/webhooks/mono`);
    started.push(sandbox);
    const applications = await startApplications(ns, { PROVIDER_BASE_URL: sandbox.url });
    started.push(applications);
    await bus.connect();
    const [lender, other] = [await createClient(gateway.url), await createClient(gateway.url)];
    return { gateway, sandbox, applications, bus, lender, other, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/** A JSON call to the gateway with an API key; returns status, headers and parsed body. */
export async function call(gatewayUrl: string, apiKey: string | null, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = {};
  if (apiKey !== null) headers['x-api-key'] = apiKey;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, body: json };
}

export const applicant = <O extends Record<string, unknown> = Record<never, never>>(overrides: O = {} as O) => ({
  firstName: 'Chinedu',
  lastName: 'Okonkwo',
  email: 'chinedu.okonkwo@example.com',
  phone: '08031234567',
  amount: 300_000,
  tenor: 6,
  interestRate: 5,
  purpose: 'Stock for a provisions shop',
  idempotencyKey: `app-${randomUUID()}`,
  ...overrides,
});

/** A webhook receiver that keeps every request, raw body included (on loopback unless `host` says otherwise). */
export async function startReceiver(
  answer: (req: IncomingMessage, body: Buffer) => number = () => 200,
  host = '127.0.0.1',
) {
  const received: { headers: IncomingMessage['headers']; raw: Buffer; body: any; at: number }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: unknown = null;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = raw.toString('utf8');
      }
      received.push({ headers: req.headers, raw, body, at: Date.now() });
      res.statusCode = answer(req, raw);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    events: (name?: string) => received.map((r) => r.body).filter((b) => !name || b?.event === name),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const testSealer = () => createSealer(process.env.DATA_KEY ?? 'local-development-data-key-change-me');

export async function startEnrichment(
  ns: string,
  extra: Record<string, string> = {},
  clock: Clock = systemClock,
): Promise<Running> {
  const { loadEnrichmentConfig, createEnrichmentService } = await import('@loan/enrichment');
  const config = loadEnrichmentConfig(baseEnv(ns, 'enrichment', extra));
  const runtime = await runtimeOf(config);
  const service = createEnrichmentService({ runtime, config, clock });
  const { url } = await service.start();
  return { name: 'enrichment', url, opsUrl: url, runtime, stop: () => service.stop() };
}

export async function startScoring(
  ns: string,
  extra: Record<string, string> = {},
  clock: Clock = systemClock,
): Promise<Running> {
  const { loadScoringConfig, createScoringService, createHttpBureau } = await import('@loan/scoring');
  const config = loadScoringConfig(baseEnv(ns, 'scoring', extra));
  const runtime = await runtimeOf(config);
  const bureau = createHttpBureau({
    baseUrl: config.BUREAU_BASE_URL,
    apiKey: config.BUREAU_API_KEY,
    timeoutMs: config.BUREAU_TIMEOUT,
    logger: runtime.logger,
  });
  const service = createScoringService({ runtime, config, bureau, clock });
  const { url } = await service.start();
  return { name: 'scoring', url, opsUrl: url, runtime, stop: () => service.stop() };
}

export async function startJanitor(
  ns: string,
  extra: Record<string, string> = {},
  clock: Clock = systemClock,
): Promise<Running> {
  const { loadJanitorConfig, createJanitorService } = await import('@loan/janitor');
  const config = loadJanitorConfig(baseEnv(ns, 'janitor', extra));
  const runtime = await runtimeOf(config);
  const service = createJanitorService({ runtime, config, clock });
  const { url } = await service.start();
  return { name: 'janitor', url, opsUrl: url, runtime, stop: () => service.stop() };
}

export async function startNotifier(
  ns: string,
  extra: Record<string, string> = {},
  clock: Clock = systemClock,
): Promise<Running> {
  const { loadNotifierConfig, createNotifierService } = await import('@loan/notifier');
  const config = loadNotifierConfig(baseEnv(ns, 'notifier', { ALLOW_PRIVATE_WEBHOOK_URLS: 'true', ...extra }));
  const runtime = await runtimeOf(config);
  const service = createNotifierService({ runtime, config, clock });
  const { url } = await service.start();
  return { name: 'notifier', url, opsUrl: url, runtime, stop: () => service.stop() };
}

/** A Kafka bus of the test itself, in the suite's namespace, to publish and read as the services would. */
export function testBus(ns: string, clientId: string) {
  return createKafkaBus({
    logger: createLogger(clientId, 'silent'),
    metrics: createMetrics(clientId),
    settings: {
      brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
      clientId,
      registryUrl: process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:8081/apis/ccompat/v7',
      partitions: 3,
      replicationFactor: 1,
      namespace: ns,
    },
  });
}

/**
 * Waits until the consumer group (`group` as given to consume()) has committed every message of
 * the topics up to where they end at the call: whatever was published before it has been
 * handled. Shows a message was not published twice once nothing can publish it any more,
 * where a fixed pause would guess.
 */
export async function consumedToEnd(
  bus: ReturnType<typeof testBus>,
  group: string,
  topics: string[],
  timeoutMs = 30_000,
): Promise<void> {
  const ends = await Promise.all(topics.map(async (topic) => ({ topic, partitions: await bus.topicOffsets(topic) })));
  await waitFor(
    async () => {
      for (const { topic, partitions } of ends) {
        const at = new Map((await bus.topicOffsets(topic, group)).map((p) => [p.partition, p.committed]));
        for (const p of partitions) {
          if (p.high > p.low && (at.get(p.partition) ?? -1) < p.high) return false;
        }
      }
      return true;
    },
    { what: `${group} to have handled ${topics.join(', ')} to their ends`, timeoutMs },
  );
}

/**
 * A lender's application initiated over real HTTP and linked in the sandbox (the salaried
 * persona), once the gateway shows it LINKED with its one account.
 */
export async function linkedApplication(gatewayUrl: string, lender: { apiKey: string }) {
  const started = await call(gatewayUrl, lender.apiKey, 'POST', '/api/applications/initiate', applicant());
  if (started.status !== 201) throw new Error(`initiate answered ${started.status}`);
  const app = started.body as { applicationId: string; applicantId: string; widgetUrl: string };
  const linked = await fetch(`${new URL(app.widgetUrl).origin}/sandbox/link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ widgetUrl: app.widgetUrl, persona: 'salaried' }),
  });
  if (linked.status !== 200) throw new Error(`the sandbox's link answered ${linked.status}`);
  const view = await waitFor(
    async () => {
      const v = await call(gatewayUrl, lender.apiKey, 'GET', `/api/applications/${app.applicationId}`);
      return v.body.status === 'LINKED' && v.body.accounts.length === 1 ? v.body : null;
    },
    { what: 'the application to be LINKED' },
  );
  return { ...app, accountId: view.accounts[0].accountId as string };
}

/**
 * A lender's application taken to COMPLETED over real HTTP and the real broker: initiated,
 * linked in the sandbox (the salaried persona), finalized, its account reported enriched as
 * enrichment would, analyzed, and scored with what `scored` gives for its applicant id (the
 * decision, and the repayment capacity if any) as scoring would report it.
 */
export async function decidedApplication(
  stack: { gatewayUrl: string; bus: ReturnType<typeof testBus>; applications: Running },
  lender: { apiKey: string; clientId: string },
  scored: (
    applicantId: string,
  ) => Pick<Extract<ScoringResult, { type: 'ApplicationScored' }>, 'decision' | 'repaymentCapacity'>,
) {
  const api = (method: string, path: string) => call(stack.gatewayUrl, lender.apiKey, method, path);
  const app = await linkedApplication(stack.gatewayUrl, lender);
  const finalized = await api('POST', `/api/applications/${app.applicationId}/finalize-linking`);
  if (finalized.status !== 200) throw new Error(`finalize-linking answered ${finalized.status}`);
  const ids = { clientId: lender.clientId, applicationId: app.applicationId, applicantId: app.applicantId };
  const { accountId } = app;
  await stack.bus.publish(Topics.enrichmentResults, [
    { key: app.applicationId, value: accountEnriched({ ...ids, accountId }) },
  ]);
  await waitFor(async () => (await api('POST', `/api/applications/${app.applicationId}/analyze`)).status === 200, {
    what: 'analyze to be accepted',
  });
  const stored = await stack.applications.runtime.db
    .model('Application')
    .findById(app.applicationId)
    .lean<{ analysis: { analysisId: string } }>();
  const result: ScoringResult = {
    ...ids,
    factId: randomUUID(),
    at: new Date().toISOString(),
    type: 'ApplicationScored',
    analysisId: stored!.analysis.analysisId,
    ...scored(app.applicantId),
  };
  await stack.bus.publish(Topics.scoringResults, [{ key: app.applicationId, value: result }]);
  await waitFor(async () => (await api('GET', `/api/applications/${app.applicationId}`)).body.status === 'COMPLETED', {
    what: 'the application to be COMPLETED',
  });
  return app;
}

/** An AccountEnriched result as the enrichment service reports it, with a small profile. */
export function accountEnriched(ids: {
  clientId: string;
  applicationId: string;
  applicantId: string;
  accountId: string;
}): EnrichmentResult {
  const { accountId } = ids;
  return {
    type: 'AccountEnriched',
    factId: randomUUID(),
    ...ids,
    providerAccountId: 'p',
    attempt: 1,
    at: new Date().toISOString(),
    profile: {
      accountId,
      providerAccountId: 'p',
      institution: 'GTBank',
      bankCode: '058',
      accountNumber: '0123456785',
      holderName: 'CHINEDU OKONKWO',
      bvnLast4: null,
      currency: 'NGN',
      balance: 1000,
      income: {
        employer: null,
        monthlyIncome: 0,
        annualIncome: 0,
        totalIncome: 0,
        regularMonthlyAverage: 0,
        irregularMonthlyAverage: 0,
        streams: [],
        periodMonths: 6,
      },
      insights: {
        startDate: '2026-01-01',
        endDate: '2026-06-30',
        transactionDays: 180,
        transactionCount: 10,
        openingBalance: 0,
        closingBalance: 0,
        averageBalance: 0,
        debitToCreditRatio: 1,
        overallCredits: 0,
        overallDebits: 0,
        totalRecurringCredits: 0,
        totalRecurringDebits: 0,
        redFlags: {
          immediateLargeWithdrawalPostPayday: false,
          identicalDebitVsCredit: false,
          cashDepositsLargerThanSalary: false,
        },
      },
      months: [],
      enrichedAt: new Date().toISOString(),
    },
  };
}

/**
 * The whole system as a lender meets it: a webhook receiver, every service, the sandbox
 * provider and bureau, and a client account whose webhooks go to the receiver. `timings` go
 * to every service; `sandbox` to the sandbox.
 */
/** A loopback port free right now, for a service the gateway must know before it starts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startWholeStack(
  ns: string,
  timings: Record<string, string>,
  sandboxEnv: Record<string, string> = {},
) {
  const receiver = await startReceiver();
  const services: Running[] = [];
  const notifier = await startNotifier(ns, timings);
  services.push(notifier);
  // Scoring needs the sandbox, which needs the gateway: the gateway is told scoring's port ahead.
  const scoringPort = await freePort();
  const gateway = await startGateway(ns, {
    ...timings,
    NOTIFIER_URL: notifier.url,
    SCORING_URL: `http://127.0.0.1:${scoringPort}`,
  });
  services.push(gateway);
  const sandbox = await startSandbox(`${gateway.url}/provider/webhooks/mono`, {
    SANDBOX_JOB_DELAY: '200ms',
    ...sandboxEnv,
  });
  const shared = { ...timings, PROVIDER_BASE_URL: sandbox.url, BUREAU_BASE_URL: sandbox.url, BUREAU_TIMEOUT: '2s' };
  services.push(
    ...(await Promise.all([
      startApplications(ns, shared),
      startEnrichment(ns, shared),
      startScoring(ns, { ...shared, PROFILE_WAIT: '3s', HTTP_PORT: String(scoringPort) }),
      startJanitor(ns, shared),
    ])),
  );
  const lender = await createClient(gateway.url, { webhookUrl: `${receiver.url}/hooks` });
  return {
    services,
    sandbox,
    receiver,
    lender,
    gatewayUrl: gateway.url,
    async stop() {
      for (const s of services.reverse()) await s.stop();
      await sandbox.stop();
      await receiver.close();
    },
  };
}

/**
 * The console as a browser holds it, over plain HTTP: its cookies (the session's and the
 * sign-in form's) and the page's CSRF token, sent back on every change with this origin.
 */
export function consoleBrowser(baseUrl: () => string) {
  const jar = new Map<string, string>();
  let csrf = '';
  async function send(method: string, path: string, body?: unknown, contentType = 'application/json') {
    const base = baseUrl();
    const headers: Record<string, string> = { origin: base, cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
    if (method !== 'GET') headers['x-csrf-token'] = csrf;
    if (body !== undefined) headers['content-type'] = contentType;
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const res = await fetch(`${base}${path}`, { method, headers, body: payload });
    for (const cookie of res.headers.getSetCookie()) {
      const [name, value] = cookie.split(';')[0]!.split('=');
      if (value) jar.set(name!, value);
      else jar.delete(name!);
    }
    const text = await res.text();
    const json = text ? JSON.parse(text) : null;
    if (json?.csrfToken) csrf = json.csrfToken;
    return { status: res.status, body: json };
  }
  return {
    send,
    cookie: () => jar.get('console_session') ?? '',
    /** Loads the page's session state (a second time when the first said a dead session had ended). */
    async open() {
      const first = await send('GET', '/console/session');
      if (first.status === 401) return send('GET', '/console/session');
      return first;
    },
  };
}

/**
 * The registry, with the suite's subjects in an artifact group of their own (Apicurio's
 * `X-Registry-GroupId`): a loopback proxy that adds the header. For a suite whose schemas differ
 * from those other branches register on a shared registry at the same time; its services and
 * its test bus take the proxy's URL as SCHEMA_REGISTRY_URL.
 */
export async function isolatedRegistry(group: string): Promise<{ url: string; close: () => Promise<void> }> {
  const target = new URL(process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:8081/apis/ccompat/v7');
  const server = createServer((req, res) => {
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: `${target.pathname.replace(/\/$/, '')}${req.url ?? ''}`,
        headers: { ...req.headers, host: target.host, 'x-registry-groupid': group },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
