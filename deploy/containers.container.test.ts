import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { GenericContainer, Network, Wait, type StartedNetwork, type StartedTestContainer } from 'testcontainers';
import { waitFor } from '../testing/helpers';
import { applicant } from '../testing/stack';
import { composeServices, type ComposeService } from './compose';
import { newLender, toDecision } from './lender';

/**
 * The deployed form, run for real: the images built from the Dockerfile (scripts/containers)
 * run as containers on a Docker network of their own, beside Kafka, the schema registry and
 * the MongoDB-wire database from the local images, each service with the environment and the
 * container settings docker-compose.yml gives it (read-only root, tmpfs, dropped capabilities,
 * no-new-privileges, memory limit, health check). The only changes to compose:
 *
 * - the third-party images are the local stand-ins (loan-local/*), and SCHEMA_REGISTRY_URL
 *   gains the path of the stand-in's Confluent-compatible API (Apicurio's /apis/ccompat/v7);
 * - no init process: Node is PID 1, as the Helm chart runs it, so SIGTERM reaches it directly;
 * - the lender's webhook receiver is this test, on the network's gateway address.
 *
 * When no Docker engine can be had (testing/container-setup.js), every test here is skipped.
 */
const ROOT = path.resolve(__dirname, '..');
const skipped = process.env.LOAN_CONTAINERS_SKIP;
if (skipped) console.warn(`[containers] every container test is skipped: ${skipped}`);
const describeContainers = skipped ? describe.skip : describe;

const SERVICES = ['gateway', 'applications', 'enrichment', 'scoring', 'notifier', 'janitor'] as const;
const OURS = [...SERVICES, 'sandbox'] as const;
type Ours = (typeof OURS)[number];
const image = (name: string) => process.env[`LOAN_IMAGE_${name.toUpperCase()}`] ?? '';
const LABELS = { 'loan.test': 'containers' };

const docker = (...args: string[]) =>
  execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const inspect = (id: string, format: string) => docker('inspect', '-f', format, id);
const lastLines = (id: string) => {
  const out = spawnSync('docker', ['logs', '--tail', '40', id], { encoding: 'utf8' });
  return `${out.stdout}${out.stderr}`;
};

/** A container run the way compose runs the service (its `read_only`, `tmpfs`, `cap_drop`, `security_opt`, `mem_limit`). */
class ComposeContainer extends GenericContainer {
  constructor(img: string, svc: ComposeService) {
    super(img);
    this.hostConfig.ReadonlyRootfs = svc.readOnly;
    this.hostConfig.CapDrop = svc.capDrop;
    this.hostConfig.SecurityOpt = svc.securityOpt;
    if (svc.memLimit) this.hostConfig.Memory = svc.memLimit;
    if (svc.tmpfs.length > 0)
      this.withTmpFs(Object.fromEntries(svc.tmpfs.map((p) => [p, 'rw,noexec,nosuid,size=64m'])));
    if (svc.healthcheck) {
      const [kind, ...rest] = svc.healthcheck;
      const test =
        kind === 'CMD-SHELL'
          ? (['CMD-SHELL', rest.join(' ')] as ['CMD-SHELL', string])
          : (['CMD', ...rest] as ['CMD', ...string[]]);
      // Compose's command, asked every second instead of every ten.
      this.withHealthCheck({ test, interval: 1_000, timeout: 5_000, retries: 120, startPeriod: 0 });
      this.withWaitStrategy(Wait.forHealthCheck());
    }
    this.withLabels(LABELS).withStartupTimeout(180_000);
  }
}

