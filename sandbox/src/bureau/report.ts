import { createRng } from '../personas';
import { formatAmount, formatDate, formatHeaderDate, lastMonthEnd, monthsBefore } from './format';
import { profileFor, ratingOf, type BureauProfile, type FacilityProfile } from './profiles';

const isDelinquent = (facility: FacilityProfile): boolean =>
  facility.closedMonthsAgo === undefined &&
  (facility.dpd > 0 || facility.overdue > 0 || facility.classification !== 'Performing');

const sumOf = (facilities: readonly FacilityProfile[], pick: (f: FacilityProfile) => number): number =>
  facilities.reduce((total, facility) => total + pick(facility), 0);

function groupBy<K extends string>(
  facilities: readonly FacilityProfile[],
  key: (f: FacilityProfile) => K,
): Map<K, FacilityProfile[]> {
  const groups = new Map<K, FacilityProfile[]>();
  for (const facility of facilities) groups.set(key(facility), [...(groups.get(key(facility)) ?? []), facility]);
  return groups;
}

function openFacilityRow(facility: FacilityProfile, index: number, now: Date, reported: Date, rngSeed: string) {
  const history = Object.fromEntries(
    facility.history.slice(0, 24).map((dpd, month) => [`MONTH${month + 1}`, String(dpd)]),
  );
  return {
    ACCOUNT_NUMBER: createRng(`${rngSeed}:account:${index}`).digits(10),
    ACC_OPEN_DISB_DT: formatDate(monthsBefore(now, facility.openedMonthsAgo, 15)),
    AMOUNT_OVERDUE_CAL: formatAmount(facility.overdue),
    AMOUNT_WRITTEN_OFF: formatAmount(0),
    ASSET_CLASSIFICATION_CAL: facility.classification,
    CURRENT_BALANCE_CAL: formatAmount(facility.balance),
    DATE_REPORTED: formatDate(reported),
    EXPECT_NXT_INSTALLMENT_AMT: formatAmount(facility.instalment),
    INSTITUTION_NAME: facility.institution,
    LOAN_STATUS: 'Open',
    LOAN_TYPE_VALUE: facility.product,
    NUM_OF_DAYS_IN_ARREARS_CAL: String(facility.dpd),
    SANCTIONED_AMOUNT_CAL: formatAmount(facility.principal),
    ...history,
  };
}

function closedFacilityRow(facility: FacilityProfile, now: Date) {
  return {
    INSTITUTION_NAME: facility.institution,
    FACILITY_TYPE: facility.product,
    SANCTION_AMOUNT: formatAmount(facility.principal),
    SANCTION_DATE: formatDate(monthsBefore(now, facility.openedMonthsAgo, 15)),
    CLOSED_DATE: formatDate(monthsBefore(now, facility.closedMonthsAgo ?? 0, 15)),
    ASSET_CLASSIFICATION: facility.classification,
    MAX_NUM_DAYS_DUE: String(Math.max(0, ...facility.history)),
  };
}

function facilitySummary(facilities: readonly FacilityProfile[], open: readonly FacilityProfile[], reported: Date) {
  return {
    CURRENCY: 'NGN',
    TOTAL_NO_OF_FACILITIES: String(facilities.length),
    NO_OF_OPEN_FACILITIES: String(open.length),
    NO_OF_CLOSED_FACILITIES: String(facilities.length - open.length),
    NO_OF_PERFORMING_FACILITIES: String(open.filter((f) => !isDelinquent(f)).length),
    NO_OF_DELINQUENT_FACILITIES: String(open.filter(isDelinquent).length),
    TOTAL_SANCTIONED_AMOUNT: formatAmount(sumOf(facilities, (f) => f.principal)),
    TOTAL_OUTSTANDING_BALANCE: formatAmount(sumOf(open, (f) => f.balance)),
    TOTAL_AMOUNT_OVERDUE: formatAmount(sumOf(open, (f) => f.overdue)),
    TOTAL_MONTHLY_INSTALMENT: formatAmount(sumOf(open, (f) => f.instalment)),
    MAX_NUM_DAYS_IN_ARREARS: String(Math.max(0, ...facilities.flatMap((f) => [f.dpd, ...f.history]))),
    LAST_REPORTED_DATE: formatDate(reported),
  };
}

