import { crcErrorSchema, crcHitSchema, issuePath } from './crcSchema';
import type {
  BureauEnquiries,
  BureauFileSummary,
  BureauOutcome,
  BureauScore,
  FacilityClassification,
  NormalisedFacility,
  NormalisedReport,
} from '../../domain/bureauReport';

/** What a CRC answer can mean: a lookup was made, so never NOT_CHECKED. */
export type CrcNormalisation = Exclude<BureauOutcome, { status: 'NOT_CHECKED' }>;

export interface NormaliseOptions {
  /** The BVN that was looked up; read from the response when absent. */
  bvn?: string;
  /** When the report was pulled; the report's own date when absent. */
  pulledAt?: Date;
}

/** CRC scores on the FICO-like 300-850 scale. */
export const CRC_SCORE_MIN = 300;
export const CRC_SCORE_MAX = 850;

/** CRC's published bands, lower bound inclusive, best first. */
export const CRC_SCORE_BANDS: ReadonlyArray<{ band: string; min: number }> = [
  { band: 'EXCEPTIONAL', min: 800 },
  { band: 'VERY_GOOD', min: 740 },
  { band: 'GOOD', min: 670 },
  { band: 'FAIR', min: 580 },
  { band: 'POOR', min: CRC_SCORE_MIN },
];

/** CRC sends RESPONSETYPE.CODE 1 with a data packet and 2 for "no hit". */
const CRC_NO_HIT_CODE = '2';
const REASON_CODE_FIELDS = ['REASON_CODE1', 'REASON_CODE2', 'REASON_CODE3', 'REASON_CODE4'];
const PAYMENT_HISTORY_MONTHS = 24;
const EMPTY_VALUES = new Set(['', '-', 'N/A', 'NA', 'NULL', 'NONE']);
const MONTH_NUMBERS: Readonly<Record<string, number>> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Follows a path of keys through nested objects; undefined as soon as one is missing. */
const at = (value: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), value);

const isBlank = (value: unknown): boolean =>
  value === null || value === undefined || (typeof value === 'string' && EMPTY_VALUES.has(value.trim().toUpperCase()));

/** The first of `keys` that holds a value: CRC renames fields between products (`_CAL`). */
const pick = (row: JsonObject, ...keys: string[]): unknown =>
  keys.map((key) => row[key]).find((value) => !isBlank(value));

const textOf = (value: unknown): string | null =>
  isBlank(value) || (typeof value !== 'string' && typeof value !== 'number') ? null : String(value).trim();

/**
 * CRC lists come bare (`[...]`), wrapped in a same-named object (`{ClosedAccounts: [...]}`),
 * as a single object, or as null.
 */
const listOf = (value: unknown, wrapperKey?: string): JsonObject[] => {
  const unwrapped = wrapperKey !== undefined && isObject(value) && wrapperKey in value ? value[wrapperKey] : value;
  if (Array.isArray(unwrapped)) return unwrapped.filter(isObject);
  return isObject(unwrapped) ? [unwrapped] : [];
};

/** Amount in Naira from CRC's strings such as "1,260,995" or "45,000.50"; 0 when blank. */
export const parseCrcAmount = (value: unknown): number => {
  if (typeof value === 'number') return Number.isFinite(value) ? value : 0;
  if (typeof value !== 'string' || isBlank(value)) return 0;
  const parsed = Number(value.replace(/[^\d.-]/g, ''));
  return Number.isFinite(parsed) ? parsed : 0;
};

const toKobo = (naira: number): number => Math.round(naira * 100);

/** Whole number from strings such as "90", "90+" or "1,020"; 0 when blank or not a number. */
const parseCount = (value: unknown): number => {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.max(0, Math.trunc(value)) : 0;
  if (typeof value !== 'string') return 0;
  const digits = /^\s*([\d,]+)/.exec(value)?.[1]?.replace(/,/g, '');
  return digits ? Number(digits) : 0;
};

