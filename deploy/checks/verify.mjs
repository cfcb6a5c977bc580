// Consistency checks of the deployment artefacts, run by scripts/deploy-check:
//
//   node deploy/checks/verify.mjs chart DEFAULT.yaml PRODUCTION.yaml   rendered Helm chart
//   node deploy/checks/verify.mjs compose                              docker-compose.yml
//   node deploy/checks/verify.mjs dockerfile                           Dockerfile targets
//   node deploy/checks/verify.mjs observability                        dashboard + alerts
//   node deploy/checks/verify.mjs asyncapi                             deploy/asyncapi.yaml
//   node deploy/checks/verify.mjs rollout                              per-service rollout, KEDA
//
// DEPLOY_TOOLS: the npm prefix holding yaml, @asyncapi/parser,
// @kubernetes-models/prometheus-operator and @kubernetes-models/keda; PROMCHECK: the promcheck
// binary; HELM: the helm binary (rollout). Needs
// libs/contracts built (its topic names are the reference).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tools = process.env.DEPLOY_TOOLS;
if (!tools) throw new Error('DEPLOY_TOOLS is not set');
const toolRequire = createRequire(path.join(tools, 'package.json'));
const YAML = toolRequire('yaml');
const contracts = createRequire(import.meta.url)(path.join(root, 'libs/contracts/dist/index.js'));

export const SERVICES = ['gateway', 'applications', 'enrichment', 'scoring', 'notifier', 'janitor'];
const COMPONENTS = [...SERVICES, 'sandbox'];
/**
 * Topics a service reads in a consumer group other than its name (before the namespace): the
 * applications service reads its commands in a group of their own
 * (services/applications/src/entry-points/consumers, ConsumerGroups).
 */
const READ_IN_GROUP = { applications: { 'loan.applications.commands': 'applications-commands' } };
const CONTRACT_TOPICS = Object.values(contracts.Topics);
/** Metrics the services expose (libs/runtime with Node's defaults, gateway, enrichment, scoring, notifier, janitor). */
const KNOWN_METRICS = [
  'http_request_duration_seconds',
  'kafka_handler_duration_seconds',
  'kafka_handler_failures_total',
  'kafka_consumer_lag',
  'kafka_messages_published_total',
  'gateway_rate_limit_rejections_total',
  'gateway_provider_webhooks_total',
  'scoring_decisions_total',
  'circuit_breaker_open',
  'webhook_attempts_total',
  'webhook_attempt_duration_seconds',
  'nodejs_eventloop_lag_p99_seconds',
  'nodejs_heap_size_used_bytes',
  'process_resident_memory_bytes',
  'enrichment_jobs_pending',
  'enrichment_jobs_total',
  'janitor_deadlines_armed',
  'janitor_deadlines_unpublished',
  'mongo_commands_total',
  'mongo_command_duration_seconds',
  'webhook_deliveries_oldest_pending_seconds',
  'janitor_deadlines_overdue',
];

/**
 * Settings each service reads whose built-in default points at this machine (127.0.0.1,
 * localhost): right for `npm start`, wrong in a container. Compose and the chart must set each
 * of them, or the service talks to itself (the class of defect of NOTIFIER_URL).
 */
function loopbackSettings(service) {
  const { configShape } = createRequire(import.meta.url)(path.join(root, 'services', service, 'dist/config.js'));
  return Object.entries(configShape)
    .filter(([, schema]) => {
      const fallback = schema.safeParse(undefined);
      return fallback.success && /127\.0\.0\.1|localhost/.test(JSON.stringify(fallback.data ?? ''));
    })
    .map(([name]) => name);
}

const problems = [];
const fail = (message) => problems.push(message);
const read = (file) => readFileSync(path.resolve(root, file), 'utf8');
const loadAll = (file) =>
  YAML.parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS())
    .filter(Boolean);
function finish(label) {
  if (problems.length) {
    for (const p of problems) console.error(`  FAIL ${p}`);
    console.error(`${label}: ${problems.length} problem(s)`);
    process.exit(1);
  }
  console.log(`${label}: ok`);
}

/** "NAME PARTITIONS POLICY" lines of a topic list. */
const parseTopics = (text) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [name, partitions, policy] = l.split(/\s+/);
      return { name, partitions: Number(partitions), policy };
    });

function checkTopicList(label, topics, minPartitions = () => 1) {
  const names = topics.map((t) => t.name);
  for (const topic of CONTRACT_TOPICS) {
    const entry = topics.find((t) => t.name === topic);
    if (!entry) fail(`${label}: topic ${topic} of libs/contracts is not created`);
    else if (entry.partitions < minPartitions(topic))
      fail(
        `${label}: ${topic} has ${entry.partitions} partitions, fewer than ${minPartitions(topic)} consumer replicas`,
      );
    if (!names.includes(contracts.deadLetterTopicFor(topic)))
      fail(`${label}: dead-letter topic ${contracts.deadLetterTopicFor(topic)} is not created`);
  }
  for (const t of topics) {
    const base = t.name.replace(/\.dlq$/, '');
    if (!CONTRACT_TOPICS.includes(base)) fail(`${label}: ${t.name} is not a topic of libs/contracts`);
    if (!(t.partitions >= 1)) fail(`${label}: ${t.name} has no partition count`);
  }
  const clients = topics.find((t) => t.name === contracts.Topics.clients);
  if (clients && clients.policy !== 'compact') fail(`${label}: ${contracts.Topics.clients} must be compacted`);
  for (const t of topics)
    if (t.name !== contracts.Topics.clients && t.policy === 'compact')
      fail(`${label}: ${t.name} must not be compacted`);
}

