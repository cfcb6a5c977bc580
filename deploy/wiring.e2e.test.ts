import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import YAML from 'yaml';
import type { z } from 'zod';
import { waitFor } from '../testing/helpers';
import { composeServices } from './compose';
import { applicant, call, startReceiver, suiteNamespace } from '../testing/stack';

/**
 * The deployed form's wiring, without Docker or a cluster: each service runs as a process of
 * its own with exactly the environment docker-compose.yml or the Helm chart (default and
 * production values) gives its container, and a lender goes through the whole flow, the
 * delivery log included. The only changes made to that environment:
 *
 * - hosts: every address of a service, of Kafka, of the registry and of the database becomes
 *   this machine's (a port of its own per service and container port); the provider and the
 *   bureau, third parties, become the sandbox;
 * - isolation: a topic namespace, database names and small partition counts of this run;
 * - production only: TLS, SASL and the CA bundle are dropped (the local broker speaks plain
 *   Kafka); the gateway and the notifier run with NODE_ENV=development and private webhook
 *   addresses allowed, since the lender's receiver is on loopback (a production start refuses
 *   that); the Secret the production values reference is filled with fresh random values.
 *   Before any change, every service's own configuration loader accepts the rendered
 *   environment, production's start checks included.
 *
 * Nothing else is added: a setting a service needs that compose or the chart forgets fails
 * here by name, before any process starts.
 */
const ROOT = path.resolve(__dirname, '..');
/** The services' compiled configuration modules (what their start scripts load). */
const compiled = createRequire(__filename);
const CHART = path.join(ROOT, 'deploy/helm/loan-analysis');
const SERVICES = ['gateway', 'applications', 'enrichment', 'scoring', 'notifier', 'janitor'] as const;
type Service = (typeof SERVICES)[number];
const LISTEN_VARS = ['HTTP_PORT', 'GATEWAY_PORT', 'SANDBOX_PORT'];
const INFRA = {
  KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
  SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:8081/apis/ccompat/v7',
  MONGO_URL: process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/',
};

/** One container as rendered: its environment, the ports it listens on and the names it is reached by. */
interface Container {
  name: string;
  env: Record<string, string>;
  /** Host name → (port asked for → the container's port). */
  addresses: Map<string, Map<number, number>>;
  /** Kubernetes only: the pod's labels, its named ports and the NetworkPolicies selecting it. */
  pod?: { labels: Record<string, string>; ports: Map<string, number>; policies: Manifest[] };
}

// ------------------------------------------------------------------ compose

function renderCompose(): Container[] {
  return composeServices()
    .filter((svc) => [...SERVICES, 'sandbox'].includes(svc.name))
    .map(({ name, env }) => {
      const ports = LISTEN_VARS.filter((v) => env[v]).map((v) => Number(env[v]));
      return { name, env, addresses: new Map([[name, new Map(ports.map((p) => [p, p]))]]) };
    });
}

// ------------------------------------------------------------------ Helm

type Manifest = { kind: string; metadata: { name: string; labels?: Record<string, string> }; [key: string]: any };

function helm(): string {
  execFileSync('bash', [path.join(ROOT, 'scripts/deploy-check'), '--install-only'], {
    stdio: 'ignore',
    timeout: 25 * 60_000,
  });
  const home = path.resolve(process.env.LOAN_INFRA_HOME ?? path.join(process.env.HOME ?? '', '.cache/loan-infra'));
  return path.join(home, 'tools/bin/helm');
}

