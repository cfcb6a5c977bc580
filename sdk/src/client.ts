import { randomUUID } from 'node:crypto';
import { DEFAULT_RETRY_POLICY, retryAfterMs, retryDelay, type AttemptFailure, type RetryPolicy } from './backoff';
import { apiErrorOf, LoanConnectionError, LoanError } from './errors';
import type {
  AnalyzeResponse,
  ApplicationListQuery,
  ApplicationPage,
  ApplicationSummary,
  ApplicationView,
  ChallengerReport,
  ClientSettings,
  CreditPolicy,
  ConfirmReviewRequest,
  ContestRequest,
  ContestResult,
  DecisionRecordResponse,
  DeletionReceiptResponse,
  WithdrawConsentResult,
  OfferResponseRequest,
  OfferResult,
  DeliveryListQuery,
  DeliveryPage,
  DeliveryView,
  ErrorBody,
  FinalizeLinkingResponse,
  InitiateRequest,
  InitiateResponse,
  LinkAccountRequest,
  LinkAccountResponse,
  PolicyCreated,
  PolicyList,
  PolicyVersionView,
  ReplayRequest,
  ReplayResult,
  ReviewListQuery,
  ReviewPage,
  PortfolioQuery,
  PortfolioReport,
  ReviewQueueItem,
  ReviewRequest,
  ReviewView,
  RotateKeyResponse,
  RotateWebhookSecretRequest,
  RotateWebhookSecretResponse,
  SimulateRequest,
  SimulationResult,
  OutcomeReport,
  OutcomeAnswer,
  LoanOutcomes,
  OutcomeRow,
  BulkOutcomeResult,
  PerformanceQuery,
  PerformanceReport,
  PerformanceSettings,
  InviteUserRequest,
  StaffInvitation,
  StaffRole,
  StaffSettings,
  StaffUser,
  UpdateClientSettingsRequest,
} from './types';
import { VERSION } from './version';

export interface LoanClientOptions {
  /** Your account's API key (`x-api-key`). */
  apiKey: string;
  /** The service's origin, e.g. `http://127.0.0.1:8080`; paths start with `/api`. */
  baseUrl: string;
  /** How long one attempt may take before it is abandoned and retried: 30 s by default. */
  timeoutMs?: number;
  /** Retries of network errors, timeouts, 5xx and 429 (see `DEFAULT_RETRY_POLICY`). */
  retry?: Partial<RetryPolicy>;
  /** Called before each retry, e.g. to log it. */
  onRetry?: (retry: RetryInfo) => void;
  /** A fetch of your own (a proxy agent, instrumentation); the global fetch by default. */
  fetch?: typeof fetch;
}

/** One retry about to happen. */
export interface RetryInfo {
  method: string;
  path: string;
  /** 1 for the first retry. */
  retry: number;
  delayMs: number;
  /** The status that caused it, or null after a network error or timeout. */
  statusCode: number | null;
  /** The same on every attempt of one call. */
  requestId: string;
}

/** Per call: cancel it with `signal`, or give one attempt a different time limit. */
export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** What a review and its confirmation answer. */
export interface ReviewResult {
  applicationId: string;
  status: 'COMPLETED';
  review: ReviewView;
}

/** initiate's body; the idempotencyKey is generated when you leave it out. */
export type InitiateInput = Omit<InitiateRequest, 'idempotencyKey'> & { idempotencyKey?: string };

/** initiate's answer, with the idempotencyKey it used: store it to resume the application later. */
export type InitiateResult = InitiateResponse & { idempotencyKey: string };