describeContainers('the images, run as compose runs them', () => {
  const compose = new Map(composeServices().map((s) => [s.name, s]));
  let network: StartedNetwork;
  const infra: StartedTestContainer[] = [];
  const ours = new Map<Ours, StartedTestContainer>();
  const healthyAfter = new Map<string, number>();

  async function startOurs(name: Ours) {
    const svc = compose.get(name)!;
    const env = { ...svc.env };
    if (env.SCHEMA_REGISTRY_URL)
      env.SCHEMA_REGISTRY_URL = `${env.SCHEMA_REGISTRY_URL.replace(/\/$/, '')}/apis/ccompat/v7`;
    const ports = name === 'sandbox' ? [8090] : name === 'gateway' ? [8080, 9090] : [8080];
    const began = Date.now();
    const started = await new ComposeContainer(
      `${process.env.LOAN_IMAGE_PREFIX}/${name}:${process.env.LOAN_IMAGE_TAG}`,
      svc,
    )
      .withName(`loan-test-${name}-${network.getId().slice(0, 8)}`)
      .withNetwork(network)
      .withNetworkAliases(name)
      .withEnvironment(env)
      .withExposedPorts(...ports)
      .start();
    healthyAfter.set(name, Date.now() - began);
    ours.set(name, started);
  }

  beforeAll(async () => {
    network = await new Network().start();
    const kafka = compose.get('kafka')!;
    infra.push(
      await new GenericContainer(image('kafka'))
        .withNetwork(network)
        .withNetworkAliases('kafka')
        .withEnvironment(kafka.env)
        .withLabels(LABELS)
        .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
        .withStartupTimeout(180_000)
        .start(),
    );
    const topics = compose.get('topics')!;
    const [topicsJob, registry, mongo] = await Promise.all([
      // compose's one-shot job: the topics, with the chart's script.
      new GenericContainer(image('kafka'))
        .withNetwork(network)
        .withEntrypoint(topics.entrypoint!)
        .withEnvironment(topics.env)
        .withCopyFilesToContainer([
          { source: path.join(ROOT, 'deploy/helm/loan-analysis/files/create-topics.sh'), target: '/create-topics.sh' },
        ])
        .withLabels(LABELS)
        .withWaitStrategy(Wait.forOneShotStartup())
        .withStartupTimeout(180_000)
        .start(),
      new GenericContainer(image('registry'))
        .withNetwork(network)
        .withNetworkAliases('schema-registry')
        .withExposedPorts(8081)
        .withLabels(LABELS)
        .withWaitStrategy(Wait.forHttp('/apis/ccompat/v7/subjects', 8081))
        .withStartupTimeout(180_000)
        .start(),
      new GenericContainer(image('ferretdb'))
        .withNetwork(network)
        .withNetworkAliases('mongo')
        .withExposedPorts(27017)
        .withLabels(LABELS)
        .withWaitStrategy(Wait.forLogMessage(/Listening on/))
        .withStartupTimeout(120_000)
        .start(),
    ]);
    infra.push(topicsJob, registry, mongo);
    // compose's order: everything but the gateway, then the gateway once applications is healthy.
    await Promise.all(OURS.filter((n) => n !== 'gateway').map(startOurs));
    await startOurs('gateway');
    const size = Number(inspect(`${process.env.LOAN_IMAGE_PREFIX}/gateway:${process.env.LOAN_IMAGE_TAG}`, '{{.Size}}'));
    console.log(
      `[containers] image ${(size / 1024 ** 2).toFixed(0)} MiB (every service's; one tree, a command each); ` +
        `start to healthy: ${[...healthyAfter].map(([n, ms]) => `${n} ${(ms / 1000).toFixed(1)} s`).join(', ')}`,
    );
  }, 900_000);

  afterAll(async () => {
    for (const c of [...ours.values(), ...infra]) await c.stop({ timeout: 0 }).catch(() => undefined);
    await network?.stop().catch(() => undefined);
  }, 120_000);

  const hostUrl = (name: Ours, port: number) =>
    `http://${ours.get(name)!.getHost()}:${ours.get(name)!.getMappedPort(port)}`;

  /** A lender whose webhook receiver is this test, reached by the notifier through the network's gateway address. */
  const lender = (name: string) =>
    newLender(
      hostUrl('gateway', 8080),
      compose.get('gateway')!.env.ADMIN_TOKEN,
      inspect(network.getId(), '{{(index .IPAM.Config 0).Gateway}}'),
      name,
    );

  it("when a lender goes through the README's flow, then the decision arrives signed at the lender's receiver and the delivery log lists it", async () => {
    const container = await lender('Container Lender');
    try {
      const { applicationId, decision } = await toDecision(container, hostUrl('sandbox', 8090));
      expect(decision.body.data).toMatchObject({ applicationId, status: 'COMPLETED', score: expect.any(Number) });
      expect(container.signed(decision)).toBe(true);

      const log = await container.api('GET', `/api/webhooks/deliveries?applicationId=${applicationId}`);
      expect(log.status).toBe(200);
      expect(JSON.stringify(log.body)).toContain(decision.body.id);
    } finally {
      await container.receiver.close();
    }
  }, 420_000);

  it('when the services run, then each runs as a non-root user on a read-only root file system, writes only to its tmpfs, and is healthy by its own probes', async () => {
    const report = await Promise.all(
      OURS.map(async (name) => {
        const c = ours.get(name)!;
        const id = c.getId();
        const writes = async (file: string) =>
          (await c.exec(['node', '-e', `require('fs').writeFileSync(${JSON.stringify(file)}, 'x')`])).exitCode === 0;
        const internal = name === 'sandbox' ? 8090 : name === 'gateway' ? 9090 : 8080;
        const probes = name === 'sandbox' ? ['/sandbox/health'] : ['/healthz', '/readyz'];
        const answers = await Promise.all(
          probes.map(async (p) => (await fetch(`${hostUrl(name, internal)}${p}`)).status),
        );
        return {
          name,
          uid: (await c.exec(['id', '-u'])).output.trim(),
          readOnly: inspect(id, '{{.HostConfig.ReadonlyRootfs}}'),
          writesApp: await writes('/app/probe'),
          writesTmp: await writes('/tmp/probe'),
          health: inspect(id, '{{.State.Health.Status}}'),
          probes: answers,
          pid1: (await c.exec(['cat', '/proc/1/cmdline'])).output.split('\0')[0],
        };
      }),
    );
    expect(report).toEqual(
      OURS.map((name) => ({
        name,
        uid: '1000',
        readOnly: 'true',
        writesApp: false,
        writesTmp: true,
        health: 'healthy',
        probes: name === 'sandbox' ? [200] : [200, 200],
        pid1: 'node',
      })),
    );
  }, 120_000);

  it('when applications and the notifier are killed (docker kill) and scoring is stopped (docker stop) mid-flight, then every application is decided exactly once and its webhooks arrive signed and in order', async () => {
    const { receiver, signed, api } = await lender('Chaos Lender');
    const COUNT = 5;
    const TERMINAL = ['COMPLETED', 'FAILED'];
    const eventsOf = (applicationId: string) =>
      receiver.received.filter((r) => (r.body.data?.applicationId ?? r.body.applicationId) === applicationId);
    const distinct = (applicationId: string, name: string) =>
      new Set(
        eventsOf(applicationId)
          .filter((r) => r.body.event === name)
          .map((r) => r.body.id),
      ).size;
    const statusOf = async (id: string) =>
      (await api('GET', `/api/applications/${id}`)).body?.status as string | undefined;
    /** A lender's call: again on a 5xx or no answer (same idempotency key); a 400 is fine when the application is past that step. */
    async function step(
      method: string,
      p: string,
      ok: number[],
      body?: unknown,
      pastStep?: { id: string; statuses: string[] },
    ) {
      return waitFor(
        async () => {
          const res = await api(method, p, body).catch(() => ({ status: 0, body: null, headers: new Headers() }));
          if (ok.includes(res.status)) return res;
          if (res.status === 400 && pastStep && pastStep.statuses.includes((await statusOf(pastStep.id)) ?? ''))
            return res;
          if (res.status === 0 || res.status >= 500) return false;
          throw new Error(`${method} ${p} answered ${res.status} ${JSON.stringify(res.body)}`);
        },
        { timeoutMs: 240_000, intervalMs: 1_000, what: `${method} ${p}` },
      );
    }
    const inFlight = (id: string, name: string) =>
      waitFor(() => distinct(id, name) > 0, { timeoutMs: 300_000, intervalMs: 500, what: `${name} of ${id}` });

    async function drive(i: number) {
      const init = await step(
        'POST',
        '/api/applications/initiate',
        [200, 201],
        applicant({ bvn: '22200000001', idempotencyKey: `chaos-${network.getId().slice(0, 8)}-${i}` }),
      );
      const { applicationId: id, widgetUrl } = init.body as { applicationId: string; widgetUrl: string };
      const linked = await fetch(`${hostUrl('sandbox', 8090)}/sandbox/link`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ widgetUrl, persona: 'salaried' }),
      });
      expect(linked.status).toBe(200);
      await inFlight(id, 'account.enrichment_ready');
      await step('POST', `/api/applications/${id}/finalize-linking`, [200], undefined, {
        id,
        statuses: ['LINKED', 'PROCESSING', ...TERMINAL],
      });
      await inFlight(id, 'application.ready_for_analysis');
      await step('POST', `/api/applications/${id}/analyze`, [200, 202], undefined, {
        id,
        statuses: ['PROCESSING', ...TERMINAL],
      });
      await inFlight(id, 'application.decision');
      return id;
    }

    const restart = (name: Ours) => docker('start', ours.get(name)!.getId());
    const seen = (name: string) => receiver.received.filter((r) => r.body.event === name).length;
    const faults = (async () => {
      await waitFor(() => seen('account.linked') > 0, {
        timeoutMs: 240_000,
        intervalMs: 200,
        what: 'a linked account',
      });
      docker('kill', ours.get('applications')!.getId());
      restart('applications');
      await waitFor(() => seen('account.enrichment_ready') > 0, {
        timeoutMs: 240_000,
        intervalMs: 200,
        what: 'an enriched account',
      });
      docker('kill', ours.get('notifier')!.getId());
      restart('notifier');
      await waitFor(() => seen('application.ready_for_analysis') > 0, {
        timeoutMs: 300_000,
        intervalMs: 200,
        what: 'an application ready for analysis',
      });
      const scoring = ours.get('scoring')!.getId();
      docker('stop', '--time', '10', scoring);
      const stopped = inspect(scoring, '{{.State.ExitCode}}');
      restart('scoring');
      return stopped;
    })();
    const ids = await Promise.all(Array.from({ length: COUNT }, (_, i) => drive(i)));
    expect(await faults).toBe('0');

    const report = await Promise.all(
      ids.map(async (id) => {
        const list = eventsOf(id);
        const first = (name: string) => list.findIndex((r) => r.body.event === name);
        return {
          status: await statusOf(id),
          decisions: distinct(id, 'application.decision'),
          failures: distinct(id, 'application.failed'),
          inOrder:
            first('account.linked') < first('account.enrichment_ready') &&
            first('application.ready_for_analysis') < first('application.decision'),
          unsigned: list.filter((r) => !signed(r)).length,
        };
      }),
    );
    expect(report).toEqual(
      ids.map(() => ({ status: 'COMPLETED', decisions: 1, failures: 0, inOrder: true, unsigned: 0 })),
    );
    await receiver.close();
  }, 600_000);

  it('when PID 1 of each service gets SIGTERM (docker stop, 10 s before SIGKILL), then it exits by itself with code 0', async () => {
    const stopped = await Promise.all(
      OURS.map(async (name) => {
        const id = ours.get(name)!.getId();
        docker('stop', '--time', '10', id);
        const exitCode = inspect(id, '{{.State.ExitCode}}');
        if (exitCode !== '0')
          console.log(`[containers] ${name} exited with ${exitCode}; its last lines:\n${lastLines(id)}`);
        return { name, exitCode, oomKilled: inspect(id, '{{.State.OOMKilled}}') };
      }),
    );
    expect(stopped).toEqual(OURS.map((name) => ({ name, exitCode: '0', oomKilled: 'false' })));
  }, 120_000);
});
