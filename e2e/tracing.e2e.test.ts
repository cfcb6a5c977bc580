import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { waitFor } from '../testing/helpers';
import { applicant, baseEnv, call, createClient, startReceiver, startSandbox, suiteNamespace } from '../testing/stack';

/**
 * Traces as an SRE reads them: every service runs as a process of its own from its start
 * script (tracing is set up there, before anything else loads), exporting OTLP/HTTP (JSON) to a
 * receiver in this test. One application goes through initiate, a link in the sandbox,
 * finalize, analyze and the decision's webhook; each lender request is one trace that reaches
 * every service it caused work in, each Kafka hop a CONSUMER span child of its PRODUCER span,
 * each webhook attempt (a retry too) a span of its own, and the services' log lines carry the ids.
 */
const ROOT = path.resolve(__dirname, '..');
const SERVICES = ['gateway', 'applications', 'enrichment', 'scoring', 'notifier', 'janitor'] as const;
type Service = (typeof SERVICES)[number];
const ANALYTICS_KEY = 'tracing-test-analytics-key';
const NO_LINK_TTL_S = 15;
const REGISTRY = process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:8081/apis/ccompat/v7';

// OTLP span kinds.
const INTERNAL = 1;
const SERVER = 2;
const PRODUCER = 4;
const CONSUMER = 5;

interface ExportedSpan {
  service: string;
  instance: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
}

/** OTLP/JSON ids are hex; a receiver may also be sent base64. */
const hexId = (id: unknown): string => {
  const text = typeof id === 'string' ? id : '';
  return /^[0-9a-f]*$/.test(text) ? text : Buffer.from(text, 'base64').toString('hex');
};

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
const valueOf = (v: AnyValue | undefined) =>
  v?.stringValue ?? (v?.intValue !== undefined ? Number(v.intValue) : (v?.boolValue ?? v?.doubleValue));
const attributesOf = (list: { key: string; value: AnyValue }[] | undefined) =>
  Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));

/** An OTLP/HTTP receiver of traces (JSON), keeping every span it is sent. */
async function startOtlpReceiver() {
  const spans: ExportedSpan[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.statusCode = 404;
        return res.end();
      }
      let raw = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      const body = JSON.parse(raw.toString('utf8')) as { resourceSpans?: any[] };
      for (const resourceSpans of body.resourceSpans ?? []) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              service: String(resource['service.name']),
              instance: String(resource['service.instance.id'] ?? resource['process.pid']),
              traceId: hexId(span.traceId),
              spanId: hexId(span.spanId),
              parentSpanId: hexId(span.parentSpanId ?? ''),
              name: span.name,
              kind: span.kind,
              attributes: attributesOf(span.attributes),
              links: (span.links ?? []).map((l: { traceId: string; spanId: string }) => ({
                traceId: hexId(l.traceId),
                spanId: hexId(l.spanId),
              })),
            });
          }
        }
      }
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The schema registry behind a switch: while `refusing`, registering the schema of the
 * application facts or of the public events is answered 503 (a publication of those then
 * fails, its outbox entry stays); everything else is passed through.
 */