const isoDate = (year: number, month: number, day: number): string | null => {
  const date = new Date(Date.UTC(year, month - 1, day));
  const valid = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return valid ? date.toISOString().slice(0, 10) : null;
};

/**
 * `YYYY-MM-DD` from CRC's dates: `20-May-2023` (also with `/` or spaces), ISO dates, and
 * day-first `20/05/2023`. Null when blank or unreadable.
 */
export const parseCrcDate = (value: unknown): string | null => {
  const text = textOf(value);
  if (text === null) return null;
  const named = /^(\d{1,2})[-/ ]([A-Za-z]{3,9})[-/ ](\d{4})$/.exec(text);
  if (named) {
    const month = MONTH_NUMBERS[named[2]!.slice(0, 3).toLowerCase()];
    return month === undefined ? null : isoDate(Number(named[3]), month, Number(named[1]));
  }
  const iso = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (iso) return isoDate(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const dayFirst = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text);
  if (dayFirst) return isoDate(Number(dayFirst[3]), Number(dayFirst[2]), Number(dayFirst[1]));
  return null;
};

export const crcBandOf = (score: number): string => CRC_SCORE_BANDS.find(({ min }) => score >= min)?.band ?? 'POOR';

/** CBN prudential buckets: 30 (watch), 90, 180 and 360 days past due. */
const classifyByDaysPastDue = (dpd: number): FacilityClassification => {
  if (dpd >= 360) return 'LOST';
  if (dpd >= 180) return 'DOUBTFUL';
  if (dpd >= 90) return 'SUBSTANDARD';
  if (dpd >= 30) return 'WATCHLIST';
  return 'PERFORMING';
};

/** CBN classification from CRC's wording; from days past due when the wording is unknown. */
export const classifyFacility = (label: string | null, dpd: number): FacilityClassification => {
  const text = (label ?? '').toUpperCase();
  const byDaysPastDue = classifyByDaysPastDue(dpd);
  if (text.includes('NON') && text.includes('PERFORM')) {
    return byDaysPastDue === 'PERFORMING' || byDaysPastDue === 'WATCHLIST' ? 'SUBSTANDARD' : byDaysPastDue;
  }
  if (text.includes('PERFORM')) return 'PERFORMING';
  if (text.includes('WATCH')) return 'WATCHLIST';
  if (text.includes('SUB')) return 'SUBSTANDARD';
  if (text.includes('DOUBT')) return 'DOUBTFUL';
  if (text.includes('LOST') || text.includes('WRITTEN')) return 'LOST';
  return byDaysPastDue;
};

const NON_PERFORMING: ReadonlySet<FacilityClassification> = new Set(['SUBSTANDARD', 'DOUBTFUL', 'LOST']);

const worstPaymentHistoryDpd = (row: JsonObject): number =>
  Array.from({ length: PAYMENT_HISTORY_MONTHS }, (_, index) => parseCount(row[`MONTH${index + 1}`])).reduce(
    (worst, dpd) => Math.max(worst, dpd),
    0,
  );

