import { Router, type Request, type RequestHandler, type Response } from 'express';
import {
  BUILTIN_POLICY_VERSION,
  CreditPolicy,
  SimulateRequest,
  errorBody,
  policyProblems,
  type BadDefinition,
  type Decision,
  type DecisionOutcome,
  type PolicyVersionView,
} from '@loan/contracts';
import type { LoanState } from '../../domain/outcomes/loanState';
import { backtest, stressApprovals } from '../../domain/policy/backtest';
import type { Clock, Logger } from '@loan/runtime';
import type { z } from 'zod';
import type { AnalysisRepository } from '../../data-access/analysisRepository';
import type { PolicyRepository, StoredPolicy } from '../../data-access/policyRepository';
import { simulatePolicy, type StoredAnalysis } from '../../domain/policy/simulate';
import {
  activate,
  activeVersion,
  clearChallenger,
  setChallenger,
  statusOf,
  type PolicyBook,
  type PolicyChangeError,
} from '../../domain/policy/versions';

/** Expected failures, mapped to HTTP statuses here and nowhere else. */
const STATUS_OF: Record<PolicyChangeError['code'] | 'NO_CLIENT' | 'CONFLICT', number> = {
  INVALID: 400,
  NO_CLIENT: 401,
  NOT_FOUND: 404,
  CONFLICT: 409,
};

class ApiError extends Error {
  constructor(
    readonly code: keyof typeof STATUS_OF,
    message: string,
  ) {
    super(message);
  }
}

function parse<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ApiError('INVALID', policyProblems(result.error).join('; '));
}

interface Caller {
  clientId: string;
  actor: string;
}

const route =
  (handler: (req: Request, res: Response, caller: Caller) => Promise<void>): RequestHandler =>
  async (req, res) => {
    try {
      const clientId = req.header('x-client-id');
      if (!clientId) throw new ApiError('NO_CLIENT', 'Missing x-client-id header');
      await handler(req, res, { clientId, actor: req.header('x-actor') || `client:${clientId}` });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const status = STATUS_OF[error.code];
      res.status(status).json(errorBody(status, error.message));
    }
  };

/** A version number from the path; anything else names no version. */
function versionOf(req: Request): number {
  const text = String(req.params.version ?? '');
  const version = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
  if (Number.isNaN(version)) throw new ApiError('NOT_FOUND', `Policy version ${text} not found`);
  return version;
}

const lastActivation = (book: PolicyBook, version: number) =>
  [...book.activations].reverse().find((a) => a.version === version)?.at ?? null;

const viewOf = (book: PolicyBook, stored: StoredPolicy): PolicyVersionView => ({
  version: stored.version,
  status: statusOf(book, stored.version),
  builtin: stored.version === BUILTIN_POLICY_VERSION,
  challenger: book.challenger?.version === stored.version,
  createdAt: stored.createdAt?.toISOString() ?? null,
  activatedAt: lastActivation(book, stored.version)?.toISOString() ?? null,
  policy: stored.policy,
});

/** How many analyses the challenger report reads at most, the latest first. */
const REPORT_LIMIT = 5000;

/**
 * The credit policy API, for the gateway to serve to lenders once it has authenticated them:
 * it names the caller in `x-client-id` (and the person or key acting in `x-actor`), and every
 * answer is scoped to that client. Scoring owns the policies and the replay of stored analyses.
 */
