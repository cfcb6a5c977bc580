import type { AnalyticsRecord, PublicEventRecord } from '@loan/contracts';

/** A stable, non-reversible stand-in for an id (what kind of id it is, and the id). */
export type Pseudonym = (kind: 'lender' | 'application' | 'account' | 'reviewer', id: string) => string;

/**
 * What an analyst may see of a public event: its name and time, pseudonyms for the lender,
 * the application and the account, the bank's name, counts, reasons, and the decision's
 * outcome and figures, a review's outcome and terms. Never the applicant's id or identity, an
 * account number, an explanation text (it may quote a holder's name), a reviewer's note or a
 * reviewer's own id: the reviewer is a pseudonym within the lender (staff ids of two lenders
 * may be the same).
 */
export function toAnalyticsRecord(record: PublicEventRecord, pseudonym: Pseudonym): AnalyticsRecord {
  const data = record.data as Record<string, unknown>;
  const text = (key: string) => (typeof data[key] === 'string' ? (data[key] as string) : null);
  const accountId = text('accountId');
  const base: AnalyticsRecord = {
    id: record.id,
    event: record.event,
    at: record.timestamp,
    lender: pseudonym('lender', record.clientId),
    application: record.applicationId ? pseudonym('application', record.applicationId) : null,
    account: accountId ? pseudonym('account', accountId) : null,
    institution: text('institution'),
    accountCount: typeof data.accountCount === 'number' ? data.accountCount : null,
    reason: text('reason'),
    decision: null,
  };
  if (record.event === 'application.review_completed') {
    const review = record.data;
    return {
      ...base,
      reason: null,
      review: {
        outcome: review.outcome,
        reviewer: pseudonym('reviewer', `${record.clientId}:${review.reviewer}`),
        reasonCode: review.reasonCode,
        approvedAmount: review.approval_details?.approved_amount ?? null,
        approvedTenor: review.approval_details?.approved_tenor ?? null,
      },
    };
  }
  if (record.event !== 'application.decision') return base;
  const { decision } = record.data;
  return {
    ...base,
    decision: {
      outcome: decision.decision,
      score: decision.score,
      band: decision.score_band,
      approvedAmount: decision.approval_details.approved_amount,
      approvedTenor: decision.approval_details.approved_tenor,
      counterOfferAmount: decision.counter_offer?.amount ?? null,
      counterOfferTenor: decision.counter_offer?.tenor ?? null,
      creditBureauChecked: decision.regulatory_compliance.credit_bureau_checked,
      identityVerified: decision.regulatory_compliance.identity_verified,
      ...(decision.policy_version === undefined ? {} : { policyVersion: decision.policy_version }),
    },
  };
}
