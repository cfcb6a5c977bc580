import axios, { AxiosError, type AxiosInstance, type AxiosRequestConfig } from 'axios';
import CircuitBreaker from 'opossum';
import { z } from 'zod';
import { ServiceError, type Logger } from '@loan/runtime';
import type {
  AccountLinkingProvider,
  InitiateLinkInput,
  InsightsRecord,
  LinkPurpose,
  ProviderAccount,
  ProviderIncome,
  ProviderTransaction,
} from './types';

/** A failed provider call; 4xx are the caller's fault and never retried. */
export class ProviderError extends ServiceError {
  readonly status: number | null;
  constructor(message: string, options: { status: number | null; retriable: boolean; cause?: unknown }) {
    super(message, options);
    this.name = 'ProviderError';
    this.status = options.status;
  }
}

export interface MonoClientOptions {
  /** `https://api.withmono.com` for the real provider, the sandbox's origin locally. */
  baseUrl: string;
  logger: Logger;
  timeoutMs?: number;
  /** Attempts per call on 5xx, 429, timeouts and network errors (never on other 4xx). */
  retries?: number;
  retryBaseMs?: number;
  breaker?: { errorThresholdPercentage?: number; resetTimeoutMs?: number; volumeThreshold?: number };
  /** Called when the breaker opens, half-opens or closes (for metrics). */
  onBreakerState?: (state: 'open' | 'half_open' | 'closed') => void;
  /** Largest response body accepted (a year of statement lines is a few MB); default 20 MB. */
  maxResponseBytes?: number;
}

/**
 * What each answer must look like before anything of it is used: Mono's envelope and the
 * fields the services read, with their types. Fields we do not read pass through unchecked.
 */
const envelope = <T extends z.ZodType>(data: T) =>
  z.object({ status: z.string().optional(), message: z.string().optional(), data });
