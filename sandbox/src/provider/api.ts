import { randomBytes } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { failed, processing, successful } from '../http/envelope';
import { seededId, type MonoTransaction } from '../personas';
import type { Jobs } from './jobs';
import {
  LINK_CLOSED_REASONS,
  type LinkedAccount,
  type LinkPurpose,
  type LinkSession,
  type ProviderStore,
} from './store';

export interface ProviderApiOptions {
  store: ProviderStore;
  jobs: Jobs;
  clock: () => Date;
  sessionTtlMs: number;
  /** Origin widget and pagination addresses are built on (known once listening). */
  publicUrl: () => string;
  /** Told how many of the oldest sessions a new one pushed out of the store (`maxSessions`). */
  onSessionsEvicted?: (count: number) => void;
}

const InitiateBody = z
  .object({
    customer: z
      .object({
        name: z.string().trim().min(1),
        email: z.email(),
        identity: z.object({ type: z.string(), number: z.string() }).optional(),
      })
      .optional(),
    scope: z.enum(['auth', 'reauth']),
    meta: z
      .object({
        ref: z.string().optional(),
        // What the widget names: who asks for the link and for which loan (amount in kobo).
        // Meta is the caller's free-form object, as at the provider: a value the widget cannot
        // show is left out of the page, never a refused link.
        lender_name: z.string().trim().min(1).max(120).optional().catch(undefined),
        loan_amount: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional().catch(undefined),
        loan_tenor: z.number().int().positive().max(600).optional().catch(undefined),
      })
      .loose()
      .optional(),
    redirect_url: z.url().optional(),
    account: z.string().min(1).optional(),
  })
  .refine((body) => body.scope === 'reauth' || body.customer !== undefined, {
    message: 'customer (name, email) is required for scope auth',
    path: ['customer'],
  })
  .refine((body) => body.scope === 'auth' || body.account !== undefined, {
    message: 'account is required for scope reauth',
    path: ['account'],
  });

/** Closes the open sessions of a reference made before `before` (default: now). */
const CloseBody = z.object({
  meta: z.object({ ref: z.string().min(1).max(200) }),
  reason: z.enum(LINK_CLOSED_REASONS).default('closed'),
  /** Sessions made after it (a resumed application's new link) stay open. */
  before: z.iso.datetime({ offset: true }).optional(),
});

/** What a session's widget says it links for, from the caller's `meta`. */
function purposeOf(meta: z.infer<typeof InitiateBody>['meta']): LinkPurpose | null {
  if (!meta?.lender_name && meta?.loan_amount === undefined) return null;
  return {
    lenderName: meta.lender_name ?? null,
    loanAmount: meta.loan_amount ?? null,
    loanTenorMonths: meta.loan_tenor ?? null,
  };
}

/** `DD-MM-YYYY` (the provider's format) or `YYYY-MM-DD`, as a UTC day. */
const DayParam = z.string().transform((text, ctx) => {
  const dmy = /^(\d{2})-(\d{2})-(\d{4})$/.exec(text);
  const ymd = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const [year, month, day] = dmy ? [dmy[3], dmy[2], dmy[1]] : ymd ? [ymd[1], ymd[2], ymd[3]] : [];
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (!year || Number.isNaN(date.getTime()) || date.getUTCDate() !== Number(day)) {
    ctx.addIssue({ code: 'custom', message: 'expected a date as DD-MM-YYYY' });
    return z.NEVER;
  }
  return date;
});

const TransactionsQuery = z.object({
  paginate: z.enum(['true', 'false']).default('true'),
  limit: z.coerce.number().int().min(1).max(500).default(20),
  page: z.coerce.number().int().min(1).default(1),
  start: DayParam.optional(),
  end: DayParam.optional(),
  type: z.enum(['debit', 'credit']).optional(),
  narration: z.string().optional(),
});

const IncomeQuery = z.object({ period: z.coerce.number().int().min(1).max(24).optional() });

const DAY_MS = 86_400_000;

const describeIssues = (error: z.ZodError): string =>
  error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; ');

