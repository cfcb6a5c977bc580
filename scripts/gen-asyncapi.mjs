// Generates deploy/asyncapi.yaml, the AsyncAPI 3.0 description of every Kafka topic, from
// libs/contracts: topic names (Topics), value schemas (jsonSchemaForTopic, the JSON Schemas
// the services register in the schema registry) and the producers and consumers below.
//
//   npx tsc -b libs/contracts && node scripts/gen-asyncapi.mjs          # write the file
//   node scripts/gen-asyncapi.mjs --check                               # fail if stale
//   node scripts/gen-asyncapi.mjs --stdout | --json                     # print it
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const distEntry = path.join(root, 'libs/contracts/dist/index.js');
if (!existsSync(distEntry)) {
  console.error('libs/contracts is not built: run `npx tsc -b libs/contracts` first');
  process.exit(2);
}
const contracts = require(distEntry);
const { Topics, jsonSchemaForTopic, replyTopicFor, subjectFor, deadLetterTopicFor } = contracts;
const version = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version;
const output = path.join(root, 'deploy/asyncapi.yaml');

/** Who writes and who reads each topic, and what its key is (README, Topics). */
const flows = {
  [Topics.events]: {
    key: 'applicationId (accountId for account events without an application)',
    producers: ['applications', 'enrichment'],
    consumers: ['notifier'],
    readers: 'Carries account numbers of account.linked: analysts read loan.analytics.v1 instead (docs/privacy.md).',
  },
  [Topics.analytics]: {
    key: "the application's pseudonym (the lender's for events without an application)",
    producers: ['notifier'],
    consumers: ['analysts'],
    readers:
      'For analysts: every public event without personal data, ids pseudonymised (docs/privacy.md, examples/analytics).',
  },
  [Topics.outcomes]: {
    key: 'applicationId',
    producers: ['scoring'],
    consumers: ['analysts'],
    readers:
      "For analysts: each loan outcome the lender reported, as scoring took it, in the loan's order (sequence), with the decision it is measured against and the loan's state after it; no personal data (docs/performance.md).",
  },
  [Topics.applicationCommands]: {
    key: '`key:<SHA-256 of the idempotencyKey>` for InitiateApplication, the applicationId for every other command',
    producers: ['gateway'],
    consumers: ['applications'],
  },
  [Topics.providerCallbacks]: {
    key: "the provider's account id",
    producers: ['gateway'],
    consumers: ['applications', 'enrichment'],
  },
  [Topics.clients]: {
    key: 'clientId',
    producers: ['gateway'],
    consumers: ['notifier'],
    compacted: true,
  },
  [Topics.applicationFacts]: {
    key: 'applicationId',
    producers: ['applications'],
    consumers: ['enrichment', 'scoring', 'janitor'],
  },
  [Topics.enrichmentResults]: {
    key: 'applicationId',
    producers: ['enrichment'],
    consumers: ['applications', 'scoring', 'janitor'],
  },
  [Topics.scoringResults]: {
    key: 'applicationId',
    producers: ['scoring'],
    consumers: ['applications'],
  },
  [Topics.deadlines]: {
    key: 'applicationId',
    producers: ['janitor'],
    consumers: ['applications', 'enrichment', 'notifier'],
  },
};

const missing = Object.values(Topics).filter((t) => !flows[t]);
const unknown = Object.keys(flows).filter((t) => !Object.values(Topics).includes(t));
if (missing.length || unknown.length) {
  console.error(
    `scripts/gen-asyncapi.mjs is out of step with libs/contracts Topics: missing ${missing.join(', ') || '-'}; unknown ${unknown.join(', ') || '-'}`,
  );
  process.exit(1);
}

const camel = (text) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1)))
    .join('');
const capital = (text) => text[0].toUpperCase() + text.slice(1);

/** The `type` discriminators of a oneOf schema (the message types a topic carries). */
function messageTypes(schema) {
  const variants = schema.oneOf ?? schema.anyOf ?? [schema];
  return variants.map((v) => v?.properties?.type?.const ?? v?.properties?.type?.enum?.[0]).filter(Boolean);
}

const kafkaKey = (description) => ({ type: 'string', description });
const confluentBinding = (description) => ({
  kafka: {
    key: kafkaKey(description),
    schemaIdLocation: 'payload',
    schemaIdPayloadEncoding: 'confluent',
    schemaLookupStrategy: 'TopicIdStrategy',
    bindingVersion: '0.5.0',
  },
});

