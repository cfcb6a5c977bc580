import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from '@testing/helpers';
import { applicant, call, captureLogs, createClient, startWholeStack, suiteNamespace } from '@testing/stack';

/**
 * Contract fuzzing: schemathesis reads the lender document (/api/openapi.json) and runs its
 * examples, coverage, fuzzing and stateful phases (initiate chained to the other operations by
 * the document's links) with every check against the whole stack, limits lifted. Any request the
 * document allows that the gateway refuses, any it forbids that the gateway takes, any answer
 * the document does not describe, and any 5xx is a failure.
 *
 * CONTRACT_FUZZ_EXAMPLES and CONTRACT_FUZZ_SEED change the budget and the seed for a longer or
 * another exploration (the default is the run `npm test` makes); CONTRACT_FUZZ_LOG names a file
 * that receives schemathesis's whole output.
 */

/**
 * Whether every entry of schemathesis's errors section is a failure of its own data generation
 * (hypothesis's FlakyFailure), not an answer of the gateway or a request that could not be made.
 */
function toolErrorsOnly(output: string): boolean {
  const at = output.indexOf('= ERRORS =');
  if (at < 0) return false;
  const errors = output
    .slice(at)
    .split(/\n_{5,} [A-Z]+ \S+ _{5,}\n/)
    .slice(1);
  // Its generator found inconsistent (FlakyFailure), or failing inside its own engine (a
  // traceback that ends in hypothesis's internals, its target optimiser's IndexError seen once).
  const ownEngine = (entry: string) =>
    /hypothesis\/internal\/conjecture\/[a-z_]+\.py", line \d+, in [a-z_]+\n.*\n\s+[A-Za-z]+Error: /.test(
      entry.split('Traceback').at(-1) ?? '',
    ) && !entry.includes('schemathesis/transport');
  return (
    errors.length > 0 &&
    errors.every(
      (entry) =>
        entry.includes('Runtime Error') && (entry.includes('hypothesis.errors.FlakyFailure') || ownEngine(entry)),
    )
  );
}

const ROOT = path.resolve(__dirname, '../../..');
const MAX_EXAMPLES = process.env.CONTRACT_FUZZ_EXAMPLES ?? '25';
const SEED = process.env.CONTRACT_FUZZ_SEED ?? '1906';
const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? 'local-admin-token';

jest.setTimeout(10 * 60_000);

const ns = suiteNamespace();
const logs = captureLogs();
let stack: Awaited<ReturnType<typeof startWholeStack>>;
let applicationId: string;
/** Accounts of their own for the operations on the caller's account (see schemathesis.toml). */
let account: { apiKey: string };
let rotating: { apiKey: string };