export interface LoanClient {
  /**
   * Opens an application (or resumes the PENDING_LINKING or ABANDONED one of the same key) and
   * returns the widget address for the applicant. Retried with the same idempotencyKey, so a
   * retry never opens a second application.
   */
  initiate(request: InitiateInput, options?: RequestOptions): Promise<InitiateResult>;
  /** Status, loan, accounts and decision of an application: for polling. */
  getApplication(applicationId: string, options?: RequestOptions): Promise<ApplicationView>;
  /** Locks the application against more linking; `application.ready_for_analysis` follows. */
  finalizeLinking(applicationId: string, options?: RequestOptions): Promise<FinalizeLinkingResponse>;
  /** Queues the analysis; the result comes as `application.decision` or `application.failed`. */
  analyze(applicationId: string, options?: RequestOptions): Promise<AnalyzeResponse>;
  /** A fresh widget address; with `accountId`, re-links that account and restarts its enrichment. */
  linkAccount(
    applicationId: string,
    request?: LinkAccountRequest,
    options?: RequestOptions,
  ): Promise<LinkAccountResponse>;
  /** One page of your webhook delivery log, newest first. */
  listDeliveries(query?: DeliveryListQuery, options?: RequestOptions): Promise<DeliveryPage>;
  /** Every delivery matching `query`, newest first, fetching page after page as you iterate. */
  deliveries(query?: Omit<DeliveryListQuery, 'cursor'>, options?: RequestOptions): AsyncIterable<DeliveryView>;
  /** One delivery and its attempts. */
  getDelivery(deliveryId: string, options?: RequestOptions): Promise<DeliveryView>;
  /** Sends a delivery again (one attempt), whatever its status; 409 while it is pending. */
  redeliver(deliveryId: string, options?: RequestOptions): Promise<DeliveryView>;
  /** Re-queues FAILED deliveries since a time; call again while `more` is true. */
  replayDeliveries(request: ReplayRequest, options?: RequestOptions): Promise<ReplayResult>;
  /** Your credit policy versions, the active one (version 0, built-in, until you activate one) and the challenger. */
  listPolicies(options?: RequestOptions): Promise<PolicyList>;
  /**
   * A new draft version of your credit policy; a bad one is refused naming every bad field.
   * Never retried (a repeat would make a second draft): on a network error, list your policies.
   */
  createPolicy(policy: CreditPolicy, options?: RequestOptions): Promise<PolicyCreated>;
  /** One version of your credit policy. */
  getPolicy(version: number, options?: RequestOptions): Promise<PolicyVersionView>;
  /** Replays a version on your latest decided applications, against the active one; read-only. */
  simulatePolicy(version: number, request?: SimulateRequest, options?: RequestOptions): Promise<SimulationResult>;
  /** Makes a version decide every analysis you ask for from now on. */
  activatePolicy(version: number, options?: RequestOptions): Promise<PolicyVersionView>;
  /** Runs a draft in the shadow of the active version. */
  setChallenger(version: number, options?: RequestOptions): Promise<PolicyVersionView>;
  /** Stops the challenger. */
  clearChallenger(options?: RequestOptions): Promise<{ challenger: null }>;
  /** The challenger against the active version since it was set. */
  challengerReport(options?: RequestOptions): Promise<ChallengerReport>;
  /** One page of your applications, newest first, filtered by status or found by id (`q`). */
  listApplications(query?: ApplicationListQuery, options?: RequestOptions): Promise<ApplicationPage>;
  /**
   * Every application matching `query` as one CSV file (text), newest first, with decisions and
   * their terms; a text cell that a spreadsheet would read as a formula starts with an apostrophe.
   */
  exportApplications(query?: Omit<ApplicationListQuery, 'cursor' | 'limit'>, options?: RequestOptions): Promise<string>;
  /** Every application matching `query`, newest first, fetching page after page as you iterate. */
  applications(
    query?: Omit<ApplicationListQuery, 'cursor'>,
    options?: RequestOptions,
  ): AsyncIterable<ApplicationSummary>;
  /**
   * Reviews a MANUAL_REVIEW decision (approve, counter-offer, decline) as `request.reviewer`.
   * Above your `reviewConfirmationAbove` it awaits `confirmReview` by another reviewer. Safe to
   * retry: the same review sent again is answered as the first.
   */
  reviewApplication(applicationId: string, request: ReviewRequest, options?: RequestOptions): Promise<ReviewResult>;
  /** Confirms a review awaiting a second reviewer, who must not be its maker; it becomes final. */
  confirmReview(applicationId: string, request: ConfirmReviewRequest, options?: RequestOptions): Promise<ReviewResult>;
  /**
   * Contests a DECLINED or COUNTER_OFFER decision with the applicant's statement: it goes back to
   * your review queue, and its review (always confirmed by a second reviewer) sends
   * `application.review_completed` naming the contest. Safe to retry with the same statement.
   */
  contestDecision(applicationId: string, request: ContestRequest, options?: RequestOptions): Promise<ContestResult>;
  /**
   * The applicant's answer to the offer: ACCEPTED or DECLINED while it is open, WITHDRAWN
   * within the cooling-off period after an acceptance. Safe to retry with the same answer.
   */
  respondToOffer(applicationId: string, request: OfferResponseRequest, options?: RequestOptions): Promise<OfferResult>;
  /** The decision as a signed record the applicant can carry: a JWS verifiable offline with the keys at `/.well-known/jwks.json`. */
  getDecisionRecord(applicationId: string, options?: RequestOptions): Promise<DecisionRecordResponse>;
  /**
   * The applicant withdraws consent to read one linked account, once the application is decided
   * or closed: nothing more is read, the account is unlinked at the provider and its bank data
   * erased (`account.consent_ended`, then `account.data_erased`). A second withdrawal is refused.
   */
  withdrawConsent(applicationId: string, accountId: string, options?: RequestOptions): Promise<WithdrawConsentResult>;
  /** The signed deletion receipt of an account whose consent ended, once its erasure is done (a 409 before). */
  getDeletionReceipt(
    applicationId: string,
    accountId: string,
    options?: RequestOptions,
  ): Promise<DeletionReceiptResponse>;
  /**
   * Reports an event of the loan (disbursed, paid, missed, restructured, repaid, defaulted,
   * written off) under your own `idempotencyKey` for it: safe to retry with the same key, which
   * is answered as the first time; the same key with another outcome is a conflict.
   */
  reportOutcome(
    applicationId: string,
    outcome: OutcomeReport,
    idempotencyKey: string,
    options?: RequestOptions,
  ): Promise<OutcomeAnswer>;
  /** The loan as its outcomes make it, and the outcomes in order. */
  getLoanOutcomes(applicationId: string, options?: RequestOptions): Promise<LoanOutcomes>;
  /**
   * Outcomes in bulk (up to 10,000 rows): rows as objects (sent as NDJSON) or the text of a CSV
   * file. Each row is answered by its line; safe to retry (rows carry their keys).
   */
  uploadOutcomes(rows: readonly OutcomeRow[] | string, options?: RequestOptions): Promise<BulkOutcomeResult>;
  /** Your decisions measured against the outcomes: bad rates, Gini, KS, calibration, vintages, drift. */
  getPerformance(query?: PerformanceQuery, options?: RequestOptions): Promise<PerformanceReport>;
  /** What makes a loan bad for you. */
  getPerformanceSettings(options?: RequestOptions): Promise<PerformanceSettings>;
  setPerformanceSettings(settings: PerformanceSettings, options?: RequestOptions): Promise<PerformanceSettings>;
  /** One page of your review queue, oldest decision first: OPEN (the default) or DONE. */
  listReviews(query?: ReviewListQuery, options?: RequestOptions): Promise<ReviewPage>;
  /** Every application of the review queue matching `query`, fetching page after page as you iterate. */
  reviews(query?: Omit<ReviewListQuery, 'cursor'>, options?: RequestOptions): AsyncIterable<ReviewQueueItem>;
  /** Your numbers over a period of your days (the last 30 by default, at most 366). */
  getPortfolio(query?: PortfolioQuery, options?: RequestOptions): Promise<PortfolioReport>;
  /** Your account: webhook URL, the webhook secrets signing now (never their values), provider key set or not. */
  getClientSettings(options?: RequestOptions): Promise<ClientSettings>;
  /** Sets where your webhooks go (null: nowhere), your review threshold and your time zone. */
  updateClientSettings(request: UpdateClientSettingsRequest, options?: RequestOptions): Promise<ClientSettings>;
  /**
   * A new API key, shown once: store it. The old key stops working at once; this client uses
   * the new one from then on. Never retried (a lost answer would lose the key): on a network
   * error, check with the new key you may have, or ask your operator.
   */
  rotateApiKey(options?: RequestOptions): Promise<RotateKeyResponse>;
  /**
   * A new webhook secret, shown once; the previous one keeps signing `x-signature-previous` for
   * the overlap. Never retried: every attempt would rotate again.
   */
  rotateWebhookSecret(
    request?: RotateWebhookSecretRequest,
    options?: RequestOptions,
  ): Promise<RotateWebhookSecretResponse>;
  /** Your staff's console accounts, oldest first. */
  listUsers(options?: RequestOptions): Promise<{ items: StaffUser[] }>;
  /** Invites a member of staff by e-mail and role (a one-time link). Never retried: a second attempt would be refused as a duplicate. */
  inviteUser(request: InviteUserRequest, options?: RequestOptions): Promise<StaffInvitation>;
  /** Changes a user's role; the user's console sessions end. */
  changeUserRole(userId: string, role: StaffRole, options?: RequestOptions): Promise<StaffUser>;
  /** Removes a user (or withdraws an invitation); the user's console sessions end. */
  removeUser(userId: string, options?: RequestOptions): Promise<void>;
  /** Whether every user must sign in with an authenticator code. */
  getStaffSettings(options?: RequestOptions): Promise<StaffSettings>;
  updateStaffSettings(request: StaffSettings, options?: RequestOptions): Promise<StaffSettings>;
}

interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Headers of the call's own (an idempotency key). */
  headers?: Record<string, string>;
  /** A body sent as it is, not as JSON. */
  raw?: { contentType: string; text: string };
  path: string;
  /** A list is sent as the parameter repeated. */
  query?: Record<string, string | number | readonly string[] | undefined>;
  body?: unknown;
  options?: RequestOptions;
  /** Not safe to repeat: one attempt only. */
  once?: boolean;
  /** The answer is a CSV file, returned as text. */
  csv?: boolean;
}

const DEFAULT_TIMEOUT_MS = 30_000;

function isErrorBody(value: unknown): value is ErrorBody {
  const v = value as ErrorBody | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.statusCode === 'number' &&
    typeof v.message === 'string' &&
    typeof v.error === 'string'
  );
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** Waits `ms`, or rejects with the signal's reason when it is aborted first. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A network failure in a few words: fetch's own message hides the cause (ECONNREFUSED, a timeout). */
function describe(error: unknown): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } } | undefined;
  if (e?.name === 'TimeoutError') return 'timed out';
  const detail = e?.cause?.code ?? e?.cause?.message;
  return detail ? `${e?.message ?? 'failed'} (${detail})` : (e?.message ?? String(error));
}

/**
 * An id as one path segment. `.` and `..` cannot be one: URLs resolve them (escaped or not) and
 * the request would go to another route.
 */
