import { ScoreBand, type BadDefinition } from '@loan/contracts';
import { monthsBetween } from '../outcomes/loanState';
import type { Cells } from './cells';
import { areaUnderCurve, expectedBadRate, giniOf, kolmogorovSmirnov, round, type ScoreCount } from './metrics';

/** Below these counts a figure says nothing, and the report says so instead of giving one. */
export const MINIMUM = {
  /** A bad rate (of a band, a decision, a policy version, a challenger's decision). */
  rate: 30,
  /** Calibration of a band. */
  calibration: 50,
  /** Gini, AUC and KS: loans, and bad and good loans among them. */
  discrimination: { loans: 200, bad: 20, good: 20 },
} as const;

export const tooFew = (n: number, needed: number, what: string) =>
  `${n} loan${n === 1 ? '' : 's'} with outcomes: at least ${needed} are needed before a ${what} means anything`;

/** Whether a cell's badness (`cells.ts`, `badnessOf`) is bad by the lender's definition. */
export function badnessIsBad(badness: string, bad: BadDefinition): boolean {
  const [dpd, flags] = badness.split(':') as [string, string];
  return Number(dpd) >= bad.daysPastDue || (bad.defaulted && flags[0] === '1') || (bad.writtenOff && flags[1] === '1');
}

interface Tally {
  loans: number;
  bad: number;
}

function rateRow(tally: Tally) {
  const enough = tally.loans >= MINIMUM.rate;
  return {
    loans: tally.loans,
    bad: tally.bad,
    badRate: enough ? round(tally.bad / tally.loans) : null,
    note: enough ? null : tooFew(tally.loans, MINIMUM.rate, 'bad rate'),
  };
}

const add = (map: Map<string, Tally>, key: string, n: number, isBad: boolean) => {
  const tally = map.get(key) ?? { loans: 0, bad: 0 };
  tally.loans += n;
  if (isBad) tally.bad += n;
  map.set(key, tally);
};

/**
 * The lender's performance figures from the counts of its loans (`cells.ts`): bad rates by band,
 * decision, policy version and challenger; Gini, AUC and KS of the score; calibration per band;
 * vintage curves up to `asOf` (YYYY-MM-DD).
 */
