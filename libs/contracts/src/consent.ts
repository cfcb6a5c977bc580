import { z } from 'zod';
import { IsoTimestamp, Uuid } from './primitives';

/**
 * The applicant's consent to read a linked account (CBN open-banking rules: consent is shown to
 * the customer, re-validated every 12 months, a connection unused for 180 days ends, and the
 * customer may withdraw it at any time). One per account link, recorded when the provider
 * reports the account linked; once it ends nothing more is fetched, the account is unlinked at
 * the provider and its bank data is erased.
 */

/** The version of the consent wording the widget shows (bumped whenever its words change). */
export const CONSENT_WORDING_VERSION = '2026-12-01';

/** The consent sentence of that version, with the lender's and the bank's names put in. */
export const consentWording = (lender: string, bank: string): string =>
  `I allow ${lender} to read this ${bank} account's details, balance and transactions to assess my loan application.`;

/** What the applicant lets the lender read, and why: what the widget's sentence says. */
export const CONSENT_DATA = ['ACCOUNT_DETAILS', 'BALANCE', 'TRANSACTIONS'] as const;
export const CONSENT_PURPOSE = 'CREDIT_ASSESSMENT';

/** How long consent lasts before it must be given again (CBN: re-validated every 12 months). */
export const CONSENT_VALID_DAYS = 365;
/** A link not used for this many days ends (CBN: a connection unused for 180 days). */
export const CONSENT_IDLE_DAYS = 180;

/** Why a consent ended. */
export const ConsentEndReason = z.enum(['WITHDRAWN', 'EXPIRED', 'LAPSED']);
export type ConsentEndReason = z.infer<typeof ConsentEndReason>;

/** ACTIVE while data may be read; the others are final. */
export const ConsentStatus = z.enum(['ACTIVE', 'WITHDRAWN', 'EXPIRED', 'LAPSED']);
export type ConsentStatus = z.infer<typeof ConsentStatus>;

/** An account's consent as the lender's API shows it (`accounts[].consent`). */
export const ConsentView = z.object({
  consentId: Uuid,
  status: ConsentStatus,
  /** What may be read, and for what. */
  data: z.array(z.enum(CONSENT_DATA)),
  purpose: z.literal(CONSENT_PURPOSE),
  /** The version of the widget's consent wording the applicant agreed to. */
  wordingVersion: z.string(),
  givenAt: IsoTimestamp,
  /** 365 days after it was given (the service's `CONSENT_VALIDITY`), unless it ends before. */
  expiresAt: IsoTimestamp,
  /** When the service last read the account through it (linking, enrichment). */
  lastUsedAt: IsoTimestamp,
  /** 180 days after its last use (`CONSENT_IDLE_LAPSE`), unless it is used again or ends before. */
  lapsesAt: IsoTimestamp,
  endedAt: IsoTimestamp.nullable(),
  endReason: ConsentEndReason.nullable(),
  /** When the account was unlinked at the provider, after the consent ended. */
  unlinkedAt: IsoTimestamp.nullable(),
  /** When the account's bank data was erased, after the consent ended. */
  bankDataErasedAt: IsoTimestamp.nullable(),
  /**
   * Where the signed deletion receipt is read once both are done (`GET` with the lender's key),
   * null until then.
   */
  receipt: z.string().nullable(),
});
export type ConsentView = z.infer<typeof ConsentView>;

/** The body of `POST /api/applications/{id}/accounts/{accountId}/consent/withdraw`. */
export const WithdrawConsentRequest = z.strictObject({}).optional();

/**
 * The claims of a deletion receipt (a compact JWS signed with the decision-record key): what was
 * erased, of which consent, and when; no personal data beyond the masked account number.
 */
export const DeletionReceiptClaims = z.object({
  iss: z.string(),
  sub: Uuid,
  iat: z.number().int(),
  jti: Uuid,
  receipt: z.object({
    version: z.literal(1),
    clientId: z.string(),
    applicationId: Uuid,
    accountId: Uuid,
    consentId: Uuid,
    institution: z.string(),
    /** The last four digits only. */
    accountNumber: z.string(),
    consent: z.object({
      givenAt: IsoTimestamp,
      wordingVersion: z.string(),
      endedAt: IsoTimestamp,
      endReason: ConsentEndReason,
    }),
    unlinkedAt: IsoTimestamp,
    bankDataErasedAt: IsoTimestamp,
    /** What was erased, in words. */
    erased: z.array(z.string()),
    /** What is kept, and why. */
    kept: z.array(z.string()),
  }),
});
export type DeletionReceiptClaims = z.infer<typeof DeletionReceiptClaims>;
