import { ApplicationsPortfolio } from '@loan/contracts';
import { portfolioTally, type PortfolioRow } from './tally';

const period = { from: '2026-11-01', to: '2026-11-03', timeZone: 'Africa/Lagos' };

function decided(
  createdAt: string,
  outcome: NonNullable<PortfolioRow['decision']>['outcome'],
  score: number,
  afterSeconds: number,
  approvedAmount = 0,
): PortfolioRow {
  const created = new Date(createdAt);
  return {
    status: 'COMPLETED',
    createdAt: created,
    decision: { outcome, score, decidedAt: new Date(created.getTime() + afterSeconds * 1000), approvedAmount },
    abandonReason: null,
  };
}

describe('the portfolio tally', () => {
  it('answers zeroes and nulls, every day listed, for a period with no application', () => {
    const report = portfolioTally(period).report();
    expect(ApplicationsPortfolio.parse(report)).toEqual(report);
    expect(report.applications).toBe(0);
    expect(report.approvalRate).toBeNull();
    expect(report.averageApprovedAmount).toBeNull();
    expect(report.decisionTime).toMatchObject({ decided: 0, medianSeconds: null, p90Seconds: null });
    expect(report.days.map((d) => d.day)).toEqual(['2026-11-01', '2026-11-02', '2026-11-03']);
    expect(report.scoreBands.map((b) => [b.from, b.to])).toEqual([
      [0, 9],
      [10, 19],
      [20, 29],
      [30, 39],
      [40, 49],
      [50, 59],
      [60, 69],
      [70, 79],
      [80, 89],
      [90, 100],
    ]);
  });

  it('counts statuses, decisions, the approval rate and the mean approved amount', () => {
    const tally = portfolioTally(period);
    tally.add(decided('2026-11-01T09:00:00Z', 'APPROVED', 91.5, 40, 500_000));
    tally.add(decided('2026-11-01T10:00:00Z', 'APPROVED', 80, 50, 200_001));
    tally.add(decided('2026-11-02T10:00:00Z', 'DECLINED', 12, 70));
    tally.add(decided('2026-11-02T11:00:00Z', 'COUNTER_OFFER', 55, 400));
    tally.add({
      status: 'ABANDONED',
      createdAt: new Date('2026-11-03T08:00:00Z'),
      decision: null,
      abandonReason: 'no_link',
    });
    tally.add({
      status: 'PENDING_LINKING',
      createdAt: new Date('2026-11-03T09:00:00Z'),
      decision: null,
      abandonReason: null,
    });
    const report = tally.report();
    expect(ApplicationsPortfolio.parse(report)).toEqual(report);
    expect(report.applications).toBe(6);
    expect(report.byStatus).toEqual({
      PENDING_LINKING: 1,
      LINKED: 0,
      PROCESSING: 0,
      COMPLETED: 4,
      FAILED: 0,
      ABANDONED: 1,
    });
    expect(report.byDecision).toEqual({ APPROVED: 2, COUNTER_OFFER: 1, MANUAL_REVIEW: 0, DECLINED: 1 });
    expect(report.approvalRate).toBe(0.5);
    expect(report.averageApprovedAmount).toBe(350_001);
    expect(report.abandoned).toEqual({ no_link: 1, no_analyze: 0 });
    const bands = Object.fromEntries(report.scoreBands.map((b) => [b.from, b.count]));
    expect(bands).toMatchObject({ 90: 1, 80: 1, 50: 1, 10: 1, 0: 0 });
  });

  it('puts a score of 100 in the last band', () => {
    const tally = portfolioTally(period);
    tally.add(decided('2026-11-01T09:00:00Z', 'APPROVED', 100, 1, 1));
    expect(tally.report().scoreBands[9]!.count).toBe(1);
  });

  it('takes the time to decision from initiate to the decision: median, 90th percentile and buckets', () => {
    const tally = portfolioTally(period);
    for (const seconds of [10, 20, 30, 40, 50, 60, 120, 600, 7_200, 100_000]) {
      tally.add(decided('2026-11-01T09:00:00Z', 'DECLINED', 20, seconds));
    }
    const { decisionTime } = tally.report();
    expect(decisionTime.decided).toBe(10);
    expect(decisionTime.medianSeconds).toBe(50);
    expect(decisionTime.p90Seconds).toBe(7_200);
    expect(decisionTime.buckets).toEqual([
      { upToSeconds: 60, count: 6 },
      { upToSeconds: 300, count: 1 },
      { upToSeconds: 3_600, count: 1 },
      { upToSeconds: 86_400, count: 1 },
      { upToSeconds: null, count: 1 },
    ]);
  });

  it('puts an application on the day it was created in the lender’s time zone', () => {
    const tally = portfolioTally(period);
    // 23:30 UTC on 1 November is 00:30 on 2 November in Lagos.
    tally.add(decided('2026-11-01T23:30:00Z', 'APPROVED', 70, 30, 100_000));
    tally.add({ status: 'LINKED', createdAt: new Date('2026-11-01T22:30:00Z'), decision: null, abandonReason: null });
    const days = tally.report().days;
    expect(days[0]).toMatchObject({ day: '2026-11-01', created: 1, undecided: 1 });
    expect(days[1]).toMatchObject({ day: '2026-11-02', created: 1, undecided: 0 });
    expect(days[1]!.byDecision.APPROVED).toBe(1);

    const utc = portfolioTally({ ...period, timeZone: 'UTC' });
    utc.add(decided('2026-11-01T23:30:00Z', 'APPROVED', 70, 30, 100_000));
    expect(utc.report().days[0]!.created).toBe(1);
  });
});
