import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCORECARD_VERSION } from '../src/domain/scorecard';
import {
  GOLDEN_APPLICANTS,
  applicantsTable,
  decisionsTable,
  goldenFile,
  goldenSectionOf,
  parseTables,
  type Table,
} from './goldenTable';

const SCORING_DOC = join(__dirname, '../../../docs/scoring.md');
const section = goldenSectionOf(readFileSync(SCORING_DOC, 'utf8')).text;
const [documentedApplicants, documentedDecisions] = parseTables(section) as [Table?, Table?];

const keyed = (table: Table | undefined, width: number) =>
  new Map((table?.rows ?? []).map((row) => [row.slice(0, width).join(' / '), row]));

describe('golden table of docs/scoring.md', () => {
  it('when the docs are read, then they name the current scorecard version and hold both tables', () => {
    expect(section).toContain(`Scorecard ${SCORECARD_VERSION}.`);
    expect(documentedApplicants?.header).toEqual(applicantsTable([]).header);
    expect(documentedDecisions?.header).toEqual(decisionsTable([]).header);
  });

  describe('applicants', () => {
    const computed = applicantsTable();
    const documented = keyed(documentedApplicants, 1);

    it('when the docs are read, then they list exactly the golden applicants, in order', () => {
      expect(documentedApplicants?.rows.map((row) => row[0])).toEqual(computed.rows.map((row) => row[0]));
    });

    it.each(computed.rows.map((row) => [row[0], row]))(
      'when %s is enriched from the sandbox and scored, then the file reads as documented',
      (label, row) => {
        expect(documented.get(String(label))).toEqual(row);
      },
    );
  });

  describe('decisions', () => {
    const computed = decisionsTable();
    const documented = keyed(documentedDecisions, 2);

    it('when the docs are read, then they list exactly the golden asks, in order', () => {
      expect(documentedDecisions?.rows.map((row) => row.slice(0, 2))).toEqual(
        computed.rows.map((row) => row.slice(0, 2)),
      );
    });

    it.each(computed.rows.map((row) => [row[0], row[1], row]))(
      'when %s asks for %s, then the decision is the documented one',
      (label, ask, row) => {
        expect(documented.get(`${label} / ${ask}`)).toEqual(row);
      },
    );
  });

  describe('sandbox personas', () => {
    const decisionsOf = (label: string) => decisionsTable(GOLDEN_APPLICANTS.filter((a) => a.label === label)).rows;

    it('when a salaried applicant with a clean bureau file asks for a modest loan, then it is approved', () => {
      expect(decisionsOf('salaried').find((row) => row[1] === '₦500,000 / 12 m @ 5%')?.[2]).toBe('APPROVED');
    });

    it.each(['heavy_betting', 'debt_stressed', 'debt_stressed, no BVN', 'overdrawn'])(
      'when %s applies, then no ask is approved outright',
      (label) => {
        for (const row of decisionsOf(label)) expect(['DECLINED', 'MANUAL_REVIEW']).toContain(row[2]);
      },
    );

    it('when the thin_file persona applies, then the file is thin and goes to review', () => {
      const applicant = GOLDEN_APPLICANTS.find((a) => a.label === 'thin_file')!;
      expect(applicantsTable([applicant]).rows[0]?.[6]).toBe('yes');
      for (const row of decisionsOf('thin_file')) {
        expect(row[2]).toBe('MANUAL_REVIEW');
        expect(row[7]).toContain('THIN_FILE');
      }
    });

    it('when the account is held by someone else, then identity is not verified and the decision is a review', () => {
      const applicant = GOLDEN_APPLICANTS.find((a) => a.label === 'name_mismatch')!;
      expect(goldenFile(applicant).accounts[0]?.holderName).not.toMatch(/MUSA DANJUMA/i);
      expect(applicantsTable([applicant]).rows[0]?.[7]).toBe('no');
      for (const row of decisionsOf('name_mismatch')) {
        expect(row[2]).toBe('MANUAL_REVIEW');
        expect(row[7]).toContain('IDENTITY_MISMATCH');
      }
    });
  });
});
