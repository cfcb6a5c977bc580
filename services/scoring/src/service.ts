import { randomUUID } from 'node:crypto';
import { Counter, Gauge, Histogram } from 'prom-client';
import {
  Decision,
  Topics,
  type ApplicationFact,
  type ApplicationFactType,
  type EnrichedAccount,
  type EnrichmentResult,
  type EnrichmentResultType,
  type ScoringResult,
} from '@loan/contracts';
import {
  ServiceError,
  createOpsApp,
  createOutboxRelay,
  ensureContractTopics,
  isDuplicateKey,
  listen,
  rawCollection,
  syncIndexes,
  type Clock,
  type InboundMessage,
  type OutboxEntry,
  type ServiceRuntime,
} from '@loan/runtime';
import type { ScoringConfig } from './config';
import type { BureauOutcome, CreditBureau } from './data-access/bureau';
import { analysisModel, profileModel } from './data-access/models';
import { NoEnrichedAccountsError, scoreApplicationWithAudit } from './domain/scoreApplication';

type AnalysisRequested = Extract<ApplicationFact, { type: 'AnalysisRequested' }>;

/**
 * The scoring service: keeps its own projection of enriched accounts, looks the applicant up
 * at the credit bureau when a BVN was given, runs the scorecard and reports the decision.
 */
