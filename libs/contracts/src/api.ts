import { z } from 'zod';
import { ConsentView } from './consent';
import { Decision, DecisionOutcome } from './decision';
import {
  ApplicationStatus,
  Bvn,
  EnrichmentStatus,
  Limits,
  PageParams,
  RECORD_RETENTION_YEARS,
  Uuid,
} from './primitives';
import { OfferView } from './offer';
import { ContestAvailability, ContestView, ReviewView } from './review';
import { searchTextTerms } from './search';
import { CalendarDay, TimeZone } from './zonedDays';

/** The characters `String.prototype.trim` removes, spelled out so that every regex engine agrees. */
const SPACE = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
/**
 * At least two characters once surrounding spaces are trimmed: the pattern says so in the
 * documents (a length alone would allow " a"). The name as sent is at most 100 characters too, as
 * the documents' maxLength says, so a request the documents refuse is refused.
 */
const TWO_VISIBLE = new RegExp(`^[${SPACE}]*[^${SPACE}][\\s\\S]*[^${SPACE}][${SPACE}]*$`);

const name = (field: string) =>
  z
    .string({ error: `${field} is required and must be a string` })
    .max(100, `${field} must be between 2 and 100 characters`)
    .regex(TWO_VISIBLE, `${field} must be between 2 and 100 characters`)
    .trim()
    .min(2, `${field} must be between 2 and 100 characters`)
    .max(100, `${field} must be between 2 and 100 characters`);

/**
 * A name as commands written before the pattern carried it: the schema registry holds the
 * command topic's schema to backward compatibility, which a new pattern would break.
 */
export const storedName = (field: string) =>
  z
    .string({ error: `${field} is required and must be a string` })
    .trim()
    .min(2, `${field} must be between 2 and 100 characters`)
    .max(100, `${field} must be between 2 and 100 characters`);

/**
 * An optional field sent as `null` or as an empty string is treated as absent: backends in Java
 * and C# commonly serialise absent fields that way. A present value is validated as usual.
 */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === null || v === '' ? undefined : v), schema.optional());

/** The applicant's phone number as the lender has it: 10 to 15 characters. */
export const Phone = z
  .string({ error: 'phone must be a string' })
  .min(10, 'phone must be between 10 and 15 characters')
  .max(15, 'phone must be between 10 and 15 characters');

/** What the loan is for, in the lender's words. */
export const Purpose = z
  .string({ error: 'purpose must be a string' })
  .max(Limits.maxPurpose, `purpose must be at most ${Limits.maxPurpose} characters`);

/** What an e-mail address must look like (zod's rule); the OpenAPI document publishes it as the field's pattern. */
export const EmailPattern = z.regexes.email;

/** Body of `POST /api/applications/initiate` (spec section 2). */
export const InitiateRequest = z.object({
  firstName: name('firstName'),
  lastName: name('lastName'),
  // RFC 5321's bounds, 254 characters in all and 64 before the @, checked in code: the JSON
  // schema of the commands topic stays as registered.
  email: z
    .email({ pattern: EmailPattern, error: 'email must be a valid e-mail address' })
    .refine((email) => email.length <= 254 && email.indexOf('@') <= 64, 'email must be a valid e-mail address'),
  phone: optional(Phone),
  bvn: optional(z.string({ error: 'bvn must be a string' }).pipe(Bvn)),
  amount: z
    .number({ error: 'amount is required and must be a number' })
    .positive('amount must be a positive number of Naira')
    .max(Limits.maxAmount, `amount must not exceed ${Limits.maxAmount}`),
  tenor: z
    .number({ error: 'tenor is required and must be a number' })
    .int('tenor must be a positive integer number of months')
    .positive('tenor must be a positive integer number of months')
    .max(Limits.maxTenor, `tenor must not exceed ${Limits.maxTenor} months`),
  interestRate: z
    .number({ error: 'interestRate is required and must be a number' })
    .min(0, 'interestRate must be a monthly percentage of 0 or more')
    .max(Limits.maxInterestRate, `interestRate must not exceed ${Limits.maxInterestRate}`),
  purpose: optional(Purpose),
  idempotencyKey: z
    .string({ error: 'idempotencyKey is required and must be a string' })
    .min(1, 'idempotencyKey must not be empty')
    .max(Limits.maxIdempotencyKey, `idempotencyKey must be at most ${Limits.maxIdempotencyKey} characters`),
});
export type InitiateRequest = z.infer<typeof InitiateRequest>;

export const InitiateResponse = z.object({
  applicationId: Uuid,
  applicantId: Uuid,
  widgetUrl: z.url(),
  status: z.literal('PENDING_LINKING'),
  resumed: z.boolean(),
});
export type InitiateResponse = z.infer<typeof InitiateResponse>;