const openFacility = (row: JsonObject): NormalisedFacility => {
  const dpd = parseCount(pick(row, 'NUM_OF_DAYS_IN_ARREARS_CAL', 'NUM_OF_DAYS_IN_ARREARS'));
  const classification = classifyFacility(textOf(pick(row, 'ASSET_CLASSIFICATION_CAL', 'ASSET_CLASSIFICATION')), dpd);
  const status = (textOf(pick(row, 'LOAN_STATUS', 'ACCOUNT_STATUS')) ?? '').toUpperCase();
  const reported = parseCrcDate(pick(row, 'DATE_REPORTED', 'REPORTED_DT_TEXT'));
  const isClosed = status.includes('CLOSED') || status.includes('PAID OFF') || status.includes('SETTLED');
  return {
    institution: textOf(row.INSTITUTION_NAME) ?? 'UNKNOWN',
    product: textOf(pick(row, 'LOAN_TYPE_VALUE', 'LOAN_TYPE', 'FACILITY_TYPE')) ?? 'UNKNOWN',
    opened: parseCrcDate(pick(row, 'ACC_OPEN_DISB_DT', 'SANCTION_DATE', 'FIRST_DISBURSE_DATE')),
    // Without a closure date, the last report is the best known date it was seen closed.
    closed: isClosed ? (parseCrcDate(pick(row, 'CLOSED_DATE', 'CLOSURE_DT')) ?? reported) : null,
    principal_kobo: toKobo(parseCrcAmount(pick(row, 'SANCTIONED_AMOUNT_CAL', 'SANCTIONED_AMOUNT'))),
    balance_kobo: isClosed ? 0 : toKobo(parseCrcAmount(pick(row, 'CURRENT_BALANCE_CAL', 'CURRENT_BALANCE'))),
    overdue_kobo: toKobo(parseCrcAmount(pick(row, 'AMOUNT_OVERDUE_CAL', 'AMOUNT_OVERDUE'))),
    instalment_kobo: toKobo(parseCrcAmount(pick(row, 'EXPECT_NXT_INSTALLMENT_AMT', 'INSTALLMENT_AMOUNT'))),
    classification,
    dpd,
    max_dpd: Math.max(dpd, worstPaymentHistoryDpd(row)),
    written_off: status.includes('WRITTEN') || parseCrcAmount(row.AMOUNT_WRITTEN_OFF) > 0 || classification === 'LOST',
  };
};

const closedFacility = (row: JsonObject, reportDate: string | null): NormalisedFacility => {
  const maxDpd = parseCount(pick(row, 'MAX_NUM_DAYS_DUE', 'NUM_OF_DAYS_IN_ARREARS'));
  const classification = classifyFacility(textOf(row.ASSET_CLASSIFICATION), 0);
  return {
    institution: textOf(row.INSTITUTION_NAME) ?? 'UNKNOWN',
    product: textOf(pick(row, 'LOAN_TYPE_VALUE', 'FACILITY_TYPE', 'CFTYPE')) ?? 'UNKNOWN',
    opened: parseCrcDate(pick(row, 'SANCTION_DATE', 'ACC_OPEN_DISB_DT', 'FIRST_DISBURSE_DATE')),
    closed: parseCrcDate(pick(row, 'CLOSED_DATE', 'CLOSURE_DT', 'REPORTED_DATE')) ?? reportDate,
    principal_kobo: toKobo(parseCrcAmount(pick(row, 'SANCTION_AMOUNT', 'SANCTIONED_AMOUNT'))),
    balance_kobo: 0,
    overdue_kobo: toKobo(parseCrcAmount(pick(row, 'OVER_DUE_AMT_PRICIPAL', 'AMOUNT_OVERDUE'))),
    instalment_kobo: 0,
    classification,
    dpd: 0,
    max_dpd: maxDpd,
    written_off: classification === 'LOST',
  };
};

const isDelinquent = (facility: NormalisedFacility): boolean =>
  facility.dpd > 0 || facility.overdue_kobo > 0 || NON_PERFORMING.has(facility.classification);

const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);

const latest = (dates: Array<string | null>): string | null =>
  dates
    .filter((date): date is string => date !== null)
    .sort()
    .at(-1) ?? null;

/** Totals by institution type, used when the report lists no individual facilities. */
const institutionTypeTotals = (body: JsonObject) => {
  const rows = listOf(body.ClassificationInsType);
  return {
    accounts: sum(rows.map((row) => parseCount(row.NO_OF_ACCOUNTS))),
    // CRC spells this field OUSTANDING_BALANCE.
    outstandingKobo: toKobo(
      sum(rows.map((row) => parseCrcAmount(pick(row, 'OUSTANDING_BALANCE', 'OUTSTANDING_BALANCE')))),
    ),
    overdueKobo: toKobo(sum(rows.map((row) => parseCrcAmount(row.AMOUNT_OVERDUE)))),
  };
};