const text = z.string().max(2_000);
const Answers = {
  initiate: envelope(z.object({ mono_url: z.url().max(2_000) })),
  closed: envelope(z.object({ closed: z.number().int().nonnegative() })),
  unlinked: z.object({ status: z.string().optional(), message: z.string().optional() }),
  account: envelope(
    z.object({
      account: z.looseObject({
        id: text.optional(),
        _id: text.optional(),
        name: text.nullish(),
        account_number: text.nullish(),
        currency: text.nullish(),
        type: text.nullish(),
        balance: z.number().nullish(),
        bvn: z.union([text, z.number()]).nullish(),
        institution: z
          .looseObject({ name: text.nullish(), bank_code: z.union([text, z.number()]).nullish(), type: text.nullish() })
          .nullish(),
      }),
    }),
  ),
  transactions: envelope(
    z
      .array(
        z.looseObject({
          id: text,
          narration: text,
          amount: z.number(),
          type: z.enum(['debit', 'credit']),
          balance: z.number().nullish(),
          date: text,
          category: text.nullish(),
        }),
      )
      .nullish(),
  ),
  income: envelope(z.union([z.array(z.record(z.string(), z.unknown())), z.record(z.string(), z.unknown())]).nullish()),
  started: envelope(z.unknown()),
  insightsJob: envelope(z.object({ jobId: text })),
  record: z.object({ status: z.string().optional(), data: z.record(z.string(), z.unknown()).nullish() }),
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Our keys beside Mono's `ref`, for the widget to name the lender and the loan (amount in kobo).
 * A value the widget could not show (an amount under a kobo, a name past 120 characters) is left
 * out: the page then names less, and the link still opens.
 */
export function purposeMeta(purpose: LinkPurpose): Record<string, string | number> {
  const meta: Record<string, string | number> = {};
  const name = purpose.lenderName?.trim();
  if (name) meta.lender_name = name.length > 120 ? `${name.slice(0, 119)}…` : name;
  const kobo = Math.round(purpose.loanAmount * 100);
  if (Number.isSafeInteger(kobo) && kobo > 0) meta.loan_amount = kobo;
  if (Number.isInteger(purpose.tenorMonths) && purpose.tenorMonths > 0 && purpose.tenorMonths <= 600) {
    meta.loan_tenor = purpose.tenorMonths;
  }
  return meta;
}

function toProviderError(error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  if (error instanceof AxiosError) {
    const status = error.response?.status ?? null;
    const body = error.response?.data as { message?: string } | undefined;
    const retriable = status === null || status >= 500 || status === 429;
    return new ProviderError(
      `Provider call failed${status ? ` with ${status}` : ''}: ${body?.message ?? error.message}`,
      {
        status,
        retriable,
        cause: error,
      },
    );
  }
  if (error instanceof Error && /breaker is open/i.test(error.message)) {
    return new ProviderError('Provider circuit breaker is open', { status: null, retriable: true, cause: error });
  }
  return new ProviderError(`Provider call failed: ${String((error as Error)?.message ?? error)}`, {
    status: null,
    retriable: true,
    cause: error,
  });
}

/**
 * `data.account` of `GET /v2/accounts/:id` as the services read it; `requestedId` stands in
 * when the provider leaves the id out. Pure.
 */
export function toProviderAccount(
  account: Record<string, unknown> & { institution?: Record<string, unknown> },
  requestedId: string,
): ProviderAccount {
  const institution = account.institution ?? {};
  return {
    id: String(account.id ?? account._id ?? requestedId),
    holderName: String(account.name ?? ''),
    accountNumber: String(account.account_number ?? ''),
    currency: String(account.currency ?? 'NGN'),
    type: String(account.type ?? ''),
    balanceKobo: Number(account.balance ?? 0),
    bvnLast4: account.bvn == null ? null : String(account.bvn).slice(-4),
    institution: {
      name: String(institution.name ?? 'Unknown bank'),
      bankCode: institution.bank_code == null ? null : String(institution.bank_code),
      type: String(institution.type ?? ''),
    },
  };
}

/**
 * Client of Mono's REST API (the sandbox speaks the same API). Every call goes through one
 * circuit breaker per client; 5xx, 429 and timeouts are retried with exponential backoff, other
 * 4xx are not. The secret key is the lender's own, passed per call.
 */
export function createMonoClient(options: MonoClientOptions): AccountLinkingProvider & { breaker: CircuitBreaker } {
  const http: AxiosInstance = axios.create({
    baseURL: options.baseUrl,
    timeout: options.timeoutMs ?? 10_000,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    maxRedirects: 0,
    maxContentLength: options.maxResponseBytes ?? 20 * 1024 * 1024,
  });
  const retries = options.retries ?? 3;
  const retryBaseMs = options.retryBaseMs ?? 250;
  const logger = options.logger.child({ component: 'mono-client' });

  const breaker = new CircuitBreaker(
    async (config: AxiosRequestConfig) => {
      try {
        return (await http.request(config)).data as unknown;
      } catch (error) {
        throw toProviderError(error);
      }
    },
    {
      timeout: false,
      errorThresholdPercentage: options.breaker?.errorThresholdPercentage ?? 50,
      resetTimeout: options.breaker?.resetTimeoutMs ?? 10_000,
      volumeThreshold: options.breaker?.volumeThreshold ?? 5,
      // A 4xx is an answer, not an outage: it must not open the breaker.
      errorFilter: (error: ProviderError) => error instanceof ProviderError && !error.retriable,
    },
  );
  breaker.on('open', () => {
    logger.warn('provider circuit breaker opened');
    options.onBreakerState?.('open');
  });
  breaker.on('halfOpen', () => options.onBreakerState?.('half_open'));
  breaker.on('close', () => {
    logger.info('provider circuit breaker closed');
    options.onBreakerState?.('closed');
  });

  /** A call whose answer is checked against `schema`; an answer of another shape is refused. */
  async function call<S extends z.ZodType>(
    secretKey: string,
    config: AxiosRequestConfig,
    schema: S,
  ): Promise<z.infer<S>> {
    const request = { ...config, headers: { ...(config.headers ?? {}), 'mono-sec-key': secretKey } };
    for (let attempt = 0; ; attempt++) {
      try {
        const answer = schema.safeParse(await breaker.fire(request));
        if (answer.success) return answer.data;
        const issue = answer.error.issues[0];
        throw new ProviderError(
          `Provider answered ${config.method} ${config.url} with an unexpected body (${issue?.path.join('.') || 'body'}: ${issue?.message})`,
          { status: null, retriable: true },
        );
      } catch (raw) {
        const error = toProviderError(raw);
        const open = breaker.opened;
        if (!error.retriable || open || attempt >= retries) throw error;
        await sleep(retryBaseMs * 2 ** attempt);
      }
    }
  }

  return {
    breaker,

    async initiateLink(secretKey: string, input: InitiateLinkInput) {
      const body: Record<string, unknown> = {
        customer: {
          name: input.customerName,
          email: input.customerEmail,
          ...(input.customerBvn ? { identity: { type: 'bvn', number: input.customerBvn } } : {}),
        },
        meta: {
          ref: input.ref,
          // Our keys beside Mono's `ref`, for the widget to name the lender and the loan (kobo).
          ...(input.purpose ? purposeMeta(input.purpose) : {}),
        },
        scope: input.reauthAccountId ? 'reauth' : 'auth',
        redirect_url: input.redirectUrl,
      };
      if (input.reauthAccountId) body.account = input.reauthAccountId;
      const res = await call(secretKey, { method: 'POST', url: '/v2/accounts/initiate', data: body }, Answers.initiate);
      return { widgetUrl: res.data.mono_url };
    },

    async closeLinks(secretKey, { ref, reason, before }) {
      try {
        await call(
          secretKey,
          {
            method: 'POST',
            url: '/v2/accounts/initiate/close',
            data: { meta: { ref }, reason, before: before.toISOString() },
          },
          Answers.closed,
        );
        return true;
      } catch (error) {
        // A provider without the operation (Mono documents none) answers 404 or 405.
        if (error instanceof ProviderError && (error.status === 404 || error.status === 405)) return false;
        throw error;
      }
    },

    async unlinkAccount(secretKey: string, accountId: string) {
      try {
        await call(
          secretKey,
          { method: 'POST', url: `/v2/accounts/${encodeURIComponent(accountId)}/unlink` },
          Answers.unlinked,
        );
        return 'unlinked' as const;
      } catch (error) {
        if (error instanceof ProviderError && error.status === 404) return 'already_unlinked' as const;
        throw error;
      }
    },

    async getAccount(secretKey: string, accountId: string): Promise<ProviderAccount> {
      const res = await call(
        secretKey,
        { method: 'GET', url: `/v2/accounts/${encodeURIComponent(accountId)}` },
        Answers.account,
      );
      return toProviderAccount(res.data.account as Parameters<typeof toProviderAccount>[0], accountId);
    },

    async getTransactions(secretKey: string, accountId: string): Promise<ProviderTransaction[]> {
      const res = await call(
        secretKey,
        {
          method: 'GET',
          url: `/v2/accounts/${encodeURIComponent(accountId)}/transactions`,
          params: { paginate: false },
        },
        Answers.transactions,
      );
      return (res.data ?? []) as ProviderTransaction[];
    },

    async startIncomeAnalysis(secretKey: string, accountId: string, periodMonths: number) {
      await call(
        secretKey,
        {
          method: 'GET',
          url: `/v2/accounts/${encodeURIComponent(accountId)}/income`,
          params: { period: periodMonths },
        },
        Answers.started,
      );
    },

    async getLatestIncome(secretKey: string, accountId: string): Promise<ProviderIncome | null> {
      const res = await call(
        secretKey,
        { method: 'GET', url: `/v2/accounts/${encodeURIComponent(accountId)}/income-records` },
        Answers.income,
      );
      const data: ProviderIncome[] | ProviderIncome | null | undefined = res.data;
      if (Array.isArray(data)) return data[data.length - 1] ?? null;
      return data ?? null;
    },

    async startStatementInsights(secretKey: string, accountId: string) {
      const res = await call(
        secretKey,
        { method: 'GET', url: `/v2/accounts/${encodeURIComponent(accountId)}/statement/insights` },
        Answers.insightsJob,
      );
      return { jobId: res.data.jobId };
    },

    async getInsightsRecord(secretKey: string, jobId: string): Promise<InsightsRecord> {
      const res = await call(
        secretKey,
        { method: 'GET', url: `/v2/enrichments/record/${encodeURIComponent(jobId)}` },
        Answers.record,
      );
      if (res.status === 'processing') return { status: 'processing' };
      if (!res.data)
        throw new ProviderError('Provider answered a finished insights record without data', {
          status: null,
          retriable: true,
        });
      return { status: 'finished', result: res.data };
    },
  };
}
