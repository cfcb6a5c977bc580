import { Router, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import {
  ApplicationListQuery,
  ConfirmReviewRequest,
  ContestRequest,
  InitiateRequest,
  Limits,
  OfferResponseRequest,
  WithdrawConsentRequest,
  OutcomeReport,
  ReviewRequest,
  LinkAccountRequest,
  PROVIDER_KEY_MISSING_MESSAGE,
  ReviewListQuery,
  Reviewer,
  Uuid,
  indexedTerm,
  DEFAULT_TIME_ZONE,
  zonedDayRange,
  type ApplicationSummary,
  type ApplicationView,
  type ReviewQueueItem,
  type CommandReply,
} from '@loan/contracts';
import { annotateActiveSpan, type PurposeSealer } from '@loan/runtime';
import { HttpError, STATUS_OF } from './errors';
import { INVALID_CURSOR, decodeCursor, encodeCursor } from '../../domain/pageCursor';
import {
  ReplyTimeoutError,
  type CommandBus,
  type CommandInput,
  type DistributiveOmit,
} from '../../data-access/commandBus';
import type { ClientRecord } from '../../data-access/clientRepository';
import type { StaffAccounts } from '../../data-access/staffAccounts';
import { reviewerOf } from '../../domain/reviewer';
import { decisionRecordClaims } from '../../domain/decisionRecord';
import { deletionReceiptClaims, receiptRefusal } from '../../domain/deletionReceipt';
import { DELETION_RECEIPT_TYPE, type DecisionSigner } from '../../data-access/decisionSigner';
import { csvOf, csvRowOf } from '../../domain/applicationsCsv';
import { relay, type scoringCaller } from './scoringForward';
import { allowOnlyRoutedMethods, ctx, requireJson, route, validate } from './support';

/** The bodies as a signed-in member of staff sends them: the reviewer is the user, so it may be left out. */
const StaffReviewRequest = ReviewRequest.extend({ reviewer: Reviewer.optional() });
const StaffConfirmReviewRequest = ConfirmReviewRequest.extend({ reviewer: Reviewer.optional() });

/** The most applications one export holds. */
export const EXPORT_MAX_ROWS = 5_000;

/** The list's filters without its paging: an export is the whole filtered list. */
const ApplicationExportQuery = ApplicationListQuery.omit({ limit: true, cursor: true });
type ApplicationExportQuery = z.output<typeof ApplicationExportQuery>;

/** A path id that is not a UUID names no application: 404, like any unknown id. */
function applicationIdOf(raw: string | string[] | undefined): string {
  const parsed = Uuid.safeParse(raw);
  if (!parsed.success) throw new HttpError(404, 'Application not found');
  return parsed.data;
}

function accountIdOf(raw: string | string[] | undefined): string {
  const parsed = Uuid.safeParse(raw);
  if (!parsed.success) throw new HttpError(404, 'Account not found');
  return parsed.data;
}

function providerKeyOf(client: ClientRecord): string {
  if (!client.providerSecretKey) throw new HttpError(500, PROVIDER_KEY_MISSING_MESSAGE);
  return client.providerSecretKey;
}

/**
 * A list's `q` as the applications service takes it: an id as it is, or who applied as blind
 * indexes of the lender's (every key's, so that what was indexed before a key rotation is
 * found), never the words themselves.
 */
function searchOf(
  q: { id: string } | { terms: string[][] } | { none: true } | undefined,
  clientId: string,
  sealer: PurposeSealer,
) {
  if (q === undefined) return { q: null };
  if ('id' in q) return { q: q.id };
  if ('none' in q) return null;
  const personal = sealer.for('personal-data');
  return {
    q: null,
    search: q.terms.map((alternatives) =>
      alternatives.flatMap((term) => personal.blindIndexes(indexedTerm(clientId, term))),
    ),
  };
}

/**
 * What of a lender's applications the list (and its CSV) asks the applications service for;
 * null when the search text can match none.
 */
function filterOf(query: ApplicationExportQuery, client: ClientRecord, sealer: PurposeSealer) {
  const search = searchOf(query.q, client.clientId, sealer);
  if (!search) return null;
  return {
    statuses: [...new Set(query.status ?? [])],
    decisions: [...new Set(query.decision ?? [])],
    ...zonedDayRange(query.from, query.to, client.timeZone ?? DEFAULT_TIME_ZONE),
    ...search,
  };
}

/**
 * The lender API of spec section 4, plus `GET /api/applications/:id` for polling and
 * `GET /api/applications`, the lender's own applications page by page.
 */
export function applicationRoutes(deps: {
  commands: CommandBus;
  sealer: PurposeSealer;
  /** Signs decision records (`GET /api/applications/:id/decision-record`). */
  signer: Pick<DecisionSigner, 'sign' | 'kid'>;
  /** Who a console session's staff user is: their e-mail address names them as a reviewer. */
  staff: Pick<StaffAccounts, 'get'>;
  /** Scoring's internal API, which owns loans and their outcomes. */
  scoring: ReturnType<typeof scoringCaller>;
  authenticate: RequestHandler;
  limit: (kind: 'initiate' | 'analyze' | 'other') => RequestHandler;
  /**
   * An initiate was refused 403 because another account used its idempotencyKey: counted and
   * written to the audit, where the operator finds who probes keys (see docs/security.md).
   */
  onKeyOfAnotherAccount?: (seen: {
    clientId: string;
    idempotencyKey: string;
    ip: string | null;
    correlationId: string;
  }) => Promise<void>;
}) {
  const router = Router();
  const { commands } = deps;

  /** The signed-in staff user's e-mail address, or null with the API key (on /api, or a console signed in with it). */
  async function signedInEmail(res: Response): Promise<string | null> {
    const session = ctx(res).consoleSession;
    if (!session?.userId) return null;
    const user = await deps.staff.get(session.clientId, session.userId);
    if (!user) throw new HttpError(401, 'The console session has ended; sign in again');
    return user.email;
  }

  /**
   * The reviewer of a review or confirmation, sealed: the signed-in user in the console (the
   * body's `reviewer` may be left out, and may not name another), the body's with the API key.
   */
  async function reviewerFor(res: Response, given: string | undefined): Promise<string> {
    const chosen = reviewerOf(await signedInEmail(res), given);
    if ('problem' in chosen) throw new HttpError(400, chosen.problem);
    return deps.sealer.seal(chosen.reviewer);
  }
  const staffSignedIn = (res: Response) => !!ctx(res).consoleSession?.userId;

  async function ask(res: Response, input: DistributiveOmit<CommandInput, 'clientId' | 'correlationId'>) {
    const { client, correlationId } = ctx(res);
    let reply: CommandReply;
    try {
      reply = await commands.send({ ...input, clientId: client!.clientId, correlationId } as CommandInput);
    } catch (error) {
      if (error instanceof ReplyTimeoutError) {
        throw new HttpError(
          500,
          'The request took too long to process; retry it (initiate with the same idempotencyKey)',
        );
      }
      throw error;
    }
    const applicationId = 'applicationId' in input ? input.applicationId : undefined;
    annotateActiveSpan({
      clientId: client!.clientId,
      applicationId: applicationId ?? (reply.ok ? reply.result.applicationId : undefined),
    });
    if (!reply.ok) throw new HttpError(STATUS_OF[reply.code], reply.message);
    return reply.result;
  }

  router.use(deps.authenticate);

  router.post(
    '/initiate',
    deps.limit('initiate'),
    requireJson(),
    route(async (req, res) => {
      const { firstName, lastName, email, phone, bvn, ...terms } = validate(InitiateRequest, req.body ?? {});
      const providerKey = providerKeyOf(ctx(res).client!);
      // The applicant's identity leaves the gateway sealed; only the loan terms travel readable.
      const applicant = deps.sealer.seal(JSON.stringify({ firstName, lastName, email, phone, bvn }));
      const lenderName = ctx(res).client!.name;
      const result = await ask(res, {
        type: 'InitiateApplication',
        request: terms,
        applicant,
        providerKey,
        lenderName,
      }).catch(async (error: unknown) => {
        if (error instanceof HttpError && error.statusCode === STATUS_OF.KEY_OWNED_BY_OTHER_CLIENT) {
          const { client, correlationId } = ctx(res);
          await deps.onKeyOfAnotherAccount?.({
            clientId: client!.clientId,
            idempotencyKey: terms.idempotencyKey,
            ip: req.ip ?? null,
            correlationId,
          });
        }
        throw error;
      });
      res.status(result.resumed ? 200 : 201).json(result);
    }),
  );

  router.get(
    '/',
    deps.limit('other'),
    route(async (req, res) => {
      const query = validate(ApplicationListQuery, req.query);
      const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
      if (query.cursor !== undefined && !after) throw new HttpError(400, INVALID_CURSOR);
      const filter = filterOf(query, ctx(res).client!, deps.sealer);
      // A text no applicant could be found by finds none, without asking.
      const page = filter
        ? ((await ask(res, { type: 'ListApplications', ...filter, limit: query.limit, after })) as {
            items: ApplicationSummary[];
            more: boolean;
            total?: number;
            totalCapped?: boolean;
          })
        : { items: [], more: false, total: 0, totalCapped: false };
      const last = page.items.at(-1);
      res.json({
        items: page.items,
        nextCursor: page.more && last ? encodeCursor(last) : null,
        // An applications service older than the count answers none: the page then says what it can.
        total: page.total ?? page.items.length,
        totalCapped: page.totalCapped ?? page.more,
      });
    }),
  );

  /**
   * The list as CSV, filtered as the list is (status, decision, from, to, q), newest first, with each decision and
   * its terms: one request for the whole file. Up to EXPORT_MAX_ROWS applications; more is a 400
   * asking for a narrower filter.
   */
  router.get(
    '/export.csv',
    deps.limit('other'),
    route(async (req, res) => {
      const query = validate(ApplicationExportQuery, req.query);
      const items: ApplicationSummary[] = [];
      const filter = filterOf(query, ctx(res).client!, deps.sealer);
      let after: { createdAt: string; applicationId: string } | null = null;
      while (filter) {
        const page = (await ask(res, { type: 'ListApplications', ...filter, limit: 100, after })) as {
          items: ApplicationSummary[];
          more: boolean;
        };
        items.push(...page.items);
        if (items.length > EXPORT_MAX_ROWS) {
          throw new HttpError(
            400,
            `More than ${EXPORT_MAX_ROWS} applications match; narrow the filter (status, decision, from, to or q) to export them`,
          );
        }
        const last = page.items.at(-1);
        if (!page.more || !last) break;
        after = { createdAt: last.createdAt, applicationId: last.applicationId };
      }
      // The decision's terms and the review are on the application itself: asked for the decided ones, a few at a time.
      const views = new Map<string, ApplicationView>();
      const decided = items.filter((i) => i.decision !== null);
      for (let i = 0; i < decided.length; i += 8) {
        const batch = decided.slice(i, i + 8);
        const got = await Promise.all(
          batch.map(
            (item) =>
              ask(res, { type: 'GetApplication', applicationId: item.applicationId }) as Promise<ApplicationView>,
          ),
        );
        got.forEach((view, n) => views.set(batch[n]!.applicationId, view));
      }
      const csv = csvOf(items.map((item) => csvRowOf(item, views.get(item.applicationId) ?? null)));
      res
        .status(200)
        .type('text/csv; charset=utf-8')
        .set('content-disposition', `attachment; filename="applications-${new Date().toISOString().slice(0, 10)}.csv"`)
        .set('cache-control', 'no-store')
        .send(csv);
    }),
  );

  // The decision as a signed record the applicant can carry: a JWS verifiable offline with the
  // key set at /.well-known/jwks.json.
  router.get(
    '/:id/decision-record',
    deps.limit('other'),
    route(async (req, res) => {
      const applicationId = applicationIdOf(req.params.id);
      const view = (await ask(res, { type: 'GetApplication', applicationId })) as ApplicationView;
      const { client } = ctx(res);
      const claims = decisionRecordClaims(view, { clientId: client!.clientId, name: client!.name ?? null });
      if (!claims) throw new HttpError(400, `Application has no decision yet (status: ${view.status})`);
      res.json({
        applicationId,
        record: await deps.signer.sign(claims, new Date()),
        kid: await deps.signer.kid(),
        jwks: '/.well-known/jwks.json',
      });
    }),
  );

  router.get(
    '/:id',
    deps.limit('other'),
    route(async (req, res) => {
      const applicationId = applicationIdOf(req.params.id);
      res.json(await ask(res, { type: 'GetApplication', applicationId }));
    }),
  );

  router.post(
    '/:id/finalize-linking',
    deps.limit('other'),
    route(async (req, res) => {
      const applicationId = applicationIdOf(req.params.id);
      res.json(await ask(res, { type: 'FinalizeLinking', applicationId }));
    }),
  );

  router.post(
    '/:id/analyze',
    deps.limit('analyze'),
    route(async (req, res) => {
      const applicationId = applicationIdOf(req.params.id);
      res.json(await ask(res, { type: 'AnalyzeApplication', applicationId }));
    }),
  );

  router.post(
    '/:id/link-account',
    deps.limit('other'),
    requireJson(),
    route(async (req, res) => {
      const applicationId = applicationIdOf(req.params.id);
      // No body and `{}` name no account; anything but an object (`[]`, `7`) is a 400.
      const body = validate(LinkAccountRequest, req.body);
      // Without a provider key the application is still checked first (404, 400 come before 500).
      const providerKey = ctx(res).client!.providerSecretKey;
      res.json(
        await ask(res, {
          type: 'RelinkAccount',
          applicationId,
          accountId: body.accountId ?? null,
          providerKey,
          lenderName: ctx(res).client!.name,
        }),
      );
    }),
  );

  // A review of a MANUAL_REVIEW decision, made under the lender's maker-checker threshold as it
  // is now; the reviewer is the console's signed-in user, or with the API key the body's
  // `reviewer` (the lender's staff id). Maker-checker compares them: the same one cannot confirm.
  router.post(
    '/:id/review',
    deps.limit('other'),
    requireJson(),
    route(async (req, res) => {
      const applicationId = applicationIdOf(req.params.id);
      const { reviewer, note, ...review } = validate(
        staffSignedIn(res) ? StaffReviewRequest : ReviewRequest,
        req.body ?? {},
      );
      const confirmationAbove = ctx(res).client!.reviewConfirmationAbove;
      // Who reviewed and their note may name people: both leave the gateway sealed.
      // A note of nothing but spaces is no note (and nothing is sealed for it).
      const sealed = { reviewer: await reviewerFor(res, reviewer), note: note?.trim() ? deps.sealer.seal(note) : null };
      res.json(await ask(res, { type: 'ReviewApplication', applicationId, review, ...sealed, confirmationAbove }));
    }),
  );

  router.post(
    '/:id/review/confirm',
    deps.limit('other'),
    requireJson(),
    route(async (req, res) => {
      const applicationId = applicationIdOf(req.params.id);
      const { reviewer } = validate(
        staffSignedIn(res) ? StaffConfirmReviewRequest : ConfirmReviewRequest,
        req.body ?? {},
      );
      res.json(await ask(res, { type: 'ConfirmReview', applicationId, reviewer: await reviewerFor(res, reviewer) }));
    }),
  );

  // The applicant withdraws consent to read one linked account (CBN: at any time, once the
  // application is decided or closed): nothing more is read, the account is unlinked at the
  // provider and its bank data erased; `account.consent_ended`, then `account.data_erased`.
  router.post(
    '/:id/accounts/:accountId/consent/withdraw',
    deps.limit('other'),
    route(async (req, res) => {
      const applicationId = applicationIdOf(req.params.id);
      const accountId = accountIdOf(req.params.accountId);
      validate(WithdrawConsentRequest, Object.keys(req.body ?? {}).length === 0 ? undefined : req.body);
      res.json(await ask(res, { type: 'WithdrawConsent', applicationId, accountId }));
    }),
  );

  // The signed receipt of an ended consent's erasure, for the lender to hand the applicant: a
  // JWS verifiable with the key set at /.well-known/jwks.json, the same every time it is read.
  router.get(
    '/:id/accounts/:accountId/consent/receipt',
    deps.limit('other'),
    route(async (req, res) => {
      const applicationId = applicationIdOf(req.params.id);
      const accountId = accountIdOf(req.params.accountId);
      const view = (await ask(res, { type: 'GetApplication', applicationId })) as ApplicationView;
      const refusal = receiptRefusal(view, accountId);
      if (refusal) throw new HttpError(refusal.status, refusal.message);
      const claims = deletionReceiptClaims(view, accountId, { clientId: ctx(res).client!.clientId })!;
      res.json({
        applicationId,
        accountId,
        receipt: await deps.signer.sign(claims, new Date(claims.receipt.bankDataErasedAt), DELETION_RECEIPT_TYPE),
        kid: await deps.signer.kid(),
        jwks: '/.well-known/jwks.json',
      });
    }),
  );

  // The applicant's answer to the offer, taken by the lender: nothing is accepted automatically.
  router.post(
    '/:id/offer',
    deps.limit('other'),
    requireJson(),
    route(async (req, res) => {
      const applicationId = applicationIdOf(req.params.id);
      const { response } = validate(OfferResponseRequest, req.body ?? {});
      res.json(await ask(res, { type: 'RespondToOffer', applicationId, response }));
    }),
  );

  // The applicant's contest of a DECLINED or COUNTER_OFFER decision (NDPA s.37), which the lender
  // opens for them with their statement: back to the review queue, answered by a reviewed decision.
  router.post(
    '/:id/contest',
    deps.limit('other'),
    requireJson(),
    route(async (req, res) => {
      const applicationId = applicationIdOf(req.params.id);
      const { statement } = validate(ContestRequest, req.body ?? {});
      // The applicant's own words: they leave the gateway sealed.
      res.json(await ask(res, { type: 'ContestDecision', applicationId, statement: deps.sealer.seal(statement) }));
    }),
  );

  /** The application, the caller's and decided: what outcomes are reported on. */
  async function decided(res: Response, applicationId: string) {
    const view = (await ask(res, { type: 'GetApplication', applicationId })) as ApplicationView;
    if (view.status !== 'COMPLETED' || !view.decision)
      throw new HttpError(
        400,
        `Application has no decision yet (status: ${view.status}): outcomes follow a decided loan`,
      );
  }

  // How the loan turned out, as the lender reports it: scoring measures its decisions against it.
  router.post(
    '/:id/outcomes',
    deps.limit('other'),
    requireJson(),
    route(async (req, res) => {
      const applicationId = applicationIdOf(req.params.id);
      const key = req.header('idempotency-key');
      if (!key || key.length > Limits.maxIdempotencyKey)
        throw new HttpError(400, `Idempotency-Key header is required (1 to ${Limits.maxIdempotencyKey} characters)`);
      const report = validate(OutcomeReport, req.body ?? {});
      await decided(res, applicationId);
      relay(
        res,
        await deps.scoring(req, res, `/outcomes/${applicationId}`, {
          method: 'POST',
          body: report,
          headers: { 'idempotency-key': key },
        }),
      );
    }),
  );
  router.get(
    '/:id/outcomes',
    deps.limit('other'),
    route(async (req, res) => {
      const applicationId = applicationIdOf(req.params.id);
      await decided(res, applicationId);
      relay(res, await deps.scoring(req, res, `/outcomes/${applicationId}`));
    }),
  );

  return allowOnlyRoutedMethods(router);
}

/**
 * `GET /api/reviews`: the caller's MANUAL_REVIEW applications, OPEN (no final review yet) or
 * DONE, oldest decision first, page by page.
 */
export function reviewRoutes(deps: {
  commands: CommandBus;
  authenticate: RequestHandler;
  limit: (kind: 'other') => RequestHandler;
}) {
  const router = Router();
  router.use(deps.authenticate);
  router.get(
    '/',
    deps.limit('other'),
    route(async (req, res) => {
      const query = validate(ReviewListQuery, req.query);
      const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
      if (query.cursor !== undefined && !after) throw new HttpError(400, INVALID_CURSOR);
      const { client, correlationId } = ctx(res);
      let reply: CommandReply;
      try {
        reply = await deps.commands.send({
          type: 'ListReviews',
          clientId: client!.clientId,
          correlationId,
          status: query.status,
          limit: query.limit,
          after: after ? { decidedAt: after.createdAt, applicationId: after.applicationId } : null,
        });
      } catch (error) {
        if (error instanceof ReplyTimeoutError)
          throw new HttpError(500, 'The request took too long to process; retry it');
        throw error;
      }
      if (!reply.ok) throw new HttpError(STATUS_OF[reply.code], reply.message);
      const page = reply.result as { items: ReviewQueueItem[]; more: boolean };
      const last = page.items.at(-1);
      res.json({
        items: page.items,
        nextCursor:
          page.more && last ? encodeCursor({ createdAt: last.decidedAt, applicationId: last.applicationId }) : null,
      });
    }),
  );
  return allowOnlyRoutedMethods(router);
}
