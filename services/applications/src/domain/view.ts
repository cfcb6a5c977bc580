import type { ApplicationView } from '@loan/contracts';
import type { Application } from './application';

/** What `GET /api/applications/:id` shows: status, applicant summary, accounts, decision. */
export function toView(state: Application): ApplicationView {
  return {
    applicationId: state.applicationId,
    applicantId: state.applicantId,
    status: state.status,
    applicant: { firstName: state.applicant.firstName, lastName: state.applicant.lastName, email: state.applicant.email },
    loan: { ...state.loan },
    linkingLocked: state.linkingLocked,
    accounts: state.accounts.map((a) => ({
      accountId: a.accountId,
      providerAccountId: a.providerAccountId,
      institution: a.institution,
      accountNumber: a.accountNumber,
      enrichmentStatus: a.enrichmentStatus,
      linkedAt: a.linkedAt.toISOString(),
    })),
    decision: state.decision,
    failureReason: state.failureReason,
    abandonReason: state.abandonReason,
    createdAt: state.createdAt.toISOString(),
    updatedAt: state.updatedAt.toISOString(),
  };
}
