import { randomUUID } from 'node:crypto';
import express from 'express';
import { Counter } from 'prom-client';
import {
  Topics,
  type ApplicationFact,
  type EnrichedAccount,
  type DeadlinePassed,
  type EnrichmentResult,
  type ProviderCallback,
  type PublicEventRecord,
} from '@loan/contracts';
import { createServiceRuntime, ensureContractTopics, listen, systemClock, type ServiceRuntime } from '@loan/runtime';
import { createSandbox, loadConfig as loadSandboxConfig, type PersonaId, type Sandbox } from '@loan/sandbox';
import { testConfig, testStamp, uniqueName, waitFor } from './helpers';
// The gateway's own provider-webhook route: the sandbox's webhooks become ProviderCallback
// messages exactly as in production.
import { providerWebhookRoutes } from '../services/gateway/src/entry-points/http/providerWebhookRoutes';
import { configShape, createEnrichmentService, type EnrichmentConfig, type EnrichmentService } from '@loan/enrichment';

const WEBHOOK_SECRET = 'enrichment-test-webhook-secret';
const PROVIDER_KEY = 'test_sk_enrichment';

type Linked = Extract<ApplicationFact, { type: 'AccountLinked' }>;

/** What the tests read of a stored enrichment job. */
export interface JobDocument {
  _id: string;
  status: string;
  attempt: number;
  since: string;
  failures: number;
  lastError: string | null;
  accountNumber: string | null;
  scrubbedAt: Date | null;
  closedAt: Date | null;
  institution: string;
  rev: number;
  outboxPending: boolean;
  income: { status: string; result: unknown };
  insights: { status: string; jobId: string | null; result: unknown };
}

/** What the tests read of the stored bank data of an account. */
export interface BankDataDocument {
  _id: string;
  applicationId: string;
  applicantId: string;
  attempt: number;
  profile: EnrichedAccount;
}

export interface ReceivedWebhook {
  event: string;
  accountId: string | null;
  raw: Buffer;
}

