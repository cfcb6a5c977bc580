import { randomInt } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { waitFor } from '../testing/helpers';
import type { AnalyticsRecord } from '@loan/contracts';
import { applicant, call, captureLogs, startWholeStack, suiteNamespace, testBus } from '../testing/stack';

/**
 * What a data-protection officer checks: an applicant with recognisable personal data goes
 * through the whole pipeline (initiate, link, enrichment, analysis, decision, a status read
 * whose reply travels on a reply topic, a poison message dead-lettered), and then a plain
 * Kafka consumer reading every topic of the deployment, dead-letter topics included, finds
 * none of the applicant's identity in keys, values or headers; neither do the services' logs,
 * nor any document of any collection of any service's database, nor the database's own files.
 */
const ns = suiteNamespace();
const logs = captureLogs();
let stack: Awaited<ReturnType<typeof startWholeStack>>;
let receiver: Awaited<ReturnType<typeof startWholeStack>>['receiver'];
let lender: Awaited<ReturnType<typeof startWholeStack>>['lender'];
let gatewayUrl: string;

/**
 * Values of this run alone (the database's files are shared with every other run, and keep
 * what earlier runs wrote), still recognisable as a person's.
 */
const letters = (n: number) => Array.from({ length: n }, () => 'bcdfghjklmnpqrstvwxz'[randomInt(20)]).join('');
const digits = (n: number) => Array.from({ length: n }, () => String(randomInt(10))).join('');
const tag = letters(5);
const person = {
  firstName: `Ifeyinwa${tag}`,
  lastName: `Onyekachukwu${letters(5)}`,
  email: `ifeyinwa.${tag}@privacy-probe.example.ng`,
  phone: `081${digits(8)}`,
  bvn: `222${digits(8)}`,
};
/** Each piece of identity as it could appear in bytes: as given, and in the other cases. */
const needles = Object.entries(person).flatMap(([field, value]) => [
  { field, text: value },
  { field, text: value.toLowerCase() },
  { field, text: value.toUpperCase() },
]);

beforeAll(async () => {
  stack = await startWholeStack(ns, {
    NO_LINK_TTL: '1m',
    NO_ANALYZE_TTL: '2m',
    ENRICHMENT_TIMEOUT: '20s',
    WEBHOOK_RETRY_BASE: '300ms',
    RATE_LIMITS_ENABLED: 'false',
    LOG_LEVEL: 'debug',
    // The decided application's bank data is kept this long here (90 days by default).
    BANK_DATA_RETENTION: '6s',
  });
  ({ receiver, lender, gatewayUrl } = stack);
});

afterAll(async () => {
  await stack?.stop();
});

const api = (method: string, path: string, body?: unknown) => call(gatewayUrl, lender.apiKey, method, path, body);

interface Found {
  topic: string;
  where: string;
  field: string;
}

/**
 * Reads every record of every topic of this deployment as raw bytes, and each registry-encoded
 * value also decoded through the schema registry, and lists identity found. `undecoded` counts
 * the values per topic that are not in the registry's wire format.
 */
