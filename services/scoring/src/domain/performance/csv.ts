import type { PerformanceReport } from './report';
import type { driftReport } from './drift';

type Full = PerformanceReport & {
  drift: ReturnType<typeof driftReport> & {
    baseline: { from: string; to: string };
    period: { from: string; to: string };
  };
};

const cell = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  const text = String(value);
  // Quoted where needed; a leading formula character is defused for spreadsheets.
  const safe = /^[=+\-@\t\r]/.test(text) && Number.isNaN(Number(text)) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

/**
 * The performance report as one CSV table in long form: each row a figure (`table`, the group
 * it is of, the measure, its value, the loans or decisions it is computed from, and the note
 * when there were too few).
 */
export function performanceCsv(report: Full): string {
  const rows: unknown[][] = [['table', 'group', 'measure', 'value', 'count', 'note']];
  rows.push(['overall', 'all', 'bad_rate', report.badRate, report.loans, null]);
  const d = report.discrimination;
  for (const measure of ['auc', 'gini', 'ks'] as const)
    rows.push(['discrimination', 'score', measure, d[measure], d.loans, d.note]);
  for (const row of report.byBand)
    rows.push(['bad_rate_by_band', row.band, 'bad_rate', row.badRate, row.loans, row.note]);
  for (const row of report.byDecision)
    rows.push([
      'bad_rate_by_decision',
      `policy ${row.policyVersion} ${row.decision} ${row.band}`,
      'bad_rate',
      row.badRate,
      row.loans,
      row.note,
    ]);
  for (const row of report.challengers)
    rows.push(['challenger', `policy ${row.version} ${row.decision}`, 'bad_rate', row.badRate, row.loans, row.note]);
  for (const row of report.calibration) {
    rows.push(['calibration', row.band, 'expected_bad_rate', row.expectedBadRate, row.loans, null]);
    rows.push(['calibration', row.band, 'observed_bad_rate', row.observedBadRate, row.loans, row.note]);
  }
  for (const row of report.vintages)
    for (let mob = 0; mob <= row.monthsOnBook; mob++) {
      rows.push(['vintage', row.vintage, `ever30_mob${mob}`, row.ever30[mob], row.loans, null]);
      rows.push(['vintage', row.vintage, `ever90_mob${mob}`, row.ever90[mob], row.loans, null]);
    }
  for (const row of report.drift.measures)
    rows.push(['drift', row.measure, 'psi', row.psi, report.drift.currentDecisions, report.drift.note]);
  return rows.map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n';
}
