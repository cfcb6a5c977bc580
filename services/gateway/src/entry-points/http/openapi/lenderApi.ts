import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import {
  AnalyzeResponse,
  ApplicationListQuery,
  ApplicationPage,
  ApplicationStatus,
  ApplicationSummary,
  ApplicationView,
  ChallengerReport,
  ClientSettings,
  PortfolioQuery,
  PortfolioReport,
  PORTFOLIO_MAX_DAYS,
  DecisionOutcome,
  CreditPolicy,
  PolicyCreated,
  PolicyList,
  PolicyVersionView,
  SimulateRequest,
  SimulationResult,
  InviteUserRequest,
  StaffInvitation,
  StaffUser,
  StaffUserList,
  UpdateUserRequest,
  Bvn,
  ConfirmReviewRequest,
  ContestRequest,
  ContestView,
  OfferResponseRequest,
  OfferView,
  ConsentView,
  DeliveryListQuery,
  DeliveryPage,
  DeliveryView,
  EmailPattern,
  EventNames,
  FinalizeLinkingResponse,
  InitiateRequest,
  InitiateResponse,
  LinkAccountResponse,
  Phone,
  PROVIDER_KEY_MISSING_MESSAGE,
  Purpose,
  ReplayRequest,
  ReplayResult,
  ReviewListQuery,
  ReviewPage,
  ReviewQueueItem,
  ReviewRequest,
  ReviewView,
  RotateKeyResponse,
  RotateWebhookSecretBody,
  RotateWebhookSecretResponse,
  UpdateClientSettingsRequest,
  Uuid,
  WebhookEnvelope,
  type EventName,
} from '@loan/contracts';
import { EventExamples, Examples } from './examples';
import { outcomeOperations, outcomeTags } from './outcomesApi';
import { failure, lenderErrors, malformedJson, notJson, ok } from './responses';
import { z } from 'zod';

/**
 * The route table of the lender API: one entry per operation the gateway serves under `/api`.
 * Schemas are the contracts' own zod schemas; a new route needs one entry here, and the drift
 * test fails until it has one.
 */

/**
 * Optional applicant fields as a request may carry them: a value, or `null` / `""` meaning absent
 * (the contract treats both as absent; Java and C# backends send them that way).
 */
const absentable = (schema: z.ZodType) => z.union([schema, z.literal(''), z.null()]).optional();

const InitiateBody = InitiateRequest.extend({
  // `format: email` alone admits addresses the contract refuses (`a}|/b@example.com`): the pattern is its rule.
  email: InitiateRequest.shape.email.meta({
    description: 'The applicant’s e-mail address',
    pattern: EmailPattern.source,
    maxLength: 254,
    example: 'chinedu.okonkwo@example.com',
  }),
  phone: absentable(Phone).meta({ description: '10 to 15 characters', example: '08031234567' }),
  bvn: absentable(Bvn).meta({
    description: 'Bank Verification Number, 11 digits. When present the analysis includes a credit-bureau lookup.',
    example: '22200000001',
  }),
  purpose: absentable(Purpose).meta({ description: 'What the loan is for', example: 'Stock for a provisions shop' }),
}).meta({ id: 'InitiateRequest', example: Examples.initiateRequest });

const LinkAccountBody = z
  .object({
    accountId: Uuid.optional().meta({ description: 'The account to re-link, from account.enrichment_failed' }),
  })
  .meta({ id: 'LinkAccountRequest', example: Examples.linkAccountRequest });

const AccountPath = z.object({
  id: Uuid.meta({ param: { description: 'The applicationId returned by initiate' } }),
  accountId: Uuid.meta({ param: { description: 'The accountId of the linked account (from account.linked)' } }),
});

const ApplicationId = z.object({
  id: Uuid.meta({
    param: { description: 'The applicationId returned by initiate' },
    example: Examples.initiateCreated.applicationId,
  }),
});
const DeliveryId = z.object({
  id: z.string().meta({ param: { description: 'The id of a delivery in the log' }, example: Examples.delivery.id }),
});

const PolicyVersionParam = z.object({
  version: z
    .string()
    .regex(/^\d+$/)
    .meta({ param: { description: 'A version number of your credit policy; 0 is the built-in policy' }, example: '2' }),
});

const applicationLinks = {
  GetApplication: { operationId: 'getApplication', parameters: { id: '$response.body#/applicationId' } },
  FinalizeLinking: { operationId: 'finalizeLinking', parameters: { id: '$response.body#/applicationId' } },
  Analyze: { operationId: 'analyzeApplication', parameters: { id: '$response.body#/applicationId' } },
  LinkAccount: { operationId: 'linkAccount', parameters: { id: '$response.body#/applicationId' } },
};

const notFound = failure(404, 'No such application, a malformed id, or another lender’s', {
  'not found': 'Application not found',
});

const applications = 'Applications';
const reviews = 'Reviews';
const portfolio = 'Portfolio';
const deliveries = 'Webhook deliveries';
const account = 'Your account';
const policies = 'Credit policies';
const staff = 'Your staff';

export const lenderTags = [
  {
    name: applications,
    description: 'Open an application, have the applicant link accounts, analyze, read the outcome.',
  },
  {
    name: reviews,
    description:
      'Your credit officers’ reviews of MANUAL_REVIEW decisions: the queue, the review, and the second reviewer’s confirmation above your threshold (maker-checker).',
  },
  {
    name: portfolio,
    description:
      'Your numbers over a period, counted where the data lives: applications by status and decision day by day, approval rate, approved amounts, scores, time to decision, abandonment and webhook delivery health.',
  },
  {
    name: deliveries,
    description: 'Your webhook delivery log: every attempt, redelivery and replay of failed deliveries.',
  },
  { name: account, description: 'Your account: webhook URL, webhook secrets and API key, each rotated by you.' },
  {
    name: policies,
    description:
      'Your credit policy: the rules your decisions apply on top of the score, as numbered versions. Draft one, replay it on your past applications, run it in the shadow as the challenger, then activate it. Every decision names the version that made it in `policy_version` (0: the built-in policy).',
  },
  ...outcomeTags,
  {
    name: staff,
    description:
      'Your staff’s console accounts: invite by e-mail and role (`owner`, `developer`, `credit_officer`, `credit_manager`, `viewer`), change a role, remove. With the API key, or from the console for an owner; a change of role and a removal end that user’s console sessions.',
  },
];

const policyUnavailable = failure(500, 'Credit policies are unavailable: retry', {
  unavailable: 'Credit policies are unavailable right now; retry the request',
});
const policyNotFound = failure(404, 'No such version of yours', { 'not found': 'Policy version 7 not found' });
const PolicyVersionSchema = PolicyVersionView.meta({ id: 'PolicyVersion' });

const StaffUserSchema = StaffUser.meta({ id: 'StaffUser' });
const UserId = z.object({
  id: z
    .string()
    .meta({ param: { description: 'The userId of the user' }, example: '5b1f0c3e-8a2d-4f6b-9c7e-1d3a5f7b9e20' }),
});
const StaffSettings = z.object({ requireTotp: z.boolean() }).meta({ id: 'StaffSettings' });
const StaffSettingsRequest = z
  .strictObject({ requireTotp: z.boolean() })
  .meta({ id: 'StaffSettingsRequest', example: Examples.staffSettings });
/** An address as the service checks it: the contract's pattern is its rule (no `format: email`, which is another rule). */
export const staffEmail = z.string().meta({
  description: 'An e-mail address (compared without regard to case)',
  pattern: EmailPattern.source,
  maxLength: 254,
  example: 'ada.obi@acme-lending.example',
});
const InviteUserBody = z
  .strictObject({ email: staffEmail, role: InviteUserRequest.shape.role })
  .meta({ id: 'InviteUserRequest', example: Examples.inviteUserRequest });
const userNotFound = failure(404, 'No such user of yours, or a malformed id', { 'not found': 'User not found' });
const lastOwner = failure(409, 'The lender’s last owner, or a concurrent change', {
  'last owner': 'A lender keeps at least one owner; make another user owner first',
  concurrent: 'The user was changed concurrently; retry',
});
const staffErrors = {
  401: lenderErrors[401],
  403: failure(403, 'From the console: a role other than owner', { role: 'Your role (viewer) does not allow this' }),
  413: lenderErrors[413],
  429: lenderErrors[429],
  500: lenderErrors[500],
};