async function scanTopics(): Promise<{
  found: Found[];
  counts: Record<string, number>;
  undecoded: Record<string, number>;
}> {
  // The registry's JSON schemas use formats and keywords a strict validator refuses; the services read them the same way.
  const registry = new SchemaRegistry(
    { host: process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:8081/apis/ccompat/v7' },
    { [SchemaType.JSON]: { strict: false, validateFormats: false } },
  );
  const undecoded: Record<string, number> = {};
  const kafka = new Kafka({
    brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
    clientId: `${ns}scan`,
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  const topics = (await admin.listTopics()).filter((t) => t.startsWith(ns));
  // The last offset of every partition that holds records now: the scan reads up to each of them
  // (a count alone would be reached early by records written while it reads).
  const pending = new Map<string, number>();
  for (const topic of topics) {
    for (const o of await admin.fetchTopicOffsets(topic)) {
      if (Number(o.high) > Number(o.low)) pending.set(`${topic}/${o.partition}`, Number(o.high) - 1);
    }
  }
  await admin.disconnect();
  const partitions = pending.size;
  const counts: Record<string, number> = Object.fromEntries(topics.map((t) => [t.slice(ns.length), 0]));
  const found: Found[] = [];
  const consumer = kafka.consumer({ groupId: `${ns}scan-${Date.now()}` });
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: true });
  const look = (topic: string, where: string, bytes: Buffer | string | null | undefined) => {
    if (bytes === null || bytes === undefined) return;
    const text = Buffer.isBuffer(bytes) ? bytes.toString('latin1') : bytes;
    for (const n of needles) {
      const hit =
        text.includes(n.text) && !found.some((f) => f.topic === topic && f.where === where && f.field === n.field);
      if (hit) found.push({ topic, where, field: n.field });
    }
  };
  await consumer.run({
    eachMessage: async ({ topic, partition, message }) => {
      const short = topic.slice(ns.length);
      counts[short] = (counts[short] ?? 0) + 1;
      const last = pending.get(`${topic}/${partition}`);
      if (last !== undefined && Number(message.offset) >= last) pending.delete(`${topic}/${partition}`);
      look(short, 'key', message.key);
      look(short, 'value', message.value);
      let decoded: unknown;
      if (message.value?.[0] === 0) decoded = await registry.decode(message.value).catch(() => undefined);
      if (decoded !== undefined) look(short, 'decoded value', JSON.stringify(decoded));
      else if (message.value) undecoded[short] = (undecoded[short] ?? 0) + 1;
      for (const [name, value] of Object.entries(message.headers ?? {})) {
        look(short, `header ${name}`, name);
        for (const v of Array.isArray(value) ? value : [value])
          look(short, `header ${name}`, v as Buffer | string | undefined);
      }
    },
  });
  await waitFor(() => pending.size === 0, {
    timeoutMs: 60_000,
    what: `every record of ${partitions} partitions of ${topics.length} topics`,
  });
  await consumer.disconnect();
  return { found, counts, undecoded };
}

interface FoundAtRest {
  service: string;
  collection: string;
  path: string;
  field: string;
}

/** Where each needle is in a document: the dot paths of the strings (and keys) that hold it. */
function identityIn(value: unknown, at: string[] = []): { path: string; field: string }[] {
  if (typeof value === 'string') {
    return needles.filter((n) => value.includes(n.text)).map((n) => ({ path: at.join('.'), field: n.field }));
  }
  if (value === null || typeof value !== 'object') return [];
  if (Buffer.isBuffer(value) || value instanceof Uint8Array)
    return identityIn(Buffer.from(value).toString('latin1'), at);
  if (value instanceof Date || typeof (value as { toHexString?: unknown }).toHexString === 'function') return [];
  if ((value as { _bsontype?: string })._bsontype === 'Binary')
    return identityIn(Buffer.from((value as { buffer: Uint8Array }).buffer).toString('latin1'), at);
  return Object.entries(value).flatMap(([key, item]) => [
    ...identityIn(key, [...at, '(key)']),
    ...identityIn(item, [...at, key]),
  ]);
}

/** Every document of every collection of every service's database, read through the driver. */
async function scanCollections(): Promise<{ found: FoundAtRest[]; documents: Record<string, number> }> {
  const found: FoundAtRest[] = [];
  const documents: Record<string, number> = {};
  for (const { name: service, runtime } of stack.services) {
    const db = runtime.db.db!;
    for (const { name: collection } of await db.listCollections({}, { nameOnly: true }).toArray()) {
      for await (const doc of db.collection(collection).find({})) {
        documents[service] = (documents[service] ?? 0) + 1;
        for (const hit of identityIn(doc)) {
          if (
            !found.some(
              (f) =>
                f.service === service && f.collection === collection && f.path === hit.path && f.field === hit.field,
            )
          ) {
            found.push({ service, collection, ...hit });
          }
        }
      }
    }
  }
  return { found, documents };
}

/**
 * The database's own files for this run's databases, when they are on this machine: FerretDB's
 * SQLite files (database and write-ahead log), or the whole PostgreSQL data directory (tables
 * and WAL) when FerretDB runs on PostgreSQL. Null when the database is elsewhere.
 */
function databaseFiles(): string[] | null {
  const home = process.env.LOAN_INFRA_HOME ?? path.join(homedir(), '.cache', 'loan-infra');
  const run = process.env.LOAN_INFRA_RUN ?? path.join(home, 'run');
  const recorded = path.join(run, 'data-dir');
  const data =
    process.env.LOAN_INFRA_DATA ??
    (existsSync(recorded) ? readFileSync(recorded, 'utf8').trim() : path.join(home, 'data'));
  const kind = existsSync(path.join(run, 'db')) ? readFileSync(path.join(run, 'db'), 'utf8').trim() : 'sqlite';
  const mongo = new URL(process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/');
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(mongo.hostname)) return null;
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)],
    );
  if (kind === 'postgresql') {
    const dir = path.join(data, 'postgresql');
    return existsSync(dir) ? [...walk(path.join(dir, 'base')), ...walk(path.join(dir, 'pg_wal'))] : null;
  }
  const dir = path.join(data, 'ferretdb', 'db');
  if (!existsSync(dir)) return null;
  const prefix = `${ns.replace(/\W/g, '')}_`;
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix))
    .map((f) => path.join(dir, f));
}