// ---------------------------------------------------------------- chart
function indexChart(file) {
  const docs = loadAll(file);
  const byKind = (kind) => docs.filter((d) => d.kind === kind);
  const component = (d) => d.metadata?.labels?.['app.kubernetes.io/component'];
  return { docs, byKind, component };
}

function checkSecurity(label, pod, container) {
  const podSc = pod.securityContext ?? {};
  const sc = container.securityContext ?? {};
  const nonRoot = sc.runAsNonRoot ?? podSc.runAsNonRoot;
  const seccomp = sc.seccompProfile?.type ?? podSc.seccompProfile?.type;
  const issues = [];
  if (nonRoot !== true) issues.push('runAsNonRoot');
  if (!(Number(sc.runAsUser ?? podSc.runAsUser) > 0)) issues.push('numeric non-root runAsUser');
  if (sc.readOnlyRootFilesystem !== true) issues.push('readOnlyRootFilesystem');
  if (sc.allowPrivilegeEscalation !== false) issues.push('allowPrivilegeEscalation=false');
  if (!(sc.capabilities?.drop ?? []).includes('ALL')) issues.push('drop ALL capabilities');
  if (seccomp !== 'RuntimeDefault') issues.push('seccomp RuntimeDefault');
  for (const i of issues) fail(`${label}: securityContext lacks ${i}`);
  return issues.length === 0;
}

