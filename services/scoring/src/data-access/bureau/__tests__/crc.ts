/**
 * CRC consumer-report responses in the shapes CRC documents, for the sandbox BVNs:
 * 22200000001 clean (score ~760), 22200000002 delinquent (~520, overdue, 90+ days past due),
 * 22200000003 no record. Amounts are strings with thousands separators, dates `20-May-2023`.
 */

export const CLEAN_BVN = '22200000001';
export const DELINQUENT_BVN = '22200000002';
export const NO_RECORD_BVN = '22200000003';

const header = (bvn: string, orderNumber: string) => ({
  REPORTHEADER: {
    MAILTO: 'support@crccreditbureau.com',
    PRODUCTNAME: 'Consumer Basic Premium Report',
    REASON: {},
    REPORTDATE: '02/Nov/2026',
    REPORTORDERNUMBER: orderNumber,
    USERID: 'sandbox',
  },
  RESPONSETYPE: { CODE: '1', DESCRIPTION: 'Response DataPacket' },
  SEARCHCRITERIA: { BRANCHCODE: null, BVN_NO: bvn, CFACCOUNTNUMBER: null, NAME: null, TELEPHONE_NO: null },
});

const paymentHistory = (months: string[]): Record<string, string> =>
  Object.fromEntries(months.map((value, index) => [`MONTH${index + 1}`, value]));

export const crcCleanHit = (bvn: string = CLEAN_BVN) => ({
  ConsumerHitResponse: {
    BODY: {
      AddressHistory: null,
      CREDIT_NANO_SUMMARY: {
        SUMMARY: {
          HAS_CREDITFACILITIES: 'YES',
          LAST_REPORTED_DATE: '30-Sep-2026',
          NO_OF_DELINQCREDITFACILITIES: '0',
        },
      },
      CREDIT_SCORE_DETAILS: {
        CREDIT_SCORE_SUMMARY: {
          CREDIT_RATING: 'VERY GOOD',
          CREDIT_SCORE: '762',
          REASON_CODE1: 'Length of time accounts have been established is short.',
          REASON_CODE2: 'Number of recent inquiries.',
          REASON_CODE3: null,
          REASON_CODE4: '',
        },
      },
      ClassificationInsType: [
        {
          AMOUNT_OVERDUE: '0',
          APPROVED_CREDIT_SANCTIONED: '1,500,000',
          CURRENCY: 'NGN',
          INSTITUTION_TYPE: 'Commercial Banks',
          LEGAL_FLAG: null,
          NO_OF_ACCOUNTS: '2',
          OUSTANDING_BALANCE: '420,000.00',
        },
      ],
      ClosedAccounts: {
        ClosedAccounts: [
          {
            INSTITUTION_NAME: 'FAIRMONEY MICROFINANCE BANK',
            FACILITY_TYPE: 'Personal Loan',
            SANCTION_AMOUNT: '50,000',
            SANCTION_DATE: '14-Jan-2025',
            CLOSED_DATE: '14-Apr-2025',
            ASSET_CLASSIFICATION: 'Performing',
            MAX_NUM_DAYS_DUE: '0',
          },
        ],
      },
      CreditFacilityHistory24: [
        {
          ACCOUNT_NUMBER: '0123456785',
          ACC_OPEN_DISB_DT: '20-May-2025',
          AMOUNT_OVERDUE_CAL: '0',
          AMOUNT_WRITTEN_OFF: '0',
          ASSET_CLASSIFICATION_CAL: 'Performing',
          CURRENT_BALANCE_CAL: '400,000.00',
          DATE_REPORTED: '30-Sep-2026',
          EXPECT_NXT_INSTALLMENT_AMT: '25,000.00',
          INSTITUTION_NAME: 'GUARANTY TRUST BANK',
          LOAN_STATUS: 'Open',
          LOAN_TYPE_VALUE: 'Personal Loan',
          NUM_OF_DAYS_IN_ARREARS_CAL: '0',
          SANCTIONED_AMOUNT_CAL: '1,000,000.00',
          ...paymentHistory(Array<string>(17).fill('0')),
        },
        {
          ACCOUNT_NUMBER: '5399********1234',
          ACC_OPEN_DISB_DT: '03-Feb-2024',
          AMOUNT_OVERDUE_CAL: '0',
          ASSET_CLASSIFICATION_CAL: 'Performing',
          CURRENT_BALANCE_CAL: '20,000',
          DATE_REPORTED: '31-Aug-2026',
          EXPECT_NXT_INSTALLMENT_AMT: '0',
          INSTITUTION_NAME: 'ACCESS BANK',
          LOAN_STATUS: 'Open',
          LOAN_TYPE_VALUE: 'Credit Card',
          NUM_OF_DAYS_IN_ARREARS_CAL: '0',
          SANCTIONED_AMOUNT_CAL: '500,000',
          ...paymentHistory(['0', '0', 'ND', '0', '0', '0']),
        },
      ],
      InquiryHistoryDetails: [
        {
          FACILITY_TYPE: 'Personal Loan',
          INQUIRY_DATE: '19-Oct-2026',
          INSTITUTION_TYPE: 'Micro Lenders',
          SNO: '1',
        },
        {
          FACILITY_TYPE: 'Personal Loan',
          INQUIRY_DATE: '23-Mar-2026',
          INSTITUTION_TYPE: 'Commercial Banks',
          SNO: '2',
        },
        {
          FACILITY_TYPE: 'Overdraft',
          INQUIRY_DATE: '16-Jul-2024',
          INSTITUTION_TYPE: 'Commercial Banks',
          SNO: '3',
        },
      ],
      ReportDetailBVN: {
        ReportDetailBVN: {
          BVN_NUMBER: bvn,
          CIR_NUMBER: 'W-0000000001/2026',
          INSTITUTION_NAME: 'CRC CREDIT BUREAU LIMITED',
          REPORT_ORDER_DATE: '02-Nov-2026',
          SEARCH_CONFIDENCE_SCORE: '100%',
        },
      },
    },
    HEADER: header(bvn, 'W-0000000001/2026'),
    REQUESTID: '1',
  },
});

