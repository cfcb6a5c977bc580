import type { Decision } from '@loan/contracts';
import { TEST_BVNS } from '@loan/sandbox';
import type { LoanAsk } from '../src/domain/affordability';
import { scoreApplicationWithAudit } from '../src/domain/scoreApplication';
import { SCORECARD_VERSION } from '../src/domain/scorecard';
import { formatNaira } from '../src/domain/scorecard/math';
import {
  sandboxFile,
  scoringInput,
  type SandboxApplicant,
  type SandboxFile,
  type SandboxTimeline,
} from './sandboxApplicant';

/**
 * The golden table of docs/scoring.md: sandbox applicants, their accounts enriched as the
 * enrichment service would, each decided for a few asks. The docs hold the expected outcomes;
 * golden.unit.test.ts recomputes every row and compares; `npm run golden -w services/scoring`
 * rewrites the tables after a reviewed change.
 */

/** Accounts linked and enriched mid-November 2026; the analysis half an hour later. */
export const GOLDEN_TIMELINE: SandboxTimeline = {
  linkedAt: new Date('2026-11-15T09:00:00.000Z'),
  decidedAt: new Date('2026-11-15T09:30:00.000Z'),
};

const SMALL: LoanAsk = { amount: 100_000, tenor: 3, interestRate: 6 };
const MEDIUM: LoanAsk = { amount: 500_000, tenor: 12, interestRate: 5 };
const LARGE: LoanAsk = { amount: 1_500_000, tenor: 12, interestRate: 4 };

/** One golden applicant and the asks decided for them. */
export interface GoldenApplicant extends SandboxApplicant {
  asks: readonly LoanAsk[];
}

export const GOLDEN_APPLICANTS: readonly GoldenApplicant[] = [
  {
    label: 'salaried',
    firstName: 'Adebayo',
    lastName: 'Okafor',
    bvn: TEST_BVNS.clean,
    accounts: [{ persona: 'salaried' }],
    asks: [
      SMALL,
      MEDIUM,
      LARGE,
      { amount: 800_000, tenor: 6, interestRate: 5 },
      { amount: 120_000, tenor: 6, interestRate: 0 },
    ],
  },
  {
    label: 'salaried, bureau down',
    firstName: 'Ngozi',
    lastName: 'Eze',
    bvn: TEST_BVNS.timeout,
    accounts: [{ persona: 'salaried' }],
    asks: [MEDIUM],
  },
  {
    label: 'salaried + gig wallet',
    firstName: 'Tunde',
    lastName: 'Balogun',
    bvn: TEST_BVNS.noRecord,
    accounts: [{ persona: 'salaried' }, { persona: 'gig', institution: 'opay' }],
    asks: [MEDIUM, LARGE],
  },
  {
    label: 'salaried_high',
    firstName: 'Funmilayo',
    lastName: 'Adeyemi',
    bvn: '22231415926',
    accounts: [{ persona: 'salaried_high' }],
    asks: [MEDIUM, LARGE, { amount: 5_000_000, tenor: 12, interestRate: 4 }],
  },
  {
    label: 'gig',
    firstName: 'Ibrahim',
    lastName: 'Yusuf',
    bvn: TEST_BVNS.noRecord,
    accounts: [{ persona: 'gig', institution: 'moniepoint' }],
    asks: [SMALL, MEDIUM, LARGE],
  },
  {
    label: 'heavy_betting',
    firstName: 'Chidi',
    lastName: 'Nwosu',
    bvn: null,
    accounts: [{ persona: 'heavy_betting' }],
    asks: [SMALL, MEDIUM, LARGE],
  },
  {
    label: 'debt_stressed',
    firstName: 'Blessing',
    lastName: 'Ogunleye',
    bvn: TEST_BVNS.delinquent,
    accounts: [{ persona: 'debt_stressed' }],
    asks: [SMALL, MEDIUM],
  },
  {
    label: 'debt_stressed, no BVN',
    firstName: 'Aisha',
    lastName: 'Bello',
    bvn: null,
    accounts: [{ persona: 'debt_stressed' }],
    asks: [SMALL, MEDIUM],
  },
  {
    label: 'overdrawn',
    firstName: 'Emeka',
    lastName: 'Obi',
    bvn: '22287654321',
    accounts: [{ persona: 'overdrawn' }],
    asks: [SMALL, MEDIUM],
  },
  {
    label: 'thin_file',
    firstName: 'Kemi',
    lastName: 'Adewale',
    bvn: null,
    accounts: [{ persona: 'thin_file' }],
    asks: [SMALL, MEDIUM],
  },
  {
    label: 'name_mismatch',
    firstName: 'Musa',
    lastName: 'Danjuma',
    bvn: '22255501234',
    accounts: [{ persona: 'name_mismatch' }],
    asks: [SMALL, MEDIUM],
  },
];

/** A Markdown table: a header row and body rows of cells. */
export interface Table {
  header: readonly string[];
  rows: ReadonlyArray<readonly string[]>;
}

const files = new Map<string, SandboxFile>();

/** The applicant's file (enriched accounts, bureau outcome); built once per applicant. */
export function goldenFile(applicant: GoldenApplicant): SandboxFile {
  let file = files.get(applicant.label);
  if (!file) {
    file = sandboxFile(applicant, GOLDEN_TIMELINE);
    files.set(applicant.label, file);
  }
  return file;
}

const decide = (applicant: GoldenApplicant, ask: LoanAsk) =>
  scoreApplicationWithAudit(scoringInput(goldenFile(applicant), ask));

const askText = ({ amount, tenor, interestRate }: LoanAsk): string =>
  `${formatNaira(amount)} / ${tenor} m @ ${interestRate}%`;

