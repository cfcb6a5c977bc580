import type { BadDefinition, Decision } from '@loan/contracts';
import type { z } from 'zod';
import type { BacktestResult, StressResult } from '@loan/contracts';
import { isBad, type LoanState } from '../outcomes/loanState';
import { MINIMUM, tooFew } from '../performance/report';
import { round } from '../performance/metrics';
import { existingMonthlyDebt, type ScoringAudit } from '../scorecard';

const grants = (decision: Decision) => decision.decision === 'APPROVED' || decision.decision === 'COUNTER_OFFER';

function observed(states: LoanState[], bad: BadDefinition) {
  const bads = states.filter((state) => isBad(state, bad)).length;
  const enough = states.length >= MINIMUM.rate;
  return {
    loans: states.length,
    bad: bads,
    badRate: enough ? round(bads / states.length) : null,
    note: enough ? null : tooFew(states.length, MINIMUM.rate, 'bad rate'),
  };
}

/** What a back-test on reported outcomes cannot know. */
export const BACKTEST_LIMITS = [
  'Applications the active version declined never became loans: how they would have performed is unknown, and the back-test does not guess (reject inference is out of scope).',
  'Loans still open may yet go bad: the more recent the disbursements, the lower the observed bad rate.',
  'A loan is measured as it was granted; where the simulated version would counter-offer other terms, that loan would have been another.',
  'Loans the simulated version would refer to a review are counted in neither group.',
];

/**
 * The simulated version's decisions of past applications against how the loans turned out: the
 * observed bad rate of the loans it would also grant, and of those it would decline. Only
 * applications that became loans have outcomes (the active version, or a review, granted them).
 */
export function backtest(
  replays: readonly { applicationId: string; draft: Decision }[],
  loans: ReadonlyMap<string, LoanState>,
  bad: BadDefinition,
): z.infer<typeof BacktestResult> {
  const both: LoanState[] = [];
  const declined: LoanState[] = [];
  let withOutcomes = 0;
  for (const { applicationId, draft } of replays) {
    const loan = loans.get(applicationId);
    if (!loan) continue;
    withOutcomes++;
    if (grants(draft)) both.push(loan);
    else if (draft.decision === 'DECLINED') declined.push(loan);
  }
  return {
    withOutcomes,
    bothApproved: observed(both, bad),
    draftWouldDecline: observed(declined, bad),
    limits: BACKTEST_LIMITS,
  };
}

/**
 * The simulated version's approvals under a shock: income deflated by the CPI figure
 * (income / (1 + cpi)), and what the applicant spends (income less the net monthly flow, in
 * naira) up by `expenseIncreasePercent`. An approval fails when its payment and the existing debt
 * pass the policy's debt service cap of the deflated income, or when the deflated income no
 * longer covers the raised spending and the payment.
 */
export function stressApprovals(
  replays: readonly { audit: ScoringAudit; draft: Decision; maxDebtServiceRatio: number }[],
  shock: { cpiPercent: number; expenseIncreasePercent: number },
): z.infer<typeof StressResult> {
  let approvals = 0;
  let overCap = 0;
  let overSpent = 0;
  let failing = 0;
  for (const { audit, draft, maxDebtServiceRatio } of replays) {
    if (!grants(draft)) continue;
    approvals++;
    const { features } = audit;
    const income = features.monthlyIncome / (1 + shock.cpiPercent / 100);
    const spending =
      Math.max(0, features.monthlyIncome - features.netFlowMonthlyAverage) * (1 + shock.expenseIncreasePercent / 100);
    const payment = draft.approval_details.monthly_payment;
    const debt = existingMonthlyDebt(features, audit.bureauSummary);
    const capped = debt + payment > maxDebtServiceRatio * income;
    const short = income - spending - payment < 0;
    if (capped) overCap++;
    if (short) overSpent++;
    if (capped || short) failing++;
  }
  return {
    cpiPercent: shock.cpiPercent,
    expenseIncreasePercent: shock.expenseIncreasePercent,
    approvals,
    failing,
    failingShare: approvals ? round(failing / approvals) : null,
    overDebtServiceCap: overCap,
    expensesExceedIncome: overSpent,
  };
}