const idPath = (id: string) => {
  if (typeof id !== 'string' || id.length === 0) throw new TypeError('An id must be a non-empty string');
  if (/^(\.|%2e){1,2}$/i.test(id)) throw new TypeError(`Not an id: ${id}`);
  return encodeURIComponent(id);
};

/**
 * A client of the lender API. Every call is retried on network errors, timeouts and 5xx with
 * exponential backoff and jitter (each call is safe to repeat: initiate carries the same
 * idempotencyKey on every attempt), and on 429 after the wait the API asks for. Errors are
 * thrown as `LoanApiError` subclasses by status, or `LoanConnectionError`.
 */
export function createLoanClient(options: LoanClientOptions): LoanClient {
  if (!options || typeof options.apiKey !== 'string' || options.apiKey.length === 0) {
    throw new TypeError('createLoanClient needs apiKey');
  }
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw new TypeError(
      `createLoanClient needs baseUrl, an absolute URL such as http://127.0.0.1:8080 (got ${options.baseUrl})`,
    );
  }
  const origin = base.href.replace(/\/+$/, '');
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  for (const [name, value] of Object.entries(policy)) {
    if (!Number.isFinite(value) || value < 0) throw new TypeError(`retry.${name} must be a number of 0 or more`);
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  /** Replaced by the new key after `rotateApiKey`. */
  let apiKey = options.apiKey;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') throw new TypeError('No fetch: use Node 20 or later, or pass options.fetch');

  async function request<T>(call: Call): Promise<T> {
    const url = new URL(`${origin}${call.path}`);
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (Array.isArray(value)) for (const item of value) url.searchParams.append(name, String(item));
      else if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const requestId = randomUUID();
    const headers: Record<string, string> = {
      'x-api-key': apiKey,
      accept: call.csv ? 'text/csv' : 'application/json',
      'user-agent': `loan-client-node/${VERSION}`,
      // One id for every attempt of the call, so the service's logs tie the retries together.
      'x-correlation-id': requestId,
    };
    Object.assign(headers, call.headers);
    const body = call.raw ? call.raw.text : call.body === undefined ? undefined : JSON.stringify(call.body);
    if (body !== undefined) headers['content-type'] = call.raw?.contentType ?? 'application/json';
    const userSignal = call.options?.signal;

    for (let retry = 0; ; retry++) {
      userSignal?.throwIfAborted();
      const limit = AbortSignal.timeout(call.options?.timeoutMs ?? timeoutMs);
      const signal = userSignal ? AbortSignal.any([userSignal, limit]) : limit;
      let cause: unknown;
      let status = 0;
      let answer: Response | undefined;
      let text = '';
      try {
        answer = await fetchImpl(url, { method: call.method, headers, body, signal });
        text = await answer.text();
        status = answer.status;
      } catch (error) {
        if (userSignal?.aborted) throw userSignal.reason;
        cause = error;
      }
      const payload = parseJson(text);
      if (answer && status >= 200 && status < 300) {
        if (call.csv) return text as T;
        if (payload === undefined) {
          throw new LoanError(`${call.method} ${call.path} answered ${status} without a JSON body`, {
            retriable: false,
          });
        }
        return payload as T;
      }
      const failure: AttemptFailure = answer
        ? { kind: 'status', status, headers: answer.headers }
        : { kind: 'network' };
      const delay = call.once ? null : retryDelay(failure, retry, policy, Date.now());
      if (delay === null) {
        if (!answer) {
          throw new LoanConnectionError(
            `${call.method} ${call.path} got no answer after ${retry + 1} attempt(s): ${describe(cause)}`,
            cause,
          );
        }
        const errorBody: ErrorBody = isErrorBody(payload)
          ? payload
          : {
              statusCode: status,
              message: text.slice(0, 500) || answer.statusText || `HTTP ${status}`,
              error: answer.statusText || `HTTP ${status}`,
            };
        throw apiErrorOf(
          status,
          errorBody,
          answer.headers,
          status === 429 ? retryAfterMs(answer.headers, Date.now()) : null,
        );
      }
      options.onRetry?.({
        method: call.method,
        path: call.path,
        retry: retry + 1,
        delayMs: delay,
        statusCode: answer ? status : null,
        requestId,
      });
      await sleep(delay, userSignal);
    }
  }

  const application = (id: string) => `/api/applications/${idPath(id)}`;
  const delivery = (id: string) => `/api/webhooks/deliveries/${idPath(id)}`;
  const policyPath = (version: number) => {
    if (!Number.isInteger(version) || version < 0)
      throw new TypeError(`A policy version is a whole number, got ${version}`);
    return `/api/policies/${version}`;
  };

  const client: LoanClient = {
    async initiate(input, requestOptions) {
      const idempotencyKey = input.idempotencyKey ?? randomUUID();
      const response = await request<InitiateResponse>({
        method: 'POST',
        path: '/api/applications/initiate',
        body: { ...input, idempotencyKey },
        options: requestOptions,
      });
      return { ...response, idempotencyKey };
    },
    getApplication: async (id, requestOptions) =>
      request({ method: 'GET', path: application(id), options: requestOptions }),
    finalizeLinking: async (id, requestOptions) =>
      request({ method: 'POST', path: `${application(id)}/finalize-linking`, options: requestOptions }),
    analyze: async (id, requestOptions) =>
      request({ method: 'POST', path: `${application(id)}/analyze`, options: requestOptions }),
    linkAccount: async (id, body, requestOptions) =>
      request({
        method: 'POST',
        path: `${application(id)}/link-account`,
        body: body?.accountId ? body : undefined,
        options: requestOptions,
      }),
    listDeliveries: async (query = {}, requestOptions) =>
      request({ method: 'GET', path: '/api/webhooks/deliveries', query: { ...query }, options: requestOptions }),
    deliveries(query = {}, requestOptions) {
      return {
        async *[Symbol.asyncIterator]() {
          let cursor: string | undefined;
          do {
            const page = await client.listDeliveries({ ...query, cursor }, requestOptions);
            yield* page.data;
            cursor = page.nextCursor ?? undefined;
          } while (cursor);
        },
      };
    },
    getDelivery: async (id, requestOptions) => request({ method: 'GET', path: delivery(id), options: requestOptions }),
    redeliver: async (id, requestOptions) =>
      request({ method: 'POST', path: `${delivery(id)}/redeliver`, options: requestOptions }),
    replayDeliveries: async (body, requestOptions) =>
      request({ method: 'POST', path: '/api/webhooks/deliveries/replay', body, options: requestOptions }),
    listPolicies: async (requestOptions) => request({ method: 'GET', path: '/api/policies', options: requestOptions }),
    createPolicy: async (body, requestOptions) =>
      // Not repeated: a lost answer would leave a second draft.
      request({ method: 'POST', path: '/api/policies', body, options: requestOptions, once: true }),
    getPolicy: async (version, requestOptions) =>
      request({ method: 'GET', path: policyPath(version), options: requestOptions }),
    simulatePolicy: async (version, body = {}, requestOptions) =>
      request({ method: 'POST', path: `${policyPath(version)}/simulate`, body, options: requestOptions }),
    activatePolicy: async (version, requestOptions) =>
      request({ method: 'POST', path: `${policyPath(version)}/activate`, options: requestOptions }),
    setChallenger: async (version, requestOptions) =>
      request({ method: 'POST', path: `${policyPath(version)}/challenger`, options: requestOptions }),
    clearChallenger: async (requestOptions) =>
      request({ method: 'DELETE', path: '/api/policies/challenger', options: requestOptions }),
    challengerReport: async (requestOptions) =>
      request({ method: 'GET', path: '/api/policies/challenger/report', options: requestOptions }),
    listApplications: async (query = {}, requestOptions) =>
      request({ method: 'GET', path: '/api/applications', query: { ...query }, options: requestOptions }),
    exportApplications: async (query = {}, requestOptions) =>
      request({
        method: 'GET',
        path: '/api/applications/export.csv',
        query: { ...query },
        options: requestOptions,
        csv: true,
      }),
    applications(query = {}, requestOptions) {
      return {
        async *[Symbol.asyncIterator]() {
          let cursor: string | undefined;
          do {
            const page = await client.listApplications({ ...query, cursor }, requestOptions);
            yield* page.items;
            cursor = page.nextCursor ?? undefined;
          } while (cursor);
        },
      };
    },
    reviewApplication: async (id, body, requestOptions) =>
      request({ method: 'POST', path: `${application(id)}/review`, body, options: requestOptions }),
    confirmReview: async (id, body, requestOptions) =>
      request({ method: 'POST', path: `${application(id)}/review/confirm`, body, options: requestOptions }),
    contestDecision: async (id, body, requestOptions) =>
      request({ method: 'POST', path: `${application(id)}/contest`, body, options: requestOptions }),
    respondToOffer: async (id, body, requestOptions) =>
      request({ method: 'POST', path: `${application(id)}/offer`, body, options: requestOptions }),
    getDecisionRecord: async (id, requestOptions) =>
      request({ method: 'GET', path: `${application(id)}/decision-record`, options: requestOptions }),
    withdrawConsent: async (id, accountId, requestOptions) =>
      request({
        method: 'POST',
        path: `${application(id)}/accounts/${encodeURIComponent(accountId)}/consent/withdraw`,
        options: requestOptions,
      }),
    getDeletionReceipt: async (id, accountId, requestOptions) =>
      request({
        method: 'GET',
        path: `${application(id)}/accounts/${encodeURIComponent(accountId)}/consent/receipt`,
        options: requestOptions,
      }),
    reportOutcome: async (id, outcome, idempotencyKey, requestOptions) =>
      request({
        method: 'POST',
        path: `${application(id)}/outcomes`,
        body: outcome,
        headers: { 'idempotency-key': idempotencyKey },
        options: requestOptions,
      }),
    getLoanOutcomes: async (id, requestOptions) =>
      request({ method: 'GET', path: `${application(id)}/outcomes`, options: requestOptions }),
    uploadOutcomes: async (rows, requestOptions) =>
      request({
        method: 'POST',
        path: '/api/outcomes',
        raw:
          typeof rows === 'string'
            ? { contentType: 'text/csv', text: rows }
            : { contentType: 'application/x-ndjson', text: rows.map((row) => JSON.stringify(row)).join('\n') },
        options: requestOptions,
      }),
    getPerformance: async (query = {}, requestOptions) =>
      request({ method: 'GET', path: '/api/performance', query: { ...query }, options: requestOptions }),
    getPerformanceSettings: async (requestOptions) =>
      request({ method: 'GET', path: '/api/performance/settings', options: requestOptions }),
    setPerformanceSettings: async (settings, requestOptions) =>
      request({ method: 'PUT', path: '/api/performance/settings', body: settings, options: requestOptions }),
    listReviews: async (query = {}, requestOptions) =>
      request({ method: 'GET', path: '/api/reviews', query: { ...query }, options: requestOptions }),
    reviews(query = {}, requestOptions) {
      return {
        async *[Symbol.asyncIterator]() {
          let cursor: string | undefined;
          do {
            const page = await client.listReviews({ ...query, cursor }, requestOptions);
            yield* page.items;
            cursor = page.nextCursor ?? undefined;
          } while (cursor);
        },
      };
    },
    getPortfolio: async (query = {}, requestOptions) =>
      request({ method: 'GET', path: '/api/portfolio', query: { ...query }, options: requestOptions }),
    getClientSettings: async (requestOptions) =>
      request({ method: 'GET', path: '/api/client', options: requestOptions }),
    updateClientSettings: async (body, requestOptions) =>
      request({ method: 'PATCH', path: '/api/client', body, options: requestOptions }),
    async rotateApiKey(requestOptions) {
      const rotated = await request<RotateKeyResponse>({
        method: 'POST',
        path: '/api/client/rotate-key',
        options: requestOptions,
        once: true,
      });
      apiKey = rotated.apiKey;
      return rotated;
    },
    rotateWebhookSecret: async (body, requestOptions) =>
      request({
        method: 'POST',
        path: '/api/client/rotate-webhook-secret',
        body: body ?? {},
        options: requestOptions,
        once: true,
      }),
    listUsers: async (requestOptions) => request({ method: 'GET', path: '/api/users', options: requestOptions }),
    inviteUser: async (body, requestOptions) =>
      request({ method: 'POST', path: '/api/users', body, options: requestOptions, once: true }),
    changeUserRole: async (userId, role, requestOptions) =>
      request({ method: 'PATCH', path: `/api/users/${idPath(userId)}`, body: { role }, options: requestOptions }),
    removeUser: async (userId, requestOptions) => {
      await request({ method: 'DELETE', path: `/api/users/${idPath(userId)}`, options: requestOptions });
    },
    getStaffSettings: async (requestOptions) =>
      request({ method: 'GET', path: '/api/users/settings', options: requestOptions }),
    updateStaffSettings: async (body, requestOptions) =>
      request({ method: 'PATCH', path: '/api/users/settings', body, options: requestOptions }),
  };
  return client;
}
