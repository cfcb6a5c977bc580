/** Credit bureaus we can map onto the normalised report. */
export type BureauName = 'CRC' | 'FIRST_CENTRAL' | 'CREDIT_REGISTRY';

/**
 * CBN prudential classification of a credit facility, best first. PERFORMING is current;
 * WATCHLIST ("pass and watch") is slightly late; SUBSTANDARD, DOUBTFUL and LOST are
 * non-performing, LOST being written off in all but name.
 */
export type FacilityClassification = 'PERFORMING' | 'WATCHLIST' | 'SUBSTANDARD' | 'DOUBTFUL' | 'LOST';

/** One loan, overdraft or card line on the applicant's bureau file. Money in kobo. */
export interface NormalisedFacility {
  institution: string;
  product: string;
  /** `YYYY-MM-DD`, null when the bureau does not say. */
  opened: string | null;
  /** `YYYY-MM-DD` when closed; null while open. */
  closed: string | null;
  principal_kobo: number;
  balance_kobo: number;
  overdue_kobo: number;
  /** Expected monthly instalment. */
  instalment_kobo: number;
  classification: FacilityClassification;
  /** Days past due now. */
  dpd: number;
  /** Worst days past due over the bureau's payment history (24 months for CRC). */
  max_dpd: number;
  written_off: boolean;
}

/** The bureau's own score, on its own scale. */
export interface BureauScore {
  value: number;
  min: number;
  max: number;
  /** The bureau's band for the value (CRC: EXCEPTIONAL, VERY_GOOD, GOOD, FAIR, POOR). */
  band: string;
  /** The bureau's reason codes, in its words. */
  reasons: string[];
}

/** Totals over the file. Money in kobo. */
export interface BureauFileSummary {
  facilities_total: number;
  active: number;
  closed: number;
  performing: number;
  /** Facilities with days past due, an overdue amount or a non-performing classification. */
  delinquent: number;
  written_off: number;
  total_outstanding_kobo: number;
  total_overdue_kobo: number;
  monthly_instalment_kobo: number;
  max_days_past_due: number;
  /** `YYYY-MM-DD` of the latest lender report, null when unknown. */
  last_reported: string | null;
}

/** Credit enquiries by lenders in the months before the report. */
export interface BureauEnquiries {
  last_3m: number;
  last_12m: number;
  last_36m: number;
}

/**
 * A bureau report mapped onto one shape whatever the bureau (CRC, FirstCentral,
 * CreditRegistry). Field names follow the reference's normalised shape, hence snake_case.
 */
export interface NormalisedReport {
  bvn: string;
  bureau: BureauName;
  status: 'HIT' | 'NO_HIT' | 'ERROR';
  /** The bureau's report or order number, for disputes and audit. */
  bureau_ref: string | null;
  /** ISO 8601 time the report was pulled; the report's own date when the caller gives none. */
  pulled_at: string | null;
  /** Null when the bureau returned a file without a score. */
  score: BureauScore | null;
  summary: BureauFileSummary;
  enquiries: BureauEnquiries;
  facilities: NormalisedFacility[];
}

/**
 * What a bureau lookup produced.
 * - HIT: the bureau holds a file on the BVN.
 * - NO_HIT: the bureau answered and holds no file (a thin credit file, not an error).
 * - UNAVAILABLE: the bureau could not answer (timeout, 5xx, unreadable response).
 * - NOT_CHECKED: no lookup was made because the applicant gave no BVN.
 */
export type BureauOutcome =
  | { status: 'HIT'; report: NormalisedReport }
  | { status: 'NO_HIT' }
  | { status: 'UNAVAILABLE'; reason: string }
  | { status: 'NOT_CHECKED' };

export type BureauStatus = BureauOutcome['status'];

/**
 * Adapter of a credit bureau, looked up by BVN. Implementations never throw for an expected
 * bureau failure: they answer UNAVAILABLE so that the decision can still complete.
 */
export interface CreditBureau {
  lookup(bvn: string): Promise<BureauOutcome>;
}