function renderChart(helmBin: string, valuesFiles: string[], existingSecret: Record<string, string>): Container[] {
  const args = [
    'template',
    'wired',
    CHART,
    '--namespace',
    'lending',
    ...valuesFiles.flatMap((f) => ['-f', path.join(CHART, f)]),
  ];
  const docs = YAML.parseAllDocuments(execFileSync(helmBin, args, { encoding: 'utf8' }))
    .map((d) => d.toJS() as Manifest | null)
    .filter((d): d is Manifest => !!d);
  const byName = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name);
  const component = (d: Manifest) => d.metadata.labels?.['app.kubernetes.io/component'] ?? '';
  const secretValue = (name: string, key: string, optional: boolean): string | undefined => {
    const secret = byName('Secret', name);
    if (secret) {
      if (secret.stringData?.[key] !== undefined) return String(secret.stringData[key]);
      if (secret.data?.[key] !== undefined) return Buffer.from(String(secret.data[key]), 'base64').toString('utf8');
    } else if (key in existingSecret) return existingSecret[key];
    if (optional) return undefined;
    throw new Error(`Secret ${name} has no key ${key}`);
  };
  const out: Container[] = [];
  for (const dep of docs.filter((d) => d.kind === 'Deployment')) {
    const name = component(dep);
    const pod = dep.spec.template.spec;
    const c = pod.containers.find((x: { name: string }) => x.name === name) ?? pod.containers[0];
    const env: Record<string, string> = {};
    for (const from of c.envFrom ?? []) {
      if (from.configMapRef) Object.assign(env, byName('ConfigMap', from.configMapRef.name)?.data ?? {});
      if (from.secretRef) {
        const secret = byName('Secret', from.secretRef.name);
        if (secret)
          for (const key of Object.keys({ ...secret.data, ...secret.stringData }))
            env[key] = secretValue(secret.metadata.name, key, false)!;
        else Object.assign(env, existingSecret);
      }
    }
    for (const e of c.env ?? []) {
      if (e.value !== undefined) env[e.name] = String(e.value);
      else if (e.valueFrom?.secretKeyRef) {
        const ref = e.valueFrom.secretKeyRef;
        const value = secretValue(ref.name, ref.key, ref.optional === true);
        if (value !== undefined) env[e.name] = value;
      } else if (e.valueFrom?.configMapKeyRef) {
        const ref = e.valueFrom.configMapKeyRef;
        const value = byName('ConfigMap', ref.name)?.data?.[ref.key];
        if (value !== undefined) env[e.name] = String(value);
      } else if (e.valueFrom?.fieldRef) env[e.name] = `${name}-pod`;
    }
    const named = new Map<string, number>(
      (c.ports ?? []).map((p: { name: string; containerPort: number }) => [p.name, p.containerPort]),
    );
    const addresses = new Map<string, Map<number, number>>();
    for (const svc of docs.filter((d) => d.kind === 'Service' && component(d) === name)) {
      const ports = new Map<number, number>();
      for (const p of svc.spec.ports)
        ports.set(p.port, typeof p.targetPort === 'string' ? named.get(p.targetPort)! : (p.targetPort ?? p.port));
      for (const host of [
        svc.metadata.name,
        `${svc.metadata.name}.lending`,
        `${svc.metadata.name}.lending.svc`,
        `${svc.metadata.name}.lending.svc.cluster.local`,
      ])
        addresses.set(host, ports);
    }
    const labels = dep.spec.template.metadata.labels as Record<string, string>;
    const policies = docs.filter((d) => d.kind === 'NetworkPolicy' && selects(d.spec.podSelector, labels));
    out.push({ name, env, addresses, pod: { labels, ports: named, policies } });
  }
  return out;
}

// ------------------------------------------------------------------ NetworkPolicies

const selects = (selector: { matchLabels?: Record<string, string> } | undefined, labels: Record<string, string>) =>
  Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v);

/** A peer of a rule within the release's namespace: a pod selector, alone or with any namespace. */
type Peer = {
  podSelector?: { matchLabels?: Record<string, string> };
  namespaceSelector?: { matchLabels?: Record<string, string> };
  ipBlock?: unknown;
};
const peerMatches = (peer: Peer, labels: Record<string, string>) =>
  !peer.ipBlock &&
  (!peer.namespaceSelector || Object.keys(peer.namespaceSelector.matchLabels ?? {}).length === 0) &&
  selects(peer.podSelector, labels);

type Rule = { ports?: Array<{ port?: number | string }>; from?: Peer[]; to?: Peer[] };
const portMatches = (rule: Rule, port: number, named: Map<string, number>) =>
  !rule.ports?.length ||
  rule.ports.some((p) => p.port === undefined || p.port === port || named.get(String(p.port)) === port);