function checkRelease(file, { production }) {
  const { docs, byKind, component } = indexChart(file);
  const label = production ? 'production' : 'default';
  const deployments = byKind('Deployment');
  const hpas = byKind('HorizontalPodAutoscaler');
  const pdbs = byKind('PodDisruptionBudget');
  const services = byKind('Service');
  const configMaps = byKind('ConfigMap');
  const rows = [];
  const expected = production ? SERVICES : COMPONENTS;
  for (const name of expected) {
    const where = `${label}/${name}`;
    const dep = deployments.find((d) => component(d) === name);
    if (!dep) {
      fail(`${where}: no Deployment`);
      rows.push({ name, ok: false });
      continue;
    }
    const pod = dep.spec.template.spec;
    const c = pod.containers.find((x) => x.name === name) ?? pod.containers[0];
    const probes = ['livenessProbe', 'readinessProbe', 'startupProbe'].filter((p) => c[p]?.httpGet?.path);
    for (const p of ['livenessProbe', 'readinessProbe', 'startupProbe'])
      if (!probes.includes(p)) fail(`${where}: no HTTP ${p}`);
    const live = c.livenessProbe?.httpGet?.path;
    const ready = c.readinessProbe?.httpGet?.path;
    if (name !== 'sandbox' && (live !== '/healthz' || ready !== '/readyz'))
      fail(`${where}: probes must be /healthz (liveness) and /readyz (readiness), got ${live} and ${ready}`);
    const res = c.resources ?? {};
    const resourcesOk = ['requests', 'limits'].every((k) => res[k]?.cpu && res[k]?.memory);
    if (!resourcesOk) fail(`${where}: resources need cpu and memory requests and limits`);
    const entry = name === 'sandbox' ? 'sandbox/dist/start.js' : `services/${name}/dist/start.js`;
    if (!(c.args ?? []).includes(entry)) fail(`${where}: container args do not select ${entry}`);
    if (!existsSync(path.join(root, name === 'sandbox' ? 'sandbox' : `services/${name}`, 'package.json')))
      fail(`${where}: no workspace for ${entry}`);
    const secure = checkSecurity(where, pod, c);
    const hpa = hpas.find(
      (h) => h.spec.scaleTargetRef.kind === 'Deployment' && h.spec.scaleTargetRef.name === dep.metadata.name,
    );
    if (!hpa && name !== 'sandbox') fail(`${where}: no HorizontalPodAutoscaler`);
    const matches = (selector) =>
      Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => dep.spec.template.metadata.labels[k] === v) &&
      Object.keys(selector?.matchLabels ?? {}).length > 0;
    const pdb = pdbs.find((p) => matches(p.spec.selector));
    if (!pdb && name !== 'sandbox') fail(`${where}: no PodDisruptionBudget`);
    const svc = services.find(
      (s) =>
        Object.entries(s.spec.selector ?? {}).every(([k, v]) => dep.spec.template.metadata.labels[k] === v) &&
        component(s) === name,
    );
    if (!svc) fail(`${where}: no Service`);
    const port = c.ports?.find((p) => p.name === 'http')?.containerPort;
    // Settings: the ConfigMap and the Secret references.
    const cm = configMaps.find((m) => m.metadata.name === c.envFrom?.[0]?.configMapRef?.name)?.data ?? {};
    const secretEnv = (c.env ?? []).filter((e) => e.valueFrom?.secretKeyRef).map((e) => e.name);
    if (name !== 'sandbox') {
      for (const key of ['KAFKA_BROKERS', 'SCHEMA_REGISTRY_URL', 'HTTP_HOST', 'HTTP_PORT', 'SERVICE_NAME'])
        if (!cm[key]) fail(`${where}: ConfigMap lacks ${key}`);
      for (const key of ['DATA_KEY', 'DATA_KEY_PREVIOUS', 'MONGO_URL'])
        if (!secretEnv.includes(key)) fail(`${where}: ${key} does not come from a Secret`);
      const podEnv = new Set([...Object.keys(cm), ...secretEnv, ...(c.env ?? []).map((e) => e.name)]);
      for (const key of loopbackSettings(name))
        if (!podEnv.has(key)) fail(`${where}: ${key} is not set (its default points at 127.0.0.1)`);
      if (cm.HTTP_HOST !== '0.0.0.0') fail(`${where}: HTTP_HOST must be 0.0.0.0 in a pod`);
      const listens = Number(name === 'gateway' ? cm.GATEWAY_PORT : cm.HTTP_PORT);
      if (listens !== port) fail(`${where}: listens on ${listens}, container port is ${port}`);
      if (name === 'gateway') {
        // Health and /metrics on their own port, never the public one.
        const internal = c.ports?.find((p) => p.name === 'internal')?.containerPort;
        if (!internal || Number(cm.HTTP_PORT) !== internal || internal === port)
          fail(
            `${where}: HTTP_PORT ${cm.HTTP_PORT} must be the container port "internal" (${internal}), apart from the API port ${port}`,
          );
        for (const p of ['livenessProbe', 'readinessProbe', 'startupProbe'])
          if (c[p]?.httpGet?.port !== 'internal') fail(`${where}: ${p} must ask the internal port`);
        const monitored = services.filter(
          (s) => s.metadata.labels?.['loan-analysis/metrics'] === 'true' && component(s) === name,
        );
        if (monitored.length !== 1 || monitored[0].spec.ports.some((p) => p.targetPort !== 'internal'))
          fail(`${where}: metrics must be scraped from one Service on the internal port`);
      }
      if (production) {
        if (cm.KAFKA_SSL !== 'true') fail(`${where}: Kafka TLS is off in production`);
        if (!cm.KAFKA_SASL_MECHANISM) fail(`${where}: Kafka SASL is off in production`);
        for (const key of ['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'])
          if (!secretEnv.includes(key)) fail(`${where}: ${key} does not come from a Secret`);
        if ((hpa?.spec.minReplicas ?? 0) < 3) fail(`${where}: fewer than 3 replicas in production`);
      }
    } else if (String(cm.SANDBOX_PORT) !== String(port))
      fail(`${where}: SANDBOX_PORT ${cm.SANDBOX_PORT} is not the container port ${port}`);
    if (name === 'gateway')
      for (const key of ['ADMIN_TOKEN', 'ADMIN_TOKENS', 'PROVIDER_WEBHOOK_SECRET', 'DECISION_SIGNING_KEY'])
        if (!secretEnv.includes(key)) fail(`${where}: ${key} does not come from a Secret`);
    if (['applications', 'enrichment'].includes(name) && !cm.PROVIDER_BASE_URL) fail(`${where}: no PROVIDER_BASE_URL`);
    if (name === 'scoring' && !cm.BUREAU_BASE_URL) fail(`${where}: no BUREAU_BASE_URL`);
    rows.push({
      name,
      probes: probes.map((p) => p.replace('Probe', '')).join('+'),
      resources: resourcesOk
        ? `${res.requests.cpu}/${res.limits.cpu} cpu, ${res.requests.memory}/${res.limits.memory}`
        : 'MISSING',
      hpa: hpa ? `${hpa.spec.minReplicas}-${hpa.spec.maxReplicas}` : name === 'sandbox' ? 'n/a (1 replica)' : 'MISSING',
      pdb: pdb ? 'yes' : name === 'sandbox' ? 'n/a' : 'MISSING',
      security: secure ? 'ok' : 'FAIL',
    });
  }
  if (production) {
    if (deployments.some((d) => component(d) === 'sandbox')) fail('production: the sandbox must be off');
    const monitors = byKind('ServiceMonitor');
    if (monitors.length === 0) fail('production: no ServiceMonitor');
    const policies = byKind('NetworkPolicy');
    for (const name of SERVICES)
      if (!policies.some((p) => p.metadata.labels?.['app.kubernetes.io/component'] === name))
        fail(`production/${name}: no NetworkPolicy`);
  }
  // The topic Job: every contract topic, partitions for the consumers' replicas.
  const job = byKind('Job').find((j) => component(j) === 'topics');
  const topicsCm = configMaps.find((m) => component(m) === 'topics');
  if (!job || !topicsCm) fail(`${label}: no topic creation Job`);
  else {
    if (!String(job.spec.template.spec.containers[0].image).startsWith('apache/kafka:'))
      fail(`${label}: the topic Job does not use the apache/kafka image`);
    if (!job.metadata.annotations?.['helm.sh/hook']?.includes('pre-install'))
      fail(`${label}: the topic Job is not a pre-install hook`);
    const maxReplicas = (svc) => {
      const dep = deployments.find((d) => component(d) === svc);
      const hpa = hpas.find((h) => h.spec.scaleTargetRef.name === dep?.metadata.name);
      return hpa ? hpa.spec.maxReplicas : (dep?.spec.replicas ?? 0);
    };
    const consumers = {
      [contracts.Topics.events]: ['notifier'],
      [contracts.Topics.applicationCommands]: ['applications'],
      [contracts.Topics.providerCallbacks]: ['applications', 'enrichment'],
      [contracts.Topics.clients]: ['notifier'],
      [contracts.Topics.applicationFacts]: ['enrichment', 'scoring', 'janitor'],
      [contracts.Topics.enrichmentResults]: ['applications', 'scoring', 'janitor'],
      [contracts.Topics.scoringResults]: ['applications'],
      [contracts.Topics.deadlines]: ['applications', 'enrichment'],
    };
    checkTopicList(`${label} topic Job`, parseTopics(topicsCm.data['topics.txt']), (topic) =>
      Math.max(1, ...(consumers[topic] ?? []).map(maxReplicas)),
    );
  }
  return { rows, docs };
}