/** The list's query as a document states it: `status` repeated (a comma-separated list works too). */
const ListQuery = ApplicationListQuery.extend({
  status: z.array(ApplicationStatus).optional().meta({
    description:
      'Only applications in these states: repeat the parameter (`status=LINKED&status=PROCESSING`) or separate them with commas',
  }),
  decision: z.array(DecisionOutcome).optional().meta({
    description: 'Only applications decided with these outcomes: repeat the parameter or separate them with commas',
  }),
  from: ApplicationListQuery.shape.from.meta({
    description:
      'Only applications created on or after this day, in your time zone (`timeZone` of `GET /api/client`; Africa/Lagos unless you set another)',
    example: '2026-11-01',
  }),
  to: ApplicationListQuery.shape.to.meta({
    description: 'Only applications created on or before this day, in your time zone',
    example: '2026-11-30',
  }),
  q: ApplicationListQuery.shape.q.meta({
    description:
      "An applicationId or an applicantId (the applications it names exactly), or who applied: words of the applicant's names (each must be one of their names, in any order, accents and case aside), an e-mail address, a phone number (any of 0803…, +234 803…, 234803…) or a BVN. At most 100 characters; a text no applicant could be found by (punctuation alone, four digits) finds none. Identity is matched through blind indexes: it is never stored or sent on readable",
    example: Examples.initiateCreated.applicationId,
  }),
  cursor: ApplicationListQuery.shape.cursor.meta({ description: 'The `nextCursor` of the previous page; opaque' }),
});

const ClientSettingsSchema = ClientSettings.meta({ id: 'ClientSettings' });

/** What a review and its confirmation answer: the application and its review as it now is. */
const ReviewResult = z
  .object({ applicationId: Uuid, status: z.literal('COMPLETED'), review: ReviewView.meta({ id: 'Review' }) })
  .meta({ id: 'ReviewResult' });
const ContestResult = z
  .object({ applicationId: Uuid, status: z.literal('COMPLETED'), contest: ContestView.meta({ id: 'Contest' }) })
  .meta({ id: 'ContestResult' });
const conflict = failure(409, 'Your account was changed at the same time by another request: retry', {
  concurrent: 'The client was changed concurrently; retry',
});
/** What every change of the lender's own account can answer besides its 200 and 400. */
const accountChangeErrors = {
  401: lenderErrors[401],
  409: conflict,
  413: lenderErrors[413],
  415: notJson,
  429: lenderErrors[429],
  500: lenderErrors[500],
};

