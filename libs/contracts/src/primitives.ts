import { z } from 'zod';

/**
 * Bounds the spec leaves open ("not shown"), chosen for Nigerian consumer and SME lending:
 * loans up to ₦100m, tenors up to 60 months, monthly rates up to 100%.
 */
export const Limits = {
  maxAmount: 100_000_000,
  maxTenor: 60,
  maxInterestRate: 100,
  maxIdempotencyKey: 255,
  maxPurpose: 500,
  maxBodyBytes: 16 * 1024,
} as const;

/** Identifier minted by the service (applications, applicants, accounts, events). */
export const Uuid = z.uuid();

/** ISO 8601 UTC timestamp with milliseconds, as `Date.prototype.toISOString` writes it. */
export const IsoTimestamp = z.iso.datetime({ precision: 3 });

/**
 * Bank Verification Number: the 11-digit identity number every Nigerian bank customer has.
 * No checksum is published, so only the shape is checked.
 */
export const Bvn = z.string().regex(/^\d{11}$/, 'must be exactly 11 digits');

/**
 * Lifecycle of a loan application (spec section 3).
 * COMPLETED, FAILED and ABANDONED are terminal for re-linking.
 */
export const ApplicationStatus = z.enum([
  'PENDING_LINKING',
  'LINKED',
  'PROCESSING',
  'COMPLETED',
  'FAILED',
  'ABANDONED',
]);
export type ApplicationStatus = z.infer<typeof ApplicationStatus>;

/** Enrichment status of one linked account. The spec shows PENDING; the rest are ours. */
export const EnrichmentStatus = z.enum(['PENDING', 'READY', 'FAILED']);
export type EnrichmentStatus = z.infer<typeof EnrichmentStatus>;

export const AbandonReason = z.enum(['no_link', 'no_analyze']);
export type AbandonReason = z.infer<typeof AbandonReason>;

/** Loan terms the lender asks for at initiate. Amounts are whole Naira. */
export const LoanTerms = z.object({
  amount: z.number(),
  tenor: z.number().int(),
  interestRate: z.number(),
  purpose: z.string().optional(),
});
export type LoanTerms = z.infer<typeof LoanTerms>;

/**
 * The page parameters of the lender's lists (applications, deliveries): `limit` 1-100, 20 by
 * default, and the opaque `cursor` of the previous page.
 */
export const PageParams = {
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be an integer between 1 and 100')
    .min(1, 'limit must be an integer between 1 and 100')
    .max(100, 'limit must be an integer between 1 and 100')
    .default(20),
  /** Opaque: the `nextCursor` of the previous page. */
  cursor: z
    .string({ error: 'cursor must be a string' })
    .max(500, 'cursor is not valid; use the nextCursor of a previous page')
    .optional(),
};

/** The bounds of a lender's record retention, in years: FCCPC requires records kept 5 years. */
export const RECORD_RETENTION_YEARS = { min: 5, max: 10, default: 5 } as const;