export function policyRoutes(deps: {
  policies: PolicyRepository;
  analyses: Pick<AnalysisRepository, 'challenged' | 'latestDecided'>;
  /** The loans of past applications and the lender's bad definition, for the back-test. */
  outcomes?: {
    loanStates: (applicationIds: string[]) => Promise<Map<string, LoanState>>;
    badDefinition: (clientId: string) => Promise<BadDefinition>;
  };
  clock: Clock;
  logger: Logger;
}): Router {
  const { policies, analyses, outcomes, clock, logger } = deps;
  const router = Router();

  async function versionFor(clientId: string, version: number): Promise<StoredPolicy> {
    const stored = await policies.get(clientId, version);
    if (!stored) throw new ApiError('NOT_FOUND', `Policy version ${version} not found`);
    return stored;
  }

  /** Writes the audit line of a change: who did what to which version. */
  async function audit(caller: Caller, version: number | null, action: string) {
    const at = clock.now();
    logger.info(
      { audit: true, clientId: caller.clientId, actor: caller.actor, version, action },
      'credit policy changed',
    );
    await policies.recordChange({ clientId: caller.clientId, version, action, actor: caller.actor, at });
  }

  /** Applies a change to the book, compare-and-set; a lost race is a 409 to retry. */
  async function change(
    caller: Caller,
    decide: (book: PolicyBook) => { ok: true; book: PolicyBook } | ({ ok: false } & PolicyChangeError),
  ): Promise<PolicyBook> {
    const book = await policies.book(caller.clientId);
    const decision = decide(book);
    if (!decision.ok) throw new ApiError(decision.code, decision.message);
    if (decision.book === book) return book;
    if (!(await policies.saveBook(decision.book, book.rev)))
      throw new ApiError('CONFLICT', 'The policies changed at the same time; retry the request');
    return decision.book;
  }

  router.get(
    '/policies',
    route(async (_req, res, { clientId }) => {
      const [book, versions] = await Promise.all([policies.book(clientId), policies.list(clientId)]);
      const views = versions.map((stored) => viewOf(book, stored));
      const active = views.find((v) => v.version === activeVersion(book)) ?? null;
      const challenger = book.challenger ? (views.find((v) => v.version === book.challenger?.version) ?? null) : null;
      res.json({ active, challenger, versions: views });
    }),
  );

  router.post(
    '/policies',
    route(async (req, res, caller) => {
      const policy = parse(CreditPolicy, req.body);
      const stored = await policies.create(caller.clientId, policy, caller.actor, clock.now());
      await audit(caller, stored.version, 'create');
      res.status(201).json({ version: stored.version, status: 'DRAFT', policy: stored.policy });
    }),
  );

  router.get(
    '/policies/challenger/report',
    route(async (_req, res, { clientId }) => {
      const book = await policies.book(clientId);
      const challenger = book.challenger;
      if (!challenger) throw new ApiError('NOT_FOUND', 'There is no challenger');
      const docs = await analyses.challenged(clientId, challenger, REPORT_LIMIT);
      const matrix: Record<string, Record<string, number>> = {};
      const disagreements = [];
      for (const doc of docs) {
        const active = (doc.decision as { decision: DecisionOutcome }).decision;
        const shadow = doc.challenger!;
        const row = (matrix[active] ??= {});
        row[shadow.decision] = (row[shadow.decision] ?? 0) + 1;
        if (active !== shadow.decision)
          disagreements.push({
            applicationId: doc.applicationId,
            decidedAt: doc.decidedAt?.toISOString() ?? null,
            active: { version: doc.policyVersion ?? BUILTIN_POLICY_VERSION, decision: active },
            challenger: { version: shadow.version, decision: shadow.decision, reasons: shadow.reasons },
          });
      }
      res.json({
        challenger: { version: challenger.version, since: challenger.since.toISOString() },
        evaluated: docs.length,
        agreed: docs.length - disagreements.length,
        matrix,
        disagreements,
      });
    }),
  );

  router.delete(
    '/policies/challenger',
    route(async (_req, res, caller) => {
      const before = await policies.book(caller.clientId);
      const version = before.challenger?.version ?? null;
      await change(caller, clearChallenger);
      await audit(caller, version, 'clear_challenger');
      res.json({ challenger: null });
    }),
  );

  router.get(
    '/policies/:version',
    route(async (req, res, { clientId }) => {
      const stored = await versionFor(clientId, versionOf(req));
      res.json(viewOf(await policies.book(clientId), stored));
    }),
  );

  router.post(
    '/policies/:version/simulate',
    route(async (req, res, { clientId }) => {
      const draft = await versionFor(clientId, versionOf(req));
      const { limit, stress } = parse(SimulateRequest, req.body ?? {});
      const book = await policies.book(clientId);
      const current = await policies.resolve(clientId, activeVersion(book));
      const docs = await analyses.latestDecided(clientId, limit);
      const replayed: StoredAnalysis[] = docs.flatMap((doc) =>
        doc.loan && doc.audit && doc.decidedAt
          ? [
              {
                applicationId: doc.applicationId,
                applicantId: doc.applicantId,
                loan: doc.loan,
                audit: doc.audit as StoredAnalysis['audit'],
                decidedAt: doc.decidedAt,
              },
            ]
          : [],
      );
      const replays: { analysis: StoredAnalysis; decision: Decision }[] = [];
      const result = simulatePolicy(
        replayed,
        current,
        { version: draft.version, policy: draft.policy },
        (analysis, decision) => replays.push({ analysis, decision }),
      );
      const loans = outcomes ? await outcomes.loanStates(replays.map((r) => r.analysis.applicationId)) : new Map();
      if (loans.size > 0)
        result.backtest = backtest(
          replays.map((r) => ({ applicationId: r.analysis.applicationId, draft: r.decision })),
          loans,
          await outcomes!.badDefinition(clientId),
        );
      if (stress)
        result.stress = stressApprovals(
          replays.map((r) => ({
            audit: r.analysis.audit,
            draft: r.decision,
            maxDebtServiceRatio: draft.policy.affordability.maxDebtServiceRatio,
          })),
          stress,
        );
      res.json(result);
    }),
  );

  router.post(
    '/policies/:version/activate',
    route(async (req, res, caller) => {
      const version = versionOf(req);
      const stored = await versionFor(caller.clientId, version);
      const book = await change(caller, (b) => activate(b, version, clock.now(), caller.actor));
      await audit(caller, version, 'activate');
      res.json(viewOf(book, stored));
    }),
  );

  router.post(
    '/policies/:version/challenger',
    route(async (req, res, caller) => {
      const version = versionOf(req);
      const stored = await versionFor(caller.clientId, version);
      const book = await change(caller, (b) => setChallenger(b, version, clock.now(), caller.actor));
      await audit(caller, version, 'set_challenger');
      res.json(viewOf(book, stored));
    }),
  );

  return router;
}