export interface Harness {
  namespace: string;
  dbName: string;
  sandbox: Sandbox;
  sandboxUrl: string;
  receiverUrl: string;
  driver: ServiceRuntime;
  events: PublicEventRecord[];
  results: EnrichmentResult[];
  webhooks: ReceivedWebhook[];
  /** When the broker took each collected message (CreateTime), by event id or fact id. */
  publishedAt: Map<string, number>;
  startEnrichment(overrides?: Record<string, string>): Promise<EnrichmentService>;
  /** Database commands a service started here has sent so far, by `<command> <collection>`. */
  databaseCommands(service: EnrichmentService): Promise<Map<string, number>>;
  /** Opens an application at the sandbox and links one account of a persona into it. */
  linkAccount(input?: {
    persona?: PersonaId;
    applicationId?: string;
    applicantId?: string;
    widgetUrl?: string;
    /** False: only link at the sandbox, and return the fact without publishing it. */
    publish?: boolean;
  }): Promise<Linked & { widgetUrl: string }>;
  publishFact(fact: ApplicationFact): Promise<void>;
  publishDeadline(deadline: DeadlinePassed): Promise<void>;
  publishCallback(callback: ProviderCallback): Promise<void>;
  /** Posts a webhook the sandbox sent once more (the provider retrying). */
  redeliver(webhook: ReceivedWebhook): Promise<void>;
  job(accountId: string): Promise<JobDocument | null>;
  bankData(query: Record<string, unknown>): Promise<BankDataDocument[]>;
  eventsOf(name: string, accountId: string): PublicEventRecord[];
  resultsOf(type: EnrichmentResult['type'], accountId: string): EnrichmentResult[];
  /** Every message on the topics the service consumes has been handled, and no work is running. */
  settled(service: EnrichmentService): Promise<void>;
  /** Waits for both what an enriched account publishes: the public event and the result (sent one after the other). */
  enriched(accountId: string, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Everything an enrichment suite runs against: the real broker, registry and database under
 * a namespace and database of its own, the sandbox provider in-process, the gateway's webhook
 * route in front of the bus, and collectors of what the service publishes.
 */
export async function startHarness(options: { jobDelay?: string } = {}): Promise<Harness> {
  const namespace = `${testStamp()}.`;
  const dbName = uniqueName('enrichment_test').replace(/-/g, '_');
  const driver = await createServiceRuntime(
    testConfig('enrichment-test-driver', { KAFKA_TOPIC_NAMESPACE: namespace, MONGO_DB: dbName }),
  );
  // A broker busy with other suites may answer topic creation with a transient metadata error.
  await waitFor(() => ensureContractTopics(driver.bus).then(() => true), {
    what: 'the contract topics',
    timeoutMs: 30_000,
    intervalMs: 500,
  });

  const webhooks: ReceivedWebhook[] = [];
  const app = express();
  app.use(
    express.json({
      verify: (req, _res, buf) => {
        (req as unknown as { rawBody: Buffer }).rawBody = buf;
      },
    }),
  );
  app.use('/provider/webhooks/mono', (req, _res, next) => {
    const body = req.body as { event?: string; data?: Record<string, unknown> };
    const data = body.data ?? {};
    const account = data.account;
    const accountId =
      typeof account === 'string'
        ? account
        : typeof data.id === 'string'
          ? data.id
          : ((account as { _id?: string })?._id ?? null);
    webhooks.push({ event: String(body.event), accountId, raw: (req as unknown as { rawBody: Buffer }).rawBody });
    next();
  });
  app.use(
    '/provider/webhooks',
    providerWebhookRoutes({
      bus: driver.bus,
      secret: WEBHOOK_SECRET,
      // The sandbox posts to the deployment-wide route; no client has a secret of its own here.
      clients: { get: async () => null },
      sealer: driver.sealer,
      clock: systemClock,
      logger: driver.logger,
      received: new Counter({
        name: 'test_provider_webhooks_total',
        help: 'webhooks',
        labelNames: ['outcome'],
        registers: [],
      }),
    }),
  );
  const receiver = await listen(app, '127.0.0.1', 0);

  const sandbox = createSandbox(
    loadSandboxConfig({
      SANDBOX_PORT: '0',
      SANDBOX_HOST: '127.0.0.1',
      PROVIDER_WEBHOOK_URL: `${receiver.url}/provider/webhooks/mono`,
      PROVIDER_WEBHOOK_SECRET: WEBHOOK_SECRET,
      SANDBOX_JOB_DELAY: options.jobDelay ?? '200ms',
      SANDBOX_WEBHOOK_RETRY_BASE: '100ms',
      SANDBOX_LOG_LEVEL: 'silent',
    }),
  );
  const { url: sandboxUrl } = await sandbox.start();

  const events: PublicEventRecord[] = [];
  const results: EnrichmentResult[] = [];
  const publishedAt = new Map<string, number>();
  await driver.bus.consume({
    groupId: uniqueName('collector'),
    topics: [Topics.events, Topics.enrichmentResults],
    handle: async (message) => {
      if (message.topic === Topics.events) {
        const event = message.value as PublicEventRecord;
        events.push(event);
        publishedAt.set(event.id, Number(message.timestamp));
      } else {
        const result = message.value as EnrichmentResult;
        results.push(result);
        publishedAt.set(result.factId, Number(message.timestamp));
      }
    },
  });

  const services: EnrichmentService[] = [];
  const runtimes = new Map<EnrichmentService, ServiceRuntime>();
  const serviceConfig = (overrides: Record<string, string>) =>
    testConfig<EnrichmentConfig>(
      'enrichment',
      {
        KAFKA_TOPIC_NAMESPACE: namespace,
        MONGO_DB: dbName,
        PROVIDER_BASE_URL: sandboxUrl,
        PROVIDER_TIMEOUT: '5s',
        PROVIDER_RETRIES: '1',
        PROVIDER_RETRY_BASE: '50ms',
        PROVIDER_BREAKER_RESET: '1s',
        ENRICHMENT_POLL_INTERVAL: '250ms',
        ENRICHMENT_POLL_AFTER: '1500ms',
        ENRICHMENT_RETRY_BASE: '200ms',
        ENRICHMENT_RETRY_MAX: '1s',
        ENRICHMENT_LEASE: '2s',
        ...overrides,
      },
      configShape,
    );

  const jobs = () => driver.db.collection('enrichment_jobs');

  const harness: Harness = {
    namespace,
    dbName,
    sandbox,
    sandboxUrl,
    receiverUrl: receiver.url,
    driver,
    events,
    results,
    webhooks,
    publishedAt,

    async startEnrichment(overrides = {}) {
      const config = serviceConfig(overrides);
      const runtime = await createServiceRuntime(config);
      const service = createEnrichmentService({ runtime, config, clock: systemClock });
      await service.start();
      services.push(service);
      runtimes.set(service, runtime);
      return service;
    },

    async databaseCommands(service) {
      const counted = (await runtimes.get(service)!.metrics.databaseCommands.get()).values;
      return new Map(counted.map((v) => [`${v.labels.command} ${v.labels.collection}`, v.value]));
    },

    async linkAccount(input = {}) {
      const applicationId = input.applicationId ?? randomUUID();
      const applicantId = input.applicantId ?? randomUUID();
      let widgetUrl = input.widgetUrl;
      if (!widgetUrl) {
        const res = await fetch(`${sandboxUrl}/v2/accounts/initiate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'mono-sec-key': PROVIDER_KEY },
          body: JSON.stringify({
            customer: { name: 'Adaeze Okafor', email: `${applicantId}@example.com` },
            scope: 'auth',
            meta: { ref: applicationId },
            redirect_url: 'http://127.0.0.1:9/linked',
          }),
        });
        if (!res.ok) throw new Error(`initiate answered ${res.status}`);
        widgetUrl = ((await res.json()) as { data: { mono_url: string } }).data.mono_url;
      }
      const linked = await fetch(`${sandboxUrl}/sandbox/link`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ widgetUrl, persona: input.persona ?? 'salaried' }),
      });
      if (!linked.ok) throw new Error(`link answered ${linked.status}`);
      const account = (await linked.json()) as {
        providerAccountId: string;
        institution: string;
        accountNumber: string;
      };
      const fact: Linked = {
        type: 'AccountLinked',
        factId: randomUUID(),
        clientId: 'client-test',
        applicationId,
        at: new Date().toISOString(),
        applicantId,
        accountId: randomUUID(),
        providerAccountId: account.providerAccountId,
        institution: account.institution,
        accountNumber: account.accountNumber,
        providerKey: driver.sealer.for('client-secrets').seal(PROVIDER_KEY),
      };
      if (input.publish !== false) await harness.publishFact(fact);
      return { ...fact, widgetUrl };
    },

    publishFact: (fact) => driver.bus.publish(Topics.applicationFacts, [{ key: fact.applicationId, value: fact }]),
    publishDeadline: (deadline) =>
      driver.bus.publish(Topics.deadlines, [{ key: deadline.applicationId, value: deadline }]),
    publishCallback: (callback) =>
      driver.bus.publish(Topics.providerCallbacks, [{ key: callback.providerAccountId, value: callback }]),

    async redeliver(webhook) {
      const res = await fetch(`${receiver.url}/provider/webhooks/mono`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'mono-webhook-secret': WEBHOOK_SECRET },
        body: new Uint8Array(webhook.raw),
      });
      if (!res.ok) throw new Error(`webhook redelivery answered ${res.status}`);
    },

    job: (accountId) => jobs().findOne<JobDocument>({ _id: accountId as never }),
    bankData: (query) => driver.db.collection('bank_data').find<BankDataDocument>(query).toArray(),
    eventsOf: (name, accountId) =>
      events.filter((e) => e.event === name && (e.data as { accountId?: string }).accountId === accountId),
    resultsOf: (type, accountId) =>
      results.filter((r) => r.type === type && 'accountId' in r && r.accountId === accountId),

    async enriched(accountId, timeoutMs = 20_000) {
      await waitFor(
        () =>
          harness.eventsOf('account.enrichment_ready', accountId).length > 0 &&
          harness.resultsOf('AccountEnriched', accountId).length > 0,
        { what: 'enrichment_ready and AccountEnriched', timeoutMs },
      );
    },

    async settled(service) {
      await waitFor(
        async () => {
          for (const topic of [Topics.applicationFacts, Topics.providerCallbacks, Topics.deadlines]) {
            // The driver's bus shares the service's namespace: the group is the service's.
            for (const p of await driver.bus.topicOffsets(topic, 'enrichment')) {
              if (p.high > 0 && p.committed < p.high) return false;
            }
          }
          return service.busy() === 0;
        },
        { what: 'the service to handle every message', timeoutMs: 30_000 },
      );
    },

    async stop() {
      for (const service of services.reverse()) await service.stop().catch(() => undefined);
      await sandbox.stop();
      await receiver.close();
      await driver.db.dropDatabase().catch(() => undefined);
      await driver.lifecycle.stop();
    },
  };
  return harness;
}