const doc = {
  asyncapi: '3.0.0',
  info: {
    title: 'Loan analysis platform: Kafka topics',
    version,
    description: [
      'Every Kafka topic of the loan analysis services: its key, its value schema, who produces it and who consumes it.',
      'Generated from libs/contracts by scripts/gen-asyncapi.mjs; do not edit by hand.',
      '',
      'Values are JSON encoded through the schema registry in the Confluent wire format: a zero byte, the',
      'four-byte schema id, then the JSON document. The registry subject of a topic is `<topic>-value`',
      '(all reply topics share `loan.gateway.replies-value`) with BACKWARD compatibility. Delivery is at least',
      'once; consumers are idempotent. Consumer groups are per service and named after it (the applications',
      'service reads loan.applications.commands in applications-commands, apart from its facts, so that',
      "commands never wait behind facts): a service scales out up to the topic's partition count. A message",
      'that cannot be decoded or handled goes to `<topic>.dlq` unchanged,',
      'with the x-dead-letter-reason, -topic, -partition and -offset headers.',
      'When the services export traces (OTEL_* settings), every record carries the W3C trace context of the',
      'span that sent it in its `traceparent` (and `tracestate`) headers; see docs/runbooks.md, Tracing.',
      'With KAFKA_TOPIC_NAMESPACE set, every topic and consumer group name carries that prefix.',
    ].join('\n'),
  },
  defaultContentType: 'application/json',
  servers: {
    production: {
      host: 'kafka:9092',
      protocol: 'kafka',
      description: 'The Kafka cluster (KAFKA_BROKERS); TLS and SASL as configured.',
      bindings: {
        kafka: {
          schemaRegistryUrl: 'http://schema-registry:8081',
          schemaRegistryVendor: 'confluent',
          bindingVersion: '0.5.0',
        },
      },
    },
  },
  channels: {},
  operations: {},
  components: { messages: {} },
};

function addChannel({ id, address, topic, flow, parameters, compacted }) {
  const schema = jsonSchemaForTopic(topic);
  const types = messageTypes(schema);
  const messageName = capital(id);
  const payloadSchema = { ...schema };
  delete payloadSchema.$schema;
  doc.components.messages[messageName] = {
    name: messageName,
    title: `Value of ${address}`,
    summary: types.length ? `One of: ${types.join(', ')}` : undefined,
    description: `Registry subject \`${subjectFor(topic)}\`. Key: ${flow.key}.`,
    contentType: 'application/json',
    payload: { schemaFormat: 'application/schema+json;version=draft-07', schema: payloadSchema },
    bindings: confluentBinding(flow.key),
  };
  doc.channels[id] = {
    address,
    title: address,
    description: [
      `Produced by ${flow.producers.join(', ')}; consumed by ${flow.consumers.join(', ')}.`,
      flow.readers,
      compacted ? 'Compacted: the latest value per key is kept.' : undefined,
    ]
      .filter(Boolean)
      .join(' '),
    ...(parameters ? { parameters } : {}),
    messages: { [messageName]: { $ref: `#/components/messages/${messageName}` } },
    bindings: {
      kafka: {
        ...(parameters ? {} : { topic: address }),
        ...(compacted ? { topicConfiguration: { 'cleanup.policy': ['compact'] } } : {}),
        bindingVersion: '0.5.0',
      },
    },
  };
  const ref = { $ref: `#/channels/${id}` };
  const messageRef = [{ $ref: `#/channels/${id}/messages/${messageName}` }];
  for (const service of flow.producers) {
    doc.operations[`${service}Sends${capital(id)}`] = {
      action: 'send',
      channel: ref,
      summary: `${service} publishes to ${address}`,
      messages: messageRef,
    };
  }
  for (const service of flow.consumers) {
    doc.operations[`${service}Receives${capital(id)}`] = {
      action: 'receive',
      channel: ref,
      summary: `${service} consumes ${address}`,
      messages: messageRef,
    };
  }
}

for (const topic of Object.values(Topics)) {
  const flow = flows[topic];
  addChannel({ id: camel(topic), address: topic, topic, flow, compacted: flow.compacted });
}

addChannel({
  id: 'loanGatewayReplies',
  address: replyTopicFor('{instance}'),
  topic: replyTopicFor('instance'),
  flow: {
    key: 'commandId',
    producers: ['applications'],
    consumers: ['gateway'],
    readers: 'One topic per gateway replica (one partition); only the replica that sent the command reads it.',
  },
  parameters: { instance: { description: 'GATEWAY_INSTANCE_ID of the gateway replica (its pod name in Kubernetes).' } },
});