function filterTransactions(
  items: readonly MonoTransaction[],
  query: z.infer<typeof TransactionsQuery>,
): MonoTransaction[] {
  const from = query.start?.getTime() ?? Number.NEGATIVE_INFINITY;
  const to = query.end ? query.end.getTime() + DAY_MS : Number.POSITIVE_INFINITY;
  const words = query.narration?.toLowerCase();
  return items.filter((tx) => {
    const at = Date.parse(tx.date);
    return (
      at >= from &&
      at < to &&
      (!query.type || tx.type === query.type) &&
      (!words || tx.narration.toLowerCase().includes(words))
    );
  });
}

/** The provider's REST API under `/v2` (auth and fault injection are mounted in front). */
export function createProviderApi(options: ProviderApiOptions): Router {
  const { store, jobs, clock } = options;
  const router = Router();

  const accountOr404 = (req: Request, res: Response): LinkedAccount | null => {
    const account = store.accounts.get(String(req.params.id));
    if (!account) {
      res.status(404).json(failed(clock(), `Account ${String(req.params.id)} not found`));
      return null;
    }
    return account;
  };

  router.post('/v2/accounts/initiate', (req, res) => {
    const parsed = InitiateBody.safeParse(req.body ?? {});
    if (!parsed.success) {
      res.status(400).json(failed(clock(), describeIssues(parsed.error)));
      return;
    }
    const body = parsed.data;
    const relinked = body.scope === 'reauth' ? store.accounts.get(body.account ?? '') : undefined;
    if (body.scope === 'reauth' && !relinked) {
      res.status(404).json(failed(clock(), `Account ${body.account ?? ''} not found`));
      return;
    }
    const now = clock();
    const customer = body.customer
      ? {
          id: seededId(`customer:${body.customer.email.toLowerCase()}`),
          name: body.customer.name,
          email: body.customer.email,
          bvn: body.customer.identity?.type.toLowerCase() === 'bvn' ? body.customer.identity.number : null,
        }
      : {
          id: relinked?.customerId ?? '',
          name: relinked?.data.account.name ?? '',
          email: relinked?.data.identity.email ?? '',
          bvn: null,
        };
    const session: LinkSession = {
      id: randomBytes(12).toString('hex'),
      scope: body.scope,
      customer,
      ref: body.meta?.ref ?? relinked?.ref ?? null,
      redirectUrl: body.redirect_url ?? null,
      accountId: relinked?.id ?? null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + options.sessionTtlMs),
      linkedAccountIds: [],
      tickets: new Map(),
      purpose: purposeOf(body.meta),
      closed: null,
    };
    const evicted = store.addSession(session);
    if (evicted > 0) options.onSessionsEvicted?.(evicted);
    res.json(
      successful(now, 'Request was successfully completed', {
        mono_url: `${options.publicUrl()}/widget/${session.id}`,
        customer: customer.id,
        meta: { ref: session.ref },
        scope: session.scope,
        redirect_url: session.redirectUrl,
        created_at: now.toISOString(),
      }),
    );
  });

  // Ends the links of an application that takes no more accounts: its widget sessions refuse
  // (409) from now on, saying the latest reason. Re-links stay open when linking was only finalized.
  router.post('/v2/accounts/initiate/close', (req, res) => {
    const parsed = CloseBody.safeParse(req.body ?? {});
    if (!parsed.success) {
      res.status(400).json(failed(clock(), describeIssues(parsed.error)));
      return;
    }
    const now = clock();
    const { meta, reason, before } = parsed.data;
    const cutoff = before ? Date.parse(before) : now.getTime();
    let closed = 0;
    for (const session of store.sessions.values()) {
      if (session.ref !== meta.ref || session.createdAt.getTime() > cutoff) continue;
      if (reason === 'linking_finalized' && session.scope === 'reauth') continue;
      // Closed already (linking finalized, then decided): the page gives the latest reason.
      if (session.closed?.reason === reason) continue;
      session.closed = { reason, at: session.closed?.at ?? now };
      closed++;
    }
    res.json(successful(now, 'Request was successfully completed', { ref: meta.ref, closed }));
  });

  router.get('/v2/accounts/:id', (req, res) => {
    const account = accountOr404(req, res);
    if (!account) return;
    res.json(
      successful(clock(), 'Request was successfully completed', {
        account: account.data.account,
        customer: { id: account.customerId },
        meta: {
          data_status: 'AVAILABLE',
          auth_method: account.authMethod,
          retrieved_data: ['identity', 'balance', 'transactions'],
          ref: account.ref,
        },
      }),
    );
  });

  // Mono's unlink: the account is gone, and every later read of it is a 404.
  router.post('/v2/accounts/:id/unlink', (req, res) => {
    const account = accountOr404(req, res);
    if (!account) return;
    store.accounts.delete(account.id);
    res.json(successful(clock(), 'Account unlinked successfully', null));
  });

  router.get('/v2/accounts/:id/balance', (req, res) => {
    const account = accountOr404(req, res);
    if (!account) return;
    const { id, name, account_number, balance, currency } = account.data.account;
    res.json(
      successful(clock(), 'Request was successfully completed', { id, name, account_number, balance, currency }),
    );
  });

  router.get('/v2/accounts/:id/identity', (req, res) => {
    const account = accountOr404(req, res);
    if (!account) return;
    res.json(successful(clock(), 'Request was successfully completed', account.data.identity));
  });

  router.get('/v2/accounts/:id/transactions', (req, res) => {
    const account = accountOr404(req, res);
    if (!account) return;
    const parsed = TransactionsQuery.safeParse(req.query);
    if (!parsed.success) {
      res.status(400).json(failed(clock(), describeIssues(parsed.error)));
      return;
    }
    const query = parsed.data;
    const matching = filterTransactions(account.data.transactions, query);
    const all = query.paginate === 'false';
    const page = all ? 1 : query.page;
    const items = all ? matching : matching.slice((page - 1) * query.limit, page * query.limit);
    const pages = all ? 1 : Math.max(1, Math.ceil(matching.length / query.limit));
    const pageUrl = (target: number): string => {
      const params = new URLSearchParams(req.query as Record<string, string>);
      params.set('page', String(target));
      return `${options.publicUrl()}/v2/accounts/${account.id}/transactions?${params.toString()}`;
    };
    res.json({
      ...successful(clock(), 'Transactions retrieved successfully', items),
      meta: {
        total: matching.length,
        page,
        previous: page > 1 ? pageUrl(page - 1) : null,
        next: page < pages ? pageUrl(page + 1) : null,
      },
    });
  });

  router.get('/v2/accounts/:id/income', (req, res) => {
    const account = accountOr404(req, res);
    if (!account) return;
    const parsed = IncomeQuery.safeParse(req.query);
    if (!parsed.success) {
      res.status(400).json(failed(clock(), describeIssues(parsed.error)));
      return;
    }
    jobs.startIncome(account, parsed.data.period);
    res.json(successful(clock(), 'Income analysis started; the result will be sent by webhook', null));
  });

  router.get('/v2/accounts/:id/income-records', (req, res) => {
    const account = accountOr404(req, res);
    if (!account) return;
    res.json(successful(clock(), 'Request was successfully completed', store.incomeRecords.get(account.id) ?? []));
  });

  router.get('/v2/accounts/:id/statement/insights', (req, res) => {
    const account = accountOr404(req, res);
    if (!account) return;
    const job = jobs.startInsights(account);
    res.json(processing(clock(), 'Statement insights job started', { jobId: job.id, jobStatus: 'processing' }));
  });

  router.get('/v2/enrichments/record/:jobId', (req, res) => {
    const job = store.jobs.get(String(req.params.jobId));
    if (!job) {
      res.status(404).json(failed(clock(), `Job ${String(req.params.jobId)} not found`));
      return;
    }
    if (job.status === 'processing') {
      res.json(processing(clock(), 'Job is still processing', { jobId: job.id, jobStatus: 'processing' }));
      return;
    }
    const result =
      job.kind === 'statement_insights' ? (store.accounts.get(job.accountId)?.data.insights ?? null) : job.result;
    res.json(successful(clock(), 'Job finished', result));
  });

  router.use('/v2', (_req, res) => {
    res.status(404).json(failed(clock(), 'Resource not found'));
  });

  return router;
}
