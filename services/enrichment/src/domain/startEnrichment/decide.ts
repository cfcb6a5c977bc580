import type { ApplicationFact } from '@loan/contracts';
import { type EnrichmentJob, emptyIncome, emptyInsights, remember } from '../job';

type AccountLinked = Extract<ApplicationFact, { type: 'AccountLinked' }>;
type RestartRequested = Extract<ApplicationFact, { type: 'EnrichmentRestartRequested' }>;

/**
 * A newly linked account: its enrichment starts (attempt 1, its 20-minute clock from the
 * link). `leaseUntil` is when the worker that is about to start the provider jobs gives up
 * its claim, so that another may take over if it dies. A job that exists already is the same
 * account: nothing changes.
 */
export function openJob(
  existing: EnrichmentJob | null,
  fact: AccountLinked,
  input: { now: Date; leaseUntil: Date },
): EnrichmentJob | null {
  if (existing) return null;
  return {
    accountId: fact.accountId,
    applicationId: fact.applicationId,
    applicantId: fact.applicantId,
    clientId: fact.clientId,
    providerAccountId: fact.providerAccountId,
    institution: fact.institution,
    accountNumber: fact.accountNumber,
    providerKeySealed: fact.providerKey,
    attempt: 1,
    since: new Date(fact.at).toISOString(),
    status: 'PENDING',
    income: emptyIncome(),
    insights: emptyInsights(),
    nextTryAt: input.leaseUntil,
    failures: 0,
    lastError: null,
    handledFacts: [fact.factId],
    enrichedAt: null,
    failedAt: null,
    closedAt: null,
    scrubbedAt: null,
    createdAt: input.now,
    updatedAt: input.now,
  };
}

/**
 * The account was re-linked: a new attempt, whatever the state of the last one. Its clock
 * starts again at the fact's time, earlier results are dropped and both provider jobs are
 * started again. A redelivered or older request changes nothing; so does one for an
 * application that was closed.
 */
export function restartJob(
  existing: EnrichmentJob | null,
  fact: RestartRequested,
  input: { now: Date; leaseUntil: Date },
): EnrichmentJob | null {
  const since = new Date(fact.at).toISOString();
  if (!existing) {
    // Restart of an account we never saw linked (its link fact is lost or was for another
    // deployment): enrich it from here.
    return {
      accountId: fact.accountId,
      applicationId: fact.applicationId,
      applicantId: fact.applicantId,
      clientId: fact.clientId,
      providerAccountId: fact.providerAccountId,
      institution: null,
      accountNumber: null,
      providerKeySealed: fact.providerKey,
      attempt: 1,
      since,
      status: 'PENDING',
      income: emptyIncome(),
      insights: emptyInsights(),
      nextTryAt: input.leaseUntil,
      failures: 0,
      lastError: null,
      handledFacts: [fact.factId],
      enrichedAt: null,
      failedAt: null,
      closedAt: null,
      scrubbedAt: null,
      createdAt: input.now,
      updatedAt: input.now,
    };
  }
  if (existing.handledFacts.includes(fact.factId)) return null;
  if (existing.closedAt || existing.scrubbedAt) return null;
  if (Date.parse(since) < Date.parse(existing.since)) return null;
  return {
    ...existing,
    providerAccountId: fact.providerAccountId,
    providerKeySealed: fact.providerKey,
    attempt: existing.attempt + 1,
    since,
    status: 'PENDING',
    income: emptyIncome(),
    insights: emptyInsights(),
    nextTryAt: input.leaseUntil,
    failures: 0,
    lastError: null,
    handledFacts: remember(existing.handledFacts, fact.factId),
    enrichedAt: null,
    failedAt: null,
    updatedAt: input.now,
  };
}