export const FinalizeLinkingResponse = z.object({
  applicationId: Uuid,
  status: z.literal('LINKED'),
  message: z.string(),
});

export const AnalyzeResponse = z.object({
  applicationId: Uuid,
  status: z.literal('PROCESSING'),
  message: z.string(),
});

/**
 * Body of `POST /api/applications/:id/link-account` (not shown in the spec): optionally the
 * service account id to re-link, as reported by `account.enrichment_failed`.
 */
export const LinkAccountRequest = z
  .object({ accountId: Uuid.optional() })
  .optional()
  .transform((v) => v ?? {});

export const LinkAccountResponse = z.object({
  applicationId: Uuid,
  accountId: Uuid.nullable(),
  widgetUrl: z.url(),
  status: ApplicationStatus,
  message: z.string(),
});
export type LinkAccountResponse = z.infer<typeof LinkAccountResponse>;

/** One calendar month of an account's statement: money in and out, whole Naira. */
export const MonthlyFlow = z.object({
  /** `YYYY-MM` */
  month: z.string().regex(/^\d{4}-\d{2}$/),
  inflow: z.number(),
  outflow: z.number(),
  /**
   * True when the statement covers only part of the month (it starts or ends within it), so its
   * totals are not a whole month's; absent when the statement's period is not known.
   */
  partial: z.boolean().optional(),
});
export type MonthlyFlow = z.infer<typeof MonthlyFlow>;

export const AccountView = z.object({
  accountId: Uuid,
  providerAccountId: z.string(),
  institution: z.string(),
  accountNumber: z.string(),
  enrichmentStatus: EnrichmentStatus,
  linkedAt: z.string(),
  /** When its statement was read (enrichment READY); null before, and when it could not be read. */
  enrichedAt: z.string().nullable().optional(),
  /**
   * Inflows and outflows month by month, oldest first, once the account's statement has been
   * analyzed; empty before, and after its bank data is scrubbed.
   */
  monthlyFlows: z.array(MonthlyFlow),
  /** The applicant's consent to read the account (absent on accounts linked before consent was recorded). */
  consent: ConsentView.optional(),
});