export const lenderOperations: RouteConfig[] = [
  {
    method: 'post',
    path: '/api/applications/initiate',
    operationId: 'initiateApplication',
    tags: [applications],
    summary: 'Open an application (or resume it) and get the widget address',
    description:
      'Creates the applicant and the application and answers 201. The same `idempotencyKey` on a PENDING_LINKING or ABANDONED application resumes it and answers 200 with `resumed: true`: a fresh `widgetUrl`, a new 24-hour window to link, and the applicant and loan taken from this request (it replaces what was stored). On LINKED, PROCESSING, COMPLETED or FAILED it answers 409. Optional fields (`phone`, `bvn`, `purpose`) sent as null or "" are absent. Rate limit: 20 a minute per account.',
    request: { body: { required: true, content: { 'application/json': { schema: InitiateBody } } } },
    responses: {
      201: ok('Application created', InitiateResponse.meta({ id: 'InitiateResponse' }), Examples.initiateCreated, {
        limited: true,
        links: applicationLinks,
      }),
      200: ok('Existing PENDING_LINKING or ABANDONED application resumed', InitiateResponse, Examples.initiateResumed, {
        limited: true,
        links: applicationLinks,
      }),
      400: failure(400, 'A field missing or invalid (the message names each), or malformed JSON', {
        'missing field': 'firstName is required',
        'invalid values':
          'email: email must be a valid e-mail address; tenor: tenor must be a positive integer number of months',
        bvn: 'bvn: must be exactly 11 digits',
        ...malformedJson,
      }),
      401: lenderErrors[401],
      403: failure(403, 'The idempotencyKey belongs to another account', {
        'key of another account': 'idempotencyKey is already used by another account',
      }),
      409: failure(409, 'The application of this key is LINKED, PROCESSING, COMPLETED or FAILED: use a new key', {
        'key in use': 'Cannot resume application with status: COMPLETED',
      }),
      413: lenderErrors[413],
      415: notJson,
      429: lenderErrors[429],
      500: failure(
        500,
        'No provider key on your account, or a downstream failure: retry with the same idempotencyKey',
        {
          'no provider key': PROVIDER_KEY_MISSING_MESSAGE,
          'took too long': 'The request took too long to process; retry it (initiate with the same idempotencyKey)',
        },
      ),
    },
  },
  {
    method: 'get',
    path: '/api/applications',
    operationId: 'listApplications',
    tags: [applications],
    summary: 'Your applications, newest first, a page at a time',
    description:
      'Filter by `status` and find one application by its applicationId or applicantId with `q`. Pass `nextCursor` as `cursor` for the next page: pages are positions, so applications opened meanwhile never repeat or skip one. Any other query parameter is a 400. Rate limit: 60 a minute per IP with the other calls.',
    request: { query: ListQuery },
    responses: {
      200: ok(
        'A page of applications',
        ApplicationPage.extend({ items: z.array(ApplicationSummary.meta({ id: 'ApplicationSummary' })) }).meta({
          id: 'ApplicationPage',
        }),
        Examples.applicationPage,
        {
          limited: true,
          links: {
            GetApplication: {
              operationId: 'getApplication',
              parameters: { id: '$response.body#/items/0/applicationId' },
            },
          },
        },
      ),
      400: failure(400, 'An invalid query parameter (the message names it), or an unknown one', {
        'bad status': 'status must be one of: PENDING_LINKING, LINKED, PROCESSING, COMPLETED, FAILED, ABANDONED',
        'bad q': 'q must be at most 100 characters',
        'bad limit': 'limit must be an integer between 1 and 100',
        'bad cursor': 'cursor is not valid; use the nextCursor of a previous page',
        'bad decision': 'decision must be one of: APPROVED, COUNTER_OFFER, MANUAL_REVIEW, DECLINED',
        'bad date': 'from must be a date (YYYY-MM-DD)',
        'unknown parameter': 'Unknown query parameter page; allowed: status, decision, from, to, q, limit, cursor',
      }),
      401: lenderErrors[401],
      413: lenderErrors[413],
      429: lenderErrors[429],
      500: lenderErrors[500],
    },
  },
  {
    method: 'get',
    path: '/api/applications/export.csv',
    operationId: 'exportApplications',
    tags: [applications],
    summary: 'Your applications as CSV, filtered as the list is, with decisions and terms',
    description:
      'Every application the filters match (`status`, `q`, as for the list; no paging), newest first, one line each: the ask, the score and band, the decision and the terms it carries (`terms`: `approved`, `counter_offer` or `analyst_could_grant`; empty for a decline), and the review. The applicant appears by name only: no e-mail, phone or BVN. A text cell that a spreadsheet would read as a formula (it starts with `=`, `+`, `-`, `@`, a tab or a carriage return) starts with an apostrophe. Up to 5,000 applications; more is a 400. Rate limit: 60 a minute per IP with the other calls (one for the whole file).',
    request: { query: ListQuery.omit({ limit: true, cursor: true }) },
    responses: {
      200: {
        description: 'The CSV file (RFC 4180, UTF-8, CRLF line ends, a header line first)',
        headers: {
          'Content-Disposition': {
            description: 'attachment; filename="applications-<date>.csv"',
            schema: { type: 'string' },
          },
        },
        content: { 'text/csv': { schema: z.string(), example: Examples.applicationsCsv } },
      },
      400: failure(400, 'An invalid query parameter, or more applications than one file holds', {
        'bad status': 'status must be one of: PENDING_LINKING, LINKED, PROCESSING, COMPLETED, FAILED, ABANDONED',
        'too many':
          'More than 5000 applications match; narrow the filter (status, decision, from, to or q) to export them',
      }),
      401: lenderErrors[401],
      429: lenderErrors[429],
      500: lenderErrors[500],
    },
  },
  {
    method: 'get',
    path: '/api/applications/{id}',
    operationId: 'getApplication',
    tags: [applications],
    summary: 'Status, loan, accounts and decision of an application',
    description: 'For polling when a webhook went missing. Rate limit: 60 a minute per IP with the other calls.',
    request: { params: ApplicationId },
    responses: {
      200: ok(
        'The application',
        ApplicationView.meta({ id: 'Application' }),
        {
          applicationId: Examples.initiateCreated.applicationId,
          applicantId: Examples.initiateCreated.applicantId,
          status: 'COMPLETED',
          applicant: { firstName: 'Chinedu', lastName: 'Okonkwo', email: 'chinedu.okonkwo@example.com' },
          loan: { amount: 300000, tenor: 6, interestRate: 5, purpose: 'Stock for a provisions shop' },
          linkingLocked: true,
          linkingFinalizedAt: '2026-11-20T09:04:40.000Z',
          analysisRequestedAt: '2026-11-20T09:15:20.000Z',
          accounts: [
            {
              accountId: Examples.linkAccount.accountId,
              providerAccountId: '65f1c0ffee0123456789abcd',
              institution: 'GTBank',
              accountNumber: '0123456785',
              enrichmentStatus: 'READY',
              linkedAt: '2026-11-20T09:02:11.000Z',
              enrichedAt: '2026-11-20T09:04:02.000Z',
              monthlyFlows: [
                { month: '2026-09', inflow: 412_500, outflow: 371_200, partial: false },
                { month: '2026-10', inflow: 398_000, outflow: 402_750, partial: false },
              ],
            },
          ],
          decision: Examples.decision,
          review: null,
          failureReason: null,
          abandonReason: null,
          retainedUntil: '2031-11-20T09:15:27.412Z',
          createdAt: '2026-11-20T09:00:00.000Z',
          updatedAt: '2026-11-20T09:15:27.412Z',
        },
        { limited: true },
      ),
      401: lenderErrors[401],
      404: notFound,
      413: lenderErrors[413],
      429: lenderErrors[429],
      500: lenderErrors[500],
    },
  },
  {
    method: 'get',
    path: '/api/applications/{id}/decision-record',
    operationId: 'getDecisionRecord',
    tags: [applications],
    summary: 'The decision as a signed record the applicant can carry (JWS, verifiable offline)',
    description:
      'A compact JWS (`alg` EdDSA, Ed25519; `typ` loan-decision-record+jws; `kid` the key’s RFC 7638 thumbprint) whose payload is the decision record: `sub` the applicationId, `applicantId`, your `lender` id and name, the `ask`, a summary of the `inputs` (each account’s bank, the last four digits of its number, its months and average monthly flows, and whether identity and the bureau were checked; never a transaction, a name, an e-mail, a phone, a BVN or a reviewer), the `decision` (outcome, time, score and its parts, risk factors, explanation, terms, key facts, scorecard and policy version), the final `review` and any `contest`, `standingOutcome`, `iss` and `iat`. Verify it with the key set at `/.well-known/jwks.json` (a JWK Set of Ed25519 public keys, `kty` OKP, named by `kid`; public, no key needed, cached for an hour) and any JOSE library (see the guide “Decision records”). Signed when asked: each call has its own `iat`. Rate limit: 60 a minute per IP with the other calls.',
    request: { params: ApplicationId },
    responses: {
      200: ok(
        'The signed record',
        z
          .object({
            applicationId: Uuid,
            record: z.string().meta({ description: 'The compact JWS' }),
            kid: z.string(),
            jwks: z.literal('/.well-known/jwks.json'),
          })
          .meta({ id: 'DecisionRecord' }),
        {
          applicationId: Examples.initiateCreated.applicationId,
          record: 'eyJhbGciOiJFZERTQSIsImtpZCI6IjRrX2o3cFZ3Iiwi...',
          kid: '4k_j7pVw0nq3J8m5u2QbN3o3y7QvKzY8m3yE1vD6s0A',
          jwks: '/.well-known/jwks.json',
        },
        { limited: true },
      ),
      400: failure(400, 'The application has no decision yet', {
        'no decision': 'Application has no decision yet (status: PENDING_LINKING)',
      }),
      401: lenderErrors[401],
      404: notFound,
      429: lenderErrors[429],
      500: lenderErrors[500],
    },
  },
  {
    method: 'post',
    path: '/api/applications/{id}/accounts/{accountId}/consent/withdraw',
    operationId: 'withdrawConsent',
    tags: [applications],
    summary: 'The applicant withdraws consent to read a linked account: it is unlinked and its bank data erased',
    description:
      'No body. CBN open-banking rules: the customer may withdraw consent at any time. Accepted once the application is COMPLETED, FAILED or ABANDONED (while it is being assessed its accounts are in use: a 400 says so). Nothing more is read from the account; it is unlinked at the account-linking provider and its bank data erased (statement, income analysis, insights, enriched profile, holder name, all but the last four digits of its number). You receive `account.consent_ended` at once, then `account.data_erased` when the erasure is done, with the path of the signed deletion receipt. A consent that already ended (withdrawn, or EXPIRED 365 days after it was given, or LAPSED after 180 days without use) is a 400 saying when and why. Rate limit: 60 a minute per IP with the other calls.',
    request: { params: AccountPath },
    responses: {
      200: ok(
        'The consent, now WITHDRAWN',
        z
          .object({ applicationId: Uuid, accountId: Uuid, consent: ConsentView.nullable() })
          .meta({ id: 'WithdrawConsentResult' }),
        Examples.consentWithdrawn,
        { limited: true },
      ),
      400: failure(400, 'The consent ended already, or the application is still being assessed', {
        'already ended': `The consent to read account ${Examples.initiateCreated.applicationId} already ended (WITHDRAWN) at 2026-12-01T11:00:00.000Z`,
        'still assessed':
          'Application is LINKED: consent can be withdrawn once it is decided or closed, its accounts are being assessed now',
      }),
      401: lenderErrors[401],
      404: notFound,
      429: lenderErrors[429],
      500: lenderErrors[500],
    },
  },
  {
    method: 'get',
    path: '/api/applications/{id}/accounts/{accountId}/consent/receipt',
    operationId: 'getDeletionReceipt',
    tags: [applications],
    summary: 'The signed deletion receipt of an account whose consent ended (JWS, verifiable offline)',
    description:
      'A compact JWS (`alg` EdDSA, `typ` loan-deletion-receipt+jws, `kid` as for decision records) for you to hand the applicant. Its payload: `sub` the applicationId, `jti` the consentId, `iss`, `iat` (the moment of the erasure, so the receipt is the same on every call) and `receipt`: your clientId, the application, account and consent ids, the bank and the last four digits of the account, when consent was given and under which wording version, when and why it ended, when the account was unlinked at the provider and its bank data erased, and in words what was erased and what is kept (the decision and what was disclosed, for your record-keeping period). Verify it with `/.well-known/jwks.json`. A 400 while the consent is active, a 409 while its erasure is under way.',
    request: { params: AccountPath },
    responses: {
      200: ok(
        'The signed receipt',
        z
          .object({
            applicationId: Uuid,
            accountId: Uuid,
            receipt: z.string().meta({ description: 'The compact JWS' }),
            kid: z.string(),
            jwks: z.literal('/.well-known/jwks.json'),
          })
          .meta({ id: 'DeletionReceipt' }),
        {
          applicationId: Examples.initiateCreated.applicationId,
          accountId: Examples.consentWithdrawn.accountId,
          receipt: 'eyJhbGciOiJFZERTQSIsImtpZCI6IjRrX2o3cFZ3Iiwi...',
          kid: '4k_j7pVw0nq3J8m5u2QbN3o3y7QvKzY8m3yE1vD6s0A',
          jwks: '/.well-known/jwks.json',
        },
        { limited: true },
      ),
      400: failure(400, 'The consent is still active, or was never recorded', {
        active: 'The consent to read account 0b6a3c52-5d1e-5f7a-9c2d-7e4b1a9f3c60 is still active: nothing was erased',
      }),
      401: lenderErrors[401],
      404: notFound,
      409: failure(409, 'The erasure is under way', {
        'under way':
          'The consent ended at 2026-12-01T11:00:00.000Z; the account’s erasure is under way. Try again shortly, or wait for the account.data_erased webhook',
      }),
      429: lenderErrors[429],
      500: lenderErrors[500],
    },
  },
  {
    method: 'post',
    path: '/api/applications/{id}/finalize-linking',
    operationId: 'finalizeLinking',
    tags: [applications],
    summary: 'Lock linking; application.ready_for_analysis follows once every account is enriched',
    description:
      'No body. Call once the applicant has linked every account (ideally after each sent account.enrichment_ready).',
    request: { params: ApplicationId },
    responses: {
      200: ok(
        'Linking finalized',
        FinalizeLinkingResponse.meta({ id: 'FinalizeLinkingResponse' }),
        Examples.finalizeLinking,
        {
          limited: true,
        },
      ),
      400: failure(400, 'Not LINKED, or no account linked yet', {
        'wrong status': 'Cannot finalize linking for application with status: PENDING_LINKING',
        'no accounts': 'No accounts linked yet',
        ...malformedJson,
      }),
      401: lenderErrors[401],
      404: notFound,
      413: lenderErrors[413],
      415: notJson,
      429: lenderErrors[429],
      500: lenderErrors[500],
    },
  },
  {
    method: 'post',
    path: '/api/applications/{id}/analyze',
    operationId: 'analyzeApplication',
    tags: [applications],
    summary: 'Queue the analysis; the result comes as application.decision or application.failed',
    description:
      'No body. Call after application.ready_for_analysis; earlier answers 400. PROCESSING always ends: with no outcome within ANALYSIS_TIMEOUT (5 minutes) the application fails with reason analysis_timeout. Rate limit: 30 a minute per account.',
    request: { params: ApplicationId },
    responses: {
      200: ok('Analysis queued', AnalyzeResponse.meta({ id: 'AnalyzeResponse' }), Examples.analyze, { limited: true }),
      400: failure(400, 'No linked (and enriched) account yet, or wrong status', {
        'no accounts': 'Application has no linked bank accounts',
        'wrong status': 'Cannot analyze application with status: COMPLETED',
        ...malformedJson,
      }),
      401: lenderErrors[401],
      404: notFound,
      413: lenderErrors[413],
      415: notJson,
      429: lenderErrors[429],
      500: lenderErrors[500],
    },
  },
  {
    method: 'post',
    path: '/api/applications/{id}/link-account',
    operationId: 'linkAccount',
    tags: [applications],
    summary: 'A fresh widget address; restarts enrichment of the account(s) re-linked',
    description:
      'With `accountId` (from account.enrichment_failed) that account is re-linked and its enrichment restarts; without a body a fresh widget address is issued and every account whose enrichment is not complete restarts. Checks the application (404, 400) before the provider key (500).',
    request: {
      params: ApplicationId,
      body: { required: false, content: { 'application/json': { schema: LinkAccountBody } } },
    },
    responses: {
      200: ok('Widget address issued', LinkAccountResponse.meta({ id: 'LinkAccountResponse' }), Examples.linkAccount, {
        limited: true,
      }),
      400: failure(
        400,
        'Application COMPLETED, FAILED or ABANDONED, an account not of this application, or an invalid body',
        {
          'terminal status': 'Cannot link accounts for application with status: COMPLETED',
          'unknown account': `Account ${Examples.linkAccount.accountId} is not linked to this application`,
          ...malformedJson,
        },
      ),
      401: lenderErrors[401],
      404: notFound,
      413: lenderErrors[413],
      415: notJson,
      429: lenderErrors[429],
      500: failure(500, 'No provider key on your account, or a downstream failure', {
        'no provider key': PROVIDER_KEY_MISSING_MESSAGE,
        'took too long': 'The request took too long to process; retry it (initiate with the same idempotencyKey)',
      }),
    },
  },
  {
    method: 'post',
    path: '/api/applications/{id}/review',
    operationId: 'reviewApplication',
    tags: [reviews],
    summary: 'Review a MANUAL_REVIEW decision: approve, counter-offer or decline, with a reason',
    description:
      'Only for a COMPLETED application whose decision is MANUAL_REVIEW, or that the applicant contested (POST /api/applications/{id}/contest), and that has no final review yet. `reviewer` is your staff id of the reviewer, recorded as such (in the console, `/console/api`, the reviewer is the signed-in user’s e-mail address and `reviewer` may be left out; another name there is a 400). APPROVED grants the ask unless `terms` are given; COUNTER_OFFER needs `terms`; DECLINED takes none. Terms are priced with the scorecard’s own formula (`monthly_payment`); a payment beyond the applicant’s repayment capacity (a third of verified monthly income less existing repayments) needs `override: true` and a `note`. A review granting more than your `reviewConfirmationAbove` stays PENDING_CONFIRMATION until another reviewer confirms it; any other is FINAL at once. application.review_completed is sent when it is final, always after the application’s application.decision; the application stays COMPLETED. The same review sent again (a retry) answers as the first did. Rate limit: 60 a minute per IP with the other calls.',
    request: {
      params: ApplicationId,
      body: {
        required: true,
        content: {
          'application/json': { schema: ReviewRequest.meta({ id: 'ReviewRequest', example: Examples.reviewRequest }) },
        },
      },
    },
    responses: {
      200: ok(
        'The review as made: FINAL, or PENDING_CONFIRMATION above your threshold',
        ReviewResult,
        Examples.reviewPending,
        { limited: true },
      ),
      400: failure(400, 'Not a COMPLETED MANUAL_REVIEW application, already reviewed, or a review that breaks a rule', {
        'wrong status': 'Cannot review application with status: PROCESSING',
        'not referred': 'Only a MANUAL_REVIEW decision is reviewed; this application’s decision is APPROVED',
        'already reviewed': 'Application has already been reviewed (APPROVED); a final review is not changed',
        'missing terms': 'A COUNTER_OFFER review needs terms: amount, tenor and interestRate',
        'beyond capacity':
          'The terms need override: true and a note: the monthly payment of ₦112,825.41 is beyond the applicant’s repayment capacity of ₦80,000',
        'invalid field': 'outcome must be one of: APPROVED, COUNTER_OFFER, DECLINED',
        ...malformedJson,
      }),
      401: lenderErrors[401],
      404: notFound,
      409: failure(409, 'Another review of the application awaits confirmation', {
        'review under way':
          'A review of this application by officer-1042 awaits confirmation; confirm it or wait for it',
      }),
      413: lenderErrors[413],
      415: notJson,
      429: lenderErrors[429],
      500: lenderErrors[500],
    },
  },
  {
    method: 'post',
    path: '/api/applications/{id}/review/confirm',
    operationId: 'confirmReview',
    tags: [reviews],
    summary: 'Confirm a review awaiting a second reviewer (maker-checker); it becomes final',
    description:
      '`reviewer` is your staff id of the second reviewer, who must not be the one who made the review (that is a 409: the same person cannot make and check); in the console the signed-in user confirms, by e-mail address, and `reviewer` may be left out. application.review_completed is sent, naming the maker as `reviewer`; the application’s detail shows both. The same confirmation sent again answers as the first did.',
    request: {
      params: ApplicationId,
      body: {
        required: true,
        content: {
          'application/json': {
            schema: ConfirmReviewRequest.meta({ id: 'ConfirmReviewRequest', example: Examples.confirmReviewRequest }),
          },
        },
      },
    },
    responses: {
      200: ok('The review, now FINAL', ReviewResult, Examples.reviewConfirmed, { limited: true }),
      400: failure(400, 'No review awaiting confirmation, or an invalid body', {
        'no review': 'Application has no review to confirm',
        'already final': 'The review of this application is already final',
        'no reviewer': 'reviewer is required',
        ...malformedJson,
      }),
      401: lenderErrors[401],
      404: notFound,
      409: failure(409, 'The reviewer who made the review cannot confirm it', {
        'same reviewer': 'The reviewer who made a review cannot confirm it; another reviewer must',
      }),
      413: lenderErrors[413],
      415: notJson,
      429: lenderErrors[429],
      500: lenderErrors[500],
    },
  },
  {
    method: 'post',
    path: '/api/applications/{id}/contest',
    operationId: 'contestDecision',
    tags: [reviews],
    summary: 'Contest a DECLINED or COUNTER_OFFER decision with the applicant’s statement (NDPA s.37)',
    description:
      'The Nigeria Data Protection Act 2023 (s.37) lets a person subject to an automated decision ask for a human, give their view and contest it; you open the contest for your applicant with their `statement`. Only a COMPLETED application whose decision stands DECLINED or COUNTER_OFFER (the scorecard’s, or your final review’s) is contested, once: an APPROVED decision, or one still awaiting its review, is a 400. The application goes back to your review queue (`GET /api/reviews`, with its `contest`); the review it had is kept as the contest’s `priorReview`. Its new review (`POST /api/applications/{id}/review`) always awaits a second reviewer’s confirmation, whatever it grants, and when final resolves the contest and sends application.review_completed with the contest’s `contestId`. Every read of the application says whether it can be contested (`contestAvailability`). The same statement sent again answers as the first did; another is a 409. The statement is kept sealed like the applicant’s identity. Rate limit: 60 a minute per IP with the other calls.',
    request: {
      params: ApplicationId,
      body: {
        required: true,
        content: {
          'application/json': {
            schema: ContestRequest.meta({ id: 'ContestRequest', example: Examples.contestRequest }),
          },
        },
      },
    },
    responses: {
      200: ok('The contest, OPEN: the application is in your review queue', ContestResult, Examples.contestOpened, {
        limited: true,
      }),
      400: failure(400, 'Not a decided application, a decision that is not contested, or an invalid statement', {
        'wrong status':
          'Cannot contest application with status: PROCESSING; only a decided (COMPLETED) application is contested',
        approved: 'Only a DECLINED or COUNTER_OFFER decision is contested; this application’s decision is APPROVED',
        'under review':
          'The decision awaits the lender’s review (MANUAL_REVIEW); it can be contested once the review is final',
        'no statement': 'statement must not be empty: the applicant’s own words',
        ...malformedJson,
      }),
      401: lenderErrors[401],
      404: notFound,
      409: failure(409, 'The decision was already contested with another statement', {
        'contested once':
          'The decision was contested on 2026-11-22T09:30:00.000Z (contest 0b8e3a55-4f1d-4c7a-9e2b-6d1f0a3c5e77, OPEN); a decision is contested once',
      }),
      413: lenderErrors[413],
      415: notJson,
      429: lenderErrors[429],
      500: lenderErrors[500],
    },
  },
  {
    method: 'post',
    path: '/api/applications/{id}/offer',
    operationId: 'respondToOffer',
    tags: [reviews],
    summary:
      'The applicant’s answer to the offer: accept, decline, or withdraw an acceptance in its cooling-off period',
    description:
      'An APPROVED or COUNTER_OFFER decision (the scorecard’s, or your final review’s) is an offer, not a loan: the application’s `offer` shows its terms, key facts and `expiresAt` (`validityDays` after it was made, 7 unless your policy’s `offer.validityDays` says otherwise, and never before the end of the 2nd working day in Lagos after it). Send the applicant’s answer: `ACCEPTED` or `DECLINED` while it is OPEN (after `expiresAt` it is EXPIRED, application.offer_expired is sent, and an answer is a 400); `WITHDRAWN` after an acceptance, until `coolingOffEndsAt` (the end of the `coolingOffWorkingDays`th working day in Lagos after acceptance, 3 unless your policy’s `offer.coolingOffWorkingDays` says otherwise, weekends and Nigerian public holidays counted out). Both are fixed from the policy version of the decision when the offer is made: a later policy change does not move them. Each sends its event (application.offer_accepted, application.offer_declined, application.offer_withdrawn). The same answer sent again answers as the first did; another once answered is a 400. No offer is accepted automatically, and none exists while a review or a contest is under way. Rate limit: 60 a minute per IP with the other calls.',
    request: {
      params: ApplicationId,
      body: {
        required: true,
        content: {
          'application/json': {
            schema: OfferResponseRequest.meta({ id: 'OfferResponseRequest', example: { response: 'ACCEPTED' } }),
          },
        },
      },
    },
    responses: {
      200: ok(
        'The offer as it now stands',
        z
          .object({ applicationId: Uuid, status: z.literal('COMPLETED'), offer: OfferView.meta({ id: 'Offer' }) })
          .meta({ id: 'OfferResult' }),
        Examples.offerAccepted,
        { limited: true },
      ),
      400: failure(
        400,
        'No offer, an offer already answered or expired, a cooling-off period ended, or an invalid body',
        {
          'no offer': 'This application has no offer to answer (its decision grants no terms)',
          expired: 'The offer expired at 2026-11-27T09:15:27.412Z',
          answered: 'The offer was already declined on 2026-11-21T10:00:00.000Z',
          'cooling-off ended':
            'The cooling-off period ended at 2026-11-25T22:59:59.999Z; the acceptance can no longer be withdrawn',
          'invalid response': 'response must be one of: ACCEPTED, DECLINED, WITHDRAWN',
          ...malformedJson,
        },
      ),
      401: lenderErrors[401],
      404: notFound,
      413: lenderErrors[413],
      415: notJson,
      429: lenderErrors[429],
      500: lenderErrors[500],
    },
  },
  {
    method: 'get',
    path: '/api/reviews',
    operationId: 'listReviews',
    tags: [reviews],
    summary: 'Your review queue: MANUAL_REVIEW applications, oldest decision first, a page at a time',
    description:
      '`status=OPEN` (the default): no final review yet, a review awaiting confirmation included; `status=DONE`: reviewed. Each carries the reasons, score, ask, the terms scoring would grant, and its age since the decision. Pass `nextCursor` as `cursor` for the next page. Any other query parameter is a 400. Rate limit: 60 a minute per IP with the other calls.',
    request: {
      query: ReviewListQuery.extend({
        cursor: ReviewListQuery.shape.cursor.meta({ description: 'The `nextCursor` of the previous page; opaque' }),
      }),
    },
    responses: {
      200: ok(
        'A page of the queue',
        ReviewPage.extend({ items: z.array(ReviewQueueItem.meta({ id: 'ReviewQueueItem' })) }).meta({
          id: 'ReviewPage',
        }),
        Examples.reviewPage,
        {
          limited: true,
          links: {
            ReviewApplication: {
              operationId: 'reviewApplication',
              parameters: { id: '$response.body#/items/0/applicationId' },
            },
          },
        },
      ),
      400: failure(400, 'An invalid query parameter (the message names it), or an unknown one', {
        'bad status': 'status must be one of: OPEN, DONE',
        'bad limit': 'limit must be an integer between 1 and 100',
        'bad cursor': 'cursor is not valid; use the nextCursor of a previous page',
        'unknown parameter': 'Unknown query parameter q; allowed: status, limit, cursor',
      }),
      401: lenderErrors[401],
      413: lenderErrors[413],
      429: lenderErrors[429],
      500: lenderErrors[500],
    },
  },
  {
    method: 'get',
    path: '/api/webhooks/deliveries',
    operationId: 'listDeliveries',
    tags: [deliveries],
    summary: 'Your webhook deliveries, newest first, with every attempt',
    request: { query: DeliveryListQuery },
    responses: {
      200: ok(
        'A page of deliveries',
        DeliveryPage.extend({ data: z.array(DeliveryView.meta({ id: 'Delivery' })) }).meta({ id: 'DeliveryPage' }),
        { data: [Examples.delivery], nextCursor: null },
        {
          limited: true,
          links: {
            GetDelivery: { operationId: 'getDelivery', parameters: { id: '$response.body#/data/0/id' } },
            Redeliver: { operationId: 'redeliverDelivery', parameters: { id: '$response.body#/data/0/id' } },
          },
        },
      ),
      400: failure(400, 'An invalid filter', {
        'bad status': 'status: Invalid option: expected one of "PENDING"|"DELIVERED"|"FAILED"|"SKIPPED"',
      }),
      401: lenderErrors[401],
      413: lenderErrors[413],
      429: lenderErrors[429],
      500: failure(500, 'The delivery log is unavailable: retry', {
        unavailable: 'The webhook delivery log is unavailable right now; retry the request',
      }),
    },
  },
  {
    method: 'post',
    path: '/api/webhooks/deliveries/replay',
    operationId: 'replayDeliveries',
    tags: [deliveries],
    summary: 'Re-queue FAILED deliveries since a time (the oldest first, at most `limit` a call)',
    description:
      'While `more` is true, call again: the deliveries re-queued are no longer FAILED, so the next call goes on where this one stopped.',
    request: {
      body: {
        required: true,
        content: {
          'application/json': { schema: ReplayRequest.meta({ id: 'ReplayRequest', example: Examples.replayRequest }) },
        },
      },
    },
    responses: {
      202: ok('Deliveries re-queued', ReplayResult.meta({ id: 'ReplayResult' }), Examples.replayResult, {
        limited: true,
      }),
      400: failure(400, 'An invalid body', {
        'no since': 'since: since is required and must be an ISO 8601 date-time',
        ...malformedJson,
      }),
      401: lenderErrors[401],
      413: lenderErrors[413],
      415: notJson,
      429: lenderErrors[429],
      500: failure(500, 'The delivery log is unavailable: retry', {
        unavailable: 'The webhook delivery log is unavailable right now; retry the request',
      }),
    },
  },
  {
    method: 'get',
    path: '/api/webhooks/deliveries/{id}',
    operationId: 'getDelivery',
    tags: [deliveries],
    summary: 'One delivery and its attempts',
    request: { params: DeliveryId },
    responses: {
      200: ok('The delivery', DeliveryView, Examples.delivery, {
        limited: true,
        links: { Redeliver: { operationId: 'redeliverDelivery', parameters: { id: '$response.body#/id' } } },
      }),
      401: lenderErrors[401],
      404: failure(404, 'No such delivery of yours', { 'not found': 'Delivery not found' }),
      413: lenderErrors[413],
      429: lenderErrors[429],
      500: failure(500, 'The delivery log is unavailable: retry', {
        unavailable: 'The webhook delivery log is unavailable right now; retry the request',
      }),
    },
  },
  {
    method: 'post',
    path: '/api/webhooks/deliveries/{id}/redeliver',
    operationId: 'redeliverDelivery',
    tags: [deliveries],
    summary: 'Send a delivery again (one attempt), whatever its status',
    request: { params: DeliveryId },
    responses: {
      202: ok(
        'Redelivery queued',
        DeliveryView,
        { ...Examples.delivery, status: 'PENDING', reason: null, nextAttemptAt: '2026-11-20T09:30:00.000Z' },
        { limited: true },
      ),
      400: failure(400, 'Malformed JSON', malformedJson),
      401: lenderErrors[401],
      404: failure(404, 'No such delivery of yours', { 'not found': 'Delivery not found' }),
      409: failure(409, 'The delivery is already pending', { pending: 'Delivery is already pending' }),
      413: lenderErrors[413],
      415: notJson,
      429: lenderErrors[429],
      500: failure(500, 'The delivery log is unavailable: retry', {
        unavailable: 'The webhook delivery log is unavailable right now; retry the request',
      }),
    },
  },
  {
    method: 'get',
    path: '/api/policies',
    operationId: 'listPolicies',
    tags: [policies],
    summary: 'Your credit policy versions, the active one and the challenger',
    description: 'Until you activate a version of your own, the built-in policy (version 0) is active.',
    responses: {
      200: ok('Your policies', PolicyList.meta({ id: 'PolicyList' }), Examples.policyList, { limited: true }),
      401: lenderErrors[401],
      413: lenderErrors[413],
      429: lenderErrors[429],
      500: policyUnavailable,
    },
  },
  {
    method: 'post',
    path: '/api/policies',
    operationId: 'createPolicy',
    tags: [policies],
    summary: 'A new draft version of your credit policy',
    description:
      'Versions are immutable: to change a policy, post a new version. A bad policy is refused with every bad field named (`field: problem; ...`).',
    request: {
      body: {
        required: true,
        content: {
          'application/json': { schema: CreditPolicy.meta({ id: 'CreditPolicy', example: Examples.policy }) },
        },
      },
    },
    responses: {
      201: ok('The draft', PolicyCreated.meta({ id: 'PolicyCreated' }), Examples.policyCreated, { limited: true }),
      400: failure(400, 'An invalid policy: every bad field is named', {
        'bad fields':
          'bands.thresholds: thresholds must be strictly descending: LOW_RISK > MEDIUM_RISK > HIGH_RISK; affordability.maxDebtServiceRatio: maxDebtServiceRatio must be between 0.05 and 0.80; affordability.tenors: tenors must not be empty; knockOuts.1.code: duplicate knock-out code HIGH_BETTING',
        ...malformedJson,
      }),
      401: lenderErrors[401],
      413: lenderErrors[413],
      415: notJson,
      429: lenderErrors[429],
      500: policyUnavailable,
    },
  },
  {
    method: 'get',
    path: '/api/policies/challenger/report',
    operationId: 'getChallengerReport',
    tags: [policies],
    summary: 'The challenger against the active version on every decision since it was set',
    description: 'The challenger’s outcomes are kept with each analysis and never sent by webhook.',
    responses: {
      200: ok('The report', ChallengerReport.meta({ id: 'ChallengerReport' }), Examples.challengerReport, {
        limited: true,
      }),
      401: lenderErrors[401],
      404: failure(404, 'No challenger', { none: 'There is no challenger' }),
      413: lenderErrors[413],
      429: lenderErrors[429],
      500: policyUnavailable,
    },
  },
  {
    method: 'delete',
    path: '/api/policies/challenger',
    operationId: 'clearChallenger',
    tags: [policies],
    summary: 'Stop the challenger',
    responses: {
      200: ok(
        'No challenger any more',
        z.object({ challenger: z.null() }).meta({ id: 'ChallengerCleared' }),
        { challenger: null },
        { limited: true },
      ),
      401: lenderErrors[401],
      404: failure(404, 'No challenger', { none: 'There is no challenger' }),
      409: failure(409, 'Your policies changed at the same time: retry', {
        concurrent: 'The policies changed at the same time; retry the request',
      }),
      413: lenderErrors[413],
      429: lenderErrors[429],
      500: policyUnavailable,
    },
  },
  {
    method: 'get',
    path: '/api/policies/{version}',
    operationId: 'getPolicy',
    tags: [policies],
    summary: 'One version of your credit policy',
    request: { params: PolicyVersionParam },
    responses: {
      200: ok('The version', PolicyVersionSchema, Examples.policyVersion, { limited: true }),
      401: lenderErrors[401],
      404: policyNotFound,
      413: lenderErrors[413],
      429: lenderErrors[429],
      500: policyUnavailable,
    },
  },
  {
    method: 'post',
    path: '/api/policies/{version}/simulate',
    operationId: 'simulatePolicy',
    tags: [policies],
    summary: 'Replay a version on your latest decided applications, against the active one',
    description:
      'Read-only and deterministic: each analysis is decided again from its stored audit (derived features, bureau summary, the ask), with no new call to the bureau or the bank-data provider and no event; it works after the bank data was scrubbed. Where you reported outcomes of the replayed applications (POST /api/applications/{id}/outcomes), `backtest` gives the observed bad rate of the past loans both versions grant and of those the simulated version would decline, with what it cannot know in `limits` (applications the active version declined have no outcome: reject inference is out of scope). With `stress` (`cpiPercent`: income deflated by that inflation; `expenseIncreasePercent`: spending up by that much), `stress` counts the simulated version’s approvals that would no longer pass affordability.',
    request: {
      params: PolicyVersionParam,
      body: {
        required: false,
        content: {
          'application/json': {
            schema: SimulateRequest.meta({ id: 'SimulateRequest', example: Examples.simulateRequest }),
          },
        },
      },
    },
    responses: {
      200: ok(
        'Outcomes now and under the version',
        SimulationResult.meta({ id: 'SimulationResult' }),
        Examples.simulation,
        { limited: true },
      ),
      400: failure(400, 'An invalid limit', {
        'bad limit': 'limit: limit must be between 1 and 5000',
        ...malformedJson,
      }),
      401: lenderErrors[401],
      404: policyNotFound,
      413: lenderErrors[413],
      415: notJson,
      429: lenderErrors[429],
      500: policyUnavailable,
    },
  },
  {
    method: 'post',
    path: '/api/policies/{version}/activate',
    operationId: 'activatePolicy',
    tags: [policies],
    summary: 'Make a version decide your applications from now on',
    description:
      'Every analysis you ask for from now on is decided by this version, on every scoring replica; decisions already made do not change, and an analysis asked for before keeps the version active then. The version active until now is retired and cannot be activated again.',
    request: { params: PolicyVersionParam },
    responses: {
      200: ok('The version, active', PolicyVersionSchema, Examples.policyVersion, { limited: true }),
      400: failure(400, 'A retired version', {
        retired: 'Policy version 1 is retired and cannot be activated again; create a new version from it',
      }),
      401: lenderErrors[401],
      404: policyNotFound,
      409: failure(409, 'Your policies changed at the same time: retry', {
        concurrent: 'The policies changed at the same time; retry the request',
      }),
      413: lenderErrors[413],
      429: lenderErrors[429],
      500: policyUnavailable,
    },
  },
  {
    method: 'post',
    path: '/api/policies/{version}/challenger',
    operationId: 'setChallenger',
    tags: [policies],
    summary: 'Run a draft in the shadow of the active version',
    description:
      'From now on, each analysis is also decided by the challenger; its outcome is kept for the report and never sent.',
    request: { params: PolicyVersionParam },
    responses: {
      200: ok(
        'The version, challenger',
        PolicyVersionSchema,
        { ...Examples.policyVersion, version: 3, status: 'DRAFT', challenger: true, activatedAt: null },
        { limited: true },
      ),
      400: failure(400, 'Not a draft', {
        'not a draft': 'Policy version 2 is ACTIVE; only a draft can be the challenger',
      }),
      401: lenderErrors[401],
      404: policyNotFound,
      409: failure(409, 'Your policies changed at the same time: retry', {
        concurrent: 'The policies changed at the same time; retry the request',
      }),
      413: lenderErrors[413],
      429: lenderErrors[429],
      500: policyUnavailable,
    },
  },
  {
    method: 'get',
    path: '/api/portfolio',
    operationId: 'getPortfolio',
    tags: [portfolio],
    summary:
      'Your numbers over a period: applications by status and decision, day by day, approval rate, scores, time to decision, abandonment, webhook health',
    description: `Counts your applications created from \`from\` to \`to\` (days in your time zone, both included; the last 30 days by default, at most ${PORTFOLIO_MAX_DAYS}), as they stand now, and your webhook deliveries recorded in the same period. An application belongs to the day it was created: \`days\` lists every day of the period with what became of that day's applications. \`approvalRate\` is APPROVED among the decided; \`decisionTime\` runs from initiate to the decision. Nothing in it names an applicant. Rate limit: 60 a minute per IP with the other calls.`,
    request: { query: PortfolioQuery },
    responses: {
      200: ok('The period’s numbers', PortfolioReport.meta({ id: 'PortfolioReport' }), Examples.portfolio, {
        limited: true,
      }),
      400: failure(400, 'A day that is not one, from after to, a period too long, or an unknown parameter', {
        'bad day': 'from must be a date (YYYY-MM-DD)',
        'from after to': 'from must not be after to',
        'too long': `The period is longer than ${PORTFOLIO_MAX_DAYS} days; choose a later from or an earlier to`,
        'unknown parameter': 'Unknown query parameter status; allowed: from, to',
      }),
      401: lenderErrors[401],
      413: lenderErrors[413],
      429: lenderErrors[429],
      500: lenderErrors[500],
    },
  },
  {
    method: 'get',
    path: '/api/client',
    operationId: 'getClientSettings',
    tags: [account],
    summary: 'Your account: webhook URL, the webhook secrets signing now (never their values), provider key set or not',
    responses: {
      200: ok('Your account', ClientSettingsSchema, Examples.clientSettings, { limited: true }),
      401: lenderErrors[401],
      413: lenderErrors[413],
      429: lenderErrors[429],
      500: lenderErrors[500],
    },
  },
  {
    method: 'patch',
    path: '/api/client',
    operationId: 'updateClientSettings',
    tags: [account],
    summary:
      'Set where your webhooks go (null: nowhere; events are then logged as SKIPPED), your review threshold, your time zone and your record retention',
    description:
      'The URL is checked as the notifier will deliver to it: https to a public host (plain http and private addresses only on local stacks). `reviewConfirmationAbove` (Naira, or null for none) is the maker-checker threshold: a review granting more awaits a second reviewer’s confirmation. `timeZone` (an IANA name such as Africa/Lagos, the default; null goes back to it) is the zone of your days: the list’s `from` and `to`, the portfolio, and the times the console shows. `recordRetentionYears` (5, the default and FCCPC’s minimum, to 10; null goes back to 5) is how long an ended application’s records (decision, offer and its answers, review, contest) are kept from its end before they are purged; it applies to applications that end from then on, and each shows its `retainedUntil`. Send any of them.',
    request: {
      body: {
        required: true,
        content: {
          'application/json': {
            // At least one of the two fields: the refinement that says so has no JSON Schema of its own.
            schema: UpdateClientSettingsRequest.meta({
              id: 'UpdateClientSettingsRequest',
              example: Examples.updateClientSettingsRequest,
              minProperties: 1,
            }),
          },
        },
      },
    },
    responses: {
      200: ok('Your account as it now is', ClientSettingsSchema, Examples.clientSettings, { limited: true }),
      400: failure(400, 'No webhookUrl, not a URL, one the notifier would refuse, or another field', {
        'nothing to change': 'webhookUrl, reviewConfirmationAbove, timeZone or recordRetentionYears is required',
        'bad time zone': 'timeZone must be an IANA time zone name, such as Africa/Lagos',
        'refused URL': 'webhookUrl is refused: the webhook URL must use https',
        'bad threshold': 'reviewConfirmationAbove must be 0 or more Naira',
        'short retention': 'recordRetentionYears must be at least 5 (FCCPC: records are kept 5 years)',
        'other field':
          'Unknown field name; only webhookUrl, reviewConfirmationAbove, timeZone and recordRetentionYears can be changed',
        ...malformedJson,
      }),
      ...accountChangeErrors,
    },
  },
  {
    method: 'post',
    path: '/api/client/rotate-key',
    operationId: 'rotateClientApiKey',
    tags: [account],
    summary: 'A new API key, shown once; the key of this request stops working at once',
    description: 'No body. Store the new key before anything else: the old one is refused from this answer on.',
    responses: {
      200: ok('The new key', RotateKeyResponse.meta({ id: 'RotateKeyResponse' }), Examples.rotateKey, {
        limited: true,
      }),
      400: failure(400, 'Malformed JSON', malformedJson),
      ...accountChangeErrors,
    },
  },
  {
    method: 'post',
    path: '/api/client/rotate-webhook-secret',
    operationId: 'rotateClientWebhookSecret',
    tags: [account],
    summary: 'A new webhook secret, shown once; the previous one keeps signing x-signature-previous for the overlap',
    description:
      'The overlap is `overlapSeconds` (0 to 7 days), 24 hours when absent. Webhooks carry `x-signature` with the new secret and, during the overlap, `x-signature-previous` with the previous one.',
    request: {
      body: {
        required: false,
        content: {
          'application/json': {
            schema: RotateWebhookSecretBody.meta({
              id: 'RotateWebhookSecretRequest',
              example: Examples.rotateWebhookSecretRequest,
            }),
          },
        },
      },
    },
    responses: {
      200: ok(
        'The new secret',
        RotateWebhookSecretResponse.meta({ id: 'RotateWebhookSecretResponse' }),
        Examples.rotateWebhookSecret,
        {
          limited: true,
        },
      ),
      400: failure(400, 'An invalid overlap', {
        'bad overlap': 'overlapSeconds: Too big: expected number to be <=604800',
        ...malformedJson,
      }),
      ...accountChangeErrors,
    },
  },
  {
    method: 'get',
    path: '/api/users',
    operationId: 'listUsers',
    tags: [staff],
    summary: 'Your staff, oldest first: e-mail, role, invited or active, authenticator enrolled',
    responses: {
      200: ok(
        'Your staff',
        StaffUserList.meta({ id: 'StaffUserList' }),
        { items: [Examples.staffUser] },
        { limited: true },
      ),
      ...staffErrors,
    },
  },
  {
    method: 'post',
    path: '/api/users',
    operationId: 'inviteUser',
    tags: [staff],
    summary: 'Invite a member of staff by e-mail and role: a one-time link that lapses after INVITATION_TTL',
    description:
      'The invitee opens the link, sets a password and enrols an authenticator app. Where the deployment sends no e-mail (a local stack), the link is in this answer (`invitationUrl`, once) and in the gateway’s log; with a mailer it is sent to the address and not answered.',
    request: {
      body: { required: true, content: { 'application/json': { schema: InviteUserBody } } },
    },
    responses: {
      201: ok('The invitation', StaffInvitation.meta({ id: 'StaffInvitation' }), Examples.staffInvitation, {
        limited: true,
      }),
      400: failure(400, 'No or an invalid e-mail address or role, or another field', {
        'bad e-mail': 'email: email must be a valid e-mail address',
        'bad role': 'role: role must be one of owner, developer, credit_officer, credit_manager, viewer',
        'other field': 'Unknown field name; only email and role are taken',
        ...malformedJson,
      }),
      409: failure(409, 'A user of yours already has this address', {
        taken: 'A user with this e-mail address already exists',
      }),
      415: notJson,
      ...staffErrors,
    },
  },
  {
    method: 'get',
    path: '/api/users/settings',
    operationId: 'getStaffSettings',
    tags: [staff],
    summary: 'Whether every user must sign in with an authenticator code',
    responses: { 200: ok('The settings', StaffSettings, Examples.staffSettings, { limited: true }), ...staffErrors },
  },
  {
    method: 'patch',
    path: '/api/users/settings',
    operationId: 'updateStaffSettings',
    tags: [staff],
    summary: 'Require an authenticator code of every user (or not)',
    description:
      'With `requireTotp`, a user without an enrolled authenticator is refused at sign-in (403) until invited again.',
    request: { body: { required: true, content: { 'application/json': { schema: StaffSettingsRequest } } } },
    responses: {
      200: ok('The settings as they now are', StaffSettings, Examples.staffSettings, { limited: true }),
      400: failure(400, 'No or a non-boolean requireTotp', {
        'bad value': 'requireTotp: requireTotp must be true or false',
        ...malformedJson,
      }),
      415: notJson,
      ...staffErrors,
    },
  },
  {
    method: 'patch',
    path: '/api/users/{id}',
    operationId: 'changeUserRole',
    tags: [staff],
    summary: 'Change a user’s role; the user’s console sessions end',
    request: {
      params: UserId,
      body: {
        required: true,
        content: {
          'application/json': {
            schema: UpdateUserRequest.meta({ id: 'UpdateUserRequest', example: Examples.updateUserRequest }),
          },
        },
      },
    },
    responses: {
      200: ok(
        'The user as it now is',
        StaffUserSchema,
        { ...Examples.staffUser, role: 'credit_manager' },
        { limited: true },
      ),
      400: failure(400, 'No or an invalid role, or another field', {
        'bad role': 'role: role must be one of owner, developer, credit_officer, credit_manager, viewer',
        'other field': 'Unknown field name; only role can be changed',
        ...malformedJson,
      }),
      404: userNotFound,
      409: lastOwner,
      415: notJson,
      ...staffErrors,
    },
  },
  {
    method: 'delete',
    path: '/api/users/{id}',
    operationId: 'removeUser',
    tags: [staff],
    summary: 'Remove a user (or withdraw an invitation); the user’s console sessions end',
    request: { params: UserId },
    responses: {
      204: { description: 'Removed' },
      404: userNotFound,
      409: lastOwner,
      ...staffErrors,
    },
  },
  ...outcomeOperations,
];

