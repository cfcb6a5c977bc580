import type { z } from 'zod';
import type {
  ApplicationPage,
  BadDefinition,
  BulkOutcomeResult,
  LoanOutcomes,
  PerformanceReportView,
  ApplicationStatus,
  ApplicationSummary,
  ApplicationView,
  ChallengerReport,
  ClientSettings,
  CreditPolicy,
  DecisionOutcome,
  DeliveryPage,
  DeliveryView,
  MonthlyFlow,
  PolicyCreated,
  PolicyList,
  PolicyVersionView,
  PortfolioReport,
  ReplayResult,
  SimulationResult,
  ReviewOutcome,
  ReviewPage,
  ReviewQueueItem,
  ReviewQueueStatus,
  ReviewView,
  StaffInvitation,
  StaffRole,
  StaffUser,
} from '@loan/contracts';

/**
 * The console's calls: the lender API under /console/api, authenticated by the session cookie
 * (which no script can read), with the session's CSRF token on every change.
 */

export type {
  ApplicationStatus,
  ApplicationSummary,
  ApplicationView,
  ClientSettings,
  DecisionOutcome,
  DeliveryView,
  MonthlyFlow,
  ReplayResult,
};
export type { StaffInvitation, StaffRole, StaffUser };
export type { ChallengerReport, CreditPolicy, PolicyList, PolicyVersionView, SimulationResult };
export type { PortfolioReport };
export type { BadDefinition, PerformanceReportView };
/** A loan's state and its outcomes in order (`GET /api/applications/{id}/outcomes`). */
export type LoanOutcomesView = z.infer<typeof LoanOutcomes>;
/** What a bulk upload of outcomes answers: the counts, and each row's answer by line. */
export type OutcomeUpload = z.infer<typeof BulkOutcomeResult>;
export type { ReviewOutcome, ReviewPage, ReviewQueueItem, ReviewQueueStatus, ReviewView };

/** What a review or a confirmation answers: the review as it now stands. */
export interface ReviewResult {
  applicationId: string;
  status: ApplicationStatus;
  review: ReviewView;
}

export interface SessionState {
  signedIn: boolean;
  csrfToken: string;
  clientId?: string;
  name?: string;
  expiresAt?: string;
  /** The staff user signed in; null when the console was opened with the API key (which may do everything). */
  user?: { userId: string; email: string | null; role: StaffRole } | null;
  /** A trace UI (Jaeger) to link an application's traces to, when the gateway names one. */
  traceUiUrl?: string | null;
  /** The lender's time zone: its days and the times shown. */
  timeZone?: string;
}

/** What an invitation link shows before it is accepted. */
export interface InvitationView {
  email: string;
  role: StaffRole;
  lenderName: string;
  expiresAt: string;
  totpRequired: boolean;
  totpSecret: string;
  otpauthUri: string;
}

/** An answer other than 2xx, in the API's error shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

let csrfToken = '';
const signedOutListeners = new Set<() => void>();

/** Called when a call answers 401: the session ended (expired, signed out elsewhere, key rotated). */
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

