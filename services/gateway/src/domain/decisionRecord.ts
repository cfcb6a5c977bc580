import type { ApplicationView } from '@loan/contracts';

const round2 = (n: number) => Math.round(n * 100) / 100;
const mean = (values: number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);

/**
 * The claims of an application's decision record: what was decided, from what and on which
 * terms, for the applicant to carry (NDPA s.37, FCCPC 2025 disclosure). The inputs are
 * summarised (each account's bank, the last four digits of its number, its months and average
 * flows), never its transactions; no name, e-mail, phone, BVN, statement or reviewer appears.
 * Null while there is no decision.
 */
export function decisionRecordClaims(
  view: ApplicationView,
  lender: { clientId: string; name: string | null },
): Record<string, unknown> | null {
  const decision = view.decision;
  if (!decision) return null;
  const review = view.review?.status === 'FINAL' ? view.review : null;
  return {
    sub: view.applicationId,
    applicantId: view.applicantId,
    lender: { clientId: lender.clientId, name: lender.name },
    ask: { amount: view.loan.amount, tenor: view.loan.tenor, interestRate: view.loan.interestRate },
    inputs: {
      accounts: view.accounts.map((account) => ({
        institution: account.institution,
        accountNumberLast4: account.accountNumber.slice(-4),
        enrichmentStatus: account.enrichmentStatus,
        months: account.monthlyFlows.length,
        averageMonthlyInflow: round2(mean(account.monthlyFlows.map((f) => f.inflow))),
        averageMonthlyOutflow: round2(mean(account.monthlyFlows.map((f) => f.outflow))),
      })),
      identity_verified: decision.regulatory_compliance.identity_verified,
      credit_bureau_checked: decision.regulatory_compliance.credit_bureau_checked,
      thin_file: decision.regulatory_compliance.thin_file,
    },
    decision: {
      outcome: decision.decision,
      decidedAt: decision.timestamp,
      score: decision.score,
      score_band: decision.score_band,
      score_breakdown: decision.score_breakdown,
      risk_factors: decision.risk_factors,
      explainability: decision.explainability,
      manual_review_reasons: decision.manual_review_reasons,
      approval_details: decision.approval_details,
      counter_offer: decision.counter_offer,
      key_facts: decision.key_facts ?? null,
      scorecard_version: decision.scorecard_version,
      policy_version: decision.policy_version ?? null,
    },
    review: review
      ? {
          outcome: review.outcome,
          reviewedAt: review.reviewedAt,
          reasonCode: review.reasonCode,
          approval_details: review.approval_details,
          key_facts: review.key_facts ?? null,
          confirmedBySecondReviewer: review.confirmedBy !== null,
          contestId: review.contestId ?? null,
        }
      : null,
    contest: view.contest
      ? {
          contestId: view.contest.contestId,
          status: view.contest.status,
          contestedOutcome: view.contest.contestedOutcome,
          openedAt: view.contest.openedAt,
          resolvedAt: view.contest.resolvedAt,
        }
      : null,
    /** The decision as it stands: the final review's, otherwise the scorecard's. */
    standingOutcome: review ? review.outcome : decision.decision,
  };
}