export function createScoringService(deps: { runtime: ServiceRuntime; config: ScoringConfig; bureau: CreditBureau; clock: Clock }) {
  const { runtime, config, bureau, clock } = deps;
  const { bus, logger, sealer, metrics } = runtime;
  const profiles = profileModel(runtime.db);
  const analyses = analysisModel(runtime.db);
  // The per-message reads and writes go through the driver's collections: profiles and
  // decisions are large, and are stored as they are.
  interface ProfileDoc {
    _id: string;
    applicationId: string;
    attempt: number;
    profile: EnrichedAccount;
    updatedAt: Date;
  }
  interface AnalysisDoc {
    _id: string;
    applicationId: string;
    clientId: string;
    applicantId: string;
    status: 'PENDING' | 'DECIDED' | 'FAILED';
    decision: unknown;
    failureReason: string | null;
    audit: unknown;
    bureau: unknown;
    requestedAt: Date;
    decidedAt?: Date;
    outbox: OutboxEntry[];
    outboxPending: boolean;
  }
  const raw = { profiles: rawCollection<ProfileDoc>(profiles), analyses: rawCollection<AnalysisDoc>(analyses) };
  const relay = createOutboxRelay({ bus, model: analyses, logger, clearDelayMs: config.OUTBOX_CLEAR_DELAY });
  const decisions = new Counter({
    name: 'scoring_decisions_total',
    help: 'Decisions by outcome and band (failed analyses have decision FAILED)',
    labelNames: ['decision', 'band'] as const,
    registers: [metrics.registry],
  });
  const duration = new Histogram({
    name: 'scoring_scorecard_duration_seconds',
    help: 'CPU time of the scorecard for one application',
    buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1],
    registers: [metrics.registry],
  });
  const bureauLookups = new Counter({
    name: 'scoring_bureau_lookups_total',
    help: 'Credit bureau lookups by outcome',
    labelNames: ['status'] as const,
    registers: [metrics.registry],
  });
  const breakerState = new Gauge({
    name: 'circuit_breaker_open',
    help: '1 while the circuit breaker of an adapter is open',
    labelNames: ['adapter'] as const,
    registers: [metrics.registry],
  });
  breakerState.set({ adapter: 'bureau' }, 0);
  let http: Awaited<ReturnType<typeof listen>> | null = null;

  async function onEnrichment(result: EnrichmentResult) {
    if (result.type === 'AccountEnriched') {
      await raw.profiles.updateOne(
        { _id: result.accountId, $or: [{ attempt: { $lte: result.attempt } }] },
        {
          $set: { applicationId: result.applicationId, attempt: result.attempt, profile: result.profile, updatedAt: clock.now() },
        },
        { upsert: true },
      ).catch((error: unknown) => {
        // A newer attempt is already stored: the upsert's insert collides, which is fine.
        if (!isDuplicateKey(error)) throw error;
      });
    } else if (result.type === 'BankDataScrubbed') {
      await scrub(result.applicationId);
    }
  }

  /**
   * The applicant's bank data goes (a no_analyze abandonment, or the end of a decided
   * application's retention): the enriched profiles. A decision and its audit record (derived
   * features and the bureau summary, no statements) stay: they explain the decision.
   */
  async function scrub(applicationId: string) {
    await profiles.deleteMany({ applicationId });
  }

  async function lookupBureau(sealedBvn: string | null): Promise<BureauOutcome> {
    if (!sealedBvn) return { status: 'NOT_CHECKED' };
    const outcome = await bureau.lookup(sealer.open(sealedBvn));
    bureauLookups.inc({ status: outcome.status });
    return outcome;
  }

  async function analyse(fact: AnalysisRequested) {
    const existing = await raw.analyses.findOne({ _id: fact.analysisId }, { projection: { status: 1 } });
    if (existing && existing.status !== 'PENDING') {
      await relay.flush(fact.analysisId); // decided before a crash: make sure the result went out
      return;
    }
    if (!existing) {
      await raw.analyses
        .insertOne({
          _id: fact.analysisId,
          applicationId: fact.applicationId,
          clientId: fact.clientId,
          applicantId: fact.applicantId,
          status: 'PENDING',
          decision: null,
          failureReason: null,
          audit: null,
          bureau: null,
          requestedAt: new Date(fact.at),
          outbox: [],
          outboxPending: false,
        })
        .catch((error: unknown) => {
          if (!isDuplicateKey(error)) throw error;
        });
    }
    // One lookup by id per account rather than `$in`: FerretDB answers `_id` equality from its
    // index but scans the whole collection of (large) profiles for `$in`.
    const found = await Promise.all(
      fact.accountIds.map((accountId) => raw.profiles.findOne({ _id: accountId })),
    );
    const stored = found.filter((doc): doc is NonNullable<typeof doc> => doc !== null);
    const waited = clock.now().getTime() - new Date(fact.at).getTime();
    if (stored.length < fact.accountIds.length && waited < config.PROFILE_WAIT) {
      // Enriched data may still be on its way through the results topic: try again shortly.
      throw new ServiceError(`Waiting for ${fact.accountIds.length - stored.length} enriched profile(s)`, { retriable: true });
    }
    const now = clock.now();
    let result: ScoringResult;
    const base = { factId: randomUUID(), clientId: fact.clientId, applicationId: fact.applicationId, applicantId: fact.applicantId, analysisId: fact.analysisId, at: now.toISOString() };
    let update: Partial<AnalysisDoc>;
    try {
      const bureauOutcome = await lookupBureau(fact.applicant.bvn);
      const started = process.hrtime.bigint();
      const { decision, audit } = scoreApplicationWithAudit({
        applicantId: fact.applicantId,
        applicant: {
          firstName: sealer.reveal(fact.applicant.firstName),
          lastName: sealer.reveal(fact.applicant.lastName),
          bvn: fact.applicant.bvn ? sealer.open(fact.applicant.bvn) : null,
        },
        loan: { amount: fact.loan.amount, tenor: fact.loan.tenor, interestRate: fact.loan.interestRate },
        accounts: stored.map((s) => ({ ...s.profile, holderName: sealer.reveal(s.profile.holderName) })),
        bureau: bureauOutcome,
        now,
      });
      duration.observe(Number(process.hrtime.bigint() - started) / 1e9);
      // A decision that breaks its own contract is not published (and not retried for ever).
      Decision.parse(decision);
      decisions.inc({ decision: decision.decision, band: decision.score_band });
      result = { ...base, type: 'ApplicationScored', decision };
      update = { status: 'DECIDED', decision, audit, bureau: { status: bureauOutcome.status }, decidedAt: now };
    } catch (error) {
      // An outage (a ServiceError) is retried; anything else comes out the same every time, so
      // the analysis fails now with a reason instead of holding the application in PROCESSING.
      if (error instanceof ServiceError) throw error;
      const unscorable = !(error instanceof NoEnrichedAccountsError);
      if (unscorable) logger.error({ err: error, analysisId: fact.analysisId }, 'analysis could not be scored; failing it');
      const reason = unscorable ? 'scoring_error' : 'No linked account has completed enrichment';
      decisions.inc({ decision: 'FAILED', band: 'none' });
      result = { ...base, type: 'ScoringFailed', reason };
      update = { status: 'FAILED', failureReason: reason, decidedAt: now };
    }
    const entry = { id: result.factId, topic: Topics.scoringResults, key: fact.applicationId, value: result };
    const written = await raw.analyses.updateOne(
      { _id: fact.analysisId, status: 'PENDING' },
      { $set: { ...update, outboxPending: true }, $push: { outbox: entry } },
    );
    if (written.modifiedCount === 0) {
      logger.info({ analysisId: fact.analysisId }, 'analysis already decided by another replica');
      await relay.flush(fact.analysisId);
      return;
    }
    // A pending analysis has nothing in its outbox: it now holds exactly this result.
    await relay.flush(fact.analysisId, [entry]);
  }

  async function onFact(fact: ApplicationFact) {
    if (fact.type === 'AnalysisRequested') await analyse(fact);
    else if (fact.type === 'ApplicationClosed' && fact.abandonReason === 'no_analyze') await scrub(fact.applicationId);
  }

  return {
    profiles,
    analyses,
    async start() {
      await syncIndexes(runtime.db);
      await ensureContractTopics(bus);
      relay.start();
      runtime.lifecycle.onStop('outbox', () => relay.stop());
      await bus.consume({
        groupId: config.CONSUMER_GROUP,
        topics: [Topics.enrichmentResults, Topics.applicationFacts],
        // What onEnrichment and onFact act on; the other kinds are passed over undecoded.
        types: {
          [Topics.enrichmentResults]: ['AccountEnriched', 'BankDataScrubbed'] satisfies EnrichmentResultType[],
          [Topics.applicationFacts]: ['AnalysisRequested', 'ApplicationClosed'] satisfies ApplicationFactType[],
        },
        handle: async (message: InboundMessage) => {
          if (message.topic === Topics.enrichmentResults) await onEnrichment(message.value as EnrichmentResult);
          else await onFact(message.value as ApplicationFact);
        },
      });
      http = await listen(createOpsApp({ metrics, checks: runtime.checks }), config.HTTP_HOST, config.HTTP_PORT);
      runtime.lifecycle.onStop('http', () => http?.close());
      logger.info({ url: http.url }, 'scoring service started');
      return { url: http.url };
    },
    stop: () => runtime.lifecycle.stop(),
    breakerState: (state: 'open' | 'half_open' | 'closed') => breakerState.set({ adapter: 'bureau' }, state === 'open' ? 1 : 0),
  };
}
