import { randomUUID } from 'node:crypto';
import type { ApplicationFact, EnrichedAccount, EnrichmentResult } from '@loan/contracts';

/** Shape of a sealed provider key; the janitor never opens it. */
const SEALED_KEY = 'v1.aXY.dGFn.Ym9keQ';

const profile = (accountId: string, at: string): EnrichedAccount => ({
  accountId,
  providerAccountId: `mono-${accountId.slice(0, 8)}`,
  institution: 'GTBank',
  bankCode: '058',
  accountNumber: '0123456789',
  holderName: 'ADAEZE OKAFOR',
  bvnLast4: null,
  currency: 'NGN',
  balance: 125_000,
  income: {
    employer: null,
    monthlyIncome: 350_000,
    annualIncome: 4_200_000,
    totalIncome: 2_100_000,
    regularMonthlyAverage: 350_000,
    irregularMonthlyAverage: 0,
    streams: [],
    periodMonths: 6,
  },
  insights: {
    startDate: '2026-05-01',
    endDate: '2026-10-31',
    transactionDays: 183,
    transactionCount: 240,
    openingBalance: 80_000,
    closingBalance: 125_000,
    averageBalance: 110_000,
    debitToCreditRatio: 0.9,
    overallCredits: 2_100_000,
    overallDebits: 1_900_000,
    totalRecurringCredits: 2_100_000,
    totalRecurringDebits: 600_000,
    redFlags: {
      immediateLargeWithdrawalPostPayday: false,
      identicalDebitVsCredit: false,
      cashDepositsLargerThanSalary: false,
    },
  },
  months: [],
  enrichedAt: at,
});

/**
 * Facts about one application, as the applications and enrichment services publish them,
 * each stamped with the `at` it is given.
 */
export function factsOf(app: { applicationId?: string; clientId?: string; applicantId?: string } = {}) {
  const applicationId = app.applicationId ?? randomUUID();
  const clientId = app.clientId ?? 'client-a';
  const applicantId = app.applicantId ?? randomUUID();
  const base = (at: Date | string) => ({
    factId: randomUUID(),
    clientId,
    applicationId,
    at: typeof at === 'string' ? at : at.toISOString(),
  });
  const account = (accountId: string) => ({ accountId, providerAccountId: `mono-${accountId.slice(0, 8)}` });
  return {
    applicationId,
    clientId,
    applicantId,
    opened: (at: Date | string): ApplicationFact => ({ ...base(at), type: 'ApplicationOpened', applicantId }),
    resumed: (at: Date | string): ApplicationFact => ({ ...base(at), type: 'ApplicationResumed', applicantId }),
    linked: (accountId: string, at: Date | string): ApplicationFact => ({
      ...base(at),
      type: 'AccountLinked',
      applicantId,
      ...account(accountId),
      institution: 'GTBank',
      accountNumber: '0123456789',
      providerKey: SEALED_KEY,
    }),
    restarted: (accountId: string, at: Date | string): ApplicationFact => ({
      ...base(at),
      type: 'EnrichmentRestartRequested',
      applicantId,
      ...account(accountId),
      providerKey: SEALED_KEY,
    }),
    finalized: (at: Date | string): ApplicationFact => ({ ...base(at), type: 'LinkingFinalized', applicantId }),
    analysisRequested: (at: Date | string, accountIds: string[] = []): ApplicationFact => ({
      ...base(at),
      type: 'AnalysisRequested',
      applicantId,
      analysisId: randomUUID(),
      applicant: { firstName: 'Adaeze', lastName: 'Okafor', bvn: null },
      loan: { amount: 500_000, tenor: 12, interestRate: 5 },
      accountIds,
    }),
    closed: (
      at: Date | string,
      status: 'COMPLETED' | 'FAILED' | 'ABANDONED' = 'COMPLETED',
      abandonReason: 'no_link' | 'no_analyze' | null = null,
      retainedUntil?: string,
    ): ApplicationFact => ({
      ...base(at),
      type: 'ApplicationClosed',
      applicantId,
      status,
      abandonReason,
      ...(retainedUntil ? { retainedUntil } : {}),
    }),
    offerMade: (madeAt: string, expiresAt: string, at: Date | string = madeAt): ApplicationFact => ({
      ...base(at),
      type: 'OfferMade',
      applicantId,
      madeAt,
      expiresAt,
    }),
    offerAnswered: (
      answeredAt: string,
      response: 'ACCEPTED' | 'DECLINED' | 'WITHDRAWN' = 'ACCEPTED',
    ): ApplicationFact => ({
      ...base(answeredAt),
      type: 'OfferAnswered',
      applicantId,
      response,
      answeredAt,
    }),
    enriched: (accountId: string, attempt: number, at: Date | string): EnrichmentResult => ({
      ...base(at),
      type: 'AccountEnriched',
      applicantId,
      ...account(accountId),
      attempt,
      profile: profile(accountId, typeof at === 'string' ? at : at.toISOString()),
    }),
    timedOut: (accountId: string, attempt: number, at: Date | string): EnrichmentResult => ({
      ...base(at),
      type: 'EnrichmentTimedOut',
      applicantId,
      ...account(accountId),
      attempt,
    }),
    scrubbed: (accountIds: string[], at: Date | string): EnrichmentResult => ({
      ...base(at),
      type: 'BankDataScrubbed',
      accountIds,
    }),
  };
}
export type FactsOf = ReturnType<typeof factsOf>;