const summarise = (
  body: JsonObject,
  facilities: NormalisedFacility[],
  reportedDates: Array<string | null>,
): BureauFileSummary => {
  const nano = at(body, 'CREDIT_NANO_SUMMARY', 'SUMMARY');
  const lastReportedByNano = parseCrcDate(at(nano, 'LAST_REPORTED_DATE'));
  if (facilities.length === 0) {
    const totals = institutionTypeTotals(body);
    const delinquent = parseCount(at(nano, 'NO_OF_DELINQCREDITFACILITIES'));
    return {
      facilities_total: totals.accounts,
      active: totals.accounts,
      closed: 0,
      performing: Math.max(0, totals.accounts - delinquent),
      delinquent,
      written_off: 0,
      total_outstanding_kobo: totals.outstandingKobo,
      total_overdue_kobo: totals.overdueKobo,
      monthly_instalment_kobo: 0,
      max_days_past_due: 0,
      last_reported: lastReportedByNano,
    };
  }
  const active = facilities.filter((facility) => facility.closed === null);
  return {
    facilities_total: facilities.length,
    active: active.length,
    closed: facilities.length - active.length,
    performing: active.filter((facility) => !isDelinquent(facility)).length,
    delinquent: facilities.filter(isDelinquent).length,
    written_off: facilities.filter((facility) => facility.written_off).length,
    total_outstanding_kobo: sum(active.map((facility) => facility.balance_kobo)),
    total_overdue_kobo: sum(facilities.map((facility) => facility.overdue_kobo)),
    monthly_instalment_kobo: sum(active.map((facility) => facility.instalment_kobo)),
    max_days_past_due: Math.max(0, ...facilities.map((facility) => facility.max_dpd)),
    last_reported: latest([lastReportedByNano, ...reportedDates]),
  };
};

const monthsBefore = (isoDay: string, months: number): string => {
  const date = new Date(`${isoDay}T00:00:00.000Z`);
  date.setUTCMonth(date.getUTCMonth() - months);
  return date.toISOString().slice(0, 10);
};

/** Counts enquiries dated within 3, 12 and 36 months of the report date (all, when undated). */
const countEnquiries = (body: JsonObject, referenceDay: string | null): BureauEnquiries => {
  const dates = listOf(body.InquiryHistoryDetails).map((row) => parseCrcDate(row.INQUIRY_DATE));
  const within = (months: number): number =>
    referenceDay === null
      ? dates.length
      : dates.filter((date) => date !== null && date > monthsBefore(referenceDay, months) && date <= referenceDay)
          .length;
  return { last_3m: within(3), last_12m: within(12), last_36m: within(36) };
};

const scoreOf = (body: JsonObject): BureauScore | null => {
  const summary = at(body, 'CREDIT_SCORE_DETAILS', 'CREDIT_SCORE_SUMMARY');
  if (!isObject(summary) || isBlank(summary.CREDIT_SCORE)) return null;
  const value = parseCount(summary.CREDIT_SCORE);
  if (value < CRC_SCORE_MIN || value > CRC_SCORE_MAX) return null;
  return {
    value,
    min: CRC_SCORE_MIN,
    max: CRC_SCORE_MAX,
    band: crcBandOf(value),
    reasons: REASON_CODE_FIELDS.map((key) => textOf(summary[key])).filter(
      (reason): reason is string => reason !== null,
    ),
  };
};

const reportDateOf = (response: JsonObject): string | null =>
  parseCrcDate(at(response, 'HEADER', 'REPORTHEADER', 'REPORTDATE')) ??
  parseCrcDate(at(response, 'BODY', 'ReportDetailBVN', 'ReportDetailBVN', 'REPORT_ORDER_DATE'));

