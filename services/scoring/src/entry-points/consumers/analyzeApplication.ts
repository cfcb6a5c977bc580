import { randomUUID } from 'node:crypto';
import { DEFAULT_TIME_ZONE, Decision, Topics, dayIn, type ApplicationFact, type ScoringResult } from '@loan/contracts';
import {
  ServiceError,
  type Clock,
  type Logger,
  type OutboxEntry,
  type OutboxRelay,
  type Sealer,
  withTraceContext,
} from '@loan/runtime';
import type { ScoringConfig } from '../../config';
import type { BureauOutcome, CreditBureau } from '../../data-access/bureau';
import type { AnalysisOutcome, AnalysisRepository } from '../../data-access/analysisRepository';
import type { ChallengerOutcome } from '../../data-access/models';
import type { PolicyRepository } from '../../data-access/policyRepository';
import type { ProfileRepository } from '../../data-access/profileRepository';
import type { OutcomeRepository } from '../../data-access/outcomeRepository';
import { driftCellsOf } from '../../domain/performance/drift';
import { activeVersionAt } from '../../domain/policy/versions';
import { reasonsOf } from '../../domain/policy/simulate';
import {
  NoEnrichedAccountsError,
  decideFromAudit,
  repaymentCapacityOf,
  scoreApplicationWithAudit,
} from '../../domain/scoreApplication';
import type { ScoringMetrics } from '../../metrics';

export type AnalysisRequested = Extract<ApplicationFact, { type: 'AnalysisRequested' }>;

/**
 * An analysis the applications service asked for: looks the applicant up at the credit
 * bureau when a BVN was given, runs the scorecard on the stored profiles and reports the
 * decision (or why there is none) on `loan.scoring.results`, once per analysis.
 */