/** The files that hold any of the identity as bytes, and what they hold. */
function scanFiles(files: string[]): { file: string; field: string }[] {
  const found: { file: string; field: string }[] = [];
  for (const file of files) {
    let bytes: Buffer;
    try {
      if (!statSync(file).isFile()) continue;
      bytes = readFileSync(file);
    } catch {
      continue; // removed meanwhile (a WAL segment recycled)
    }
    const name = path.basename(file);
    for (const n of needles) {
      if (bytes.includes(n.text) && !found.some((f) => f.file === name && f.field === n.field))
        found.push({ file: name, field: n.field });
    }
  }
  return found;
}

/** Every record of loan.analytics.v1 so far, decoded through the schema registry as an analyst would. */
async function readAnalytics(): Promise<AnalyticsRecord[]> {
  const bus = testBus(ns, `${ns}analyst`);
  const records: AnalyticsRecord[] = [];
  await bus.connect();
  try {
    const offsets = await bus.topicOffsets('loan.analytics.v1');
    const total = offsets.reduce((sum, o) => sum + o.high - o.low, 0);
    await bus.consume({
      groupId: `analyst-${Date.now()}`,
      topics: ['loan.analytics.v1'],
      handle: async (m) => void records.push(m.value as AnalyticsRecord),
    });
    await waitFor(() => records.length >= total, { what: `${total} analytics records` });
    return records;
  } finally {
    await bus.disconnect();
  }
}