const hitReport = (response: JsonObject, options: NormaliseOptions): NormalisedReport => {
  const body = isObject(response.BODY) ? response.BODY : {};
  const reportDate = reportDateOf(response);
  const openRows = listOf(body.CreditFacilityHistory24);
  const closedRows = listOf(body.ClosedAccounts, 'ClosedAccounts');
  const facilities = [...openRows.map(openFacility), ...closedRows.map((row) => closedFacility(row, reportDate))];
  const reportedDates = [...openRows, ...closedRows].map((row) =>
    parseCrcDate(pick(row, 'DATE_REPORTED', 'REPORTED_DT_TEXT', 'REPORTED_DATE')),
  );
  const pulledAt = options.pulledAt?.toISOString() ?? (reportDate === null ? null : `${reportDate}T00:00:00.000Z`);
  return {
    bvn:
      options.bvn ??
      textOf(at(response, 'HEADER', 'SEARCHCRITERIA', 'BVN_NO')) ??
      textOf(at(body, 'ReportDetailBVN', 'ReportDetailBVN', 'BVN_NUMBER')) ??
      '',
    bureau: 'CRC',
    status: 'HIT',
    bureau_ref:
      textOf(at(response, 'HEADER', 'REPORTHEADER', 'REPORTORDERNUMBER')) ??
      textOf(at(body, 'ReportDetailBVN', 'ReportDetailBVN', 'CIR_NUMBER')) ??
      textOf(response.REQUESTID),
    pulled_at: pulledAt,
    score: scoreOf(body),
    summary: summarise(body, facilities, reportedDates),
    enquiries: countEnquiries(body, pulledAt?.slice(0, 10) ?? null),
    facilities,
  };
};

const parseJson = (json: unknown): unknown => {
  if (typeof json !== 'string') return json;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
};

/**
 * Maps a CRC consumer-report response (JSON, parsed or as text) onto the normalised report.
 * - `ConsumerHitResponse` -> HIT with the normalised report; a report whose fields have
 *   another shape than CRC's (crcSchema.ts) -> UNAVAILABLE (`MALFORMED_RESPONSE: <field>`).
 * - `ConsumerNoHitResponse`, or RESPONSETYPE code 2 -> NO_HIT (HTTP 200 at CRC).
 * - `ErrorResponse`, `ConsumerSearchResultResponse` (several candidate files, needing a
 *   merge request we do not make) or anything unreadable -> UNAVAILABLE with the reason.
 * Pure: the pull time comes from the caller, or else from the report.
 */
export const normaliseCrcResponse = (json: unknown, options: NormaliseOptions = {}): CrcNormalisation => {
  const response = parseJson(json);
  if (!isObject(response)) return { status: 'UNAVAILABLE', reason: 'UNREADABLE_RESPONSE' };
  if (isObject(response.ConsumerNoHitResponse)) return { status: 'NO_HIT' };
  const hit = response.ConsumerHitResponse;
  if (isObject(hit)) {
    const checked = crcHitSchema.safeParse(hit);
    if (!checked.success) return { status: 'UNAVAILABLE', reason: `MALFORMED_RESPONSE: ${issuePath(checked.error)}` };
    const code = textOf(at(hit, 'HEADER', 'RESPONSETYPE', 'CODE'));
    return code === CRC_NO_HIT_CODE ? { status: 'NO_HIT' } : { status: 'HIT', report: hitReport(hit, options) };
  }
  if (isObject(response.ConsumerSearchResultResponse)) return { status: 'UNAVAILABLE', reason: 'MULTIPLE_MATCHES' };
  if (response.ErrorResponse !== undefined) {
    if (!crcErrorSchema.safeParse(response.ErrorResponse).success)
      return { status: 'UNAVAILABLE', reason: 'BUREAU_ERROR' };
    const [first] = listOf(at(response, 'ErrorResponse', 'BODY', 'ERRORLIST'));
    const code = first === undefined ? null : textOf(first.ERRORCODE);
    return { status: 'UNAVAILABLE', reason: code === null ? 'BUREAU_ERROR' : `BUREAU_ERROR: ${code}` };
  }
  return { status: 'UNAVAILABLE', reason: 'UNRECOGNISED_RESPONSE' };
};
