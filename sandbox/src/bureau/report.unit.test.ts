import { formatAmount, formatDate, formatHeaderDate } from './format';
import { scenarioFor, TEST_BVNS } from './profiles';
import { consumerHitResponse, consumerNoHitResponse } from './report';

const NOW = new Date('2026-11-21T09:00:00.000Z');

const amount = (text: string): number => Number(text.replace(/,/g, ''));

describe('bureau formats', () => {
  it('when amounts are written, then they carry thousands separators and two decimals', () => {
    expect(formatAmount(1_260_995)).toBe('1,260,995.00');
    expect(formatAmount(45_000.5)).toBe('45,000.50');
    expect(formatAmount(0)).toBe('0.00');
  });

  it('when dates are written, then they read like 20-May-2023 (and 20/May/2023 in the header)', () => {
    expect(formatDate(new Date('2023-05-20T00:00:00Z'))).toBe('20-May-2023');
    expect(formatHeaderDate(new Date('2023-05-20T00:00:00Z'))).toBe('20/May/2023');
  });
});

describe('consumer reports', () => {
  it('when the clean test BVN is looked up, then the score is about 760 with performing facilities only', () => {
    const { BODY, HEADER } = consumerHitResponse(TEST_BVNS.clean, NOW).ConsumerHitResponse;
    expect(HEADER.RESPONSETYPE.CODE).toBe('1');
    expect(HEADER.SEARCHCRITERIA.BVN_NO).toBe(TEST_BVNS.clean);
    expect(BODY.CREDIT_SCORE_DETAILS.CREDIT_SCORE_SUMMARY).toMatchObject({
      CREDIT_SCORE: '762',
      CREDIT_RATING: 'VERY GOOD',
      REASON_CODE1: expect.any(String),
    });
    expect(BODY.CreditProfileSummaryCURR1).toMatchObject({
      NO_OF_DELINQUENT_FACILITIES: '0',
      TOTAL_AMOUNT_OVERDUE: '0.00',
      MAX_NUM_DAYS_IN_ARREARS: '0',
    });
    expect(BODY.CreditFacilityHistory24.every((row) => row.ASSET_CLASSIFICATION_CAL === 'Performing')).toBe(true);
    expect(BODY.ClosedAccounts.ClosedAccounts).toHaveLength(1);
  });

  it('when the delinquent test BVN is looked up, then the score is about 520 with overdue facilities 90+ days past due', () => {
    const { BODY } = consumerHitResponse(TEST_BVNS.delinquent, NOW).ConsumerHitResponse;
    expect(Number(BODY.CREDIT_SCORE_DETAILS.CREDIT_SCORE_SUMMARY.CREDIT_SCORE)).toBeLessThan(540);
    expect(BODY.CREDIT_SCORE_DETAILS.CREDIT_SCORE_SUMMARY.CREDIT_RATING).toBe('POOR');
    const open = BODY.CreditFacilityHistory24;
    expect(Math.max(...open.map((row) => Number(row.NUM_OF_DAYS_IN_ARREARS_CAL)))).toBeGreaterThanOrEqual(90);
    expect(open.filter((row) => amount(row.AMOUNT_OVERDUE_CAL) > 0).length).toBeGreaterThanOrEqual(2);
    expect(BODY.CreditProfileSummaryCURR1.NO_OF_DELINQUENT_FACILITIES).toBe('2');
    expect(amount(BODY.CreditProfileSummaryCURR1.TOTAL_AMOUNT_OVERDUE)).toBe(187_500);
    expect(BODY.InquiryHistoryDetails.length).toBeGreaterThanOrEqual(5);
  });

  it('when a report is built, then its summaries add up to the facility rows', () => {
    const { BODY } = consumerHitResponse(TEST_BVNS.delinquent, NOW).ConsumerHitResponse;
    const open = BODY.CreditFacilityHistory24;
    const outstanding = open.reduce((sum, row) => sum + amount(row.CURRENT_BALANCE_CAL), 0);
    expect(amount(BODY.CreditProfileSummaryCURR1.TOTAL_OUTSTANDING_BALANCE)).toBe(outstanding);
    const byType = BODY.ClassificationInsType.reduce((sum, row) => sum + amount(row.OUSTANDING_BALANCE), 0);
    expect(byType).toBe(outstanding);
    expect(BODY.SummaryOfPerformance.reduce((sum, row) => sum + Number(row.FACILITIES_COUNT), 0)).toBe(
      open.length + (BODY.ClosedAccounts.ClosedAccounts?.length ?? 0),
    );
  });

  it('when any other BVN is looked up, then a clean-ish file is derived from it, the same every time', () => {
    const first = consumerHitResponse('12345678901', NOW);
    expect(consumerHitResponse('12345678901', NOW)).toEqual(first);
    expect(consumerHitResponse('12345678902', NOW)).not.toEqual(first);
    for (let i = 0; i < 50; i += 1) {
      const { BODY } = consumerHitResponse(`3${String(i).padStart(10, '0')}`, NOW).ConsumerHitResponse;
      expect(Number(BODY.CREDIT_SCORE_DETAILS.CREDIT_SCORE_SUMMARY.CREDIT_SCORE)).toBeGreaterThanOrEqual(640);
      expect(Number(BODY.CreditProfileSummaryCURR1.MAX_NUM_DAYS_IN_ARREARS)).toBeLessThan(30);
    }
  });

  it('when the no-record BVN is looked up, then the answer is a no-hit with response type 2', () => {
    expect(scenarioFor(TEST_BVNS.noRecord)).toBe('no_record');
    expect(consumerNoHitResponse(TEST_BVNS.noRecord, NOW).ConsumerNoHitResponse.HEADER.RESPONSETYPE).toEqual({
      CODE: '2',
      DESCRIPTION: 'Response NoHit',
    });
  });

  it('when the timeout and error BVNs are classified, then they get their documented behaviour', () => {
    expect(scenarioFor(TEST_BVNS.timeout)).toBe('timeout');
    expect(scenarioFor(TEST_BVNS.error)).toBe('error');
    expect(scenarioFor('22200000009')).toBe('hit');
  });
});
