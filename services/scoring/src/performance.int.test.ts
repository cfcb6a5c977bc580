import { randomUUID } from 'node:crypto';
import { PerformanceReportView, addDays, dayIn, DEFAULT_TIME_ZONE } from '@loan/contracts';
import { startScoring, suiteNamespace, type Running } from '@testing/stack';
import { createOutcomeRepository } from './data-access/outcomeRepository';

/**
 * The performance figures against the real database, on a book whose answers are worked out by
 * hand below: decisions stored as scoring stores them, outcomes taken through the batch route the
 * bulk upload uses (so the counts are kept by the service's own path), decisions counted by score
 * bin by the repository the analysis handler uses, and the report read from the internal API.
 */
const ns = suiteNamespace();
const TOKEN = 'a-performance-test-internal-token';
let scoring: Running;
const lender = `lender-${randomUUID()}`;
const today = dayIn(new Date(), DEFAULT_TIME_ZONE);

beforeAll(async () => {
  scoring = await startScoring(ns, {
    BUREAU_BASE_URL: 'http://127.0.0.1:9',
    PROFILE_WAIT: '1s',
    INTERNAL_TOKEN: TOKEN,
  });
});

afterAll(async () => {
  await scoring?.stop();
});

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${scoring.url}/internal${path}`, {
    method,
    headers: {
      'x-internal-token': TOKEN,
      'x-client-id': lender,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** A decided analysis as scoring stores it, and the grants its decision and the accepted offer leave. */
async function decided(score: number, band: 'LOW_RISK' | 'HIGH_RISK'): Promise<string> {
  const db = scoring.runtime.db;
  const applicationId = randomUUID();
  const analysisId = randomUUID();
  const yesterday = new Date(Date.now() - 86_400_000);
  await db.collection('analyses').insertOne({
    _id: analysisId as never,
    applicationId,
    clientId: lender,
    applicantId: randomUUID(),
    status: 'DECIDED',
    decision: {
      decision: 'APPROVED',
      score,
      score_band: band,
      approval_details: { approved_amount: 200_000, approved_tenor: 6, approved_interest: 5, monthly_payment: 40_000 },
    },
    decidedAt: yesterday,
    policyVersion: 1,
    challenger: null,
    outbox: [],
    outboxPending: false,
  });
  await db.collection('grants').insertOne({
    _id: applicationId as never,
    analysisId,
    review: null,
    offer: { response: 'ACCEPTED', answeredAt: yesterday.toISOString() },
  });
  return applicationId;
}

describe('performance figures', () => {
  it('when a book of 250 loans is reported through the service, then Gini, AUC, KS, calibration and PSI are the ones worked out by hand', async () => {
    /*
     * The book: 100 loans at 60 points (HIGH_RISK), 40 of them 95 days past due; 150 at 90 points
     * (LOW_RISK), 15 of them 95 days past due. Bad: ever 90+ days past due (the default).
     *
     * AUC: pairs of a good and a bad loan, 195 x 55. The 135 good at 90 beat the 40 bad at 60;
     * the 60 good at 60 tie the 40 bad at 60 (half each); the 135 good at 90 tie the 15 bad at 90.
     * (135 x 40 + 0.5 x 60 x 40 + 0.5 x 135 x 15) / (195 x 55) = (5400 + 1200 + 1012.5) / 10725
     * = 0.70979; Gini = 2 x 0.70979 - 1 = 0.41958.
     * KS: at 60 points, 40/55 of the bad loans and 60/195 of the good ones: 0.72727 - 0.30769 =
     * 0.41958, the widest gap (at 90 both shares are 1).
     * Calibration: expected 1 / (1 + 9 x 2^((s - 70) / 10)): at 90, 1/37 = 0.0270; at 60,
     * 1/5.5 = 0.1818. Observed: 15/150 = 0.1 and 40/100 = 0.4.
     */
    const rows: unknown[] = [];
    const add = async (score: number, band: 'LOW_RISK' | 'HIGH_RISK', bad: boolean, n: number) => {
      const applicationId = await decided(score, band);
      rows.push({ applicationId, idempotencyKey: `d-${n}`, type: 'DISBURSED', amount: 200_000, tenor: 6, date: today });
      if (bad)
        rows.push({
          applicationId,
          idempotencyKey: `m-${n}`,
          type: 'INSTALMENT_MISSED',
          number: 1,
          daysPastDue: 95,
          date: today,
        });
    };
    for (let i = 0; i < 100; i++) await add(60, 'HIGH_RISK', i < 40, i);
    for (let i = 0; i < 150; i++) await add(90, 'LOW_RISK', i < 15, 100 + i);
    for (let i = 0; i < rows.length; i += 200) {
      const batch = await call('POST', '/outcomes/batch', { rows: rows.slice(i, i + 200) });
      expect(batch.status).toBe(200);
      expect(batch.body.results.filter((r: { status: number }) => r.status !== 201)).toEqual([]);
    }

    /*
     * The drift: 100 decisions a day 40 days ago (the baseline) and 100 today, by total score bin:
     * baseline 50 / 30 / 20 in bins 5, 6 and 7 (50-59, 60-69, 70-79 points), today 30 / 30 / 40.
     * PSI = (0.3 - 0.5) ln(0.3 / 0.5) + 0 + (0.4 - 0.2) ln(0.4 / 0.2) = 0.10217 + 0.13863 = 0.24079:
     * a shift to watch. Every part of the score sits in the same bin throughout: its PSI is 0.
     */
    // The repository the analysis handler counts decisions with, on the service's own models.
    const model = (name: string) => scoring.runtime.db.model(name);
    const repo = createOutcomeRepository(
      {
        scoreDays: model('ScoreDay'),
        loans: model('Loan'),
        grants: model('Grant'),
        partitions: model('PerformancePartition'),
        settings: model('PerformanceSettings'),
      } as never,
      model('Analysis') as never,
    );
    const parts = [
      'cash_flow_health|2',
      'income_stability|2',
      'debt_service_capacity|2',
      'account_behavior|2',
      'credit_history|2',
    ];
    const baselineDay = addDays(today, -40);
    const spread = async (day: string, counts: [number, number][]) => {
      for (const [bin, n] of counts)
        for (let i = 0; i < n; i++) await repo.countDecision(lender, day, [`total|${bin}`, ...parts]);
    };
    await spread(baselineDay, [
      [5, 50],
      [6, 30],
      [7, 20],
    ]);
    await spread(today, [
      [5, 30],
      [6, 30],
      [7, 40],
    ]);

    const report = await call(
      'GET',
      `/performance?from=${today}&to=${today}&baselineFrom=${baselineDay}&baselineTo=${baselineDay}`,
    );
    expect(report.status).toBe(200);
    expect(PerformanceReportView.safeParse(report.body).success).toBe(true);
    const { discrimination, calibration, drift } = report.body;
    expect(report.body).toMatchObject({ loans: 250, bad: 55, badRate: 0.22 });
    expect(discrimination.auc).toBeCloseTo(0.70979, 4);
    expect(discrimination.gini).toBeCloseTo(0.41958, 4);
    expect(discrimination.ks).toBeCloseTo(0.41958, 4);
    expect(discrimination.ksAtScore).toBe(60);
    expect(calibration).toEqual([
      { band: 'LOW_RISK', loans: 150, bad: 15, expectedBadRate: 0.027, observedBadRate: 0.1, note: null },
      { band: 'HIGH_RISK', loans: 100, bad: 40, expectedBadRate: 0.1818, observedBadRate: 0.4, note: null },
    ]);
    const total = drift.measures.find((m: { measure: string }) => m.measure === 'total');
    expect(total).toMatchObject({ psi: 0.2408, flag: 'WATCH' });
    expect(
      drift.measures.filter((m: { measure: string }) => m.measure !== 'total').map((m: { psi: number }) => m.psi),
    ).toEqual([0, 0, 0, 0, 0]);
    expect(drift).toMatchObject({ baselineDecisions: 100, currentDecisions: 100, note: null });
  });
});
