import type { InitiateRequest } from '@loan/contracts';
import { type Application, type Outcome, fact, reject } from '../application';
import { KEY_IN_USE_STATUSES, transition } from '../stateMachine';

export interface InitiateResult extends Record<string, unknown> {
  applicationId: string;
  applicantId: string;
  widgetUrl: string;
  status: 'PENDING_LINKING';
  resumed: boolean;
}

/**
 * Initiate with a key that already has an application: resume it (PENDING_LINKING or
 * ABANDONED) with a fresh widget address, or refuse (another client's key: 403; an
 * application past linking: 409).
 */
export function decideExistingKey(
  existing: Application,
  clientId: string,
): { action: 'resume' } | ReturnType<typeof reject> {
  if (existing.clientId !== clientId) {
    return reject('KEY_OWNED_BY_OTHER_CLIENT', 'idempotencyKey is already used by another account');
  }
  if (KEY_IN_USE_STATUSES.includes(existing.status)) {
    return reject(
      'KEY_IN_USE',
      `An application with this idempotencyKey is already ${existing.status}; use a new idempotencyKey`,
    );
  }
  return { action: 'resume' };
}

const loanOf = (request: InitiateRequest): Application['loan'] => ({
  amount: request.amount,
  tenor: request.tenor,
  interestRate: request.interestRate,
  purpose: request.purpose ?? null,
});

/**
 * Resumes an application with a fresh widget address and a new 24-hour link window. The
 * request that resumes it is the lender's current truth: applicant and loan come from it
 * (abandonment cleared the stored BVN; a resend may carry it again, or new terms). `applicant`
 * is the request's identity, sealed.
 */
export function resumeApplication(
  existing: Application,
  input: {
    request: InitiateRequest;
    applicant: Application['applicant'];
    widgetUrl: string;
    providerKeySealed: string;
    now: Date;
  },
): Outcome<InitiateResult> {
  const next = transition(existing.status, 'resume');
  if (!next) return reject('KEY_IN_USE', `Cannot resume application with status: ${existing.status}`);
  const state: Application = {
    ...existing,
    status: next,
    applicant: input.applicant,
    loan: loanOf(input.request),
    widgetUrl: input.widgetUrl,
    providerKeySealed: input.providerKeySealed,
    linkWindowStart: input.now,
    abandonReason: null,
    // Open again: its records are kept from its next end.
    retainedUntil: null,
    updatedAt: input.now,
  };
  return {
    ok: true,
    state,
    effects: [fact({ type: 'ApplicationResumed', applicantId: existing.applicantId })],
    result: {
      applicationId: existing.applicationId,
      applicantId: existing.applicantId,
      widgetUrl: input.widgetUrl,
      status: 'PENDING_LINKING',
      resumed: true,
    },
  };
}

/**
 * A new application and applicant, waiting for the applicant to link an account. `applicant`
 * is the request's identity, sealed.
 */
export function openApplication(input: {
  applicationId: string;
  applicantId: string;
  clientId: string;
  request: InitiateRequest;
  applicant: Application['applicant'];
  providerKeySealed: string;
  widgetUrl: string;
  now: Date;
}): Outcome<InitiateResult> {
  const { request, now } = input;
  const state: Application = {
    applicationId: input.applicationId,
    clientId: input.clientId,
    applicantId: input.applicantId,
    idempotencyKey: request.idempotencyKey,
    status: 'PENDING_LINKING',
    applicant: input.applicant,
    loan: loanOf(request),
    providerKeySealed: input.providerKeySealed,
    widgetUrl: input.widgetUrl,
    linkWindowStart: now,
    linkingLocked: false,
    linkingLockedAt: null,
    readyAnnounced: false,
    firstLinkedAt: null,
    accounts: [],
    analysis: null,
    decision: null,
    repaymentCapacity: null,
    review: null,
    failureReason: null,
    abandonReason: null,
    handled: [],
    createdAt: now,
    updatedAt: now,
  };
  return {
    ok: true,
    state,
    effects: [fact({ type: 'ApplicationOpened', applicantId: input.applicantId })],
    result: {
      applicationId: input.applicationId,
      applicantId: input.applicantId,
      widgetUrl: input.widgetUrl,
      status: 'PENDING_LINKING',
      resumed: false,
    },
  };
}