export const crcDelinquentHit = (bvn: string = DELINQUENT_BVN) => ({
  ConsumerHitResponse: {
    BODY: {
      CREDIT_NANO_SUMMARY: {
        SUMMARY: {
          HAS_CREDITFACILITIES: 'YES',
          LAST_REPORTED_DATE: '31-Oct-2026',
          NO_OF_DELINQCREDITFACILITIES: '2',
        },
      },
      CREDIT_SCORE_DETAILS: {
        CREDIT_SCORE_SUMMARY: {
          CREDIT_RATING: 'POOR',
          CREDIT_SCORE: 521,
          REASON_CODE1: 'Serious delinquency.',
          REASON_CODE2: 'Proportion of balances to credit limits is too high.',
          REASON_CODE3: 'Number of accounts with delinquency.',
          REASON_CODE4: 'Too many inquiries in the last 12 months.',
        },
      },
      ClassificationInsType: [
        {
          AMOUNT_OVERDUE: '187,500.00',
          APPROVED_CREDIT_SANCTIONED: '650,000',
          CURRENCY: 'NGN',
          INSTITUTION_TYPE: 'Micro Lenders',
          NO_OF_ACCOUNTS: '3',
          OUSTANDING_BALANCE: '402,300.00',
        },
      ],
      ClosedAccounts: { ClosedAccounts: null },
      CreditFacilityHistory24: [
        {
          ACC_OPEN_DISB_DT: '11-Mar-2026',
          AMOUNT_OVERDUE_CAL: '142,500.00',
          ASSET_CLASSIFICATION_CAL: 'Substandard',
          CURRENT_BALANCE_CAL: '262,300.00',
          DATE_REPORTED: '31-Oct-2026',
          EXPECT_NXT_INSTALLMENT_AMT: '47,500.00',
          INSTITUTION_NAME: 'RENMONEY MFB',
          LOAN_STATUS: 'Open',
          LOAN_TYPE_VALUE: 'Personal Loan',
          NUM_OF_DAYS_IN_ARREARS_CAL: '96',
          SANCTIONED_AMOUNT_CAL: '400,000.00',
          ...paymentHistory(['96', '66', '35', '0', '0', '0', '0', '0']),
        },
        {
          ACC_OPEN_DISB_DT: '02-Jun-2026',
          AMOUNT_OVERDUE_CAL: '45,000',
          ASSET_CLASSIFICATION_CAL: 'Pass and Watch',
          CURRENT_BALANCE_CAL: '90,000',
          DATE_REPORTED: '31-Oct-2026',
          EXPECT_NXT_INSTALLMENT_AMT: '30,000',
          INSTITUTION_NAME: 'CARBON',
          LOAN_STATUS: 'Open',
          LOAN_TYPE_VALUE: 'Personal Loan',
          NUM_OF_DAYS_IN_ARREARS_CAL: '41',
          SANCTIONED_AMOUNT_CAL: '150,000',
          ...paymentHistory(['41', '11', '0', '0', '0']),
        },
        {
          ACC_OPEN_DISB_DT: '15-Aug-2026',
          AMOUNT_OVERDUE_CAL: '0',
          ASSET_CLASSIFICATION_CAL: 'Performing',
          CURRENT_BALANCE_CAL: '50,000',
          DATE_REPORTED: '31-Oct-2026',
          EXPECT_NXT_INSTALLMENT_AMT: '20,000',
          INSTITUTION_NAME: 'FAIRMONEY MICROFINANCE BANK',
          LOAN_STATUS: 'Open',
          LOAN_TYPE_VALUE: 'Personal Loan',
          NUM_OF_DAYS_IN_ARREARS_CAL: '0',
          SANCTIONED_AMOUNT_CAL: '100,000',
          ...paymentHistory(['0', '0', '0']),
        },
      ],
      InquiryHistoryDetails: [
        {
          FACILITY_TYPE: 'Personal Loan',
          INQUIRY_DATE: '28-Oct-2026',
          INSTITUTION_TYPE: 'Micro Lenders',
          SNO: '1',
        },
        {
          FACILITY_TYPE: 'Personal Loan',
          INQUIRY_DATE: '20-Oct-2026',
          INSTITUTION_TYPE: 'Micro Lenders',
          SNO: '2',
        },
        {
          FACILITY_TYPE: 'Personal Loan',
          INQUIRY_DATE: '14-Aug-2026',
          INSTITUTION_TYPE: 'Micro Lenders',
          SNO: '3',
        },
        {
          FACILITY_TYPE: 'Personal Loan',
          INQUIRY_DATE: '01-Jun-2026',
          INSTITUTION_TYPE: 'Micro Lenders',
          SNO: '4',
        },
        {
          FACILITY_TYPE: 'Personal Loan',
          INQUIRY_DATE: '10-Mar-2026',
          INSTITUTION_TYPE: 'Micro Lenders',
          SNO: '5',
        },
      ],
      ReportDetailBVN: {
        ReportDetailBVN: {
          BVN_NUMBER: bvn,
          CIR_NUMBER: 'W-0000000002/2026',
          REPORT_ORDER_DATE: '02-Nov-2026',
        },
      },
    },
    HEADER: header(bvn, 'W-0000000002/2026'),
    REQUESTID: '1',
  },
});