beforeAll(async () => {
  stack = await startWholeStack(ns, {
    RATE_LIMITS_ENABLED: 'false',
    AUTH_FAILURE_LIMIT: '1000000',
    LOG_LEVEL: 'error',
  });
  // One application with a linked account, so the delivery log has entries to read and redeliver.
  const start = await call(stack.gatewayUrl, stack.lender.apiKey, 'POST', '/api/applications/initiate', applicant());
  if (start.status !== 201) throw new Error(`initiate answered ${start.status}: ${JSON.stringify(start.body)}`);
  const linked = await fetch(`${stack.sandbox.url}/sandbox/link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ widgetUrl: start.body.widgetUrl, persona: 'salaried' }),
  });
  expect(linked.status).toBe(200);
  await waitFor(() => stack.receiver.events('account.linked').length > 0, {
    timeoutMs: 60_000,
    what: 'account.linked delivered',
  });
  // And one no event names, for link-account's bodies: the fuzzer reaches the first one through
  // the delivery log and may take it to COMPLETED, where every link-account is a 400.
  const waiting = await call(stack.gatewayUrl, stack.lender.apiKey, 'POST', '/api/applications/initiate', applicant());
  if (waiting.status !== 201) throw new Error(`initiate answered ${waiting.status}: ${JSON.stringify(waiting.body)}`);
  applicationId = waiting.body.applicationId;
  account = await createClient(stack.gatewayUrl);
  rotating = await createClient(stack.gatewayUrl);
});

afterAll(async () => {
  await stack?.stop();
});

/** Runs the project's pinned schemathesis in a scratch directory (it keeps a database of examples). */
function schemathesis(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const cwd = mkdtempSync(path.join(tmpdir(), 'contract-fuzz-'));
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [path.join(ROOT, 'scripts/schemathesis'), ...args], {
      cwd,
      env: { ...process.env, ...env },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      rmSync(cwd, { recursive: true, force: true });
      resolve({ code, output });
    });
  });
}

const documents = [
  { name: 'lender', path: '/api/openapi.json' },
  { name: 'operator', path: '/admin/openapi.json' },
];

it.each(documents)(
  'when schemathesis runs every phase and check on the $name document, then it finds no failure and the gateway answers no 5xx',
  async ({ path: documentPath }) => {
    const res = await fetch(`${stack.gatewayUrl}${documentPath}`, { headers: { 'x-admin-token': ADMIN_TOKEN } });
    expect(res.status).toBe(200);
    const document = (await res.json()) as { paths: Record<string, object> };
    const operations = Object.values(document.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    // Read from a file: the operator document itself is behind the admin token.
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'contract-doc-')), 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const before = logs.lines().length;

    const run = () =>
      schemathesis(
        [
          '--config-file',
          path.join(ROOT, 'services/gateway/schemathesis.toml'),
          'run',
          file,
          '--url',
          stack.gatewayUrl,
          '--checks',
          'all',
          '--phases',
          'examples,coverage,fuzzing,stateful',
          '--max-examples',
          MAX_EXAMPLES,
          '--seed',
          SEED,
          '--workers',
          '2',
          '--request-timeout',
          '20',
          '--no-color',
        ],
        {
          LOAN_API_KEY: stack.lender.apiKey,
          LOAN_ACCOUNT_API_KEY: account.apiKey,
          LOAN_ROTATING_API_KEY: rotating.apiKey,
          LOAN_ADMIN_TOKEN: ADMIN_TOKEN,
          LOAN_APPLICATION_ID: applicationId,
          // Serializers of the bulk upload's text bodies (NDJSON, CSV).
          SCHEMATHESIS_HOOKS: path.join(ROOT, 'services/gateway/schemathesis_hooks.py'),
        },
      );
    let { code, output } = await run();
    // A "Runtime Error" of schemathesis's own data generation (hypothesis found its generator
    // inconsistent: FlakyFailure) says nothing of the gateway: no request was made for it. Such a
    // run is made again, once; a failure of the gateway's answers is never run again.
    if (code !== 0 && !output.includes('= FAILURES =') && toolErrorsOnly(output)) ({ code, output } = await run());
    rmSync(path.dirname(file), { recursive: true, force: true });

    if (process.env.CONTRACT_FUZZ_LOG)
      writeFileSync(`${process.env.CONTRACT_FUZZ_LOG}.${path.basename(path.dirname(documentPath))}`, output);
    // The errors (a request that could not be made or answered) and failures sections, whichever come first.
    const sections = ['ERRORS', 'FAILURES'].map((name) => output.indexOf(`= ${name} =`)).filter((at) => at >= 0);
    const failures = sections.length > 0 ? output.slice(Math.min(...sections)) : output.slice(-4000);
    if (code !== 0) throw new Error(`schemathesis exited ${code}:\n${failures}`);
    // Every operation of the document was exercised, in each phase.
    expect(output).toMatch(new RegExp(`Selected: ${operations}/${operations}\\s+Tested: ${operations}\\b`));
    for (const phase of ['Examples', 'Coverage', 'Fuzzing', 'Stateful'])
      expect(output).toMatch(new RegExp(`✅ ${phase}`));
    expect(output).toMatch(/Test cases:\s+(\d+) generated, \1 passed/);
    // The gateway logs every 5xx it answers; a run without any leaves no such line.
    const serverErrors = logs
      .lines()
      .slice(before)
      .filter((line) => line.includes('"service":"gateway"') && line.includes('"request failed"'));
    expect(serverErrors).toEqual([]);
    // The fuzzer rotated only the key meant for it: the one every other operation used still works.
    expect((await call(stack.gatewayUrl, stack.lender.apiKey, 'GET', '/api/client')).status).toBe(200);
    process.stdout.write(
      `${documentPath}\n${output
        .split('\n')
        .filter((l) => /Tested:|generated|Scenarios:|API Links:|passed in|failures? in/.test(l))
        .join('\n')}\n`,
    );
  },
);