function header(bvn: string, orderNumber: string, now: Date, code: '1' | '2') {
  return {
    REPORTHEADER: {
      MAILTO: 'support@crccreditbureau.com',
      PRODUCTNAME: 'Consumer Basic Premium Report',
      REASON: {},
      REPORTDATE: formatHeaderDate(now),
      REPORTORDERNUMBER: orderNumber,
      USERID: 'sandbox',
    },
    RESPONSETYPE:
      code === '1' ? { CODE: '1', DESCRIPTION: 'Response DataPacket' } : { CODE: '2', DESCRIPTION: 'Response NoHit' },
    SEARCHCRITERIA: {
      BRANCHCODE: null,
      BVN_NO: bvn,
      CFACCOUNTNUMBER: null,
      DATEOFBIRTH: null,
      GENDER: null,
      NAME: null,
      TELEPHONE_NO: null,
    },
  };
}

function hitBody(bvn: string, profile: BureauProfile, now: Date, orderNumber: string) {
  const reported = lastMonthEnd(now);
  const open = profile.facilities.filter((f) => f.closedMonthsAgo === undefined);
  const closed = profile.facilities.filter((f) => f.closedMonthsAgo !== undefined);
  const reasons = Object.fromEntries([0, 1, 2, 3].map((i) => [`REASON_CODE${i + 1}`, profile.reasons[i] ?? null]));
  const enquiries = profile.enquiriesMonthsAgo.map((monthsAgo, index) => ({
    FACILITY_TYPE: 'Personal Loan',
    INQUIRY_DATE: formatDate(monthsBefore(now, monthsAgo, Math.max(1, now.getUTCDate() - index - 1))),
    INSTITUTION_TYPE: index % 2 === 0 ? 'Micro Lenders' : 'Commercial Banks',
    SNO: String(index + 1),
  }));
  return {
    AddressHistory: null,
    CREDIT_NANO_SUMMARY: {
      SUMMARY: {
        HAS_CREDITFACILITIES: profile.facilities.length > 0 ? 'YES' : 'NO',
        LAST_REPORTED_DATE: formatDate(reported),
        NO_OF_DELINQCREDITFACILITIES: String(open.filter(isDelinquent).length),
      },
    },
    CREDIT_SCORE_DETAILS: {
      CREDIT_SCORE_SUMMARY: { CREDIT_RATING: ratingOf(profile.score), CREDIT_SCORE: String(profile.score), ...reasons },
    },
    CreditProfileSummaryCURR1: facilitySummary(profile.facilities, open, reported),
    ClassificationInsType: [...groupBy(open, (f) => f.institutionType)].map(([type, group]) => ({
      AMOUNT_OVERDUE: formatAmount(sumOf(group, (f) => f.overdue)),
      APPROVED_CREDIT_SANCTIONED: formatAmount(sumOf(group, (f) => f.principal)),
      CURRENCY: 'NGN',
      INSTITUTION_TYPE: type,
      LEGAL_FLAG: null,
      NO_OF_ACCOUNTS: String(group.length),
      OUSTANDING_BALANCE: formatAmount(sumOf(group, (f) => f.balance)),
    })),
    ClassificationProdType: [...groupBy(open, (f) => f.product)].map(([product, group]) => ({
      AMOUNT_OVERDUE: formatAmount(sumOf(group, (f) => f.overdue)),
      CURRENCY: 'NGN',
      NO_ACC_LAST_SIX_MON: String(group.filter((f) => f.openedMonthsAgo <= 6).length),
      NO_OF_ACCOUNTS: String(group.length),
      PRODUCT_TYPE: product,
      SANCTIONED_AMOUNT: formatAmount(sumOf(group, (f) => f.principal)),
      TOTAL_OUTSTANDING_BALANCE: formatAmount(sumOf(group, (f) => f.balance)),
    })),
    SummaryOfPerformance: [...groupBy(profile.facilities, (f) => f.institution)].map(([institution, group]) => {
      const active = group.filter((f) => f.closedMonthsAgo === undefined);
      return {
        INSTITUTION_NAME: institution,
        FACILITIES_COUNT: String(group.length),
        PERFORMING_FACILITY: String(active.filter((f) => !isDelinquent(f)).length),
        NONPERFORMING_FACILITY: String(active.filter(isDelinquent).length),
        APPROVED_AMOUNT: formatAmount(sumOf(group, (f) => f.principal)),
        ACCOUNT_BALANCE: formatAmount(sumOf(active, (f) => f.balance)),
        OVERDUE_AMOUNT: formatAmount(sumOf(active, (f) => f.overdue)),
        DISHONORED_CHEQUES_COUNT: '0',
      };
    }),
    CreditFacilityHistory24: open.map((facility, index) => openFacilityRow(facility, index, now, reported, bvn)),
    ClosedAccounts: {
      ClosedAccounts: closed.length > 0 ? closed.map((facility) => closedFacilityRow(facility, now)) : null,
    },
    InquiryHistoryDetails: enquiries,
    Inquiry_Product: [
      {
        BANK: String(enquiries.filter((e) => e.INSTITUTION_TYPE === 'Commercial Banks').length),
        MICRO: String(enquiries.filter((e) => e.INSTITUTION_TYPE === 'Micro Lenders').length),
        MORTGAGE: '0',
        NBFC: '0',
        OTHER: '0',
        PRODUCT_TYPE: 'Total',
        TOTAL: String(enquiries.length),
      },
    ],
    ConsCommDetails: {
      ConsCommDetails_ID: [{ EXPIRY_DATE: null, IDENTIFIER_NUMBER: bvn, ID_TYPE: 'Bank Verification Number' }],
      ConsCommDetails_Subject: { NAME: profile.subjectName, NATIONALITY: 'Nigeria' },
    },
    ReportDetailBVN: {
      ReportDetailBVN: {
        BVN_NUMBER: bvn,
        CIR_NUMBER: orderNumber,
        INSTITUTION_NAME: 'CRC CREDIT BUREAU LIMITED',
        NAME: profile.subjectName,
        REPORT_ORDER_DATE: formatDate(now),
        SEARCH_CONFIDENCE_SCORE: '100%',
      },
    },
  };
}

