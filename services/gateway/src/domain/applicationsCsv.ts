import type { ApplicationSummary, ApplicationView } from '@loan/contracts';

/**
 * The application list as CSV for a spreadsheet: one row per application, its decision and the
 * terms it carries. Only what the list and the decision hold: the applicant's name, never their
 * e-mail, phone or BVN.
 */
export const CSV_COLUMNS = [
  'application_id',
  'applicant_id',
  'applicant_name',
  'status',
  'created_at',
  'amount_requested',
  'tenor_requested_months',
  'linked_accounts',
  'score',
  'score_band',
  'decision',
  'decided_at',
  'terms',
  'terms_amount',
  'terms_tenor_months',
  'terms_interest_percent_monthly',
  'terms_monthly_payment',
  'review_status',
  'review_outcome',
] as const;

type Cell = string | number | null;

/**
 * One cell. A text that a spreadsheet would read as a formula (it starts with =, +, -, @, a tab
 * or a carriage return) gets a leading apostrophe, so an applicant's name such as
 * `=HYPERLINK(...)` stays text; then it is quoted when it holds a comma, a quote or a line break.
 */
export function csvCell(value: Cell): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** What terms a decision carries, as the console names them: approved, offered instead, or what an analyst could grant. */
function termsOf(decision: NonNullable<ApplicationView['decision']>) {
  if (decision.decision === 'APPROVED') return { kind: 'approved', terms: decision.approval_details };
  if (decision.decision === 'COUNTER_OFFER') {
    const c = decision.counter_offer;
    return {
      kind: 'counter_offer',
      terms: c
        ? {
            approved_amount: c.amount,
            approved_tenor: c.tenor,
            approved_interest: c.interest_rate,
            monthly_payment: c.monthly_payment,
          }
        : decision.approval_details,
    };
  }
  if (decision.decision === 'MANUAL_REVIEW' && decision.approval_details.approved_amount > 0) {
    return { kind: 'analyst_could_grant', terms: decision.approval_details };
  }
  return null;
}

/** The row of one application: its summary, with its decision and review when it has them. */
export function csvRowOf(summary: ApplicationSummary, view: ApplicationView | null): Cell[] {
  const decision = view?.decision ?? null;
  const terms = decision ? termsOf(decision) : null;
  const review = view?.review ?? null;
  return [
    summary.applicationId,
    summary.applicantId,
    summary.applicantName,
    summary.status,
    summary.createdAt,
    summary.amount,
    summary.tenor,
    summary.accountCount,
    decision?.score ?? summary.score,
    decision?.score_band ?? null,
    decision?.decision ?? summary.decision,
    decision?.timestamp ?? null,
    terms?.kind ?? null,
    terms?.terms.approved_amount ?? null,
    terms?.terms.approved_tenor ?? null,
    terms?.terms.approved_interest ?? null,
    terms?.terms.monthly_payment ?? null,
    review?.status ?? null,
    review?.outcome ?? null,
  ];
}

/** The whole file: a header line, then a line per row, CRLF-ended as RFC 4180 has it. */
export function csvOf(rows: Cell[][]): string {
  return [CSV_COLUMNS as readonly Cell[], ...rows].map((row) => `${row.map(csvCell).join(',')}\r\n`).join('');
}