export function performanceReport(cells: Cells, bad: BadDefinition, asOf: string) {
  const byScore = new Map<number, ScoreCount>();
  const byBand = new Map<string, Tally & { expected: number }>();
  const byDecision = new Map<string, Tally>();
  const byChallenger = new Map<string, Tally>();
  const vintages = new Map<string, { loans: number; mob30: Map<number, number>; mob90: Map<number, number> }>();
  let loans = 0;
  let bads = 0;

  for (const [cell, n] of Object.entries(cells)) {
    if (n <= 0) continue;
    const parts = cell.split('|');
    if (parts[0] === 's') {
      const [, scoreText, band, badness] = parts as [string, string, string, string];
      const score = Number(scoreText);
      const isBad = badnessIsBad(badness, bad);
      loans += n;
      if (isBad) bads += n;
      const row = byScore.get(score) ?? { score, good: 0, bad: 0 };
      if (isBad) row.bad += n;
      else row.good += n;
      byScore.set(score, row);
      const tally = byBand.get(band) ?? { loans: 0, bad: 0, expected: 0 };
      tally.loans += n;
      if (isBad) tally.bad += n;
      tally.expected += n * expectedBadRate(score);
      byBand.set(band, tally);
    } else if (parts[0] === 'd') {
      const [, version, decision, band, badness] = parts as [string, string, string, string, string];
      add(byDecision, `${version}|${decision}|${band}`, n, badnessIsBad(badness, bad));
    } else if (parts[0] === 'c') {
      const [, version, decision, badness] = parts as [string, string, string, string];
      add(byChallenger, `${version}|${decision}`, n, badnessIsBad(badness, bad));
    } else if (parts[0] === 'v') {
      const [, vintage, mob30, mob90] = parts as [string, string, string, string];
      const row = vintages.get(vintage) ?? { loans: 0, mob30: new Map(), mob90: new Map() };
      row.loans += n;
      if (mob30 !== '-') row.mob30.set(Number(mob30), (row.mob30.get(Number(mob30)) ?? 0) + n);
      if (mob90 !== '-') row.mob90.set(Number(mob90), (row.mob90.get(Number(mob90)) ?? 0) + n);
      vintages.set(vintage, row);
    }
  }

  const scores = [...byScore.values()];
  const goods = loans - bads;
  const need = MINIMUM.discrimination;
  const enough = loans >= need.loans && bads >= need.bad && goods >= need.good;
  const auc = enough ? areaUnderCurve(scores) : null;
  const ks = enough ? kolmogorovSmirnov(scores) : null;

  const bandOrder = ScoreBand.options as readonly string[];
  const sortBands = (a: string, b: string) => bandOrder.indexOf(a) - bandOrder.indexOf(b);

  return {
    asOf,
    badDefinition: bad,
    loans,
    bad: bads,
    badRate: loans ? round(bads / loans) : null,
    discrimination: {
      loans,
      good: goods,
      bad: bads,
      auc: auc === null ? null : round(auc),
      gini: auc === null ? null : round(giniOf(auc)!),
      ks: ks ? round(ks.ks) : null,
      ksAtScore: ks?.atScore ?? null,
      note: enough
        ? null
        : `${loans} loans with outcomes (${bads} bad, ${goods} good): Gini, AUC and KS need at least ${need.loans} loans with ${need.bad} bad and ${need.good} good among them`,
    },
    byBand: [...byBand.entries()]
      .sort(([a], [b]) => sortBands(a, b))
      .map(([band, tally]) => ({ band, ...rateRow(tally) })),
    calibration: [...byBand.entries()]
      .sort(([a], [b]) => sortBands(a, b))
      .map(([band, tally]) => {
        const ok = tally.loans >= MINIMUM.calibration;
        return {
          band,
          loans: tally.loans,
          bad: tally.bad,
          expectedBadRate: round(tally.expected / tally.loans),
          observedBadRate: ok ? round(tally.bad / tally.loans) : null,
          note: ok ? null : tooFew(tally.loans, MINIMUM.calibration, 'comparison of expected and observed'),
        };
      }),
    byDecision: [...byDecision.entries()]
      .map(([key, tally]) => {
        const [version, decision, band] = key.split('|') as [string, string, string];
        return { policyVersion: Number(version), decision, band, ...rateRow(tally) };
      })
      .sort(
        (a, b) =>
          a.policyVersion - b.policyVersion || a.decision.localeCompare(b.decision) || sortBands(a.band, b.band),
      ),
    challengers: [...byChallenger.entries()]
      .map(([key, tally]) => {
        const [version, decision] = key.split('|') as [string, string];
        return { version: Number(version), decision, ...rateRow(tally) };
      })
      .sort((a, b) => a.version - b.version || a.decision.localeCompare(b.decision)),
    vintages: [...vintages.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([vintage, row]) => {
        // Months on book the whole vintage has reached by `asOf` (from the end of its month).
        const [year, month] = vintage.split('-').map(Number) as [number, number];
        const monthEnd = new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
        const monthsOnBook = asOf < monthEnd ? 0 : monthsBetween(monthEnd, asOf);
        const curve = (firsts: Map<number, number>) => {
          const shares: number[] = [];
          let reached = 0;
          for (let m = 0; m <= monthsOnBook; m++) {
            reached += firsts.get(m) ?? 0;
            shares.push(round(reached / row.loans));
          }
          return shares;
        };
        return { vintage, loans: row.loans, monthsOnBook, ever30: curve(row.mob30), ever90: curve(row.mob90) };
      }),
  };
}
export type PerformanceReport = ReturnType<typeof performanceReport>;