doc.channels.deadLetters = {
  address: deadLetterTopicFor('{topic}'),
  title: 'Dead-letter topics',
  description:
    'Messages of {topic} that could not be decoded or handled, copied unchanged (key, value, headers) by the consumer that gave up on them, for operators.',
  parameters: { topic: { enum: [...Object.values(Topics)].sort(), description: 'The source topic.' } },
  messages: { DeadLetter: { $ref: '#/components/messages/DeadLetter' } },
};
doc.components.messages.DeadLetter = {
  name: 'DeadLetter',
  title: 'A dead-lettered message',
  description: 'The source message unchanged; its value is in the Confluent wire format of the source topic.',
  headers: {
    type: 'object',
    properties: {
      'x-dead-letter-reason': {
        type: 'string',
        description: 'The decoding or handling error (up to 2,000 characters).',
      },
      'x-dead-letter-topic': { type: 'string' },
      'x-dead-letter-partition': { type: 'string' },
      'x-dead-letter-offset': { type: 'string' },
    },
    required: ['x-dead-letter-reason', 'x-dead-letter-topic', 'x-dead-letter-partition', 'x-dead-letter-offset'],
  },
  payload: {},
};
doc.operations.consumersSendDeadLetters = {
  action: 'send',
  channel: { $ref: '#/channels/deadLetters' },
  summary: 'Any consumer dead-letters a poison message',
  messages: [{ $ref: '#/channels/deadLetters/messages/DeadLetter' }],
};

// ---- YAML (a small emitter for JSON data: block style, strings quoted when needed) ----
const plain = /^[A-Za-z_/][A-Za-z0-9_ ./()<>+,'-]*$/;
const reserved = /^(true|false|null|yes|no|on|off|y|n|~)$/i;
function scalar(value) {
  if (value === null) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const s = String(value);
  if (s === '' || !plain.test(s) || reserved.test(s) || /\s$|: | #|^- /.test(s)) return JSON.stringify(s);
  return s;
}
const keyText = (k) => (/^[A-Za-z_$][A-Za-z0-9_.$-]*$/.test(k) && !reserved.test(k) ? k : JSON.stringify(k));
function emit(value, indent) {
  const pad = ' '.repeat(indent);
  if (Array.isArray(value)) {
    if (value.length === 0) return ' []';
    return value
      .map((item) => {
        if (item !== null && typeof item === 'object' && Object.keys(item).length > 0) {
          const body = emit(item, indent + 2).replace(/^\n/, '');
          return `\n${pad}- ${body.slice(indent + 2)}`;
        }
        return `\n${pad}-${emit(item, indent + 2)}`;
      })
      .join('');
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return ' {}';
    return entries.map(([k, v]) => `\n${pad}${keyText(k)}:${emit(v, indent + 2)}`).join('');
  }
  if (typeof value === 'string' && value.includes('\n')) {
    const lines = value.split('\n').map((l) => (l ? `${pad}${l}` : ''));
    return ` |-\n${lines.join('\n')}`;
  }
  return ` ${scalar(value)}`;
}
let yaml = `# Generated by scripts/gen-asyncapi.mjs from libs/contracts. Do not edit.\n${emit(doc, 0).replace(/^\n/, '')}\n`;
// Laid out as the repository's Prettier settings would (npm run lint checks it).
try {
  const prettier = require(require.resolve('prettier', { paths: [root] }));
  const options = (await prettier.resolveConfig(output)) ?? {};
  yaml = await prettier.format(yaml, { ...options, filepath: output });
} catch (error) {
  if (error?.code !== 'MODULE_NOT_FOUND') throw error;
}

const mode = process.argv[2];
if (mode === '--json') {
  process.stdout.write(JSON.stringify(doc));
} else if (mode === '--stdout') {
  process.stdout.write(yaml);
} else if (mode === '--check') {
  const current = existsSync(output) ? readFileSync(output, 'utf8') : '';
  if (current !== yaml) {
    console.error('deploy/asyncapi.yaml is stale: run `npx tsc -b libs/contracts && node scripts/gen-asyncapi.mjs`');
    process.exit(1);
  }
  console.log(
    `deploy/asyncapi.yaml is up to date (${Object.keys(doc.channels).length} channels, ${Object.keys(doc.operations).length} operations)`,
  );
} else {
  writeFileSync(output, yaml);
  console.log(
    `wrote deploy/asyncapi.yaml (${Object.keys(doc.channels).length} channels, ${Object.keys(doc.operations).length} operations)`,
  );
}