/** Hit without individual facility rows: only the totals by institution type, and no score. */
export const crcSummaryOnlyHit = (bvn: string = CLEAN_BVN) => ({
  ConsumerHitResponse: {
    BODY: {
      CREDIT_NANO_SUMMARY: {
        SUMMARY: {
          HAS_CREDITFACILITIES: 'YES',
          LAST_REPORTED_DATE: '20-May-2023',
          NO_OF_DELINQCREDITFACILITIES: '1',
        },
      },
      CREDIT_SCORE_DETAILS: null,
      ClassificationInsType: [
        {
          AMOUNT_OVERDUE: '0',
          APPROVED_CREDIT_SANCTIONED: '11,426,551',
          INSTITUTION_TYPE: 'Micro Lenders',
          NO_OF_ACCOUNTS: '3',
          OUSTANDING_BALANCE: '1,260,995',
        },
        {
          AMOUNT_OVERDUE: '12,500.50',
          APPROVED_CREDIT_SANCTIONED: '200,000',
          INSTITUTION_TYPE: 'Commercial Banks',
          NO_OF_ACCOUNTS: '1',
          OUSTANDING_BALANCE: '100,000',
        },
      ],
      CreditFacilityHistory24: null,
      InquiryHistoryDetails: [
        {
          FACILITY_TYPE: 'Overdraft',
          INQUIRY_DATE: '19-May-2023',
          INSTITUTION_TYPE: 'Micro Lenders',
          SNO: '1',
        },
      ],
      ReportDetailBVN: {
        ReportDetailBVN: {
          BVN_NUMBER: Number(bvn),
          CIR_NUMBER: 'W-0076898061/2023',
          REPORT_ORDER_DATE: '20-May-2023',
        },
      },
    },
    HEADER: {
      REPORTHEADER: { REPORTDATE: '20/May/2023', REPORTORDERNUMBER: 'W-0076898061/2023' },
      RESPONSETYPE: { CODE: '1', DESCRIPTION: 'Response DataPacket' },
    },
    REQUESTID: '1',
  },
});

export const crcNoHit = () => ({
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
    HEADER: { RESPONSETYPE: { CODE: '2', DESCRIPTION: 'Response NoHit' } },
    REQUESTID: '1',
  },
});

export const crcMultipleMatches = () => ({
  ConsumerSearchResultResponse: {
    BODY: { SEARCHRESULTLIST: [{ BUREAUID: '1112019002271559' }, { BUREAUID: '1112019002271560' }] },
    HEADER: { RESPONSETYPE: { CODE: '3', DESCRIPTION: 'Response SearchResult' } },
    REFERENCENO: '123',
    REQUESTID: '1',
  },
});

export const crcError = () => ({ ErrorResponse: { BODY: { ERRORLIST: [{ ERRORCODE: 'E001' }] } } });