const orderNumberFor = (bvn: string, now: Date): string =>
  `W-${createRng(`order:${bvn}`).digits(10)}/${now.getUTCFullYear()}`;

/** `ConsumerHitResponse` for a BVN with a file. Deterministic for a BVN and a report date. */
export function consumerHitResponse(bvn: string, now: Date) {
  const orderNumber = orderNumberFor(bvn, now);
  return {
    ConsumerHitResponse: {
      BODY: hitBody(bvn, profileFor(bvn), now, orderNumber),
      HEADER: header(bvn, orderNumber, now, '1'),
      REQUESTID: '1',
    },
  };
}

/** `ConsumerNoHitResponse` (response type code 2): the bureau holds nothing on the BVN. */
export function consumerNoHitResponse(bvn: string, now: Date) {
  return {
    ConsumerNoHitResponse: {
      BODY: {
        NOHIT: {
          DATAPACKET: {
            ConsDisclaimer: { GetDisclaimerContent: { Item1: '1' } },
            NoHit_CONSUMER_PROFILE: {},
            NoHit_SUBJECT_DETAILS: { SUBJECT_DETAILS: {} },
          },
        },
      },
      HEADER: header(bvn, orderNumberFor(bvn, now), now, '2'),
      REQUESTID: '1',
    },
  };
}

/** The bureau's error answer. */
export function errorResponse(code: string, message: string) {
  return {
    ErrorResponse: {
      BODY: { ERRORLIST: [{ ERRORCODE: code, ERRORDESCRIPTION: message }] },
      HEADER: { RESPONSETYPE: { CODE: '0', DESCRIPTION: 'Response Error' } },
      REQUESTID: '1',
    },
  };
}
