import type { AnalyticsRecord, PublicEventRecord } from '@loan/contracts';

/** A stable, non-reversible stand-in for an id (what kind of id it is, and the id). */
export type Pseudonym = (kind: 'lender' | 'application' | 'account', id: string) => string;

/**
 * What an analyst may see of a public event: its name and time, pseudonyms for the lender,
 * the application and the account, the bank's name, counts, reasons, and the decision's
 * outcome and figures. Never the applicant's id or identity, an account number or an
 * explanation text (it may quote a holder's name).
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
