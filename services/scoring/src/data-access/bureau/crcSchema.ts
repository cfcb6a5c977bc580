import { z } from 'zod';

/**
 * The parts of a CRC consumer-report answer the normaliser reads, checked before it reads
 * them: a report whose lists or values have another shape is not scored as a clean file (a
 * facility list that is a string would otherwise read as "no facilities"). Fields we do not
 * read may be anything.
 */
const value = z.union([z.string(), z.number(), z.boolean()]).nullish();

/** A row of a CRC table: flat, so every field the normaliser reads must be a plain value. */
const ROW_FIELDS = [
  'ACCOUNT_STATUS',
  'ACC_OPEN_DISB_DT',
  'AMOUNT_OVERDUE',
  'AMOUNT_OVERDUE_CAL',
  'AMOUNT_WRITTEN_OFF',
  'ASSET_CLASSIFICATION',
  'ASSET_CLASSIFICATION_CAL',
  'CFTYPE',
  'CLOSED_DATE',
  'CLOSURE_DT',
  'CURRENT_BALANCE',
  'CURRENT_BALANCE_CAL',
  'DATE_REPORTED',
  'EXPECT_NXT_INSTALLMENT_AMT',
  'FACILITY_TYPE',
  'FIRST_DISBURSE_DATE',
  'INQUIRY_DATE',
  'INSTALLMENT_AMOUNT',
  'INSTITUTION_NAME',
  'LOAN_STATUS',
  'LOAN_TYPE',
  'LOAN_TYPE_VALUE',
  'MAX_NUM_DAYS_DUE',
  'NO_OF_ACCOUNTS',
  'NUM_OF_DAYS_IN_ARREARS',
  'NUM_OF_DAYS_IN_ARREARS_CAL',
  'OUSTANDING_BALANCE',
  'OUTSTANDING_BALANCE',
  'OVER_DUE_AMT_PRICIPAL',
  'REPORTED_DATE',
  'REPORTED_DT_TEXT',
  'SANCTIONED_AMOUNT',
  'SANCTIONED_AMOUNT_CAL',
  'SANCTION_AMOUNT',
  'SANCTION_DATE',
  ...Array.from({ length: 24 }, (_, i) => `MONTH${i + 1}`),
] as const;

const row = z.looseObject(
  Object.fromEntries(ROW_FIELDS.map((name) => [name, value])) as Record<(typeof ROW_FIELDS)[number], typeof value>,
);

/** CRC sends a table as a list, as a single row, or as null. */
const table = z.union([z.array(row), row]).nullish();

const body = z.looseObject({
  CreditFacilityHistory24: table,
  // Sometimes wrapped in an object of the same name.
  ClosedAccounts: z.union([z.looseObject({ ClosedAccounts: table }), table]),
  ClassificationInsType: table,
  InquiryHistoryDetails: table,
  CREDIT_SCORE_DETAILS: z
    .looseObject({
      CREDIT_SCORE_SUMMARY: z
        .looseObject({
          CREDIT_SCORE: value,
          REASON_CODE1: value,
          REASON_CODE2: value,
          REASON_CODE3: value,
          REASON_CODE4: value,
        })
        .nullish(),
    })
    .nullish(),
  CREDIT_NANO_SUMMARY: z
    .looseObject({
      SUMMARY: z.looseObject({ LAST_REPORTED_DATE: value, NO_OF_DELINQCREDITFACILITIES: value }).nullish(),
    })
    .nullish(),
  ReportDetailBVN: z
    .looseObject({
      ReportDetailBVN: z.looseObject({ BVN_NUMBER: value, CIR_NUMBER: value, REPORT_ORDER_DATE: value }).nullish(),
    })
    .nullish(),
});

const header = z.looseObject({
  RESPONSETYPE: z.looseObject({ CODE: value }).nullish(),
  REPORTHEADER: z.looseObject({ REPORTDATE: value, REPORTORDERNUMBER: value }).nullish(),
  SEARCHCRITERIA: z.looseObject({ BVN_NO: value }).nullish(),
});

/** A hit: a report (or, with RESPONSETYPE code 2, a no-hit in a hit envelope). */
export const crcHitSchema = z.looseObject({ HEADER: header.nullish(), BODY: body.nullish(), REQUESTID: value });

/** An error answer: its first error code is reported. */
export const crcErrorSchema = z
  .looseObject({
    BODY: z
      .looseObject({
        ERRORLIST: z
          .union([z.array(z.looseObject({ ERRORCODE: value })), z.looseObject({ ERRORCODE: value })])
          .nullish(),
      })
      .nullish(),
  })
  .nullish();

/** Where a value of the wrong shape was, for the reason of an UNAVAILABLE outcome. */
export const issuePath = (error: z.ZodError): string => {
  const issue = error.issues[0];
  return issue ? issue.path.map(String).join('.') || '(root)' : '(root)';
};
