import type { ApplicationSummary, ApplicationView } from '@loan/contracts';
import type { Application } from './application';
import { toConsentView } from './consent/decide';
import { contestAvailabilityOf } from './contestDecision/decide';
import { toOfferView } from './respondToOffer/decide';
import { toContestView, toReviewView } from './reviewApplication/decide';

/** What `GET /api/applications/:id` shows: status, applicant summary, accounts, decision. */
export function toView(state: Application, now: Date = new Date()): ApplicationView {
  return {
    applicationId: state.applicationId,
    applicantId: state.applicantId,
    status: state.status,
    applicant: {
      firstName: state.applicant.firstName,
      lastName: state.applicant.lastName,
      email: state.applicant.email,
    },
    loan: { ...state.loan },
    linkingLocked: state.linkingLocked,
    linkingFinalizedAt: state.linkingLockedAt?.toISOString() ?? null,
    analysisRequestedAt: state.analysis?.requestedAt.toISOString() ?? null,
    accounts: state.accounts.map((a) => ({
      accountId: a.accountId,
      providerAccountId: a.providerAccountId,
      institution: a.institution,
      accountNumber: a.accountNumber,
      enrichmentStatus: a.enrichmentStatus,
      linkedAt: a.linkedAt.toISOString(),
      enrichedAt: a.enrichedAt?.toISOString() ?? null,
      monthlyFlows: a.monthlyFlows.map((f) => ({ ...f })),
      ...(a.consent ? { consent: toConsentView(state.applicationId, a) } : {}),
    })),
    decision: state.decision,
    review: state.review ? toReviewView(state.review) : null,
    contestAvailability: contestAvailabilityOf(state),
    contest: state.contest ? toContestView(state.contest) : null,
    offer: toOfferView(state, now),
    failureReason: state.failureReason,
    abandonReason: state.abandonReason,
    retainedUntil: state.retainedUntil?.toISOString() ?? null,
    createdAt: state.createdAt.toISOString(),
    updatedAt: state.updatedAt.toISOString(),
  };
}

/** A row of `GET /api/applications`: who, how much, where it stands. */
export function toSummary(state: Application): ApplicationSummary {
  return {
    applicationId: state.applicationId,
    applicantId: state.applicantId,
    status: state.status,
    applicantName: `${state.applicant.firstName} ${state.applicant.lastName}`,
    amount: state.loan.amount,
    tenor: state.loan.tenor,
    accountCount: state.accounts.length,
    score: state.decision?.score ?? null,
    decision: state.decision?.decision ?? null,
    createdAt: state.createdAt.toISOString(),
    updatedAt: state.updatedAt.toISOString(),
  };
}