/** Allowed unless a policy of that direction selects the pod and none of its rules lets the peer through. */
function allowed(
  policies: Manifest[],
  direction: 'Ingress' | 'Egress',
  peer: Record<string, string>,
  port: number,
  named: Map<string, number>,
) {
  const applying = policies.filter((p) => (p.spec.policyTypes ?? ['Ingress']).includes(direction));
  if (applying.length === 0) return true;
  return applying.some((p) =>
    ((direction === 'Ingress' ? p.spec.ingress : p.spec.egress) ?? []).some((rule: Rule) => {
      const peers = direction === 'Ingress' ? rule.from : rule.to;
      return portMatches(rule, port, named) && (!peers?.length || peers.some((x) => peerMatches(x, peer)));
    }),
  );
}

/** Every address of the release a service is given, that the NetworkPolicies block: "from → to:port (why)". */
function blockedByPolicy(containers: Container[]): string[] {
  const problems: string[] = [];
  for (const from of containers) {
    for (const [setting, value] of Object.entries(from.env)) {
      for (const [, host, port] of value.matchAll(/(?:^|\/\/|@|,)([a-z0-9][a-z0-9.-]*):(\d+)/gi)) {
        for (const to of containers) {
          const target = to.addresses.get(host!)?.get(Number(port));
          if (target === undefined || !from.pod || !to.pod) continue;
          if (!allowed(to.pod.policies, 'Ingress', from.pod.labels, target, to.pod.ports))
            problems.push(`${from.name} → ${to.name}:${target} (${setting}): ${to.name}'s ingress policy refuses it`);
          if (!allowed(from.pod.policies, 'Egress', to.pod.labels, target, to.pod.ports))
            problems.push(`${from.name} → ${to.name}:${target} (${setting}): ${from.name}'s egress policy refuses it`);
        }
      }
    }
  }
  return problems;
}

// ------------------------------------------------------------------ what a service reads

/** Settings a service reads that are neither set nor safely defaulted: none may be left. */
function unmet(service: Service, env: Record<string, string>): string[] {
  const { configShape } = compiled(path.join(ROOT, 'services', service, 'dist/config.js')) as {
    configShape: Record<string, z.ZodType>;
  };
  const problems: string[] = [];
  for (const [name, schema] of Object.entries(configShape)) {
    if (env[name] !== undefined) continue;
    const fallback = schema.safeParse(undefined);
    if (!fallback.success) problems.push(`${name} (required, no default)`);
    else if (/127\.0\.0\.1|localhost/.test(JSON.stringify(fallback.data ?? '')))
      problems.push(`${name} (its default ${JSON.stringify(fallback.data)} is the container itself)`);
  }
  return problems;
}

/** The service's own start-up check of its environment (production refusals included); the error names the setting. */
function loadError(service: Service, env: Record<string, string>): string | undefined {
  const module = compiled(path.join(ROOT, 'services', service, 'dist/config.js')) as Record<string, unknown>;
  const loader = Object.entries(module).find(([k]) => /^load\w+Config$/.test(k))?.[1] as
    ((e: Record<string, string>) => unknown) | undefined;
  if (!loader) return 'no configuration loader';
  try {
    loader(env);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

// ------------------------------------------------------------------ running it

/** Whether nothing listens on the port now. */
const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/**
 * A port for a service of this run, below the kernel's ephemeral range (32768 and up): a port
 * the kernel handed out for `listen(0)` goes back to that range when closed, where the next
 * outgoing connection of any process (a broker client, another suite) may take it before the
 * service binds it.
 */
const taken = new Set<number>();
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (taken.has(port) || !(await canListen(port))) continue;
    taken.add(port);
    return port;
  }
}