async function checkServiceMonitors(docs) {
  const monitors = docs.filter((d) => d.kind === 'ServiceMonitor');
  if (monitors.length === 0) return 0;
  const modulePath = path.join(
    tools,
    'node_modules/@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor.js',
  );
  const { ServiceMonitor } = await import(pathToFileURL(modulePath).href);
  for (const m of monitors) {
    try {
      new ServiceMonitor(m).validate();
    } catch (error) {
      fail(`ServiceMonitor ${m.metadata.name}: ${error.message}`);
    }
  }
  return monitors.length;
}

async function chart(defaultFile, productionFile) {
  const def = checkRelease(defaultFile, { production: false });
  const prod = checkRelease(productionFile, { production: true });
  const monitors = await checkServiceMonitors([...def.docs, ...prod.docs]);
  const pad = (s, n) => String(s).padEnd(n);
  console.log('Services in the rendered default chart:');
  console.log(
    `  ${pad('service', 14)}${pad('probes', 30)}${pad('resources (request/limit)', 34)}${pad('hpa', 18)}${pad('pdb', 6)}securityContext`,
  );
  for (const r of def.rows)
    console.log(
      `  ${pad(r.name, 14)}${pad(r.probes ?? 'MISSING', 30)}${pad(r.resources ?? 'MISSING', 34)}${pad(r.hpa ?? 'MISSING', 18)}${pad(r.pdb ?? 'MISSING', 6)}${r.security ?? 'FAIL'}`,
    );
  console.log(`Production values: ${prod.rows.length} services, ServiceMonitors validated: ${monitors}`);
  finish('chart policy');
}

// ---------------------------------------------------------------- compose
function compose() {
  const doc = YAML.parse(read('docker-compose.yml'), { merge: true });
  const services = doc.services ?? {};
  const kafka = services.kafka;
  if (kafka?.image !== 'apache/kafka:3.9.1') fail('compose: kafka must be apache/kafka:3.9.1');
  if (!String(kafka?.environment?.KAFKA_PROCESS_ROLES ?? '').includes('controller'))
    fail('compose: kafka is not in KRaft mode');
  if (!String(services['schema-registry']?.image ?? '').startsWith('confluentinc/cp-schema-registry:'))
    fail('compose: schema-registry must be confluentinc/cp-schema-registry');
  if (services.mongo?.image !== 'mongo:7') fail('compose: mongo must be mongo:7');
  for (const [name, svc] of Object.entries(services)) {
    if (!svc.healthcheck && name !== 'topics') fail(`compose/${name}: no healthcheck`);
    for (const dep of Object.keys(svc.depends_on ?? {})) {
      if (!services[dep]) fail(`compose/${name}: depends on unknown service ${dep}`);
      if (!svc.depends_on[dep].condition) fail(`compose/${name}: depends_on ${dep} has no condition`);
    }
  }
  for (const name of COMPONENTS) {
    const svc = services[name];
    if (!svc) {
      fail(`compose: no ${name} service`);
      continue;
    }
    if (svc.build?.target !== name) fail(`compose/${name}: builds target ${svc.build?.target}, not ${name}`);
    const test = (svc.healthcheck?.test ?? []).join(' ');
    if (!test.includes(name === 'sandbox' ? '/sandbox/health' : '/readyz'))
      fail(`compose/${name}: healthcheck does not ask ${name === 'sandbox' ? '/sandbox/health' : '/readyz'}`);
    const env = svc.environment ?? {};
    if (name === 'sandbox') {
      if (!String(env.PROVIDER_WEBHOOK_URL ?? '').startsWith('http://gateway:'))
        fail('compose/sandbox: PROVIDER_WEBHOOK_URL must point at the gateway');
      continue;
    }
    if (env.KAFKA_BROKERS !== 'kafka:9092') fail(`compose/${name}: KAFKA_BROKERS`);
    if (env.SCHEMA_REGISTRY_URL !== 'http://schema-registry:8081')
      fail(`compose/${name}: SCHEMA_REGISTRY_URL must be the Confluent registry's root`);
    if (!String(env.MONGO_URL ?? '').startsWith('mongodb://mongo:27017')) fail(`compose/${name}: MONGO_URL`);
    if (!env.DATA_KEY) fail(`compose/${name}: DATA_KEY`);
    // A DATA_KEY rotation needs the earlier keys on every service (docs/privacy.md).
    if (!('DATA_KEY_PREVIOUS' in env)) fail(`compose/${name}: DATA_KEY_PREVIOUS`);
    if (env.HTTP_HOST !== '0.0.0.0') fail(`compose/${name}: HTTP_HOST must be 0.0.0.0`);
    if (env.SERVICE_NAME !== name) fail(`compose/${name}: SERVICE_NAME`);
    for (const dep of ['kafka', 'schema-registry', 'mongo'])
      if (svc.depends_on?.[dep]?.condition !== 'service_healthy')
        fail(`compose/${name}: must wait for ${dep} to be healthy`);
    if (svc.depends_on?.topics?.condition !== 'service_completed_successfully')
      fail(`compose/${name}: must wait for the topics`);
  }
  const env = (n) => services[n]?.environment ?? {};
  if (env('applications').PROVIDER_BASE_URL !== 'http://sandbox:8090')
    fail('compose/applications: PROVIDER_BASE_URL must be the sandbox');
  if (env('enrichment').PROVIDER_BASE_URL !== 'http://sandbox:8090')
    fail('compose/enrichment: PROVIDER_BASE_URL must be the sandbox');
  if (env('scoring').BUREAU_BASE_URL !== 'http://sandbox:8090')
    fail('compose/scoring: BUREAU_BASE_URL must be the sandbox');
  for (const n of ['gateway', 'notifier'])
    if (env(n).ALLOW_PRIVATE_WEBHOOK_URLS !== 'true') fail(`compose/${n}: ALLOW_PRIVATE_WEBHOOK_URLS`);
  for (const key of ['ADMIN_TOKEN', 'PROVIDER_WEBHOOK_SECRET'])
    if (!env('gateway')[key]) fail(`compose/gateway: ${key}`);
  // Empty is allowed (a key derived from DATA_KEY, outside production) but the setting is there.
  for (const key of ['DECISION_SIGNING_KEY', 'DECISION_RECORD_ISSUER'])
    if (!(key in env('gateway'))) fail(`compose/gateway: ${key}`);
  for (const name of SERVICES)
    for (const key of loopbackSettings(name))
      if (env(name)[key] === undefined) fail(`compose/${name}: ${key} is not set (its default points at 127.0.0.1)`);
  checkTopicList('compose topics', parseTopics(env('topics').TOPICS ?? ''));
  console.log(
    `compose: ${Object.keys(services).length} services (${COMPONENTS.join(', ')} + kafka, schema-registry, mongo, topics)`,
  );
  finish('compose wiring');
}