/** `GET /api/applications/:id`: for lenders that poll when a webhook went missing. */
export const ApplicationView = z.object({
  applicationId: Uuid,
  applicantId: Uuid,
  status: ApplicationStatus,
  applicant: z.object({ firstName: z.string(), lastName: z.string(), email: z.string() }),
  loan: z.object({
    amount: z.number(),
    tenor: z.number(),
    interestRate: z.number(),
    purpose: z.string().nullable(),
  }),
  linkingLocked: z.boolean(),
  /** When finalize-linking closed the application to new accounts; null while it is open. */
  linkingFinalizedAt: z.string().nullable().optional(),
  /** When the lender last asked for the analysis (`/analyze`); null before. */
  analysisRequestedAt: z.string().nullable().optional(),
  accounts: z.array(AccountView),
  decision: Decision.nullable(),
  /** A lender's review of a MANUAL_REVIEW decision, once one is made; null before. */
  review: ReviewView.nullable(),
  /** Whether the decision can be contested and how (`POST /api/applications/:id/contest`). */
  contestAvailability: ContestAvailability.optional(),
  /** The applicant's contest of the decision, once made; null before. */
  contest: ContestView.nullable().optional(),
  /** The offer of an APPROVED or COUNTER_OFFER decision (the applicant accepts or declines it); null when there is none. */
  offer: OfferView.nullable().optional(),
  failureReason: z.string().nullable(),
  abandonReason: z.string().nullable(),
  /**
   * Until when the records of an ended application (COMPLETED, FAILED, ABANDONED) are kept, by
   * the lender's `recordRetentionYears` from its end; then it is purged. Null while it is open.
   */
  retainedUntil: z.string().nullable().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ApplicationView = z.infer<typeof ApplicationView>;

const UUID_TEXT = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/**
 * What a lender types into a search: an application or applicant id (the 8-4-4-4-12 hex form
 * of any UUID, either case; ids are minted lower case), or who applied: words of the
 * applicant's names, an e-mail address, a phone number or a BVN, as {@link searchTextTerms}
 * reads them (`none` when the text holds nothing any applicant could be found by, such as
 * punctuation alone or four digits: it matches no application). The words are never sent on:
 * the gateway turns them into blind indexes.
 */
const SearchQuery = z
  .string({ error: 'q must be a string' })
  .max(100, 'q must be at most 100 characters')
  .transform((text): { id: string } | { terms: string[][] } | { none: true } => {
    const trimmed = text.trim();
    if (UUID_TEXT.test(trimmed)) return { id: trimmed.toLowerCase() };
    const terms = searchTextTerms(trimmed);
    return terms === null ? { none: true } : { terms };
  });

const STATUS_MESSAGE = `status must be one of: ${ApplicationStatus.options.join(', ')}`;
const DECISION_MESSAGE = `decision must be one of: ${DecisionOutcome.options.join(', ')}`;

/** A query parameter of values from `allowed`: repeated, comma-separated, or both. */
function repeatedParam<E extends z.ZodEnum>(allowed: E, message: string) {
  return z.preprocess(
    (v) =>
      (Array.isArray(v) ? v : [v]).flatMap((s) => (typeof s === 'string' ? s.split(',').map((x) => x.trim()) : [s])),
    z
      .array(z.string({ error: message }))
      .refine((list) => list.every((s) => allowed.safeParse(s).success), message)
      .transform((list) => list as z.output<E>[]),
  );
}

/** A calendar day in the lender's time zone (Africa/Lagos unless it set another), as `YYYY-MM-DD`. */
const LenderDay = CalendarDay;

/** The query names `GET /api/applications` understands; any other is refused. */
export const ApplicationListParams = ['status', 'decision', 'from', 'to', 'q', 'limit', 'cursor'] as const;

/**
 * Query of `GET /api/applications`: the caller's applications, newest first. `status` and
 * `decision` may be repeated or comma-separated lists; `from` and `to` are days in the lender's time zone,
 * both included, of the application's creation; `q` is an id or who applied.
 */
export const ApplicationListQuery = z.strictObject(
  {
    status: repeatedParam(ApplicationStatus, STATUS_MESSAGE).optional(),
    decision: repeatedParam(DecisionOutcome, DECISION_MESSAGE).optional(),
    from: LenderDay('from').optional(),
    to: LenderDay('to').optional(),
    q: SearchQuery.optional(),
    ...PageParams,
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `Unknown query parameter ${issue.keys.join(', ')}; allowed: ${ApplicationListParams.join(', ')}`
        : undefined,
  },
);

export type ApplicationListQuery = z.input<typeof ApplicationListQuery>;

/** One row of the application list: who, how much, where it stands. */
export const ApplicationSummary = z.object({
  applicationId: Uuid,
  applicantId: Uuid,
  status: ApplicationStatus,
  /** First and last name as the lender sent them. */
  applicantName: z.string(),
  /** Naira. */
  amount: z.number(),
  /** Months. */
  tenor: z.number(),
  accountCount: z.number().int(),
  /** The decision's score once the application is scored. */
  score: z.number().nullable(),
  /** The decision's `decision` once the application is scored. */
  decision: DecisionOutcome.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ApplicationSummary = z.infer<typeof ApplicationSummary>;

/** `GET /api/applications`: one page, newest first. */
export const ApplicationPage = z.object({
  items: z.array(ApplicationSummary),
  /** The cursor of the next page; null on the last one. */
  nextCursor: z.string().nullable(),
  /** How many applications the filter matches, on every page; counted up to 10,000. */
  total: z.number().int().min(0),
  /** True when more than `total` (10,000) match: the count stopped there. */
  totalCapped: z.boolean(),
});
export type ApplicationPage = z.infer<typeof ApplicationPage>;

/** Every error response (spec section 7). */
export const ErrorBody = z.object({
  statusCode: z.number().int(),
  message: z.string(),
  error: z.string(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const StatusNames: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function errorBody(statusCode: number, message: string): ErrorBody {
  return { statusCode, message, error: StatusNames[statusCode] ?? 'Error' };
}

/**
 * The lender's maker-checker threshold in Naira: a review granting more than this awaits a
 * second reviewer's confirmation; null (the default): every review is final at once.
 */
export const ReviewConfirmationAbove = z
  .number({ error: 'reviewConfirmationAbove must be a number of Naira or null' })
  .min(0, 'reviewConfirmationAbove must be 0 or more Naira')
  .max(Limits.maxAmount, `reviewConfirmationAbove must not exceed ${Limits.maxAmount}`)
  .nullable();

/**
 * How many years a lender keeps the records of an ended application (decision, offer and its
 * answers, review, contest) before they are purged: at least 5, as FCCPC requires records kept
 * 5 years; null (the default) sets it back to 5.
 */
export const RecordRetentionYears = z
  .number({ error: 'recordRetentionYears must be a whole number of years or null' })
  .int('recordRetentionYears must be a whole number of years')
  .min(
    RECORD_RETENTION_YEARS.min,
    `recordRetentionYears must be at least ${RECORD_RETENTION_YEARS.min} (FCCPC: records are kept 5 years)`,
  )
  .max(RECORD_RETENTION_YEARS.max, `recordRetentionYears must be at most ${RECORD_RETENTION_YEARS.max}`)
  .nullable();

/** Admin API of the local contract (DESIGN.md). */
export const CreateClientRequest = z.object({
  // Not blank: the document says so (`pattern`), as the trimmed name must have a character.
  name: z
    .string()
    .regex(/\S/, 'name is required')
    .trim()
    .min(1, 'name is required')
    .max(200, 'name must be at most 200 characters'),
  webhookUrl: z.url({ error: 'webhookUrl must be a URL' }).optional(),
  providerSecretKey: z.string().min(1, 'providerSecretKey must not be empty').max(500).optional(),
  providerWebhookSecret: z
    .string()
    .min(16, 'providerWebhookSecret must have at least 16 characters')
    .max(500)
    .optional(),
});
export const UpdateClientRequest = z.object({
  webhookUrl: z.url({ error: 'webhookUrl must be a URL' }).nullable().optional(),
  providerSecretKey: z.string().min(1, 'providerSecretKey must not be empty').max(500).nullable().optional(),
  /**
   * The webhook secret of the client's own provider app: its provider webhooks then go to
   * `/provider/webhooks/mono/<clientId>` and are verified against it (docs/security.md).
   */
  providerWebhookSecret: z
    .string()
    .min(16, 'providerWebhookSecret must have at least 16 characters')
    .max(500)
    .nullable()
    .optional(),
  reviewConfirmationAbove: ReviewConfirmationAbove.optional(),
  /** The IANA time zone of the lender's days and times; null: back to Africa/Lagos. */
  timeZone: TimeZone.nullable().optional(),
  recordRetentionYears: RecordRetentionYears.optional(),
});
export const CreateClientResponse = z.object({
  clientId: z.string(),
  apiKey: z.string(),
  webhookSecret: z.string(),
});

/** A client account as the admin API shows it: never its keys or secrets. */
export const ClientView = z.object({
  clientId: z.string(),
  name: z.string(),
  webhookUrl: z.string().nullable(),
  providerKeyConfigured: z.boolean(),
  providerWebhookSecretConfigured: z.boolean(),
  reviewConfirmationAbove: z.number().nullable(),
  timeZone: z.string(),
  version: z.number().int(),
});

/**
 * The lender's own account as `GET /api/client` shows it: never a key or a secret, only
 * whether the provider key is set and until when each webhook secret signs.
 */
export const ClientSettings = z.object({
  clientId: z.string(),
  name: z.string(),
  webhookUrl: z.string().nullable(),
  /** The secrets that sign webhooks now, newest first; an older one until its `validUntil`. */
  webhookSecrets: z.array(
    z.object({
      /** When the secret was issued (absent for secrets issued before this was recorded). */
      createdAt: z.string().optional(),
      /** Null for the current secret. */
      validUntil: z.string().nullable(),
    }),
  ),
  providerKeyConfigured: z.boolean(),
  /** Reviews granting more Naira than this await a second reviewer; null: none does. */
  reviewConfirmationAbove: z.number().nullable(),
  /** The IANA time zone of the lender's days (the list's `from` and `to`, the portfolio) and of times in the console. */
  timeZone: z.string(),
  /** Years an ended application's records are kept before they are purged (5 to 10; 5 unless set). */
  recordRetentionYears: z.number().int(),
});
export type ClientSettings = z.infer<typeof ClientSettings>;

/** Body of `PATCH /api/client`: where webhooks go (null: nowhere), and the review threshold. */
export const UpdateClientSettingsRequest = z
  .strictObject(
    {
      webhookUrl: z.url({ error: 'webhookUrl must be a URL or null' }).nullable().optional(),
      reviewConfirmationAbove: ReviewConfirmationAbove.optional(),
      timeZone: TimeZone.nullable().optional(),
      recordRetentionYears: RecordRetentionYears.optional(),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `Unknown field ${issue.keys.join(', ')}; only webhookUrl, reviewConfirmationAbove, timeZone and recordRetentionYears can be changed`
          : undefined,
    },
  )
  .refine((body) => Object.values(body).some((v) => v !== undefined), {
    message: 'webhookUrl, reviewConfirmationAbove, timeZone or recordRetentionYears is required',
  });
export type UpdateClientSettingsRequest = z.infer<typeof UpdateClientSettingsRequest>;

export const RotateKeyResponse = z.object({ clientId: z.string(), apiKey: z.string() });

/** Body of `POST /admin/clients/:id/rotate-webhook-secret`; the overlap defaults to WEBHOOK_SECRET_OVERLAP. */
export const RotateWebhookSecretBody = z.object({
  overlapSeconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 86_400)
    .optional(),
});
export const RotateWebhookSecretRequest = RotateWebhookSecretBody.optional().transform((v) => v ?? {});

export const RotateWebhookSecretResponse = z.object({
  clientId: z.string(),
  webhookSecret: z.string(),
  /** Until when the previous secret still signs `x-signature-previous`. */
  previousSecretValidUntil: z.string(),
});
