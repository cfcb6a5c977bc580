import {
  CLEAN_BVN,
  DELINQUENT_BVN,
  crcCleanHit,
  crcDelinquentHit,
  crcError,
  crcMultipleMatches,
  crcNoHit,
  crcSummaryOnlyHit,
} from './__tests__/crc';
import { classifyFacility, crcBandOf, normaliseCrcResponse, parseCrcAmount, parseCrcDate } from './normalise';
import type { NormalisedReport } from '../../domain/bureauReport';

const PULLED_AT = new Date('2026-11-02T10:15:00.000Z');

const reportOf = (json: unknown, options = { pulledAt: PULLED_AT }): NormalisedReport => {
  const outcome = normaliseCrcResponse(json, options);
  if (outcome.status !== 'HIT') throw new Error(`expected a hit, got ${outcome.status}`);
  return outcome.report;
};

describe('parseCrcAmount', () => {
  it.each([
    ['1,260,995', 1_260_995],
    ['45,000.50', 45_000.5],
    ['0', 0],
    ['', 0],
    [null, 0],
    ['N/A', 0],
    [722, 722],
    ['NGN 12,000', 12_000],
  ])('when CRC sends %p, then it reads %p Naira', (input, expected) => {
    expect(parseCrcAmount(input)).toBe(expected);
  });
});

describe('parseCrcDate', () => {
  it.each([
    ['20-May-2023', '2023-05-20'],
    ['20/May/2023', '2023-05-20'],
    ['02-Nov-2026', '2026-11-02'],
    ['5 September 2024', '2024-09-05'],
    ['2025-06-30T00:00:00+01:00', '2025-06-30'],
    ['20/05/2023', '2023-05-20'],
    ['31-Feb-2023', null],
    ['yesterday', null],
    [null, null],
  ])('when CRC sends %p, then it reads %p', (input, expected) => {
    expect(parseCrcDate(input)).toBe(expected);
  });
});

describe('crcBandOf', () => {
  it.each([
    [850, 'EXCEPTIONAL'],
    [800, 'EXCEPTIONAL'],
    [799, 'VERY_GOOD'],
    [740, 'VERY_GOOD'],
    [739, 'GOOD'],
    [670, 'GOOD'],
    [669, 'FAIR'],
    [580, 'FAIR'],
    [579, 'POOR'],
    [300, 'POOR'],
  ])('when the score is %p, then the band is %p', (score, band) => {
    expect(crcBandOf(score)).toBe(band);
  });
});

describe('classifyFacility', () => {
  it.each([
    ['Performing', 0, 'PERFORMING'],
    ['Non-Performing', 0, 'SUBSTANDARD'],
    ['Pass and Watch', 40, 'WATCHLIST'],
    ['Substandard', 95, 'SUBSTANDARD'],
    ['DOUBTFUL', 200, 'DOUBTFUL'],
    ['Lost', 400, 'LOST'],
    [null, 0, 'PERFORMING'],
    [null, 45, 'WATCHLIST'],
    [null, 120, 'SUBSTANDARD'],
    [null, 200, 'DOUBTFUL'],
    [null, 400, 'LOST'],
  ])('when the label is %p with %p days past due, then it is %p', (label, dpd, expected) => {
    expect(classifyFacility(label, dpd)).toBe(expected);
  });
});