async function startRegistryProxy() {
  const target = new URL(REGISTRY);
  const state = { refusing: false };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '/';
      if (state.refusing && /loan\.(applications\.facts|events\.v1)-value/.test(url)) {
        res.statusCode = 503;
        res.setHeader('content-type', 'application/json');
        return res.end('{"error_code":50301,"message":"unavailable"}');
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k)),
      ) as Record<string, string>;
      void fetch(`${target.origin}${url}`, {
        method: req.method,
        headers,
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      })
        .then(async (answer) => {
          res.statusCode = answer.status;
          const type = answer.headers.get('content-type');
          if (type) res.setHeader('content-type', type);
          res.end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch(() => {
          res.statusCode = 502;
          res.end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${target.pathname}`,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port below the kernel's ephemeral range, free now (see deploy/wiring.e2e.test.ts). */
const taken = new Set<number>();
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (taken.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const probe = createTcpServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (!free) continue;
    taken.add(port);
    return port;
  }
}

interface Proc {
  name: Service;
  child: ChildProcess;
  lines: string[];
  exited: Promise<unknown>;
}

const ns = suiteNamespace();
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
let registry: Awaited<ReturnType<typeof startRegistryProxy>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let sandbox: Awaited<ReturnType<typeof startSandbox>>;
const ports = {} as Record<Service, number> & { public: number };
const procs = new Map<Service, Proc>();
/** Log lines of every process this suite ran (killed ones included). */
const allLines: string[] = [];
let gatewayUrl: string;
let lender: { clientId: string; apiKey: string };

function envOf(name: Service, extra: Record<string, string> = {}): Record<string, string> {
  const local = (service: Service) => `http://127.0.0.1:${ports[service]}`;
  const shared = {
    LOG_LEVEL: 'info',
    HTTP_PORT: String(ports[name]),
    ANALYTICS_KEY,
    PROVIDER_BASE_URL: sandbox.url,
    BUREAU_BASE_URL: sandbox.url,
    BUREAU_TIMEOUT: '2s',
    PROFILE_WAIT: '3s',
    RATE_LIMITS_ENABLED: 'false',
    WEBHOOK_RETRY_BASE: '300ms',
    // Long enough for the first test's applicant to link, short enough to see a deadline fire.
    NO_LINK_TTL: `${NO_LINK_TTL_S}s`,
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_TRACES_SAMPLER: 'always_on',
  };
  const own: Record<string, string> =
    name === 'gateway'
      ? { GATEWAY_PORT: String(ports.public), NOTIFIER_URL: local('notifier'), SCORING_URL: local('scoring') }
      : {};
  const env = baseEnv(ns, name, { ...shared, ...own, ...extra });
  delete env.OTEL_SERVICE_NAME;
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

function spawnService(name: Service, extra: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, [path.join(ROOT, 'services', name, 'dist/start.js')], {
    cwd: ROOT,
    env: envOf(name, extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let pending = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const complete = pending.split('\n');
    pending = complete.pop() ?? '';
    lines.push(...complete);
    allLines.push(...complete);
  });
  child.stderr!.on('data', (chunk: Buffer) => lines.push(chunk.toString('utf8')));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  const proc = { name, child, lines, exited };
  procs.set(name, proc);
  return proc;
}

async function ready(proc: Proc) {
  await waitFor(
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited:\n${proc.lines.slice(-30).join('\n')}`);
      return (await fetch(`http://127.0.0.1:${ports[proc.name]}/readyz`)).ok;
    },
    { timeoutMs: 120_000, intervalMs: 250, what: `${proc.name} ready` },
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n--- ${proc.name} ---\n${proc.lines.slice(-30).join('\n')}`);
  });
}

async function stop(proc: Proc, signal: NodeJS.Signals = 'SIGTERM') {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), 15_000);
  proc.child.kill(signal);
  await proc.exited;
  clearTimeout(timer);
}

beforeAll(async () => {
  // The processes run the build: bring it up to date with the sources under test.
  execFileSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-b', ...SERVICES.map((s) => `services/${s}`)],
    { cwd: ROOT, stdio: 'inherit' },
  );
  otlp = await startOtlpReceiver();
  registry = await startRegistryProxy();
  // The lender's receiver refuses each decision's first delivery: it is delivered by a retry.
  const refused = new Set<string>();
  receiver = await startReceiver((_req, body) => {
    const event = JSON.parse(body.toString('utf8') || '{}') as { id?: string; event?: string };
    if (event.event !== 'application.decision' || !event.id || refused.has(event.id)) return 200;
    refused.add(event.id);
    return 503;
  });
  for (const name of SERVICES) ports[name] = await freePort();
  ports.public = await freePort();
  gatewayUrl = `http://127.0.0.1:${ports.public}`;
  sandbox = await startSandbox(`${gatewayUrl}/provider/webhooks/mono`, { SANDBOX_JOB_DELAY: '200ms' });
  for (const name of SERVICES) spawnService(name);
  for (const proc of procs.values()) await ready(proc);
  lender = await createClient(gatewayUrl, { webhookUrl: `${receiver.url}/hooks` });
}, 300_000);

afterAll(async () => {
  await Promise.all([...procs.values()].map((p) => stop(p)));
  await sandbox?.stop();
  await receiver?.close();
  await registry?.close();
  await otlp?.close();
});

const api = (method: string, p: string, body?: unknown) => call(gatewayUrl, lender.apiKey, method, p, body);
const webhooks = (applicationId: string, name: string) =>
  receiver.received.filter((r) => r.body?.data?.applicationId === applicationId && r.body?.event === name);
const pseudonym = (clientId: string) =>
  createHmac('sha256', ANALYTICS_KEY).update(`lender:${clientId}`).digest('base64url');

const pathOf = (span: ExportedSpan) =>
  String(span.attributes['url.path'] ?? span.attributes['http.target'] ?? '').split('?')[0];
/** The gateway's SERVER span of a lender's request. */
const requestSpan = (method: string, urlPath: string) =>
  otlp.spans.find(
    (s) =>
      s.service === 'gateway' &&
      s.kind === SERVER &&
      pathOf(s) === urlPath &&
      (s.attributes['http.request.method'] ?? s.attributes['http.method']) === method,
  );
const traceOf = (traceId: string) => otlp.spans.filter((s) => s.traceId === traceId);
/** The traces of every gateway request exported so far, for telling a new request's apart. */
const gatewayTraces = () =>
  new Set(otlp.spans.filter((s) => s.service === 'gateway' && s.kind === SERVER).map((s) => s.traceId));
/** The span of an initiate request in a trace that is not among `earlier`. */
const newInitiateSpan = (earlier: Set<string>) =>
  waitFor(
    () =>
      otlp.spans.find(
        (s) =>
          s.service === 'gateway' &&
          s.kind === SERVER &&
          pathOf(s) === '/api/applications/initiate' &&
          !earlier.has(s.traceId),
      ),
    { what: 'the initiate request span' },
  );
const servicesOf = (spans: ExportedSpan[]) => [...new Set(spans.map((s) => s.service))].sort();

/** Every CONSUMER span of the trace has a PRODUCER span of the same topic, in the same trace, as its parent. */
function expectKafkaHopsParented(spans: ExportedSpan[]) {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const consumers = spans.filter((s) => s.kind === CONSUMER);
  expect(consumers.length).toBeGreaterThan(0);
  for (const consumer of consumers) {
    const parent = byId.get(consumer.parentSpanId);
    expect({
      consumer: consumer.name,
      parent: parent && { kind: parent.kind, topic: parent.attributes['messaging.destination.name'] },
    }).toEqual({
      consumer: consumer.name,
      parent: { kind: PRODUCER, topic: consumer.attributes['messaging.destination.name'] },
    });
  }
}

/** Waits until the trace holds spans of each of `services` and what they cause has been exported. */
const traceReaching = (traceId: string, services: string[], more: (spans: ExportedSpan[]) => boolean = () => true) =>
  waitFor(
    () => {
      const spans = traceOf(traceId);
      return services.every((s) => spans.some((x) => x.service === s)) && more(spans) && spans;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: `trace ${traceId} reaching ${services.join(', ')}` },
  ).catch((error: Error) => {
    throw new Error(
      `${error.message}; it reached ${servicesOf(traceOf(traceId)).join(', ')}: ${traceOf(traceId)
        .map((s) => `${s.service}:${s.name}`)
        .join(' | ')}`,
    );
  });

/** Log lines (JSON) of the processes. */
const logs = () =>
  allLines.flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });

let applicationId: string;

it('when a lender takes an application from initiate to a decision, then each request is one trace through every service it reached, Kafka hops parented, each webhook attempt (the retry included) a span and the logs carrying the ids', async () => {
  const person = applicant({ bvn: '22200000001' });
  const start = await api('POST', '/api/applications/initiate', person);
  expect(start.status).toBe(201);
  applicationId = start.body.applicationId;
  const { widgetUrl } = start.body;
  const linked = await fetch(`${new URL(widgetUrl).origin}/sandbox/link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ widgetUrl, persona: 'salaried' }),
  });
  expect(linked.status).toBe(200);
  await waitFor(() => webhooks(applicationId, 'account.enrichment_ready')[0], {
    timeoutMs: 60_000,
    what: 'account.enrichment_ready',
  });
  // The webhook is enrichment's; applications records the enrichment from its own consumer, and
  // may do so after the lender has the webhook. Finalize once the application shows the account
  // enriched, so that the finalize request is the one that makes it ready for analysis (its trace
  // then reaches the notifier's delivery of application.ready_for_analysis).
  await waitFor(
    async () => {
      const view = await api('GET', `/api/applications/${applicationId}`);
      const accounts = (view.body.accounts ?? []) as { enrichmentStatus: string }[];
      return accounts.length > 0 && accounts.every((a) => a.enrichmentStatus === 'READY');
    },
    { timeoutMs: 30_000, what: 'the application showing its account enriched' },
  );
  expect((await api('POST', `/api/applications/${applicationId}/finalize-linking`)).status).toBe(200);
  await waitFor(() => webhooks(applicationId, 'application.ready_for_analysis')[0], {
    timeoutMs: 30_000,
    what: 'ready_for_analysis',
  });
  expect((await api('POST', `/api/applications/${applicationId}/analyze`)).status).toBe(200);
  const [, decision] = await waitFor(
    () => webhooks(applicationId, 'application.decision').length > 1 && webhooks(applicationId, 'application.decision'),
    {
      timeoutMs: 60_000,
      what: 'application.decision',
    },
  );
  expect(decision!.body.data.status).toBe('COMPLETED');

  // Initiate: the gateway's command, carried out by applications, whose fact arms the janitor's deadline.
  const initiate = await waitFor(() => requestSpan('POST', '/api/applications/initiate'), {
    what: 'the initiate request span',
  });
  // The route template, which the dashboard's latency panel searches slow requests by.
  expect(initiate.attributes['http.route']).toBe('/api/applications/initiate');
  expect(initiate.name).toBe('POST /api/applications/initiate');
  const initiated = await traceReaching(initiate.traceId, ['gateway', 'applications', 'janitor']);
  expectKafkaHopsParented(initiated);

  // Finalize: the command, the facts, and the ready_for_analysis event delivered by the notifier.
  const finalize = await waitFor(() => requestSpan('POST', `/api/applications/${applicationId}/finalize-linking`), {
    what: 'the finalize request span',
  });
  const finalized = await traceReaching(finalize.traceId, ['gateway', 'applications', 'notifier']);
  expectKafkaHopsParented(finalized);

  // Analyze: through scoring back to applications, to the decision's webhook attempt.
  const analyze = await waitFor(() => requestSpan('POST', `/api/applications/${applicationId}/analyze`), {
    what: 'the analyze request span',
  });
  const attemptsOfDecision = (spans: ExportedSpan[]) =>
    spans
      .filter((s) => s.service === 'notifier' && s.name === 'webhook attempt application.decision')
      .sort((a, b) => Number(a.attributes['loan.delivery_attempt']) - Number(b.attributes['loan.delivery_attempt']));
  const analyzed = await traceReaching(
    analyze.traceId,
    ['gateway', 'applications', 'scoring', 'janitor', 'notifier'],
    (spans) => attemptsOfDecision(spans).length === 2,
  );
  expectKafkaHopsParented(analyzed);
  // Scoring's handler is the consumer of the analysis fact; its result goes back to applications.
  const topics = (service: string) =>
    analyzed
      .filter((s) => s.service === service && s.kind === CONSUMER)
      .map((s) => s.attributes['messaging.destination.name']);
  expect(topics('scoring')).toContain('loan.applications.facts');
  expect(topics('applications')).toEqual(
    expect.arrayContaining(['loan.applications.commands', 'loan.scoring.results']),
  );
  expect(topics('notifier')).toContain('loan.events.v1');

  // The gateway's handling of the request names the application and the lender's pseudonym.
  expect(analyzed.filter((s) => s.service === 'gateway').map((s) => s.attributes)).toContainEqual(
    expect.objectContaining({ 'loan.application_id': applicationId, 'loan.client_id': pseudonym(lender.clientId) }),
  );

  // Each webhook attempt, the retry included, is a span of its own, child of the notifier's
  // handling of the event, with the call to the lender's receiver inside it.
  const [first, retry] = attemptsOfDecision(analyzed);
  const common = { 'loan.application_id': applicationId, 'loan.client_id': pseudonym(lender.clientId) };
  expect(first!.attributes).toMatchObject({
    ...common,
    'loan.delivery_attempt': 1,
    'loan.delivery_outcome': 'http_error',
  });
  expect(retry!.attributes).toMatchObject({
    ...common,
    'loan.delivery_attempt': 2,
    'loan.delivery_outcome': 'delivered',
  });
  const byId = new Map(analyzed.map((s) => [s.spanId, s]));
  for (const attempt of [first!, retry!]) {
    const parentOfAttempt = byId.get(attempt.parentSpanId);
    expect(parentOfAttempt).toMatchObject({ service: 'notifier', kind: CONSUMER });
    expect(parentOfAttempt!.attributes['messaging.destination.name']).toBe('loan.events.v1');
    expect(analyzed.some((s) => s.parentSpanId === attempt.spanId)).toBe(true);
  }

  // Spans name the application and the lender's pseudonym, never the applicant.
  const kafkaSpans = [...initiated, ...finalized, ...analyzed].filter(
    (s) => s.kind === CONSUMER || s.kind === PRODUCER,
  );
  const ofRecords = kafkaSpans.filter((s) =>
    /\.(facts|results|events\.v1)$/.test(String(s.attributes['messaging.destination.name'])),
  );
  expect(ofRecords.length).toBeGreaterThan(0);
  for (const span of ofRecords) {
    expect(span.attributes).toMatchObject({
      'loan.application_id': applicationId,
      'loan.client_id': pseudonym(lender.clientId),
    });
  }
  for (const span of kafkaSpans) expect(span.attributes['loan.application_id'] ?? applicationId).toBe(applicationId);
  const everything = JSON.stringify([...initiated, ...finalized, ...analyzed]);
  for (const personal of [person.email, person.phone, person.firstName, person.lastName, person.bvn, lender.clientId]) {
    expect(everything).not.toContain(String(personal));
  }

  // Log lines written inside spans carry their ids: scoring's decision is in the analysis's
  // trace, and every line with ids names a span its service exported in that trace.
  const scored = await waitFor(
    () => logs().find((l) => l.msg === 'application scored' && l.applicationId === applicationId),
    { what: 'the scoring log line' },
  );
  expect(scored).toMatchObject({ service: 'scoring', trace_id: analyze.traceId });
  expect(analyzed.find((s) => s.spanId === scored.span_id)).toMatchObject({ service: 'scoring' });
  const traced = logs().filter((l) => l.trace_id !== undefined);
  expect(traced.length).toBeGreaterThan(1);
  for (const line of traced) {
    const span = otlp.spans.find((s) => s.traceId === line.trace_id && s.spanId === line.span_id);
    expect({ msg: line.msg, service: span?.service }).toEqual({ msg: line.msg, service: line.service });
  }
});

it('when applications dies between its write and the outbox publication, then the record its sweep publishes after the restart still continues the request trace', async () => {
  const earlier = gatewayTraces();
  // Applications whose publications of facts and events fail (the registry refuses their schemas).
  const healthy = procs.get('applications')!;
  await stop(healthy, 'SIGKILL');
  registry.state.refusing = true;
  const failing = spawnService('applications', { SCHEMA_REGISTRY_URL: registry.url });
  await ready(failing);

  const start = await api('POST', '/api/applications/initiate', applicant());
  expect(start.status).toBe(201);
  const request = await newInitiateSpan(earlier);
  // Its command was carried out (the application written, its fact in the outbox) and the publication failed.
  const handled = await waitFor(
    () =>
      traceOf(request.traceId).find(
        (s) =>
          s.service === 'applications' &&
          s.kind === CONSUMER &&
          s.attributes['messaging.destination.name'] === 'loan.applications.commands',
      ),
    { timeoutMs: 60_000, what: 'the command handled by the failing applications' },
  );
  await waitFor(() => failing.lines.some((l) => l.includes('outbox publication failed')), {
    timeoutMs: 60_000,
    what: 'the failed publication',
  });
  await stop(failing, 'SIGKILL');
  expect(traceOf(request.traceId).some((s) => s.service === 'janitor')).toBe(false);

  registry.state.refusing = false;
  const restarted = spawnService('applications');
  await ready(restarted);

  // The sweep of the restarted process publishes the fact; the janitor's handling of it is in the request's trace.
  const spans = await traceReaching(request.traceId, ['janitor'], (all) =>
    all.some(
      (s) =>
        s.service === 'janitor' &&
        s.kind === CONSUMER &&
        s.attributes['messaging.destination.name'] === 'loan.applications.facts',
    ),
  );
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const consumed = spans.find(
    (s) => s.service === 'janitor' && s.attributes['messaging.destination.name'] === 'loan.applications.facts',
  )!;
  const published = byId.get(consumed.parentSpanId)!;
  expect(published).toMatchObject({ service: 'applications', kind: PRODUCER });
  expect(published.attributes['messaging.destination.name']).toBe('loan.applications.facts');
  // Published by the restarted process, as the child of the dead one's handling of the command.
  expect(published.instance).not.toBe(handled.instance);
  expect(published.parentSpanId).toBe(handled.spanId);
  expect(published.attributes['loan.application_id']).toBe(start.body.applicationId);
});

it(
  'when a deadline armed by a request fires, then the firing starts a trace of its own, linked to the one that armed it, and its record continues that new trace',
  async () => {
    const earlier = gatewayTraces();
    const start = await api('POST', '/api/applications/initiate', applicant());
    expect(start.status).toBe(201);
    const id = start.body.applicationId as string;
    const request = await newInitiateSpan(earlier);
    // The janitor's handling of the fact that armed the no_link deadline, in the request's trace.
    const arming = (
      await traceReaching(request.traceId, ['janitor'], (all) =>
        all.some((s) => s.service === 'janitor' && s.kind === CONSUMER),
      )
    ).find((s) => s.service === 'janitor' && s.kind === CONSUMER)!;

    const firing = await waitFor(
      () =>
        otlp.spans.find(
          (s) =>
            s.service === 'janitor' &&
            s.kind === INTERNAL &&
            s.name === 'deadline no_link' &&
            s.attributes['loan.application_id'] === id,
        ),
      { timeoutMs: (NO_LINK_TTL_S + 60) * 1000, intervalMs: 250, what: 'the no_link deadline firing' },
    );
    expect(firing.traceId).not.toBe(request.traceId);
    expect(firing.parentSpanId).toBe('');
    expect(firing.links).toEqual([{ traceId: request.traceId, spanId: arming.spanId }]);
    expect(firing.attributes['loan.deadline_fired']).toBe(true);
    // Its DeadlinePassed is published and handled by applications in the firing's trace.
    const spans = await traceReaching(firing.traceId, ['janitor', 'applications'], (all) =>
      all.some(
        (s) =>
          s.service === 'applications' &&
          s.kind === CONSUMER &&
          s.attributes['messaging.destination.name'] === 'loan.janitor.deadlines',
      ),
    );
    expectKafkaHopsParented(spans);
  },
  (NO_LINK_TTL_S + 120) * 1000,
);

it("when a lender searches its applications by the applicant's name, e-mail, phone or BVN, then the request's span records the query with q redacted, and no span of any service holds the applicant's identity", async () => {
  const person = applicant({ bvn: '22200000001' });
  for (const q of [`${person.lastName} ${person.firstName}`, person.email, person.phone, person.bvn]) {
    const found = await api('GET', `/api/applications?q=${encodeURIComponent(q)}&limit=5`);
    expect({ q, status: found.status }).toEqual({ q, status: 200 });
  }
  const searches = await waitFor(
    () => {
      const spans = otlp.spans.filter(
        (s) => s.service === 'gateway' && s.kind === SERVER && pathOf(s) === '/api/applications',
      );
      return spans.length >= 4 && spans;
    },
    { what: 'the four list request spans' },
  );
  expect(new Set(searches.map((s) => s.attributes['url.query']))).toEqual(new Set(['q=REDACTED&limit=5']));
  const identity = [person.firstName, person.lastName, person.email, person.phone, person.bvn].flatMap((v) => [
    String(v),
    String(v).toLowerCase(),
  ]);
  const holding = otlp.spans.filter((s) => identity.some((v) => JSON.stringify(s.attributes).includes(v)));
  expect(holding.map((s) => `${s.service} ${s.name}`)).toEqual([]);
});
