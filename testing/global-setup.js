const { execFileSync } = require('node:child_process');
const path = require('node:path');

/** Topics of test runs older than this are deleted when a run starts. */
const STALE_AFTER_MS = 60 * 60 * 1000;

/**
 * The name of a topic created by a test: `tz<time in base 36>_...` (testing/helpers.ts testStamp),
 * or one of the shapes test runs used before that stamp.
 */
function isStaleTestTopic(topic, now) {
  const stamped = /^tz([0-9a-z]{8,9})_/.exec(topic);
  if (stamped) return now - parseInt(stamped[1], 36) > STALE_AFTER_MS;
  return /^t-?[0-9a-f]{8}\./.test(topic) || /^test\.[a-z]+-[0-9a-f]{8}(\.dlq)?$/.test(topic);
}

/**
 * Every test suite gets topics of its own; on a developer's broker they would pile up run after
 * run until Kafka runs out of heap. Runs older than an hour are over, so their topics go.
 */
async function deleteStaleTestTopics() {
  require('./kafkajs-timers');
  const { Kafka, logLevel } = require('kafkajs');
  const kafka = new Kafka({
    clientId: 'test-setup',
    brokers: process.env.KAFKA_BROKERS.split(','),
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const now = Date.now();
    const stale = (await admin.listTopics()).filter((topic) => isStaleTestTopic(topic, now));
    for (let i = 0; i < stale.length; i += 200) {
      await admin.deleteTopics({ topics: stale.slice(i, i + 200), timeout: 30_000 });
    }
    if (stale.length > 0) console.log(`[test] deleted ${stale.length} topics of earlier test runs`);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Starts the local broker, registry and database once for the whole run (the script reuses
 * them when they are already up) and exports their addresses to the tests.
 */
module.exports = async function globalSetup() {
  if (globalThis.__loanInfraReady) return;
  // Infrastructure run elsewhere (a cluster, or started by hand): use the addresses given.
  if (process.env.LOAN_INFRA_EXTERNAL !== '1') {
    const script = path.join(__dirname, '..', 'scripts', 'infra');
    execFileSync('bash', [script, 'start'], { stdio: ['ignore', 'inherit', 'inherit'] });
    const env = execFileSync('bash', [script, 'env'], { encoding: 'utf8' });
    for (const line of env.split('\n')) {
      const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
      if (m && process.env[m[1]] === undefined) process.env[m[1]] = m[2];
    }
  }
  if (process.env.KAFKA_BROKERS) {
    await deleteStaleTestTopics().catch((error) => console.warn(`[test] could not delete old test topics: ${error}`));
  }
  globalThis.__loanInfraReady = true;
};
