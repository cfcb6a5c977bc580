import type { CreditPolicy, DecisionOutcome, OutcomeCounts, SimulationResult } from '@loan/contracts';
import type { LoanAsk } from '../affordability';
import type { ScoringAudit } from '../scorecard';
import { decideFromAudit, type AppliedPolicy } from '../scoreApplication/scoreApplication';

/** A decided analysis as the audit keeps it: enough to decide it again under another policy. */
export interface StoredAnalysis {
  applicationId: string;
  applicantId: string;
  loan: LoanAsk;
  audit: ScoringAudit;
  decidedAt: Date;
}

const noCounts = (): OutcomeCounts => ({ APPROVED: 0, COUNTER_OFFER: 0, MANUAL_REVIEW: 0, DECLINED: 0 });

/** Why a decision is what it is, in codes: the manual-review codes, or the reason of a decline. */
export const reasonsOf = (decision: ReturnType<typeof decideFromAudit>): string[] => {
  if (decision.decision === 'MANUAL_REVIEW') return [...new Set(decision.manual_review_reasons.map((r) => r.code))];
  if (decision.decision === 'DECLINED') return [decision.explainability.primary_reason];
  if (decision.decision === 'COUNTER_OFFER') return [decision.counter_offer?.reason ?? 'Counter-offer'];
  return [];
};

/** The amount a decision lends: the ask or the counter-offer when approved or counter-offered. */
const lent = (decision: ReturnType<typeof decideFromAudit>): number =>
  decision.decision === 'APPROVED' || decision.decision === 'COUNTER_OFFER'
    ? decision.approval_details.approved_amount
    : 0;

/**
 * Replays a draft and the active policy on stored analyses, with the scorecard of today, so
 * that what changes is the policy's doing alone. Pure: no bureau, no provider, no event.
 */
export const simulatePolicy = (
  analyses: readonly StoredAnalysis[],
  current: AppliedPolicy,
  draft: { version: number; policy: CreditPolicy },
  /** Told of each replay: what the simulated version decides of the analysis. */
  onReplay?: (analysis: StoredAnalysis, decision: ReturnType<typeof decideFromAudit>) => void,
): SimulationResult => {
  const result: SimulationResult = {
    evaluated: 0,
    current: noCounts(),
    draft: noCounts(),
    approvedAmount: { current: 0, draft: 0 },
    changed: [],
  };
  for (const analysis of analyses) {
    const context = { applicantId: analysis.applicantId, loan: analysis.loan, now: analysis.decidedAt };
    const before = decideFromAudit(analysis.audit, { ...context, policy: current });
    const after = decideFromAudit(analysis.audit, { ...context, policy: draft });
    onReplay?.(analysis, after);
    result.evaluated++;
    result.current[before.decision]++;
    result.draft[after.decision]++;
    result.approvedAmount.current += lent(before);
    result.approvedAmount.draft += lent(after);
    if (before.decision !== after.decision)
      result.changed.push({
        applicationId: analysis.applicationId,
        from: before.decision as DecisionOutcome,
        to: after.decision as DecisionOutcome,
        reasons: reasonsOf(after),
      });
  }
  return result;
};