describe('normaliseCrcResponse', () => {
  it('when the report is a clean hit, then score, totals and facilities are normalised in kobo', () => {
    const report = reportOf(crcCleanHit());

    expect(report).toMatchObject({
      bvn: CLEAN_BVN,
      bureau: 'CRC',
      status: 'HIT',
      bureau_ref: 'W-0000000001/2026',
      pulled_at: '2026-11-02T10:15:00.000Z',
      score: {
        value: 762,
        min: 300,
        max: 850,
        band: 'VERY_GOOD',
        reasons: ['Length of time accounts have been established is short.', 'Number of recent inquiries.'],
      },
      summary: {
        facilities_total: 3,
        active: 2,
        closed: 1,
        performing: 2,
        delinquent: 0,
        written_off: 0,
        total_outstanding_kobo: 42_000_000,
        total_overdue_kobo: 0,
        monthly_instalment_kobo: 2_500_000,
        max_days_past_due: 0,
        last_reported: '2026-09-30',
      },
      enquiries: { last_3m: 1, last_12m: 2, last_36m: 3 },
    });
    expect(report.facilities[0]).toEqual({
      institution: 'GUARANTY TRUST BANK',
      product: 'Personal Loan',
      opened: '2025-05-20',
      closed: null,
      principal_kobo: 100_000_000,
      balance_kobo: 40_000_000,
      overdue_kobo: 0,
      instalment_kobo: 2_500_000,
      classification: 'PERFORMING',
      dpd: 0,
      max_dpd: 0,
      written_off: false,
    });
    expect(report.facilities[2]).toMatchObject({
      closed: '2025-04-14',
      balance_kobo: 0,
      principal_kobo: 5_000_000,
    });
  });

  it('when the report shows arrears, then overdue, delinquent facilities and the worst DPD are counted', () => {
    const report = reportOf(crcDelinquentHit());

    expect(report.bvn).toBe(DELINQUENT_BVN);
    expect(report.score).toMatchObject({ value: 521, band: 'POOR' });
    expect(report.summary).toMatchObject({
      facilities_total: 3,
      active: 3,
      performing: 1,
      delinquent: 2,
      written_off: 0,
      total_outstanding_kobo: 40_230_000,
      total_overdue_kobo: 18_750_000,
      monthly_instalment_kobo: 9_750_000,
      max_days_past_due: 96,
    });
    expect(report.facilities.map((facility) => facility.classification)).toEqual([
      'SUBSTANDARD',
      'WATCHLIST',
      'PERFORMING',
    ]);
    expect(report.enquiries).toEqual({ last_3m: 3, last_12m: 5, last_36m: 5 });
  });

  it('when the report lists only totals and no score, then totals come from the institution-type summary', () => {
    const report = reportOf(crcSummaryOnlyHit(), { pulledAt: new Date('2023-05-20T08:00:00.000Z') });

    expect(report.score).toBeNull();
    expect(report.facilities).toEqual([]);
    expect(report.summary).toMatchObject({
      facilities_total: 4,
      delinquent: 1,
      performing: 3,
      total_outstanding_kobo: 136_099_500,
      total_overdue_kobo: 1_250_050,
      last_reported: '2023-05-20',
    });
    expect(report.bvn).toBe(CLEAN_BVN);
  });

  it('when no pull time is given, then the report date stands in for it', () => {
    const outcome = normaliseCrcResponse(crcSummaryOnlyHit());

    expect(outcome.status === 'HIT' && outcome.report.pulled_at).toBe('2023-05-20T00:00:00.000Z');
  });

  it('when the response arrives as text, then it is parsed first', () => {
    expect(normaliseCrcResponse(JSON.stringify(crcCleanHit()), { pulledAt: PULLED_AT }).status).toBe('HIT');
  });

  it('when CRC answers ConsumerNoHitResponse, then the outcome is NO_HIT', () => {
    expect(normaliseCrcResponse(crcNoHit())).toEqual({ status: 'NO_HIT' });
  });

  it('when a hit envelope carries response type 2, then the outcome is NO_HIT', () => {
    const envelope = crcCleanHit();
    envelope.ConsumerHitResponse.HEADER.RESPONSETYPE.CODE = '2';

    expect(normaliseCrcResponse(envelope)).toEqual({ status: 'NO_HIT' });
  });

  it.each([
    ['an error response', 'BUREAU_ERROR: E001', crcError()],
    ['an error response without a code', 'BUREAU_ERROR', { ErrorResponse: {} }],
    ['several candidate files', 'MULTIPLE_MATCHES', crcMultipleMatches()],
    ['an unknown object', 'UNRECOGNISED_RESPONSE', { hello: 'world' }],
    ['text that is not JSON', 'UNREADABLE_RESPONSE', '<html>502 Bad Gateway</html>'],
    ['null', 'UNREADABLE_RESPONSE', null],
  ])('when CRC answers %s, then the outcome is UNAVAILABLE with reason %s', (_, reason, json) => {
    expect(normaliseCrcResponse(json)).toEqual({ status: 'UNAVAILABLE', reason });
  });
});
