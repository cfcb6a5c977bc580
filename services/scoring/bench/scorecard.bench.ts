/**
 * Time per decision of the scorecard on a 12-month, 3-account application (no assertions).
 * Run: `npx tsx services/scoring/bench/scorecard.bench.ts` (ITERATIONS=... to change the count).
 */
import { cleanBureau } from '../src/domain/__fixtures__/personas';
import { FIXTURE_NOW, buildAccount, jitter, planMonths } from '../src/domain/__fixtures__/statements';
import { scoreApplication, type ScoreApplicationInput } from '../src/domain/scoreApplication';

const WARM_UP = 500;
const ITERATIONS = Number(process.env.ITERATIONS ?? 20_000);

const threeAccountApplication = (): ScoreApplicationInput => {
  const holder = 'OKAFOR CHINEDU EMMANUEL';
  const salary = planMonths(12, 101, (_, random) => ({
    salary: 450_000,
    spending: jitter(random, 280_000, 0.1),
    loanRepayments: 25_000,
    ownOut: 80_000,
    betting: jitter(random, 3_000, 0.5),
    transactions: jitter(random, 80, 0.2),
  }));
  const savings = planMonths(12, 102, (_, random) => ({
    ownIn: 50_000,
    otherIncome: jitter(random, 2_000, 0.3),
    spending: jitter(random, 20_000, 0.4),
    transactions: 10,
  }));
  const wallet = planMonths(12, 103, (_, random) => ({
    ownIn: 30_000,
    otherIncome: jitter(random, 40_000, 0.6),
    spending: jitter(random, 60_000, 0.2),
    overdraftDays: random() < 0.2 ? 1 : 0,
    transactions: jitter(random, 60, 0.2),
  }));
  const account = (n: number, institution: string, months: typeof salary) =>
    buildAccount({
      accountId: `b0000000-0000-4000-9000-00000000000${n}`,
      institution,
      bankCode: null,
      accountNumber: `012345678${n}`,
      holderName: holder,
      openingBalance: 100_000,
      months,
    });
  return {
    applicantId: '00000000-0000-4000-8000-0000000000b1',
    applicant: { firstName: 'Chinedu', lastName: 'Okafor', bvn: '22200000001' },
    loan: { amount: 900_000, tenor: 12, interestRate: 5 },
    accounts: [
      account(1, 'GTBank', salary),
      account(2, 'Kuda MFB', savings),
      account(3, 'Moniepoint MFB', wallet),
    ],
    bureau: cleanBureau(),
    now: FIXTURE_NOW,
  };
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
};

main();