async function wire(
  containers: Container[],
  ns: string,
  production: boolean,
): Promise<Map<string, Record<string, string>>> {
  const local = new Map<string, Map<number, number>>();
  for (const c of containers) {
    const ports = new Map<number, number>();
    for (const v of LISTEN_VARS) if (c.env[v]) ports.set(Number(c.env[v]), await freePort());
    for (const targets of c.addresses.values())
      for (const target of targets.values()) if (!ports.has(target)) ports.set(target, await freePort());
    local.set(c.name, ports);
  }
  const resolve = (host: string, port: number): string | undefined => {
    for (const c of containers) {
      const target = c.addresses.get(host)?.get(port);
      if (target !== undefined) return `127.0.0.1:${local.get(c.name)!.get(target)}`;
    }
    return undefined;
  };
  const sandbox = containers.find((c) => c.name === 'sandbox');
  const rewriteHosts = (value: string) =>
    value
      .replace(/(^|\/\/|@|,)([a-z0-9][a-z0-9.-]*):(\d+)/gi, (m, lead: string, host: string, port: string) => {
        const to = resolve(host, Number(port));
        return to ? `${lead}${to}` : m;
      })
      .replace(/^(https?:\/\/)([a-z0-9][a-z0-9.-]*)(?=\/|$)/i, (m, scheme: string, host: string) => {
        const to = resolve(host, 80);
        return to ? `http://${to}` : m;
      });
  const wired = new Map<string, Record<string, string>>();
  for (const c of containers) {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(c.env)) env[k] = rewriteHosts(v);
    for (const v of LISTEN_VARS) if (env[v]) env[v] = String(local.get(c.name)!.get(Number(c.env[v])));
    for (const v of ['HTTP_HOST', 'SANDBOX_HOST']) if (env[v]) env[v] = '127.0.0.1';
    if (c.name === 'sandbox') {
      wired.set(c.name, { ...env, SANDBOX_LOG_LEVEL: 'warn' });
      continue;
    }
    Object.assign(env, INFRA, {
      KAFKA_TOPIC_NAMESPACE: ns,
      KAFKA_TOPIC_PARTITIONS: '2',
      KAFKA_REPLICATION_FACTOR: '1',
      MONGO_DB: `${ns.replace(/\W/g, '')}_${c.name}`,
      LOG_LEVEL: 'warn',
    });
    if (production) {
      expect(env.NODE_EXTRA_CA_CERTS ?? 'the trusted CA').toMatch(/^\//);
      delete env.NODE_EXTRA_CA_CERTS;
      env.KAFKA_SSL = 'false';
      for (const k of ['KAFKA_SASL_MECHANISM', 'KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD']) delete env[k];
      if (c.name === 'gateway' || c.name === 'notifier')
        Object.assign(env, { NODE_ENV: 'development', ALLOW_PRIVATE_WEBHOOK_URLS: 'true' });
    }
    wired.set(c.name, env);
  }
  if (!sandbox) {
    // No sandbox in the release (production): the provider and the bureau are third parties,
    // played by a sandbox that posts to the gateway with the release's own webhook secret.
    const gateway = wired.get('gateway')!;
    wired.set('sandbox', {
      SANDBOX_HOST: '127.0.0.1',
      SANDBOX_PORT: String(await freePort()),
      PROVIDER_WEBHOOK_URL: `http://127.0.0.1:${gateway.GATEWAY_PORT}/provider/webhooks/mono`,
      PROVIDER_WEBHOOK_SECRET: gateway.PROVIDER_WEBHOOK_SECRET!,
      SANDBOX_LOG_LEVEL: 'warn',
    });
  }
  const sandboxUrl = `http://127.0.0.1:${wired.get('sandbox')!.SANDBOX_PORT}`;
  for (const [name, env] of wired) {
    if (name === 'sandbox') continue;
    for (const k of ['PROVIDER_BASE_URL', 'BUREAU_BASE_URL'])
      if (env[k] && !env[k].includes('127.0.0.1')) env[k] = sandboxUrl;
  }
  return wired;
}

interface Proc {
  name: string;
  child: ChildProcess;
  log: () => string;
}

