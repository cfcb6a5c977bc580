import { randomUUID } from 'node:crypto';
import { Topics, type ApplicationFact, type EnrichedAccount, type ScoringResult } from '@loan/contracts';
import { createSealer } from '@loan/runtime';
import { waitFor } from '@testing/helpers';
import { startScoring, suiteNamespace, testBus, type Running } from '@testing/stack';

/**
 * The scoring service against the real broker, registry and database, fed the facts the
 * applications and enrichment services would publish.
 */
const ns = suiteNamespace();
const sealer = createSealer(process.env.DATA_KEY ?? 'local-development-data-key-change-me');
const bus = testBus(ns, 'scoring-test');
let scoring: Running;
const results: ScoringResult[] = [];

beforeAll(async () => {
  // No bureau is reachable here: lookups of a given BVN come back unavailable.
  scoring = await startScoring(ns, {
    BUREAU_BASE_URL: 'http://127.0.0.1:9',
    BUREAU_TIMEOUT: '500ms',
    PROFILE_WAIT: '1s',
  });
  await bus.connect();
  await bus.consume({
    groupId: 'results-reader',
    topics: [Topics.scoringResults],
    handle: async (m) => void results.push(m.value as ScoringResult),
  });
});

afterAll(async () => {
  await bus.disconnect();
  await scoring?.stop();
});

function profile(accountId: string): EnrichedAccount {
  const months = Array.from({ length: 6 }, (_, i) => ({
    month: `2026-0${i + 1}`,
    credits: 400_000,
    debits: 300_000,
    salaryCredits: 350_000,
    otherIncomeCredits: 50_000,
    bettingDebits: 0,
    bettingCredits: 0,
    loanRepayments: 0,
    loanDisbursements: 0,
    ownTransfersIn: 0,
    ownTransfersOut: 0,
    bouncedDebits: 0,
    overdraftDays: 0,
    openingBalance: 50_000,
    closingBalance: 150_000,
    minBalance: 40_000,
    averageBalance: 100_000,
    transactionCount: 40,
  }));
  return {
    accountId,
    providerAccountId: `p-${accountId}`,
    institution: 'GTBank',
    bankCode: '058',
    accountNumber: '0123456785',
    holderName: 'ADAEZE OKAFOR',
    bvnLast4: null,
    currency: 'NGN',
    balance: 150_000,
    income: {
      employer: 'ACME LTD',
      monthlyIncome: 350_000,
      annualIncome: 4_200_000,
      totalIncome: 2_100_000,
      regularMonthlyAverage: 350_000,
      irregularMonthlyAverage: 0,
      streams: [],
      periodMonths: 6,
    },
    insights: {
      startDate: '2026-01-01',
      endDate: '2026-06-30',
      transactionDays: 180,
      transactionCount: 240,
      openingBalance: 50_000,
      closingBalance: 150_000,
      averageBalance: 100_000,
      debitToCreditRatio: 0.75,
      overallCredits: 2_400_000,
      overallDebits: 1_800_000,
      totalRecurringCredits: 2_100_000,
      totalRecurringDebits: 0,
      redFlags: {
        immediateLargeWithdrawalPostPayday: false,
        identicalDebitVsCredit: false,
        cashDepositsLargerThanSalary: false,
      },
    },
    months,
    enrichedAt: new Date().toISOString(),
  };
}

async function enriched(applicationId: string, accountId: string) {
  await bus.publish(Topics.enrichmentResults, [
    {
      key: applicationId,
      value: {
        type: 'AccountEnriched',
        factId: randomUUID(),
        clientId: 'c1',
        applicationId,
        applicantId: randomUUID(),
        accountId,
        providerAccountId: `p-${accountId}`,
        attempt: 1,
        at: new Date().toISOString(),
        profile: profile(accountId),
      },
    },
  ]);
}

function analysis(applicationId: string, accountIds: string[], bvn: string | null): ApplicationFact {
  return {
    type: 'AnalysisRequested',
    factId: randomUUID(),
    clientId: 'c1',
    applicationId,
    applicantId: randomUUID(),
    analysisId: randomUUID(),
    at: new Date().toISOString(),
    applicant: { firstName: 'Adaeze', lastName: 'Okafor', bvn: bvn ? sealer.seal(bvn) : null },
    loan: { amount: 300_000, tenor: 6, interestRate: 5 },
    accountIds,
  };
}