// ---------------------------------------------------------------- Dockerfile
function dockerfile() {
  const text = read('Dockerfile');
  const pkg = JSON.parse(read('package.json'));
  const targets = [...text.matchAll(/^FROM\s+\S+\s+AS\s+(\S+)/gim)].map((m) => m[1]);
  for (const ws of pkg.workspaces) {
    if (!text.includes(`COPY ${ws}/package.json ${ws}/`))
      fail(`Dockerfile: the manifests stage does not copy ${ws}/package.json`);
    if (!text.includes(`COPY --from=build /app/${ws}/dist ${ws}/dist`))
      fail(`Dockerfile: the runtime stage does not copy ${ws}/dist`);
  }
  for (const name of COMPONENTS) {
    if (!targets.includes(name)) fail(`Dockerfile: no target ${name}`);
    const entry = name === 'sandbox' ? 'sandbox/dist/start.js' : `services/${name}/dist/start.js`;
    const stage = text.split(/^FROM /m).find((s) => new RegExp(`^runtime AS ${name}\\b`).test(s));
    if (!stage?.includes(`CMD ["${entry}"]`)) fail(`Dockerfile: target ${name} does not run ${entry}`);
  }
  if (!/^USER node$/m.test(text)) fail('Dockerfile: the runtime does not run as node');
  if (!text.includes('ENTRYPOINT ["node"]')) fail('Dockerfile: ENTRYPOINT is not ["node"]');
  if (!/npm ci --omit=dev/.test(text))
    fail('Dockerfile: production dependencies are not installed with npm ci --omit=dev');
  if (!/npx tsc -b/.test(text)) fail('Dockerfile: no TypeScript build');
  // npm nests a dependency in a workspace's own node_modules when the workspace needs another
  // version than the root has: the runtime stage must bring those too, or the service loads the
  // root's version (lru-cache 5 without the LRUCache export, say) and dies at start.
  const lock = JSON.parse(read('package-lock.json'));
  const copiesWholeTree = /^COPY --from=prod-deps \/app \.\/$/m.test(text);
  for (const key of Object.keys(lock.packages ?? {})) {
    const nested = /^((?:libs|services)\/[^/]+|sandbox|sdk)\/node_modules\//.exec(key);
    if (!nested || lock.packages[key].dev) continue;
    if (!copiesWholeTree && !text.includes(`COPY --from=prod-deps /app/${nested[1]}/node_modules`))
      fail(`Dockerfile: the runtime stage lacks ${key}, which npm installs under ${nested[1]}`);
  }
  const ignore = read('.dockerignore');
  for (const p of ['**/node_modules', '**/dist', '.git'])
    if (!ignore.split('\n').includes(p)) fail(`.dockerignore: does not exclude ${p}`);
  console.log(`Dockerfile: targets ${targets.join(', ')}`);
  finish('Dockerfile targets');
}

// ---------------------------------------------------------------- dashboard and alerts
function promNames(exprs) {
  const bin = process.env.PROMCHECK;
  if (!bin) throw new Error('PROMCHECK is not set');
  const out = execFileSync(bin, ['exprs'], { input: JSON.stringify(exprs), encoding: 'utf8' });
  return out.split('\n').filter(Boolean);
}
const baseName = (n) => n.replace(/_(bucket|count|sum)$/, '');

/**
 * Metric names the services really export: every `name: '<metric>'` of a prom-client metric in
 * libs and services, prom-client's default metrics the rules use, and Prometheus' own `up`.
 */