/** `body` is sent as JSON, unless `contentType` names what the text of `body` already is (a CSV). */
async function request<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  if (body !== undefined) headers['content-type'] = contentType ?? 'application/json';
  let res: Response;
  try {
    res = await fetch(`/console${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : contentType ? String(body) : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'The gateway could not be reached; check the connection and retry');
  }
  if (res.status === 204) return undefined as T;
  let payload: unknown = null;
  try {
    payload = await res.json();
  } catch {
    payload = null;
  }
  if (!res.ok) {
    const message = (payload as { message?: unknown } | null)?.message;
    if (res.status === 401 && path.startsWith('/api/')) for (const listener of signedOutListeners) listener();
    throw new ApiError(res.status, typeof message === 'string' ? message : `The gateway answered ${res.status}`);
  }
  return payload as T;
}

function query(params: Record<string, string | string[] | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === '') continue;
    for (const one of Array.isArray(value) ? value : [value]) search.append(name, String(one));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** The performance report's days (YYYY-MM-DD): the drift's period and its baseline; the report's day. */
export interface PerformanceQuery {
  asOf?: string;
  from?: string;
  to?: string;
  baselineFrom?: string;
  baselineTo?: string;
}

const id = (value: string) => encodeURIComponent(value);

export const api = {
  async session(): Promise<SessionState> {
    let state: SessionState;
    try {
      state = await request<SessionState>('GET', '/session');
    } catch (e) {
      // The session had ended: the answer dropped its cookie, and the next one is the sign-in's.
      if (!(e instanceof ApiError && e.status === 401)) throw e;
      state = await request<SessionState>('GET', '/session');
    }
    csrfToken = state.csrfToken;
    return state;
  },
  async signIn(apiKey: string): Promise<SessionState> {
    const state = await request<SessionState>('POST', '/session', { apiKey });
    csrfToken = state.csrfToken;
    return state;
  },
  async signInAsStaff(email: string, password: string, totpCode?: string): Promise<SessionState> {
    const state = await request<SessionState>('POST', '/session', {
      email,
      password,
      ...(totpCode ? { totpCode } : {}),
    });
    csrfToken = state.csrfToken;
    return state;
  },
  invitation: (token: string) => request<InvitationView>('POST', '/invitation', { token }),
  acceptInvitation: (token: string, password: string, totpCode?: string) =>
    request<StaffUser>('POST', '/invitation/accept', { token, password, ...(totpCode ? { totpCode } : {}) }),
  users: () => request<{ items: StaffUser[] }>('GET', '/api/users'),
  inviteUser: (email: string, role: StaffRole) => request<StaffInvitation>('POST', '/api/users', { email, role }),
  changeRole: (userId: string, role: StaffRole) => request<StaffUser>('PATCH', `/api/users/${id(userId)}`, { role }),
  removeUser: (userId: string) => request<void>('DELETE', `/api/users/${id(userId)}`),
  changePassword: (currentPassword: string, newPassword: string) =>
    request<void>('POST', '/password', { currentPassword, newPassword }),
  startTotp: (currentPassword: string) =>
    request<{ totpSecret: string; otpauthUri: string; enrolment: string }>('POST', '/totp', { currentPassword }),
  confirmTotp: (enrolment: string, totpCode: string) => request<void>('POST', '/totp/confirm', { enrolment, totpCode }),
  async signOut(): Promise<void> {
    await request<void>('DELETE', '/session');
    csrfToken = '';
  },
  applications: (params: {
    status?: string[];
    decision?: string[];
    from?: string;
    to?: string;
    q?: string;
    limit?: number;
    cursor?: string | null;
  }) => request<ApplicationPage>('GET', `/api/applications${query(params)}`),
  application: (applicationId: string) => request<ApplicationView>('GET', `/api/applications/${id(applicationId)}`),
  deliveries: (params: {
    applicationId?: string;
    status?: string;
    event?: string;
    limit?: number;
    cursor?: string | null;
  }) => request<DeliveryPage>('GET', `/api/webhooks/deliveries${query(params)}`),
  redeliver: (deliveryId: string) =>
    request<DeliveryView>('POST', `/api/webhooks/deliveries/${id(deliveryId)}/redeliver`),
  replay: (since: string) => request<ReplayResult>('POST', '/api/webhooks/deliveries/replay', { since }),
  reviews: (params: { status?: ReviewQueueStatus; limit?: number; cursor?: string | null }) =>
    request<ReviewPage>('GET', `/api/reviews${query(params)}`),
  review: (applicationId: string, body: Record<string, unknown>) =>
    request<ReviewResult>('POST', `/api/applications/${id(applicationId)}/review`, body),
  /** Opens the applicant's contest of a DECLINED or COUNTER_OFFER decision with their statement. */
  contest: (applicationId: string, statement: string) =>
    request<{ applicationId: string; status: string }>('POST', `/api/applications/${id(applicationId)}/contest`, {
      statement,
    }),
  /** `reviewer` null: the signed-in user confirms. */
  confirmReview: (applicationId: string, reviewer: string | null) =>
    request<ReviewResult>(
      'POST',
      `/api/applications/${id(applicationId)}/review/confirm`,
      reviewer === null ? {} : { reviewer },
    ),
  portfolio: (params: { from?: string; to?: string }) =>
    request<PortfolioReport>('GET', `/api/portfolio${query(params)}`),
  performance: (params: PerformanceQuery) =>
    request<PerformanceReportView>('GET', `/api/performance${query({ ...params })}`),
  /** The same figures as a CSV file, for a link the browser downloads. */
  performanceCsvUrl: (params: PerformanceQuery) => `/console/api/performance${query({ ...params, format: 'csv' })}`,
  updateBadDefinition: (bad: BadDefinition) =>
    request<{ bad: BadDefinition }>('PUT', '/api/performance/settings', { bad }),
  /** A CSV of outcomes (header `applicationId,idempotencyKey,type,date,...`), each row answered by its line. */
  uploadOutcomes: (csv: string) => request<OutcomeUpload>('POST', '/api/outcomes', csv, 'text/csv'),
  /** 404 when the lender has reported no outcome of the application. */
  outcomes: (applicationId: string) =>
    request<LoanOutcomesView>('GET', `/api/applications/${id(applicationId)}/outcomes`),
  client: () => request<ClientSettings>('GET', '/api/client'),
  updateTimeZone: (timeZone: string | null) => request<ClientSettings>('PATCH', '/api/client', { timeZone }),
  updateWebhookUrl: (webhookUrl: string | null) => request<ClientSettings>('PATCH', '/api/client', { webhookUrl }),
  updateReviewThreshold: (reviewConfirmationAbove: number | null) =>
    request<ClientSettings>('PATCH', '/api/client', { reviewConfirmationAbove }),
  rotateKey: () => request<{ clientId: string; apiKey: string }>('POST', '/api/client/rotate-key'),
  rotateWebhookSecret: (overlapSeconds?: number) =>
    request<{ clientId: string; webhookSecret: string; previousSecretValidUntil: string }>(
      'POST',
      '/api/client/rotate-webhook-secret',
      overlapSeconds === undefined ? {} : { overlapSeconds },
    ),
  policies: () => request<PolicyList>('GET', '/api/policies'),
  createPolicy: (policy: unknown) => request<PolicyCreated>('POST', '/api/policies', policy),
  simulatePolicy: (version: number, limit?: number) =>
    request<SimulationResult>('POST', `/api/policies/${version}/simulate`, limit === undefined ? {} : { limit }),
  activatePolicy: (version: number) => request<PolicyVersionView>('POST', `/api/policies/${version}/activate`),
  setChallenger: (version: number) => request<PolicyVersionView>('POST', `/api/policies/${version}/challenger`),
  clearChallenger: () => request<{ challenger: null }>('DELETE', '/api/policies/challenger'),
  challengerReport: () => request<ChallengerReport>('GET', '/api/policies/challenger/report'),
};
