// Reads the stack's internal topics (read-only, a consumer group of its own) to time each hop
// of an application and to count what was produced twice. Values are in the Confluent wire
// format: a magic byte, a 4-byte schema id, then the JSON document.
import path from 'node:path';
import { log, now, requireFromRoot, root, sleep } from './util.mjs';

const { Kafka, logLevel } = requireFromRoot('kafkajs');
// The tap's kafkajs client runs with the services' fix of its idle connection timer too.
requireFromRoot(path.join(root, 'libs', 'runtime', 'dist', 'index.js')).fixKafkajsIdleTimers();

/** Logical topic -> short label used in the hop names. */
const TAPPED = {
  'loan.applications.commands': 'command',
  'loan.gateway.provider-callbacks': 'callback',
  'loan.applications.facts': 'fact',
  'loan.enrichment.results': 'enrichment',
  'loan.scoring.results': 'scoring',
  'loan.events.v1': 'event',
};

const decode = (buffer) => {
  if (!buffer || buffer.length < 5) return null;
  try {
    return JSON.parse(buffer.subarray(buffer[0] === 0 ? 5 : 0).toString('utf8'));
  } catch {
    return null;
  }
};

/** What a record says about which application it concerns and what it is. */
function classify(short, key, value) {
  if (!value) return null;
  switch (short) {
    case 'command':
      return value.applicationId ? { app: value.applicationId, kind: value.type, id: value.commandId } : null;
    case 'callback':
      return value.ref
        ? { app: value.ref, kind: value.kind, id: value.callbackId, account: value.providerAccountId }
        : null;
    case 'fact':
    case 'enrichment':
    case 'scoring':
      return {
        app: value.applicationId ?? key,
        kind: value.type,
        id: value.factId,
        account: value.accountId ?? null,
      };
    case 'event':
      return { app: value.applicationId ?? value.data?.applicationId ?? key, kind: value.event, id: value.id };
    default:
      return null;
  }
}

/**
 * A tap that reads nothing until `start()`: started after a run (from the beginning of each
 * topic) it costs the stack nothing while the run is measured; started before, it sees records
 * as they come (needed to wait for events when no notifier delivers them).
 */
export function createTap({ brokers, namespace, groupId }) {
  const kafka = new Kafka({ clientId: 'bench-tap', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 50, sessionTimeout: 15_000, heartbeatInterval: 1_000 });
  let topics = [];
  /** applicationId -> Map(label -> { first, last, count, ids:Set }) */
  const byApp = new Map();
  const waiters = new Map();
  /** `topic|partition` -> next offset to read */
  const positions = new Map();
  let records = 0;
  const mark = (app, label, ts, id, seenAt) => {
    let marks = byApp.get(app);
    if (!marks) byApp.set(app, (marks = new Map()));
    let m = marks.get(label);
    if (!m) marks.set(label, (m = { first: ts, firstSeenAt: seenAt, last: ts, count: 0, ids: new Set() }));
    m.count += 1;
    if (id) m.ids.add(id);
    if (ts < m.first) m.first = ts;
    if (ts > m.last) m.last = ts;
    const key = `${app}|${label}`;
    const w = waiters.get(key);
    if (w) {
      waiters.delete(key);
      for (const resolve of w) resolve(seenAt);
    }
  };
  let joined = false;
  consumer.on(consumer.events.GROUP_JOIN, () => {
    joined = true;
  });
  let started = null;

  async function run() {
    await admin.connect();
    const existing = new Set(await admin.listTopics());
    topics = Object.keys(TAPPED).filter((t) => existing.has(`${namespace}${t}`));
    await consumer.connect();
    await consumer.subscribe({ topics: topics.map((t) => `${namespace}${t}`), fromBeginning: true });
    await consumer.run({
      partitionsConsumedConcurrently: 6,
      eachBatchAutoResolve: true,
      eachBatch: async ({ batch }) => {
        const short = TAPPED[batch.topic.slice(namespace.length)];
        const seenAt = now();
        for (const message of batch.messages) {
          records += 1;
          const c = classify(short, message.key?.toString() ?? null, decode(message.value));
          if (!c || !c.app) continue;
          mark(c.app, `${short}:${c.kind}`, Number(message.timestamp), c.id, seenAt);
        }
        const last = batch.messages[batch.messages.length - 1];
        if (last) positions.set(`${batch.topic}|${batch.partition}`, Number(last.offset) + 1);
      },
    });
    const deadline = Date.now() + 30_000;
    while (!joined && Date.now() < deadline) await sleep(100);
    if (!joined) log('the Kafka tap did not join its group within 30 s; hop timings may be missing');
  }

  return {
    get topics() {
      return topics;
    },
    byApp,
    records: () => records,
    start() {
      started ??= run();
      return started;
    },
    /** Starts the tap if needed and waits until it has read every record written so far. */
    async catchUp(timeoutMs = 60_000) {
      await this.start();
      const ends = [];
      for (const t of topics) {
        for (const p of await admin.fetchTopicOffsets(`${namespace}${t}`)) {
          ends.push({ key: `${namespace}${t}|${p.partition}`, high: Number(p.high) });
        }
      }
      const deadline = Date.now() + timeoutMs;
      const behind = () => ends.filter((e) => e.high > 0 && (positions.get(e.key) ?? 0) < e.high);
      while (behind().length > 0 && Date.now() < deadline) await sleep(100);
      const left = behind().length;
      if (left > 0)
        log(
          `the Kafka tap is still behind on ${left} partitions after ${timeoutMs / 1000} s; hop timings may be incomplete`,
        );
    },
    /** Local time at which the tap first saw `label` for an application. */
    waitFor(app, label, timeoutMs) {
      const m = byApp.get(app)?.get(label);
      if (m) return Promise.resolve(m.firstSeenAt);
      return new Promise((resolve, reject) => {
        const key = `${app}|${label}`;
        const list = waiters.get(key) ?? [];
        waiters.set(key, list);
        const timer = setTimeout(() => reject(new Error(`${label} not seen within ${timeoutMs / 1000} s`)), timeoutMs);
        list.push((t) => {
          clearTimeout(timer);
          resolve(t);
        });
      });
    },
    async stop() {
      if (!started) return;
      await consumer.disconnect().catch(() => undefined);
      await admin.deleteGroups([groupId]).catch(() => undefined);
      await admin.disconnect().catch(() => undefined);
    },
  };
}