function exportedMetrics() {
  const names = new Set([
    'up',
    'process_start_time_seconds',
    'process_resident_memory_bytes',
    'nodejs_eventloop_lag_p99_seconds',
    'nodejs_heap_size_used_bytes',
  ]);
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!['node_modules', 'dist', '__tests__'].includes(entry.name)) walk(p);
      } else if (entry.name.endsWith('.ts') && !/\.test\.ts$/.test(entry.name)) {
        const text = readFileSync(p, 'utf8');
        if (!/new (Counter|Gauge|Histogram|Summary)\b/.test(text)) continue;
        for (const m of text.matchAll(/\bname: '([a-z_:][a-z0-9_:]*)'/g)) names.add(m[1]);
      }
    }
  };
  for (const top of ['libs', 'services']) walk(path.join(root, top));
  return names;
}

function observability() {
  const dashboard = JSON.parse(read('deploy/grafana/loan-analysis.json'));
  const panels = (dashboard.panels ?? []).flatMap((p) => [p, ...(p.panels ?? [])]);
  const exprs = panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)).filter(Boolean);
  const grafanaVars = (e) =>
    e
      .replaceAll('$__rate_interval', '5m')
      .replaceAll('$__range', '1h')
      .replaceAll('$__interval', '1m')
      .replaceAll('$service', '.*');
  const dashNames = promNames(exprs.map(grafanaVars)).map(baseName);
  for (const n of dashNames) if (!KNOWN_METRICS.includes(n)) fail(`dashboard: unknown metric ${n}`);
  for (const n of KNOWN_METRICS) if (!dashNames.includes(n)) fail(`dashboard: no panel shows ${n}`);
  for (const p of panels)
    if (p.type !== 'row' && p.datasource?.uid !== '${datasource}')
      fail(`dashboard: panel "${p.title}" does not use the datasource variable`);
  const rules = YAML.parse(read('deploy/prometheus/alerts.yaml'));
  const alerts = rules.groups.flatMap((g) => g.rules);
  const ruleNames = promNames(alerts.map((r) => r.expr)).map(baseName);
  const exported = exportedMetrics();
  for (const n of new Set(ruleNames)) if (!exported.has(n)) fail(`alerts: metric ${n} is exported by no service`);
  const want = {
    'consumer lag growing': /lag/i,
    'webhook failure ratio': /webhook/i,
    'breaker open': /breaker/i,
    'no decisions while analyses queued': /nodecision/i,
    'a service with no replica (absent)': /^LoanServiceAbsent$/,
    'a replica not scraped (up)': /^LoanServiceTargetDown$/,
    'pending webhook deliveries growing': /^LoanWebhookDeliveriesPendingGrowing$/,
    'oldest pending delivery too old': /^LoanWebhookOldestPendingTooOld$/,
    'janitor backlog (deadlines overdue)': /^LoanJanitorDeadlinesOverdue$/,
    'janitor backlog (deadlines unpublished)': /^LoanJanitorDeadlinesUnpublished$/,
    'gateway latency objective': /^LoanGatewayLatencyBudgetBurn/,
  };
  for (const service of SERVICES)
    if (
      !alerts.some(
        (a) =>
          a.alert === 'LoanServiceAbsent' && a.labels?.service === service && a.expr.includes(`service="${service}"`),
      )
    )
      fail(`alerts: no LoanServiceAbsent rule for ${service}`);
  // Every alert links its section of docs/runbooks.md (a heading whose anchor is the link's).
  const anchors = new Set(
    read('docs/runbooks.md')
      .split('\n')
      .filter((l) => /^#{2,3} /.test(l))
      .map((l) =>
        l
          .replace(/^#+ /, '')
          .trim()
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, '')
          .replace(/ /g, '-'),
      ),
  );
  for (const a of alerts) {
    const link = /^docs\/runbooks\.md#([a-z0-9-]+)$/.exec(a.annotations?.runbook_url ?? '');
    if (!link) fail(`alerts: ${a.alert} has no runbook_url docs/runbooks.md#<section>`);
    else if (!anchors.has(link[1]))
      fail(`alerts: ${a.alert} links docs/runbooks.md#${link[1]}, which has no such section`);
  }
  for (const [what, re] of Object.entries(want))
    if (!alerts.some((a) => re.test(a.alert))) fail(`alerts: no alert for ${what}`);
  for (const a of alerts) {
    if (!a.labels?.severity) fail(`alerts: ${a.alert} has no severity`);
    if (!a.annotations?.summary) fail(`alerts: ${a.alert} has no summary`);
  }
  console.log(
    `dashboard: ${panels.filter((p) => p.type !== 'row').length} panels, ${exprs.length} queries, metrics: ${[...new Set(dashNames)].join(', ')}`,
  );
  console.log(`alerts: ${alerts.map((a) => a.alert).join(', ')}`);
  finish('dashboard and alerts');
}

