// Reads loan.analytics.v1 from the beginning up to where it stood at start, through the schema
// registry as any analyst's consumer would, and prints an approval rate, the score
// distribution, time to decision and why applications failed or were abandoned.
//
//   KAFKA_BROKERS=127.0.0.1:9092 SCHEMA_REGISTRY_URL=http://127.0.0.1:8081/apis/ccompat/v7 node report.mjs
//
// KAFKA_TOPIC_NAMESPACE: the deployment's topic prefix, if it has one. JSON=1 prints JSON.
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';

const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const topic = `${process.env.KAFKA_TOPIC_NAMESPACE ?? ''}loan.analytics.v1`;
const registry = new SchemaRegistry(
  { host: process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:8081/apis/ccompat/v7' },
  { [SchemaType.JSON]: { strict: false, validateFormats: false } },
);
const kafka = new Kafka({ clientId: 'analytics-report', brokers, logLevel: logLevel.NOTHING });

/** Every record of the topic up to its end at start, by id (a redelivered event counts once). */
async function readAll() {
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  const remaining = new Map(
    ends.filter((o) => Number(o.high) > Number(o.low)).map((o) => [o.partition, Number(o.high)]),
  );
  const records = new Map();
  if (remaining.size === 0) return records;
  // A group of its own each run, that never commits: the report always starts from the beginning.
  const consumer = kafka.consumer({ groupId: `analytics-report-${randomUUID()}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise((resolve, reject) => {
    consumer
      .run({
        autoCommit: false,
        eachMessage: async ({ partition, message }) => {
          const record = await registry.decode(message.value);
          records.set(record.id, record);
          if (Number(message.offset) + 1 >= (remaining.get(partition) ?? 0)) remaining.delete(partition);
          if (remaining.size === 0) resolve();
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return records;
}

const percentile = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : null;
const count = (items, key) => items.reduce((acc, item) => ({ ...acc, [key(item)]: (acc[key(item)] ?? 0) + 1 }), {});

function report(records) {
  const all = [...records.values()];
  const decisions = all.filter((r) => r.event === 'application.decision');
  const outcomes = count(decisions, (r) => r.decision.outcome);
  const bucketOf = (score) => Math.floor(score / 10) * 10;
  const buckets = count(decisions, (r) => `${bucketOf(r.decision.score)}-${bucketOf(r.decision.score) + 9}`);
  const readyAt = new Map(
    all.filter((r) => r.event === 'application.ready_for_analysis').map((r) => [r.application, Date.parse(r.at)]),
  );
  const firstLinkAt = new Map();
  for (const r of all.filter((x) => x.event === 'account.linked')) {
    const at = Date.parse(r.at);
    if (!firstLinkAt.has(r.application) || at < firstLinkAt.get(r.application)) firstLinkAt.set(r.application, at);
  }
  const seconds = (from) =>
    decisions
      .filter((d) => from.has(d.application))
      .map((d) => (Date.parse(d.at) - from.get(d.application)) / 1000)
      .sort((a, b) => a - b);
  const fromReady = seconds(readyAt);
  const fromLink = seconds(firstLinkAt);
  return {
    records: all.length,
    lenders: new Set(all.map((r) => r.lender)).size,
    applications: new Set(all.map((r) => r.application).filter(Boolean)).size,
    events: count(all, (r) => r.event),
    decisions: decisions.length,
    approvalRate: decisions.length ? (outcomes.APPROVED ?? 0) / decisions.length : null,
    outcomes,
    scoreBands: count(decisions, (r) => r.decision.band),
    scores: Object.fromEntries(Object.entries(buckets).sort(([a], [b]) => parseInt(a, 10) - parseInt(b, 10))),
    secondsToDecision: {
      fromReadyForAnalysis: { median: percentile(fromReady, 0.5), p90: percentile(fromReady, 0.9) },
      fromFirstLinkedAccount: { median: percentile(fromLink, 0.5), p90: percentile(fromLink, 0.9) },
    },
    failed: count(
      all.filter((r) => r.event === 'application.failed'),
      (r) => r.reason,
    ),
    abandoned: count(
      all.filter((r) => r.event === 'application.abandoned'),
      (r) => r.reason,
    ),
  };
}

const result = report(await readAll());
if (process.env.JSON) {
  console.log(JSON.stringify(result, null, 2));
} else {
  const pct = (x) => (x === null ? '-' : `${(x * 100).toFixed(1)}%`);
  const s = (x) => (x === null ? '-' : `${x.toFixed(1)} s`);
  console.log(
    `${topic}: ${result.records} records, ${result.lenders} lender(s), ${result.applications} application(s)`,
  );
  console.log(
    `events:          ${Object.entries(result.events)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  console.log(`decisions:       ${result.decisions}, approval rate ${pct(result.approvalRate)}`);
  console.log(
    `outcomes:        ${
      Object.entries(result.outcomes)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || '-'
    }`,
  );
  console.log(
    `score bands:     ${
      Object.entries(result.scoreBands)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || '-'
    }`,
  );
  console.log(
    `scores:          ${
      Object.entries(result.scores)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ') || '-'
    }`,
  );
  const t = result.secondsToDecision;
  console.log(
    `time to decision from ready_for_analysis: median ${s(t.fromReadyForAnalysis.median)}, p90 ${s(t.fromReadyForAnalysis.p90)}`,
  );
  console.log(
    `time to decision from first linked account: median ${s(t.fromFirstLinkedAccount.median)}, p90 ${s(t.fromFirstLinkedAccount.p90)}`,
  );
  console.log(
    `failed:          ${
      Object.entries(result.failed)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || '-'
    }`,
  );
  console.log(
    `abandoned:       ${
      Object.entries(result.abandoned)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || '-'
    }`,
  );
}