function startAll(wired: Map<string, Record<string, string>>): Proc[] {
  return [...wired].map(([name, env]) => {
    const entry = name === 'sandbox' ? 'sandbox/dist/start.js' : `services/${name}/dist/start.js`;
    // Only the rendered environment (and PATH): nothing of this test's own environment leaks in.
    const child = spawn(process.execPath, [path.join(ROOT, entry)], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const keep = (b: Buffer) => (out = (out + b.toString('utf8')).slice(-20_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    return { name, child, log: () => out };
  });
}

async function stopAll(procs: Proc[]) {
  await Promise.all(
    procs.map(
      (p) =>
        new Promise<void>((resolve) => {
          if (p.child.exitCode !== null || p.child.signalCode !== null) return resolve();
          const timer = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
          p.child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          p.child.kill('SIGTERM');
        }),
    ),
  );
}

async function waitReady(procs: Proc[], wired: Map<string, Record<string, string>>) {
  for (const p of procs) {
    const env = wired.get(p.name)!;
    const url =
      p.name === 'sandbox'
        ? `http://127.0.0.1:${env.SANDBOX_PORT}/sandbox/health`
        : `http://127.0.0.1:${env.HTTP_PORT}/readyz`;
    await waitFor(
      async () => {
        if (p.child.exitCode !== null)
          throw new Error(`${p.name} exited with ${p.child.exitCode}:\n${p.log().slice(-3_000)}`);
        return (await fetch(url)).ok;
      },
      { timeoutMs: 90_000, intervalMs: 250, what: `${p.name} ready at ${url}` },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n--- ${p.name} log ---\n${p.log().slice(-3_000)}`);
    });
  }
}

/** What a lender does, end to end, through the wired gateway. */
async function lenderFlow(wired: Map<string, Record<string, string>>) {
  const gateway = wired.get('gateway')!;
  const gatewayUrl = `http://127.0.0.1:${gateway.GATEWAY_PORT}`;
  const sandboxUrl = `http://127.0.0.1:${wired.get('sandbox')!.SANDBOX_PORT}`;
  const receiver = await startReceiver();
  try {
    const created = await fetch(`${gatewayUrl}/admin/clients`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-admin-token': gateway.ADMIN_TOKEN ?? '' },
      body: JSON.stringify({
        name: 'Wiring Lender',
        providerSecretKey: 'test_sk_sandbox',
        webhookUrl: `${receiver.url}/hooks`,
      }),
    });
    expect(created.status).toBe(201);
    const lender = (await created.json()) as { apiKey: string; webhookSecret: string };
    const api = (method: string, p: string, body?: unknown) => call(gatewayUrl, lender.apiKey, method, p, body);
    const events = (applicationId: string, name: string) =>
      receiver.received.filter((r) => r.body.event === name && r.body.data?.applicationId === applicationId);

    const start = await api('POST', '/api/applications/initiate', applicant({ bvn: '22200000001' }));
    expect(start.status).toBe(201);
    const { applicationId, widgetUrl } = start.body as { applicationId: string; widgetUrl: string };
    // The widget address is for the applicant's browser (the sandbox's public address); this
    // test is the browser, on this machine.
    const publicUrl = wired.get('sandbox')!.SANDBOX_PUBLIC_URL;
    if (publicUrl) expect(new URL(widgetUrl).origin).toBe(new URL(publicUrl).origin);
    const linked = await fetch(`${sandboxUrl}/sandbox/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ widgetUrl, persona: 'salaried' }),
    });
    expect(linked.status).toBe(200);
    await waitFor(() => events(applicationId, 'account.enrichment_ready').length === 1, {
      timeoutMs: 60_000,
      what: 'account.enrichment_ready',
    });
    expect((await api('POST', `/api/applications/${applicationId}/finalize-linking`)).status).toBe(200);
    await waitFor(() => events(applicationId, 'application.ready_for_analysis').length === 1, {
      timeoutMs: 30_000,
      what: 'ready_for_analysis',
    });
    expect((await api('POST', `/api/applications/${applicationId}/analyze`)).status).toBe(200);
    const decision = await waitFor(() => events(applicationId, 'application.decision')[0], {
      timeoutMs: 60_000,
      what: 'application.decision',
    });
    expect(decision.body.data).toMatchObject({ applicationId, status: 'COMPLETED', score: expect.any(Number) });
    const expected = createHmac('sha256', lender.webhookSecret).update(decision.raw).digest();
    const given = Buffer.from(String(decision.headers['x-signature']), 'hex');
    expect(given.length === expected.length && timingSafeEqual(given, expected)).toBe(true);

    // The delivery log: the gateway asks the notifier at the address the release gave it.
    const log = await api('GET', `/api/webhooks/deliveries?applicationId=${applicationId}`);
    expect(log.status).toBe(200);
    expect(JSON.stringify(log.body)).toContain(decision.body.id);
  } finally {
    await receiver.close();
  }
}

// ------------------------------------------------------------------ the releases

/** The keys of the Secret that the production values name, as an SRE would create it. */
const existingSecret = () =>
  Object.fromEntries(
    [
      'DATA_KEY',
      'ADMIN_TOKEN',
      'PROVIDER_WEBHOOK_SECRET',
      'INTERNAL_TOKEN',
      'ANALYTICS_KEY',
      'BUREAU_API_KEY',
      'KAFKA_SASL_USERNAME',
      'KAFKA_SASL_PASSWORD',
    ]
      .map((k) => [k, randomBytes(24).toString('base64url')])
      .concat([
        ['MONGO_URL', 'mongodb://mongo.example.internal:27017/?tls=true'],
        // An Ed25519 seed: 32 bytes, base64url.
        ['DECISION_SIGNING_KEY', randomBytes(32).toString('base64url')],
      ]),
  );

let helmBin: string;
beforeAll(() => {
  helmBin = helm();
}, 26 * 60_000);

const releases: Array<[string, () => Container[], boolean]> = [
  ['docker-compose.yml', renderCompose, false],
  ['the Helm chart with its default values', () => renderChart(helmBin, [], {}), false],
  [
    'the Helm chart with the production values',
    () => renderChart(helmBin, ['values-production.yaml'], existingSecret()),
    true,
  ],
];

describe('the wiring check', () => {
  it('names a setting that a release leaves out, and one that a release sets wrong', () => {
    const gateway = renderCompose().find((c) => c.name === 'gateway')!;
    const { NOTIFIER_URL: _left, ...withoutNotifier } = gateway.env;
    expect(unmet('gateway', withoutNotifier)).toEqual([
      expect.stringMatching(/^NOTIFIER_URL \(its default .*127\.0\.0\.1.* is the container itself\)$/),
    ]);
    expect(loadError('gateway', { ...gateway.env, GATEWAY_PORT: 'eighty' })).toMatch(/GATEWAY_PORT/);
  });

  it("names a connection the release's NetworkPolicies refuse", () => {
    const containers = renderChart(helmBin, ['values-production.yaml'], existingSecret());
    expect(blockedByPolicy(containers)).toEqual([]);
    const notifier = containers.find((c) => c.name === 'notifier')!;
    for (const policy of notifier.pod!.policies)
      policy.spec.ingress = policy.spec.ingress.filter(
        (rule: Rule) =>
          !rule.from?.some((peer) => peer.podSelector?.matchLabels?.['app.kubernetes.io/component'] === 'gateway'),
      );
    expect(blockedByPolicy(containers)).toEqual([
      expect.stringMatching(/^gateway → notifier:8080 \(NOTIFIER_URL\): notifier's ingress policy refuses it$/),
    ]);
  });
});

describe.each(releases)('%s', (_label, render, production) => {
  let procs: Proc[] = [];
  afterAll(async () => stopAll(procs));

  it('sets every setting each service reads, or leaves it at a default that is right in a container', () => {
    const containers = render();
    const missing = SERVICES.flatMap((s) => {
      const c = containers.find((x) => x.name === s);
      if (!c) return [`${s}: no container`];
      return unmet(s, c.env).map((m) => `${s}: ${m}`);
    });
    expect(missing).toEqual([]);
  });

  it("passes each service's own start-up checks of its configuration", () => {
    const containers = render();
    const refused = SERVICES.flatMap((s) => {
      const error = loadError(s, containers.find((x) => x.name === s)!.env);
      return error ? [`${s}: ${error}`] : [];
    });
    expect(refused).toEqual([]);
  });

  it('lets each service reach every address of the release it is given (the NetworkPolicies)', () => {
    expect(blockedByPolicy(render())).toEqual([]);
  });

  it('when a lender goes through the whole flow, then the decision arrives signed and the delivery log lists it', async () => {
    const ns = suiteNamespace();
    const wired = await wire(render(), ns, production);
    procs = startAll(wired);
    await waitReady(procs, wired);
    await lenderFlow(wired);
  }, 240_000);
});
