import type { DecisionOutcome, EnrichedAccount, MonthSummary } from '@loan/contracts';
import { scoreApplication } from '../src/domain/scoreApplication';
import { MINIMUM_WAGE, SCORING_WINDOW_MONTHS, deriveFeatures } from '../src/domain/scorecard';
import { GOLDEN_APPLICANTS, goldenFile, type GoldenApplicant } from './goldenTable';
import { scoringInput, type SandboxFile } from './sandboxApplicant';

/**
 * More risk never scores better: each risk signal is added in steps to the statements of every
 * golden applicant (the enriched accounts the golden table scores), and neither the score nor
 * the outcome of any of the applicant's asks may improve from one step to the next. Everything
 * else in the statements stays as it is, so each case moves one signal alone.
 */

/** Best outcome first. */
const OUTCOME_RANK: Record<DecisionOutcome, number> = {
  APPROVED: 3,
  COUNTER_OFFER: 2,
  MANUAL_REVIEW: 1,
  DECLINED: 0,
};

/** The applicant, as the scorecard sees them before any change. */
interface Baseline {
  file: SandboxFile;
  /** Verified monthly income, at least the minimum wage: the scale of money added. */
  income: number;
  /** The months of the scoring window, the latest first. */
  windowMonths: string[];
}

/** A risk signal: its levels, the first the statements as they are, and how a level is added. */
interface RiskSignal {
  levels: readonly number[];
  apply: (baseline: Baseline, level: number) => SandboxFile;
}

const withMonths = (file: SandboxFile, change: (month: MonthSummary, account: number) => MonthSummary) => ({
  ...file,
  accounts: file.accounts.map((account, n): EnrichedAccount => ({
    ...account,
    months: account.months.map((month) => change(month, n)),
  })),
});

/**
 * A change made once a month for the applicant: in the first linked account that reports the
 * month, so that an applicant with several accounts gets the same amount every month.
 */
const onceAMonth = (file: SandboxFile, change: (month: MonthSummary) => MonthSummary) => {
  const owner = new Map<string, number>();
  file.accounts.forEach((account, n) => account.months.forEach(({ month }) => owner.has(month) || owner.set(month, n)));
  return withMonths(file, (month, n) => (owner.get(month.month) === n ? change(month) : month));
};

/** Money out to a betting platform or a lender is a debit like any other. */
const moreDebits =
  (field: 'bettingDebits' | 'loanRepayments') =>
  ({ file, income }: Baseline, share: number) =>
    onceAMonth(file, (month) => ({
      ...month,
      [field]: month[field] + share * income,
      debits: month.debits + share * income,
    }));

/** Shares of monthly income: small first steps (a jump at the first naira shows), then large. */
const SHARES_OF_INCOME = [0, 0.005, 0.01, 0.02, 0.035, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.45, 0.6, 0.8, 1];

const SIGNALS: Record<string, RiskSignal> = {
  'betting deposits are added to every month': {
    levels: SHARES_OF_INCOME,
    apply: moreDebits('bettingDebits'),
  },
  'loan repayments are added to every month': {
    levels: SHARES_OF_INCOME,
    apply: moreDebits('loanRepayments'),
  },
  'bounced debits are added one at a time, month after month from the latest': {
    levels: Array.from({ length: 2 * SCORING_WINDOW_MONTHS + 1 }, (_, n) => n),
    apply: ({ file, windowMonths }, added) =>
      onceAMonth(file, (month) => {
        const k = windowMonths.indexOf(month.month);
        if (k < 0) return month;
        const here = Math.floor(added / windowMonths.length) + (k < added % windowMonths.length ? 1 : 0);
        return { ...month, bouncedDebits: month.bouncedDebits + here };
      }),
  },
  'overdraft days are added to every month of every account': {
    levels: [0, 1, 2, 3, 5, 8, 12, 20, 31],
    apply: ({ file }, days) =>
      withMonths(file, (month) => ({ ...month, overdraftDays: Math.min(31, month.overdraftDays + days) })),
  },
  'income is lowered in every month of every account': {
    levels: Array.from({ length: 21 }, (_, n) => n / 20),
    apply: ({ file }, cut) =>
      withMonths(file, (month) => {
        const earned = month.salaryCredits + Math.max(0, month.otherIncomeCredits);
        return {
          ...month,
          salaryCredits: month.salaryCredits * (1 - cut),
          otherIncomeCredits: month.otherIncomeCredits * (1 - cut),
          credits: month.credits - earned * cut,
        };
      }),
  },
};

const baselineOf = (applicant: GoldenApplicant): Baseline => {
  const file = goldenFile(applicant);
  const { applicant: identity, accounts, now } = scoringInput(file, applicant.asks[0]!);
  const features = deriveFeatures({ applicant: identity, accounts, now });
  const open = now.toISOString().slice(0, 7);
  const windowMonths = [...new Set(accounts.flatMap((account) => account.months.map(({ month }) => month)))]
    .filter((month) => month < open)
    .sort()
    .reverse()
    .slice(0, SCORING_WINDOW_MONTHS);
  return { file, income: Math.max(features.monthlyIncome, MINIMUM_WAGE), windowMonths };
};

interface Scored {
  level: number;
  score: number;
  outcomes: DecisionOutcome[];
}

const scoreAll = (applicant: GoldenApplicant, file: SandboxFile, level: number): Scored => {
  const decisions = applicant.asks.map((ask) => scoreApplication(scoringInput(file, ask)));
  return { level, score: decisions[0]!.score, outcomes: decisions.map((decision) => decision.decision) };
};

const cases = GOLDEN_APPLICANTS.flatMap((applicant) =>
  Object.keys(SIGNALS).map((signal) => [signal, applicant.label, applicant] as const),
);

describe('the scorecard with more risk', () => {
  it.each(cases)('when %s of %s, then the score never rises and no outcome improves', (signal, _, applicant) => {
    const baseline = baselineOf(applicant);
    const { levels, apply } = SIGNALS[signal]!;
    const steps = levels.map((level) => scoreAll(applicant, apply(baseline, level), level));

    const improvements = steps.slice(1).flatMap((after, n) => {
      const before = steps[n]!;
      const better = after.outcomes.some((outcome, ask) => OUTCOME_RANK[outcome] > OUTCOME_RANK[before.outcomes[ask]!]);
      return after.score > before.score || better
        ? [`${before.level} -> ${after.level}: ${before.score} ${before.outcomes} -> ${after.score} ${after.outcomes}`]
        : [];
    });
    expect(improvements).toEqual([]);
  });

  it('when the highest level of each signal is added to salaried, then its score falls', () => {
    const applicant = GOLDEN_APPLICANTS.find((a) => a.label === 'salaried')!;
    const baseline = baselineOf(applicant);
    const before = scoreAll(applicant, baseline.file, 0).score;

    for (const { levels, apply } of Object.values(SIGNALS)) {
      expect(scoreAll(applicant, apply(baseline, levels.at(-1)!), 0).score).toBeLessThan(before);
    }
  });
});