// ---------------------------------------------------------------- AsyncAPI
async function asyncapi() {
  const text = read('deploy/asyncapi.yaml');
  const generated = JSON.parse(
    execFileSync(process.execPath, [path.join(root, 'scripts/gen-asyncapi.mjs'), '--json'], { encoding: 'utf8' }),
  );
  if (!isDeepStrictEqual(YAML.parse(text), generated))
    fail('asyncapi: the YAML does not read back as the generated document');
  const { Parser } = toolRequire('@asyncapi/parser');
  const { document, diagnostics } = await new Parser().parse(text);
  for (const d of diagnostics.filter((x) => x.severity === 0)) fail(`asyncapi: ${d.message} at ${d.path.join('.')}`);
  if (!document) fail('asyncapi: the document does not parse');
  else {
    const addresses = document
      .channels()
      .all()
      .map((c) => c.address());
    for (const topic of CONTRACT_TOPICS) {
      if (!addresses.includes(topic)) fail(`asyncapi: no channel for ${topic}`);
      const channel = document
        .channels()
        .all()
        .find((c) => c.address() === topic);
      if (channel && channel.operations().filterBySend().length === 0) fail(`asyncapi: ${topic} has no producer`);
      if (channel && channel.operations().filterByReceive().length === 0) fail(`asyncapi: ${topic} has no consumer`);
    }
    console.log(
      `asyncapi: AsyncAPI ${document.version()}, ${addresses.length} channels, ${document.operations().all().length} operations, ${diagnostics.length} notes`,
    );
  }
  finish('asyncapi');
}

// ---------------------------------------------------------------- per-service rollout
/**
 * Renders the chart with changed values and checks what changes: a setting of one service
 * changes only that service's checksum/config (so only its pods restart); per-service
 * overrides (image, probes, scheduling, resources) reach only that service; KEDA
 * ScaledObjects are valid, one per consumer service, and replace its HPA.
 */
