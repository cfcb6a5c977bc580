import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { testStamp, waitFor } from '../testing/helpers';

/**
 * The topic Job of the Helm chart and docker-compose.yml (files/create-topics.sh, Kafka's own
 * kafka-topics.sh and kafka-configs.sh) run against the real broker with the topic list of
 * docker-compose.yml: every topic gets the retention an operator set, and a changed retention
 * reaches topics that already exist.
 */
const root = path.resolve(__dirname, '..');
const script = path.join(root, 'deploy/helm/loan-analysis/files/create-topics.sh');
const kafkaLib = path.join(process.env.LOAN_INFRA_HOME ?? path.join(homedir(), '.cache/loan-infra'), 'kafka', 'lib');

/**
 * The local broker is installed from Maven Central, without the distribution's bin/ scripts:
 * these two run the same tool classes as Kafka's kafka-topics.sh and kafka-configs.sh.
 */
function kafkaHomeWithTools(): string {
  const home = mkdtempSync(path.join(tmpdir(), 'kafka-tools-'));
  mkdirSync(path.join(home, 'bin'));
  const tool = (name: string, mainClass: string) =>
    writeFileSync(
      path.join(home, 'bin', name),
      `#!/bin/sh\nexec java -Xmx128m -cp '${kafkaLib}/*' ${mainClass} "$@"\n`,
      { mode: 0o755 },
    );
  tool('kafka-topics.sh', 'org.apache.kafka.tools.TopicCommand');
  tool('kafka-configs.sh', 'kafka.admin.ConfigCommand');
  return home;
}
const kafkaHome = kafkaHomeWithTools();
const brokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const day = 86_400_000;

/** The TOPICS list of the compose `topics` service, with `${VAR:-default}` filled from `env`. */
function composeTopics(env: Record<string, string>): string {
  const compose = readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
  const block = /^ {6}TOPICS: \|\n((?: {8}\S.*\n)+)/m.exec(compose);
  if (!block) throw new Error('docker-compose.yml has no TOPICS block in its topics service');
  return block[1]!
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => line.replace(/\$\{(\w+):-([^}]*)\}/g, (_, name: string, fallback: string) => env[name] ?? fallback))
    .join('\n');
}

function createTopics(namespace: string, topics: string) {
  const run = spawnSync('sh', [script], {
    encoding: 'utf8',
    env: {
      ...process.env,
      KAFKA_HOME: kafkaHome,
      KAFKA_BROKERS: brokers,
      TOPIC_NAMESPACE: namespace,
      TOPICS: topics,
      TOPIC_JOBS: '2',
      WAIT_ATTEMPTS: '3',
    },
    timeout: 5 * 60_000,
  });
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
  if (run.status !== 0) throw new Error(`create-topics.sh failed (${run.status}):\n${output}`);
  return output;
}

async function topicConfigs(names: string[]): Promise<Record<string, Record<string, string>>> {
  const admin = new Kafka({ brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: names.map((name) => ({
        type: ConfigResourceTypes.TOPIC,
        name,
        configNames: ['retention.ms', 'cleanup.policy'],
      })),
    });
    return Object.fromEntries(
      resources.map((r) => [
        r.resourceName,
        Object.fromEntries(r.configEntries.map((c) => [c.configName, c.configValue])),
      ]),
    );
  } finally {
    await admin.disconnect();
  }
}

describe('topic creation for compose and the Helm chart', () => {
  const ns = `${testStamp()}.`;

  it('when an operator sets KAFKA_RETENTION, then internal and dead-letter topics keep records that long, events their own retention, and clients are compacted', async () => {
    const topics = composeTopics({ KAFKA_RETENTION: '3d' });
    createTopics(ns, topics);
    const names = topics.split('\n').map((line) => `${ns}${line.split(/\s+/)[0]}`);
    const configs = await topicConfigs(names);
    const retention = (name: string) => Number(configs[`${ns}${name}`]!['retention.ms']);
    expect(Object.keys(configs).sort()).toEqual([...names].sort());
    expect(retention('loan.events.v1')).toBe(7 * day);
    for (const name of [
      'loan.applications.commands',
      'loan.gateway.provider-callbacks',
      'loan.applications.facts',
      'loan.enrichment.results',
      'loan.scoring.results',
      'loan.janitor.deadlines',
    ]) {
      expect({ name, days: retention(name) / day }).toEqual({ name, days: 3 });
      expect({ name: `${name}.dlq`, days: retention(`${name}.dlq`) / day }).toEqual({ name: `${name}.dlq`, days: 3 });
    }
    expect(configs[`${ns}loan.gateway.clients`]!['cleanup.policy']).toBe('compact');
    expect(retention('loan.events.v1.dlq')).toBe(3 * day);
  });

  it('when the retention is changed and the Job runs again, then topics that exist take the new retention', async () => {
    const output = createTopics(ns, 'loan.applications.commands 6 - 36h\nloan.events.v1 6 - 14d');
    expect(output).toContain(`kept ${ns}loan.applications.commands records for ${36 * 3_600_000} ms`);
    expect(output).toContain(`kept ${ns}loan.events.v1 records for ${14 * day} ms`);
    // A broker applies an accepted change to its metadata a moment later: read until it shows.
    const retentions = () =>
      topicConfigs([`${ns}loan.applications.commands`, `${ns}loan.events.v1`]).then((configs) => ({
        commands: Number(configs[`${ns}loan.applications.commands`]!['retention.ms']),
        events: Number(configs[`${ns}loan.events.v1`]!['retention.ms']),
      }));
    const wanted = { commands: 36 * 3_600_000, events: 14 * day };
    let seen = await retentions();
    await waitFor(
      async () => {
        seen = await retentions();
        return seen.commands === wanted.commands && seen.events === wanted.events;
      },
      { what: 'the new retentions on the broker', timeoutMs: 60_000, intervalMs: 250 },
    ).catch(() => undefined);
    expect(seen).toEqual(wanted);
  });

  it('when a retention is not a duration, then the Job stops and says which topic', () => {
    expect(() => createTopics(ns, 'loan.applications.commands 6 - a-week')).toThrow(
      /invalid retention for loan.applications.commands/,
    );
  });
});