export function createAnalysisHandler(deps: {
  analyses: AnalysisRepository;
  profiles: Pick<ProfileRepository, 'find'>;
  relay: Pick<OutboxRelay, 'flush'>;
  bureau: CreditBureau;
  policies: PolicyRepository;
  /** Where decisions are counted by score bin, for the lender's drift figures. */
  decisionCounts?: Pick<OutcomeRepository, 'countDecision' | 'recordDecided'>;
  sealer: Sealer;
  metrics: ScoringMetrics;
  config: Pick<ScoringConfig, 'PROFILE_WAIT'>;
  clock: Clock;
  logger: Logger;
}) {
  const { analyses, profiles, relay, bureau, policies, decisionCounts, sealer, metrics, config, clock, logger } = deps;

  async function lookupBureau(sealedBvn: string | null): Promise<BureauOutcome> {
    if (!sealedBvn) return { status: 'NOT_CHECKED' };
    const outcome = await bureau.lookup(sealer.open(sealedBvn));
    metrics.bureauLookups.inc({ status: outcome.status });
    return outcome;
  }

  /**
   * Returns the publication of the result, under way (wrapped, or the async function would wait
   * for it): the caller holds the fact's offset until it ends (a failed one is retried by the
   * relay).
   */
  return async function analyze(fact: AnalysisRequested): Promise<{ published: Promise<void> }> {
    const status = await analyses.statusOf(fact.analysisId);
    // Decided before a crash: make sure the result went out.
    if (status && status !== 'PENDING') return { published: relay.flush(fact.analysisId) };
    const stored = await profiles.find(fact.accountIds);
    const waited = clock.now().getTime() - new Date(fact.at).getTime();
    if (stored.length < fact.accountIds.length && waited < config.PROFILE_WAIT) {
      // Enriched data may still be on its way through the results topic: try again shortly.
      throw new ServiceError(`Waiting for ${fact.accountIds.length - stored.length} enriched profile(s)`, {
        retriable: true,
      });
    }
    const now = clock.now();
    let result: ScoringResult;
    const base = {
      factId: randomUUID(),
      clientId: fact.clientId,
      applicationId: fact.applicationId,
      applicantId: fact.applicantId,
      analysisId: fact.analysisId,
      at: now.toISOString(),
    };
    let update: AnalysisOutcome;
    const loan = { amount: fact.loan.amount, tenor: fact.loan.tenor, interestRate: fact.loan.interestRate };
    // The version active when the lender asked for the analysis decides it, however late (or
    // often) it is handled; the challenger in place now decides in the shadow.
    const book = await policies.book(fact.clientId);
    const policy = await policies.resolve(fact.clientId, activeVersionAt(book, new Date(fact.at)));
    const challenger = book.challenger ? await policies.resolve(fact.clientId, book.challenger.version) : null;
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
        loan,
        accounts: stored.map((s) => ({ ...s.profile, holderName: sealer.reveal(s.profile.holderName) })),
        bureau: bureauOutcome,
        now,
        policy,
      });
      metrics.duration.observe(Number(process.hrtime.bigint() - started) / 1e9);
      // A decision that breaks its own contract is not published (and not retried for ever).
      Decision.parse(decision);
      metrics.decisions.inc({ decision: decision.decision, band: decision.score_band });
      logger.info(
        {
          analysisId: fact.analysisId,
          applicationId: fact.applicationId,
          decision: decision.decision,
          band: decision.score_band,
          policyVersion: policy.version,
        },
        'application scored',
      );
      result = {
        ...base,
        type: 'ApplicationScored',
        decision,
        repaymentCapacity: repaymentCapacityOf(audit, policy.policy.affordability.maxDebtServiceRatio),
      };
      let shadow: ChallengerOutcome | null = null;
      if (challenger) {
        const other = decideFromAudit(audit, { applicantId: fact.applicantId, loan, now, policy: challenger });
        shadow = {
          version: challenger.version,
          decision: other.decision,
          approvedAmount:
            other.decision === 'APPROVED' || other.decision === 'COUNTER_OFFER'
              ? other.approval_details.approved_amount
              : 0,
          reasons: reasonsOf(other),
        };
      }
      update = {
        status: 'DECIDED',
        decision,
        audit,
        bureau: { status: bureauOutcome.status },
        decidedAt: now,
        loan,
        policyVersion: policy.version,
        challenger: shadow,
      };
    } catch (error) {
      // An outage (a ServiceError) is retried; anything else comes out the same every time, so
      // the analysis fails now with a reason instead of holding the application in PROCESSING.
      if (error instanceof ServiceError) throw error;
      const unscorable = !(error instanceof NoEnrichedAccountsError);
      if (unscorable)
        logger.error({ err: error, analysisId: fact.analysisId }, 'analysis could not be scored; failing it');
      const reason = unscorable ? 'scoring_error' : 'No linked account has completed enrichment';
      metrics.decisions.inc({ decision: 'FAILED', band: 'none' });
      result = { ...base, type: 'ScoringFailed', reason };
      update = { status: 'FAILED', failureReason: reason, decidedAt: now };
    }
    const entry: OutboxEntry = {
      id: result.factId,
      topic: Topics.scoringResults,
      key: fact.applicationId,
      value: result,
      headers: withTraceContext(),
    };
    const request = {
      analysisId: fact.analysisId,
      applicationId: fact.applicationId,
      clientId: fact.clientId,
      applicantId: fact.applicantId,
      requestedAt: new Date(fact.at),
    };
    // Undefined when another replica (or the run before a crash) decided it first: the relay
    // publishes what that one stored.
    const toPublish = await analyses.storeOutcome(request, update, entry);
    if (!toPublish) logger.info({ analysisId: fact.analysisId }, 'analysis already decided by another replica');
    else if (result.type === 'ApplicationScored' && decisionCounts) {
      // Counted by the writer that decided it (a crash right here leaves the decision uncounted
      // in the drift figures, never counted twice).
      await decisionCounts.countDecision(
        fact.clientId,
        dayIn(now, DEFAULT_TIME_ZONE),
        driftCellsOf(result.decision.score_breakdown),
      );
      // Where the loan's outcomes find the decision they are measured against.
      await decisionCounts.recordDecided(fact.applicationId, fact.analysisId);
    }
    return { published: relay.flush(fact.analysisId, toPublish) };
  };
}
