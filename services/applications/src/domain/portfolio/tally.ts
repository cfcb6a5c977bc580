import {
  AbandonReason,
  ApplicationStatus,
  DecisionOutcome,
  dayIn,
  daysFrom,
  type ApplicationsPortfolio,
} from '@loan/contracts';

/** What the report needs of one application: no applicant, no accounts. */
export interface PortfolioRow {
  status: ApplicationStatus;
  createdAt: Date;
  decision: { outcome: DecisionOutcome; score: number; decidedAt: Date; approvedAmount: number } | null;
  abandonReason: AbandonReason | null;
}

/** Upper bounds of the decision-time buckets, in seconds: a minute, five, an hour, a day; then longer. */
export const DECISION_TIME_BOUNDS = [60, 300, 3_600, 86_400] as const;

const zeroes = <T extends string>(names: readonly T[]) =>
  Object.fromEntries(names.map((name) => [name, 0])) as Record<T, number>;

/** The value below which a share `q` of the sorted values fall (nearest rank). */
function quantile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/**
 * Counts a lender's applications of a period, one at a time as they are read, into the report:
 * memory grows with the days of the period and the decided applications' times, not with
 * what each application holds.
 */
export function portfolioTally(period: { from: string; to: string; timeZone: string }) {
  const byStatus = zeroes(ApplicationStatus.options);
  const byDecision = zeroes(DecisionOutcome.options);
  const abandoned = zeroes(AbandonReason.options);
  const scoreBands = Array.from({ length: 10 }, (_, i) => ({ from: i * 10, to: i === 9 ? 100 : i * 10 + 9, count: 0 }));
  const days = new Map(
    daysFrom(period.from, period.to).map((day) => [
      day,
      { day, created: 0, byDecision: zeroes(DecisionOutcome.options), undecided: 0 },
    ]),
  );
  const decisionSeconds: number[] = [];
  let applications = 0;
  let approvedAmount = 0;

  return {
    add(row: PortfolioRow): void {
      applications++;
      byStatus[row.status]++;
      if (row.status === 'ABANDONED' && row.abandonReason) abandoned[row.abandonReason]++;
      const day = days.get(dayIn(row.createdAt, period.timeZone));
      if (day) day.created++;
      if (!row.decision) {
        if (day) day.undecided++;
        return;
      }
      const { outcome, score, decidedAt } = row.decision;
      byDecision[outcome]++;
      if (day) day.byDecision[outcome]++;
      if (outcome === 'APPROVED') approvedAmount += row.decision.approvedAmount;
      scoreBands[Math.max(0, Math.min(9, Math.floor(score / 10)))]!.count++;
      decisionSeconds.push(Math.max(0, (decidedAt.getTime() - row.createdAt.getTime()) / 1000));
    },

    report(): ApplicationsPortfolio {
      const decided = decisionSeconds.length;
      const sorted = decisionSeconds.sort((a, b) => a - b);
      const buckets = [...DECISION_TIME_BOUNDS, null].map((upToSeconds) => ({ upToSeconds, count: 0 }));
      for (const seconds of sorted) {
        const bucket = buckets.find((b) => b.upToSeconds === null || seconds <= b.upToSeconds)!;
        bucket.count++;
      }
      const round = (n: number | null) => (n === null ? null : Math.round(n * 10) / 10);
      return {
        applications,
        byStatus,
        byDecision,
        approvalRate: decided === 0 ? null : byDecision.APPROVED / decided,
        averageApprovedAmount: byDecision.APPROVED === 0 ? null : Math.round(approvedAmount / byDecision.APPROVED),
        scoreBands,
        decisionTime: {
          decided,
          medianSeconds: round(quantile(sorted, 0.5)),
          p90Seconds: round(quantile(sorted, 0.9)),
          buckets,
        },
        abandoned,
        days: [...days.values()],
      };
    },
  };
}