const signatureHeaders = z.object({
  'x-signature': z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .meta({
      description: 'Hex HMAC-SHA256 of the raw body, keyed with your webhook secret',
    }),
  'x-signature-previous': z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional()
    .meta({
      description: 'The same, keyed with your previous webhook secret, during the overlap after a rotation',
    }),
  'webhook-id': z
    .string()
    .meta({ description: 'Standard Webhooks: the delivery’s id, the same on every attempt of it' }),
  'webhook-timestamp': z
    .string()
    .regex(/^\d+$/)
    .meta({ description: 'Standard Webhooks: the attempt’s time in Unix seconds; refuse one more than 5 minutes off' }),
  'webhook-signature': z.string().meta({
    description:
      'Standard Webhooks: `v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the bytes of your webhook secret; one per secret, space-separated, during a rotation overlap',
  }),
  'x-event-id': Uuid.meta({ description: 'The event id (the body’s id): deduplicate on it' }),
  'x-event-name': z
    .enum(EventNames as [EventName, ...EventName[]])
    .meta({ description: 'The event name (the body’s event)' }),
});

const eventDescriptions: Record<EventName, string> = {
  'account.linked': 'A bank account was linked through the widget; its enrichment starts.',
  'account.enrichment_ready':
    'Income analysis and statement insights have both completed for one account. Once per account (again after a re-link).',
  'application.ready_for_analysis': 'After finalize-linking, once every linked account is enriched: call analyze.',
  'account.enrichment_failed':
    'An account stayed unenriched for 20 minutes: re-link it with link-account and its accountId.',
  'application.failed':
    'The analysis could not complete (no enriched account, scoring_error, analysis_timeout). Initiate a new application.',
  'application.abandoned':
    'No account linked within 24 hours (no_link) or no analyze within 7 days of linking (no_analyze; bank data scrubbed).',
  'application.decision': 'The scored, explained decision.',
  'application.review_completed':
    'Not in the original contract: your reviewer finished a MANUAL_REVIEW decision (POST /api/applications/{id}/review, confirmed by a second reviewer above your threshold), or a contested one (then always confirmed, and `contestId` names the contest). Always after the application’s application.decision; the application stays COMPLETED.',
  'application.offer_accepted':
    'Not in the original contract: the applicant accepted the offer (POST /api/applications/{id}/offer with ACCEPTED); the terms and their key facts, and when the cooling-off period ends (the offer’s `coolingOffWorkingDays` working days in Lagos, 3 by default). Nothing is accepted automatically.',
  'application.offer_declined': 'Not in the original contract: the applicant declined the offer.',
  'application.offer_withdrawn':
    'Not in the original contract: the applicant withdrew an accepted offer within its cooling-off period, without cost.',
  'account.consent_ended':
    'Not in the original contract: the applicant’s consent to read a linked account ended: WITHDRAWN (POST /api/applications/{id}/accounts/{accountId}/consent/withdraw), EXPIRED (365 days after it was given) or LAPSED (180 days without use). Nothing more is read from the account; account.data_erased follows once it is unlinked at the provider and its bank data erased.',
  'account.data_erased':
    'Not in the original contract: an ended consent’s account was unlinked at the provider and its bank data erased; `receipt` is the path of the signed deletion receipt to hand the applicant.',
  'application.offer_expired':
    'Not in the original contract: the offer stood unanswered until its `expiresAt` (fixed from your policy when it was made) and can no longer be accepted; once per offer. Nothing is accepted automatically.',
};

const componentName = (event: string) =>
  event
    .split(/[._]/)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('') + 'Event';

/** One webhook per event: the body as signed and sent, with its example. */
export const lenderWebhooks: RouteConfig[] = EventNames.map((event) => {
  const envelope = (WebhookEnvelope.options as z.ZodObject[]).find(
    (o) => (o.shape.event as z.ZodLiteral).value === event,
  )!;
  return {
    method: 'post',
    path: event,
    operationId: `on_${event.replace('.', '_')}`,
    summary: event,
    description: `${eventDescriptions[event]} Verify \`x-signature\` or, with its time, \`webhook-signature\`, answer 2xx within 10 seconds, deduplicate on \`id\`.`,
    request: {
      headers: signatureHeaders,
      body: {
        required: true,
        content: {
          'application/json': { schema: envelope.meta({ id: componentName(event) }), example: EventExamples[event] },
        },
      },
    },
    responses: {
      200: { description: 'Any 2xx within 10 seconds acknowledges the event; anything else (3xx included) is retried' },
      401: {
        description: 'Your receiver refuses a signature that does not match (the delivery is retried, then FAILED)',
      },
    },
  } satisfies RouteConfig;
});