const yesNo = (value: boolean): string => (value ? 'yes' : 'no');

const accountsText = (applicant: GoldenApplicant, file: SandboxFile): string =>
  applicant.accounts.map(({ persona }, n) => `${persona} (${file.accounts[n]!.institution})`).join(' + ');

const bureauText = (applicant: GoldenApplicant, file: SandboxFile): string => {
  const { bureau } = file;
  switch (bureau.status) {
    case 'NOT_CHECKED':
      return 'no BVN';
    case 'UNAVAILABLE':
      return 'UNAVAILABLE';
    case 'NO_HIT':
      return 'NO_HIT';
    case 'HIT': {
      const { score, summary } = bureau.report;
      return `HIT, score ${score?.value ?? '-'}, worst ${summary.max_days_past_due} days past due`;
    }
  }
};

/** Why, in a word: the manual-review codes, or the decline reason in the decision's own words. */
const whyText = (decision: Decision): string => {
  if (decision.decision === 'MANUAL_REVIEW')
    return [...new Set(decision.manual_review_reasons.map((reason) => reason.code))].join(', ');
  if (decision.decision === 'DECLINED') return decision.explainability.primary_reason.replace(/^Declined: /, '');
  return '-';
};

const termsText = (decision: Decision): string => {
  const terms = decision.approval_details;
  return terms.approved_amount === 0
    ? '-'
    : `${formatNaira(terms.approved_amount)} / ${terms.approved_tenor} m @ ${terms.approved_interest}%, ${formatNaira(terms.monthly_payment, 2)} a month`;
};

const counterOfferText = (decision: Decision): string => {
  const offer = decision.counter_offer;
  return offer === null
    ? '-'
    : `${formatNaira(offer.amount)} / ${offer.tenor} m, ${formatNaira(offer.monthly_payment, 2)} a month`;
};

/** Per applicant: what the scorecard makes of the file, whatever the ask. */
export function applicantsTable(applicants: readonly GoldenApplicant[] = GOLDEN_APPLICANTS): Table {
  return {
    header: [
      'applicant',
      'linked accounts',
      'bureau',
      'monthly income',
      'score',
      'band',
      'thin file',
      'identity verified',
      'risk factors',
    ],
    rows: applicants.map((applicant) => {
      const file = goldenFile(applicant);
      const { decision, audit } = decide(applicant, applicant.asks[0]!);
      return [
        applicant.label,
        accountsText(applicant, file),
        bureauText(applicant, file),
        formatNaira(audit.features.monthlyIncome),
        decision.score.toFixed(2),
        decision.score_band,
        yesNo(decision.regulatory_compliance.thin_file),
        yesNo(decision.regulatory_compliance.identity_verified),
        decision.risk_factors.map((risk) => `${risk.code} (${risk.severity})`).join(', ') || '-',
      ];
    }),
  };
}

/** Per applicant and ask: the decision and its terms. */
export function decisionsTable(applicants: readonly GoldenApplicant[] = GOLDEN_APPLICANTS): Table {
  return {
    header: ['applicant', 'ask', 'decision', 'band', 'score', 'approved terms', 'counter-offer', 'why'],
    rows: applicants.flatMap((applicant) =>
      applicant.asks.map((ask) => {
        const { decision } = decide(applicant, ask);
        return [
          applicant.label,
          askText(ask),
          decision.decision,
          decision.score_band,
          decision.score.toFixed(2),
          termsText(decision),
          counterOfferText(decision),
          whyText(decision),
        ];
      }),
    ),
  };
}

const cell = (text: string): string => text.replace(/\|/g, '\\|');

export function renderTable({ header, rows }: Table): string {
  return [
    `| ${header.map(cell).join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
  ].join('\n');
}

/** Start and end markers of the generated part of docs/scoring.md. */
export const GOLDEN_BEGIN = '<!-- golden table: generated by `npm run golden -w services/scoring` -->';
export const GOLDEN_END = '<!-- end of golden table -->';

/** The generated part of docs/scoring.md, markers included. */
export function renderGoldenSection(applicants: readonly GoldenApplicant[] = GOLDEN_APPLICANTS): string {
  return [
    GOLDEN_BEGIN,
    '',
    `Scorecard ${SCORECARD_VERSION}. Applicants:`,
    '',
    renderTable(applicantsTable(applicants)),
    '',
    'Decisions:',
    '',
    renderTable(decisionsTable(applicants)),
    '',
    GOLDEN_END,
  ].join('\n');
}

/** The generated part of a document, markers included; throws when the markers are missing. */
export function goldenSectionOf(markdown: string): { start: number; end: number; text: string } {
  const start = markdown.indexOf(GOLDEN_BEGIN);
  const endMarker = markdown.indexOf(GOLDEN_END, start);
  if (start < 0 || endMarker < 0) throw new Error('The golden table markers are missing from docs/scoring.md');
  const end = endMarker + GOLDEN_END.length;
  return { start, end, text: markdown.slice(start, end) };
}

const splitRow = (line: string): string[] =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((text) => text.trim().replace(/\\\|/g, '|'));

/** The Markdown tables of a text, in order. */
export function parseTables(markdown: string): Table[] {
  const tables: Table[] = [];
  let lines: string[] = [];
  const flush = () => {
    if (lines.length >= 2) tables.push({ header: splitRow(lines[0]!), rows: lines.slice(2).map(splitRow) });
    lines = [];
  };
  for (const line of markdown.split('\n')) {
    if (line.trim().startsWith('|')) lines.push(line);
    else flush();
  }
  flush();
  return tables;
}