async function rollout() {
  const helm = process.env.HELM;
  if (!helm) throw new Error('HELM is not set');
  const chartDir = path.join(root, 'deploy/helm/loan-analysis');
  const render = (...sets) =>
    YAML.parseAllDocuments(
      execFileSync(
        helm,
        ['template', 'loans', chartDir, '--namespace', 'loans', ...sets.flatMap((s) => ['--set', s])],
        {
          encoding: 'utf8',
        },
      ),
    )
      .map((d) => d.toJS())
      .filter(Boolean);
  const component = (d) => d.metadata?.labels?.['app.kubernetes.io/component'];
  const deployments = (docs) =>
    Object.fromEntries(docs.filter((d) => d.kind === 'Deployment').map((d) => [component(d), d]));
  const checksums = (docs) =>
    Object.fromEntries(
      Object.entries(deployments(docs)).map(([n, d]) => [n, d.spec.template.metadata.annotations?.['checksum/config']]),
    );
  const changed = (a, b) =>
    Object.keys(a)
      .filter((n) => a[n] !== b[n])
      .sort();

  // 1. A setting of one service restarts that service only; a release-wide one restarts all.
  const base = checksums(render());
  for (const name of COMPONENTS) {
    const moved = changed(base, checksums(render(`components.${name}.env.ROLLOUT_CHECK=changed`)));
    if (moved.join() !== name) fail(`rollout: a setting of ${name} changes the checksum of [${moved.join(', ')}]`);
  }
  const global = changed(base, checksums(render('logLevel=debug')));
  if (global.join() !== [...SERVICES].sort().join())
    fail(`rollout: logLevel changes the checksum of [${global.join(', ')}], want every service`);
  console.log(
    `checksum/config: a setting of one service restarts only it (${COMPONENTS.length} services); logLevel restarts ${global.length}`,
  );

  // 2. Per-service overrides reach that service and no other.
  const over = deployments(
    render(
      'components.scoring.image.tag=2.0.0-rc1',
      'components.scoring.probes.readiness.periodSeconds=7',
      'components.scoring.nodeSelector.pool=scoring',
      'components.scoring.tolerations[0].key=dedicated',
      'components.scoring.tolerations[0].operator=Exists',
      'components.scoring.tolerations[0].effect=NoSchedule',
      'components.scoring.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key=pool',
      'components.scoring.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator=In',
      'components.scoring.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values[0]=scoring',
      'components.scoring.resources.limits.memory=1Gi',
      'nodeSelector.zone=a',
    ),
  );
  const pod = (name) => over[name].spec.template.spec;
  const main = (name) => pod(name).containers[0];
  const scoring = main('scoring');
  if (!scoring.image.endsWith('/scoring:2.0.0-rc1') && !scoring.image.endsWith('scoring:2.0.0-rc1'))
    fail(`rollout: scoring image is ${scoring.image}`);
  if (scoring.readinessProbe.periodSeconds !== 7 || scoring.readinessProbe.failureThreshold === undefined)
    fail('rollout: scoring readiness probe override is not merged over the global probe');
  if (pod('scoring').nodeSelector?.pool !== 'scoring' || pod('scoring').nodeSelector?.zone !== undefined)
    fail('rollout: scoring nodeSelector does not replace the global one');
  if (pod('scoring').tolerations?.[0]?.key !== 'dedicated') fail('rollout: scoring tolerations missing');
  if (!pod('scoring').affinity?.nodeAffinity) fail('rollout: scoring affinity missing');
  if (
    scoring.resources.limits.memory !== '1Gi' ||
    !scoring.env.some((e) => e.name === 'NODE_OPTIONS' && e.value === '--max-old-space-size=768')
  )
    fail('rollout: scoring memory limit and heap cap do not follow its resources');
  for (const other of SERVICES.filter((n) => n !== 'scoring')) {
    const c = main(other);
    if (c.image.includes('2.0.0-rc1')) fail(`rollout: ${other} took scoring's image tag`);
    if (c.readinessProbe.periodSeconds === 7) fail(`rollout: ${other} took scoring's probe`);
    if (pod(other).nodeSelector?.zone !== 'a' || pod(other).tolerations || pod(other).affinity)
      fail(`rollout: ${other} took scoring's scheduling`);
  }
  console.log('overrides: image tag, probes, nodeSelector, tolerations, affinity and resources reach scoring only');

  // 3. KEDA: a valid ScaledObject per consumer service, replacing its HPA.
  const { ScaledObject } = await import(
    pathToFileURL(path.join(tools, 'node_modules/@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject.js')).href
  );
  const { TriggerAuthentication } = await import(
    pathToFileURL(path.join(tools, 'node_modules/@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication.js'))
      .href
  );
  const values = YAML.parse(read('deploy/helm/loan-analysis/values.yaml'));
  const consumers = SERVICES.filter((n) => values.kafka.topics.list.some((t) => (t.consumers ?? []).includes(n)));
  const variants = [
    { label: 'plain', sets: ['keda.enabled=true'] },
    {
      label: 'SASL, TLS, CA, namespace, janitor off',
      sets: [
        'keda.enabled=true',
        'components.janitor.keda.enabled=false',
        'components.notifier.keda.lagThreshold=500',
        'kafka.sasl.mechanism=scram-sha-512',
        'kafka.tls.enabled=true',
        'trustedCA.secretName=kafka-ca',
        'kafka.topicNamespace=blue.',
        'secrets.kafkaSaslUsername=loans',
        'secrets.kafkaSaslPassword=secret',
      ],
    },
  ];
  for (const { label, sets } of variants) {
    const docs = render(...sets);
    const scaled = docs.filter((d) => d.kind === 'ScaledObject');
    const auths = docs.filter((d) => d.kind === 'TriggerAuthentication');
    const hpas = docs.filter((d) => d.kind === 'HorizontalPodAutoscaler').map(component);
    const deps = deployments(docs);
    const ns = sets.find((s) => s.startsWith('kafka.topicNamespace='))?.split('=')[1] ?? '';
    const off = sets.includes('components.janitor.keda.enabled=false') ? ['janitor'] : [];
    for (const o of [...scaled, ...auths]) {
      try {
        (o.kind === 'ScaledObject' ? new ScaledObject(o) : new TriggerAuthentication(o)).validate();
      } catch (error) {
        fail(`keda (${label}): ${o.kind} ${o.metadata.name}: ${error.message}`);
      }
    }
    for (const name of SERVICES) {
      const so = scaled.find((o) => component(o) === name);
      const want = consumers.includes(name) && !off.includes(name);
      if (!want) {
        if (so) fail(`keda (${label}): ${name} has a ScaledObject`);
        if (!hpas.includes(name)) fail(`keda (${label}): ${name} lost its HPA`);
        continue;
      }
      if (!so) {
        fail(`keda (${label}): no ScaledObject for ${name}`);
        continue;
      }
      if (hpas.includes(name)) fail(`keda (${label}): ${name} has both an HPA and a ScaledObject`);
      if (deps[name].spec.replicas !== undefined) fail(`keda (${label}): ${name}'s Deployment sets replicas`);
      if (so.spec.scaleTargetRef.name !== deps[name].metadata.name)
        fail(`keda (${label}): ${name}'s ScaledObject targets ${so.spec.scaleTargetRef.name}`);
      const topics = values.kafka.topics.list
        .filter((t) => (t.consumers ?? []).includes(name))
        .map((t) => `${ns}${t.name}`);
      const kafka = so.spec.triggers.filter((t) => t.type === 'kafka');
      if (
        kafka
          .map((t) => t.metadata.topic)
          .sort()
          .join() !== topics.sort().join()
      )
        fail(
          `keda (${label}): ${name} scales on [${kafka.map((t) => t.metadata.topic).join(', ')}], want [${topics.join(', ')}]`,
        );
      for (const t of kafka) {
        const group = `${ns}${READ_IN_GROUP[name]?.[t.metadata.topic.slice(ns.length)] ?? name}`;
        if (t.metadata.consumerGroup !== group)
          fail(
            `keda (${label}): ${name} trigger on ${t.metadata.topic} has group ${t.metadata.consumerGroup}, want ${group}`,
          );
        if (ns && t.metadata.sasl !== 'scram_sha512') fail(`keda (${label}): ${name} trigger sasl ${t.metadata.sasl}`);
        if (ns && t.metadata.tls !== 'enable') fail(`keda (${label}): ${name} trigger tls ${t.metadata.tls}`);
        if (ns && t.authenticationRef?.name !== auths[0]?.metadata.name)
          fail(`keda (${label}): ${name} trigger has no authenticationRef`);
        if (name === 'notifier' && ns && t.metadata.lagThreshold !== '500')
          fail(`keda (${label}): notifier lagThreshold ${t.metadata.lagThreshold}`);
      }
    }
    if (ns && auths.length !== 1) fail(`keda (${label}): ${auths.length} TriggerAuthentications, want 1`);
    if (!ns && auths.length !== 0) fail(`keda (${label}): a TriggerAuthentication without SASL or a CA`);
    console.log(
      `keda (${label}): ${scaled.length} ScaledObjects (${scaled.map(component).join(', ')}), ${auths.length} TriggerAuthentication valid`,
    );
  }
  finish('rollout');
}

const [command, ...args] = process.argv.slice(2);
const commands = { chart: () => chart(...args), compose, dockerfile, observability, asyncapi, rollout };
if (!commands[command]) {
  console.error(`usage: verify.mjs ${Object.keys(commands).join('|')}`);
  process.exit(2);
}
await commands[command]();
