/**
 * Time per decision of the scorecard on a 12-month, 3-account application (no assertions).
 * The accounts are the sandbox's personas as the provider serves them, enriched by enrichment's
 * own code (the golden table's path, golden/), with the sandbox bureau's clean file.
 * Then the replay of a credit policy (simulate) on SIMULATED stored audits, as the policy API
 * runs it once the analyses are read (the database read is not in this figure).
 * Run: `npx tsc -b && node scripts/run-ts.js services/scoring/bench/scorecard.bench.ts` (ITERATIONS=... to change the count).
 */
import { GOLDEN_TIMELINE } from '../golden/goldenTable';
import { sandboxFile, scoringInput } from '../golden/sandboxApplicant';
import { BUILTIN_POLICY } from '@loan/contracts';
import { simulatePolicy, type StoredAnalysis } from '../src/domain/policy/simulate';
import {
  scoreApplication,
  scoreApplicationWithAudit,
  type ScoreApplicationInput,
} from '../src/domain/scoreApplication';

const WARM_UP = 500;
const ITERATIONS = Number(process.env.ITERATIONS ?? 20_000);
const SIMULATED = Number(process.env.SIMULATED ?? 5_000);

const threeAccountApplication = (): ScoreApplicationInput => {
  const file = sandboxFile(
    {
      // The label seeds the accounts; this one gives each account at least 12 months of history.
      label: 'bench applicant 27',
      firstName: 'Chinedu',
      lastName: 'Okafor',
      bvn: '22200000001', // the sandbox bureau's clean file
      accounts: [{ persona: 'salaried' }, { persona: 'gig', institution: 'opay' }, { persona: 'salaried_high' }],
    },
    GOLDEN_TIMELINE,
  );
  const months = file.accounts.map((account) => account.months.length);
  if (file.accounts.length !== 3 || months.some((n) => n < 12)) {
    throw new Error(`expected 3 accounts of at least 12 months, got ${months.join(', ')}`);
  }
  return scoringInput(file, { amount: 900_000, tenor: 12, interestRate: 5 });
};

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

const main = (): void => {
  const input = threeAccountApplication();
  let sink = 0;
  for (let i = 0; i < WARM_UP; i += 1) sink += scoreApplication(input).score;

  const micros: number[] = [];
  const started = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i += 1) {
    const start = process.hrtime.bigint();
    sink += scoreApplication(input).score;
    micros.push(Number(process.hrtime.bigint() - start) / 1_000);
  }
  const totalSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  micros.sort((a, b) => a - b);
  const mean = micros.reduce((total, value) => total + value, 0) / micros.length;

  const decision = scoreApplication(input);
  console.log(
    `scorecard ${decision.scorecard_version}: 12 months x 3 accounts -> ${decision.decision} (${decision.score})`,
  );
  console.log(`iterations      ${ITERATIONS}`);
  console.log(`mean            ${mean.toFixed(1)} µs`);
  console.log(`p50             ${percentile(micros, 50).toFixed(1)} µs`);
  console.log(`p99             ${percentile(micros, 99).toFixed(1)} µs`);
  console.log(`decisions/sec   ${Math.round(ITERATIONS / totalSeconds)}`);
  if (sink === Number.NEGATIVE_INFINITY) console.log(sink);

  // Simulate: the same audit under SIMULATED different asks, the built-in policy against a tighter one.
  const { audit } = scoreApplicationWithAudit(input);
  const stored: StoredAnalysis[] = Array.from({ length: SIMULATED }, (_, i) => ({
    applicationId: `bench-${i}`,
    applicantId: input.applicantId,
    loan: { amount: 100_000 + (i % 40) * 50_000, tenor: [3, 6, 12, 24][i % 4]!, interestRate: 4 + (i % 3) },
    audit,
    decidedAt: input.now,
  }));
  const draft = {
    version: 1,
    policy: { ...BUILTIN_POLICY, affordability: { ...BUILTIN_POLICY.affordability, maxDebtServiceRatio: 0.1 } },
  };
  const simStarted = process.hrtime.bigint();
  const simulation = simulatePolicy(stored, { version: 0, policy: BUILTIN_POLICY }, draft);
  const simMs = Number(process.hrtime.bigint() - simStarted) / 1e6;
  console.log(
    `simulate        ${simMs.toFixed(1)} ms for ${simulation.evaluated} stored analyses (${simulation.changed.length} changed)`,
  );
};

main();