describe('scoring service', () => {
  it('when the same analysis is requested twice (a redelivery), then exactly one decision comes out, flagged for review as the bureau is down', async () => {
    const applicationId = randomUUID();
    const accountId = randomUUID();
    await enriched(applicationId, accountId);
    await waitFor(() => scoring.runtime.db.model('Profile').exists({ _id: accountId }), { what: 'the profile' });
    const fact = analysis(applicationId, [accountId], '22200000001');
    await bus.publish(Topics.applicationFacts, [
      { key: applicationId, value: fact },
      { key: applicationId, value: fact },
    ]);
    const result = await waitFor(() => results.find((r) => r.applicationId === applicationId), { what: 'the result' });
    expect(result).toMatchObject({
      type: 'ApplicationScored',
      analysisId: fact.type === 'AnalysisRequested' ? fact.analysisId : '',
    });
    if (result.type !== 'ApplicationScored') throw new Error('not scored');
    expect(result.decision.decision).toBe('MANUAL_REVIEW');
    expect(result.decision.manual_review_reasons.map((r) => r.code)).toContain('BUREAU_UNAVAILABLE');
    // A third of the ₦400,000 monthly income (salary and other income), no existing repayments:
    // the room a reviewer's terms are checked against.
    expect(result.repaymentCapacity).toBeCloseTo(400_000 / 3, 0);
    // A later marker proves the second copy was handled before we count.
    const marker = randomUUID();
    await bus.publish(Topics.applicationFacts, [{ key: applicationId, value: analysis(marker, [], null) }]);
    await waitFor(() => results.find((r) => r.applicationId === marker), { what: 'the marker' });
    expect(results.filter((r) => r.applicationId === applicationId)).toHaveLength(1);
    expect(await scoring.runtime.db.model('Analysis').countDocuments({ applicationId })).toBe(1);
  });

  it('when a pending analysis was left by the previous version (it recorded one before asking the bureau), then the redelivered request decides it once, in that same document', async () => {
    const applicationId = randomUUID();
    const accountId = randomUUID();
    await enriched(applicationId, accountId);
    await waitFor(() => scoring.runtime.db.model('Profile').exists({ _id: accountId }), { what: 'the profile' });
    const fact = analysis(applicationId, [accountId], null);
    if (fact.type !== 'AnalysisRequested') throw new Error();
    const analyses = scoring.runtime.db.collection<{ _id: string; [field: string]: unknown }>('analyses');
    await analyses.insertOne({
      _id: fact.analysisId,
      applicationId,
      clientId: 'c1',
      applicantId: fact.applicantId,
      status: 'PENDING',
      decision: null,
      failureReason: null,
      audit: null,
      bureau: null,
      requestedAt: new Date(fact.at),
      outbox: [],
      outboxPending: false,
    });
    await bus.publish(Topics.applicationFacts, [{ key: applicationId, value: fact }]);
    const result = await waitFor(() => results.find((r) => r.applicationId === applicationId), { what: 'the result' });
    expect(result).toMatchObject({ type: 'ApplicationScored', analysisId: fact.analysisId });
    const marker = randomUUID();
    await bus.publish(Topics.applicationFacts, [{ key: applicationId, value: analysis(marker, [], null) }]);
    await waitFor(() => results.find((r) => r.applicationId === marker), { what: 'the marker' });
    expect(results.filter((r) => r.applicationId === applicationId)).toHaveLength(1);
    expect(await analyses.countDocuments({ applicationId })).toBe(1);
    expect(await analyses.findOne({ _id: fact.analysisId })).toMatchObject({ status: 'DECIDED' });
  });

  it('when an analysis cannot be scored (terms the scorecard refuses), then it fails at once with reason scoring_error instead of being retried for ever', async () => {
    const applicationId = randomUUID();
    const accountId = randomUUID();
    await enriched(applicationId, accountId);
    await waitFor(() => scoring.runtime.db.model('Profile').exists({ _id: accountId }), { what: 'the profile' });
    const fact = analysis(applicationId, [accountId], null);
    if (fact.type !== 'AnalysisRequested') throw new Error();
    await bus.publish(Topics.applicationFacts, [
      { key: applicationId, value: { ...fact, loan: { ...fact.loan, tenor: 0 } } },
    ]);
    const result = await waitFor(() => results.find((r) => r.applicationId === applicationId), {
      timeoutMs: 30_000,
      what: 'the failure',
    });
    expect(result).toMatchObject({ type: 'ScoringFailed', reason: 'scoring_error', analysisId: fact.analysisId });
  });

  it('when no enriched account exists at analysis time, then the analysis fails with a reason', async () => {
    const applicationId = randomUUID();
    await bus.publish(Topics.applicationFacts, [
      { key: applicationId, value: analysis(applicationId, [randomUUID()], null) },
    ]);
    const result = await waitFor(() => results.find((r) => r.applicationId === applicationId), {
      timeoutMs: 30_000,
      what: 'the failure',
    });
    expect(result).toMatchObject({ type: 'ScoringFailed', reason: expect.stringMatching(/enrichment/) });
  });

  it("when an application is abandoned without analysis, then its bank data is deleted from scoring's collections", async () => {
    const applicationId = randomUUID();
    const accountId = randomUUID();
    await enriched(applicationId, accountId);
    const profiles = scoring.runtime.db.model('Profile');
    await waitFor(() => profiles.exists({ _id: accountId }), { what: 'the profile' });
    const closed: ApplicationFact = {
      type: 'ApplicationClosed',
      factId: randomUUID(),
      clientId: 'c1',
      applicationId,
      applicantId: randomUUID(),
      at: new Date().toISOString(),
      status: 'ABANDONED',
      abandonReason: 'no_analyze',
    };
    await bus.publish(Topics.applicationFacts, [{ key: applicationId, value: closed }]);
    await waitFor(async () => (await profiles.countDocuments({ applicationId })) === 0, {
      what: 'the profiles to be deleted',
    });
  });
});