describe('personal data of an applicant', () => {
  it('when an application runs end to end, then no topic, dead-letter topic, reply topic or log line carries the applicant\u2019s BVN, e-mail, phone or names, and its bank data goes when its retention ends', async () => {
    const start = await api('POST', '/api/applications/initiate', applicant({ ...person, amount: 200_000, tenor: 6 }));
    expect(start.status).toBe(201);
    const { applicationId, widgetUrl } = start.body;

    const linked = await fetch(`${new URL(widgetUrl).origin}/sandbox/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ widgetUrl, persona: 'salaried', institution: 'GTBank' }),
    });
    expect(linked.status).toBe(200);
    await waitFor(
      () => receiver.events('account.enrichment_ready').some((e) => e.data.applicationId === applicationId),
      {
        timeoutMs: 60_000,
        what: 'account.enrichment_ready',
      },
    );
    expect((await api('POST', `/api/applications/${applicationId}/finalize-linking`)).status).toBe(200);
    expect((await api('POST', `/api/applications/${applicationId}/analyze`)).status).toBe(200);
    await waitFor(() => receiver.events('application.decision').some((e) => e.data.applicationId === applicationId), {
      timeoutMs: 60_000,
      what: 'application.decision',
    });
    // The status read is answered on the gateway's reply topic; the lender still sees the names.
    const view = await api('GET', `/api/applications/${applicationId}`);
    expect(view.status).toBe(200);
    expect(view.body.applicant).toMatchObject({
      firstName: person.firstName,
      lastName: person.lastName,
      email: person.email,
    });
    expect(view.body.accounts[0].monthlyFlows.length).toBeGreaterThan(0);
    // So is the list, whose rows name the applicant.
    const listed = await api('GET', `/api/applications?q=${applicationId}`);
    expect(listed.body.items).toEqual([
      expect.objectContaining({ applicantName: `${person.firstName} ${person.lastName}` }),
    ]);
    // And searching by who applied finds it; the scans below prove the words searched for never left the gateway.
    for (const q of [`${person.lastName} ${person.firstName}`, person.email, person.phone, person.bvn]) {
      const found = await api('GET', `/api/applications?q=${encodeURIComponent(q)}`);
      expect({ q, found: found.body.items?.map((i: { applicationId: string }) => i.applicationId) }).toEqual({
        q,
        found: [applicationId],
      });
    }

    // At rest, while the application and its bank data are all there: no document holds the
    // identity readable (sealed values only), in any collection of any service.
    const atRest = await scanCollections();
    expect(Object.keys(atRest.documents).sort()).toEqual([
      'applications',
      'enrichment',
      'gateway',
      'janitor',
      'notifier',
      'scoring',
    ]);
    expect(atRest.found).toEqual([]);

    // A poison message on the provider callbacks topic is dead-lettered.
    const producer = new Kafka({
      brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
      logLevel: logLevel.NOTHING,
    }).producer();
    await producer.connect();
    await producer.send({
      topic: `${ns}loan.gateway.provider-callbacks`,
      messages: [{ key: 'poison', value: Buffer.from('not a registry-encoded record') }],
    });
    await producer.disconnect();
    const dlq = 'loan.gateway.provider-callbacks.dlq';

    let scan = await scanTopics();
    await waitFor(async () => ((scan = await scanTopics()).counts[dlq] ?? 0) > 0, {
      timeoutMs: 60_000,
      what: 'the poison message in its dead-letter topic',
    });
    const replies = Object.keys(scan.counts).filter((t) => t.startsWith('loan.gateway.replies.'));
    expect(replies.length).toBeGreaterThan(0);
    expect(replies.reduce((n, t) => n + (scan.counts[t] ?? 0), 0)).toBeGreaterThan(0);
    for (const topic of [
      'loan.applications.commands',
      'loan.gateway.provider-callbacks',
      'loan.applications.facts',
      'loan.enrichment.results',
      'loan.scoring.results',
      'loan.events.v1',
      'loan.analytics.v1',
    ]) {
      expect({ topic, records: scan.counts[topic] ?? 0 }).toEqual({ topic, records: expect.any(Number) });
      expect(scan.counts[topic]).toBeGreaterThan(0);
    }
    expect(scan.found).toEqual([]);
    // Every value but the poison message (and its copies, one per consuming service) was read decoded too.
    expect(scan.undecoded).toEqual({ 'loan.gateway.provider-callbacks': 1, [dlq]: 2 });

    // Whatever a service created (reply and dead-letter topics included) keeps records a week
    // at most; the clients topic is compacted instead.
    const admin = new Kafka({
      brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
      logLevel: logLevel.NOTHING,
    }).admin();
    await admin.connect();
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: Object.keys(scan.counts).map((t) => ({
        type: ConfigResourceTypes.TOPIC,
        name: `${ns}${t}`,
        configNames: ['retention.ms', 'cleanup.policy'],
      })),
    });
    await admin.disconnect();
    const kept = resources.map((r) => {
      const config = Object.fromEntries(r.configEntries.map((c) => [c.configName, c]));
      const topic = r.resourceName.slice(ns.length);
      const retention = config['retention.ms'];
      // Set on the topic itself, not left to whatever the broker's default happens to be.
      const own = retention !== undefined && !retention.isDefault && Number(retention.configValue) <= 7 * 86_400_000;
      return {
        topic,
        ok: config['cleanup.policy']?.configValue === 'compact' ? topic === 'loan.gateway.clients' : own,
      };
    });
    expect(kept.filter((k) => !k.ok)).toEqual([]);
    expect(kept.length).toBe(Object.keys(scan.counts).length);

    // The analysts' stream: every public event of the application, pseudonymous, with the decision.
    const analytics = await readAnalytics();
    const events = receiver.received.map((r) => r.body).filter((b) => b.data?.applicationId === applicationId);
    const mine = analytics.filter((a) => events.some((e) => e.id === a.id));
    expect(mine.map((a) => a.event).sort()).toEqual(events.map((e) => e.event).sort());
    expect(new Set(mine.map((a) => a.application)).size).toBe(1);
    const decided = mine.find((a) => a.event === 'application.decision')!;
    expect(decided.decision).toMatchObject({
      outcome: expect.any(String),
      score: expect.any(Number),
      band: expect.any(String),
    });
    const linkedEvent = events.find((e) => e.event === 'account.linked');
    const raw = JSON.stringify(mine);
    for (const id of [
      applicationId,
      start.body.applicantId,
      lender.clientId,
      linkedEvent.data.accountId,
      linkedEvent.data.accountNumber,
    ]) {
      expect(raw).not.toContain(id);
    }

    // When the retention period ends, every service holding the bank data lets it go.
    const db = (name: string) => stack.services.find((s) => s.name === name)!.runtime.db;
    const accountNumber = String(linkedEvent.data.accountNumber);
    await waitFor(
      async () =>
        (await db('enrichment').collection('bank_data').countDocuments({ applicationId })) === 0 &&
        (await db('scoring').collection('profiles').countDocuments({ applicationId })) === 0 &&
        (await db('notifier')
          .collection('deliveries')
          .countDocuments({ applicationId, body: { $regex: accountNumber } })) === 0,
      { timeoutMs: 60_000, what: 'bank data gone from enrichment, scoring and the delivery log' },
    );
    // The decision and its audit record (derived features, no statements) stay.
    const audits = await db('scoring').collection('analyses').find({ applicationId }).toArray();
    expect(audits.map((a) => [a.status, a.audit === null])).toEqual([['DECIDED', false]]);
    const jobs = await db('enrichment').collection('enrichment_jobs').find({ applicationId }).toArray();
    expect(jobs.map((j) => j.accountNumber)).toEqual([null]);
    const bodies = await db('notifier')
      .collection('deliveries')
      .find({ applicationId, event: 'account.linked' })
      .toArray();
    expect(bodies.map((b) => JSON.parse(b.body as string).data.accountNumber)).toEqual([
      `******${accountNumber.slice(-4)}`,
    ]);
    await waitFor(
      async () => {
        const stored = await db('applications')
          .collection('applications')
          .findOne({ _id: applicationId as never });
        return stored?.accounts.every(
          (a: { accountNumber: string; holderName: string; monthlyFlows: unknown[] }) =>
            a.accountNumber === `******${accountNumber.slice(-4)}` &&
            a.holderName === '' &&
            a.monthlyFlows.length === 0,
        );
      },
      { what: 'the applications service to forget account numbers, holder names and monthly flows' },
    );
    // The lender's view keeps the decision and status.
    const after = (await api('GET', `/api/applications/${applicationId}`)).body;
    expect(after).toMatchObject({ status: 'COMPLETED', decision: { score: expect.any(Number) } });
    expect(after.accounts[0].monthlyFlows).toEqual([]);

    // Nor afterwards, nor in the database's files, which keep every page this run wrote
    // (superseded versions and the write-ahead log included).
    expect((await scanCollections()).found).toEqual([]);
    const files = databaseFiles();
    if (files !== null) {
      expect(files.length).toBeGreaterThan(0);
      expect(scanFiles(files)).toEqual([]);
    }

    const logged = logs.lines().filter((line) => needles.some((n) => line.includes(n.text)));
    expect(logs.lines().length).toBeGreaterThan(0);
    expect(logged).toEqual([]);
  });

  it('when the bank names another person as the account holder, then the decision refers it for review naming the bank, and that person\u2019s name is on no topic, in no log line and in no readable document', async () => {
    const start = await api('POST', '/api/applications/initiate', applicant({ amount: 200_000, tenor: 6 }));
    expect(start.status).toBe(201);
    const { applicationId, widgetUrl } = start.body;
    const linked = await fetch(`${new URL(widgetUrl).origin}/sandbox/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ widgetUrl, persona: 'name_mismatch', institution: 'Access Bank' }),
    });
    expect(linked.status).toBe(200);
    const { holderName } = (await linked.json()) as { holderName: string };
    expect(holderName.length).toBeGreaterThan(3);
    // From here on every scan looks for the holder's name too.
    needles.push(
      ...[holderName, holderName.toLowerCase(), holderName.toUpperCase()].map((text) => ({
        field: 'holderName',
        text,
      })),
    );

    await waitFor(
      () => receiver.events('account.enrichment_ready').some((e) => e.data.applicationId === applicationId),
      {
        timeoutMs: 60_000,
        what: 'account.enrichment_ready',
      },
    );
    expect((await api('POST', `/api/applications/${applicationId}/finalize-linking`)).status).toBe(200);
    expect((await api('POST', `/api/applications/${applicationId}/analyze`)).status).toBe(200);
    const decision = await waitFor(
      () => receiver.events('application.decision').find((e) => e.data.applicationId === applicationId),
      {
        timeoutMs: 60_000,
        what: 'application.decision',
      },
    );
    const reasons = JSON.stringify(decision.data);
    expect(reasons).toContain('IDENTITY_MISMATCH');
    expect(reasons).toContain('Access Bank');
    expect(reasons).not.toContain(holderName);
    expect(
      (await api('GET', `/api/applications/${applicationId}`)).body.decision.regulatory_compliance.identity_verified,
    ).toBe(false);

    expect((await scanTopics()).found).toEqual([]);
    expect((await scanCollections()).found).toEqual([]);
    expect(
      logs.lines().filter((line) => line.includes(holderName) || line.toUpperCase().includes(holderName.toUpperCase())),
    ).toEqual([]);
  });
});
