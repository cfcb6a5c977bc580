export {
  buildScoringAudit,
  decideFromAudit,
  repaymentCapacityOf,
  scoreApplication,
  scoreApplicationWithAudit,
} from './scoreApplication';
export type { DecisionContext, ScoreApplicationInput } from './scoreApplication';
export { NoEnrichedAccountsError } from './errors';
export type { CodedReviewReason, DeclineCode, ManualReviewCode } from './outcome';
