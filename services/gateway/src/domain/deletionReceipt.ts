import type { ApplicationView, DeletionReceiptClaims } from '@loan/contracts';

/** What a consent's end erases, in words the applicant reads on the receipt. */
const ERASED = [
  "the account's bank data: its statement's transactions, income analysis and statement insights",
  "the enriched profile the scorecard read, and the account's monthly money in and out",
  "the bank's name for the account holder, and the account number but for its last four digits",
  'the link at the account-linking provider: nothing more can be read from the account',
];
/** What stays, and why (FCCPC 2025: records kept 5 years; the scrub removes who, not what was decided). */
const KEPT = [
  'the decision, its reasons and score parts, and the key facts disclosed, for the lender’s record-keeping period',
  "the bank's name and the last four digits of the account number, to name the account on this receipt",
];

/** Why there is no receipt yet, or null when there is one to sign. */
export function receiptRefusal(view: ApplicationView, accountId: string): { status: number; message: string } | null {
  const account = view.accounts.find((a) => a.accountId === accountId);
  if (!account)
    return { status: 404, message: `Account ${accountId} is not linked to application ${view.applicationId}` };
  const consent = account.consent;
  if (!consent) return { status: 400, message: `Account ${accountId} was linked before consent was recorded` };
  if (consent.status === 'ACTIVE')
    return { status: 400, message: `The consent to read account ${accountId} is still active: nothing was erased` };
  if (!consent.unlinkedAt || !consent.bankDataErasedAt)
    return {
      status: 409,
      message: `The consent ended at ${consent.endedAt}; the account's erasure is under way. Try again shortly, or wait for the account.data_erased webhook`,
    };
  return null;
}

/**
 * The claims of the signed deletion receipt of an account whose consent ended: which consent,
 * why it ended, when the account was unlinked and its bank data erased, what went and what
 * stays. No name, e-mail, phone or BVN; the account by its bank and last four digits. The same
 * receipt every time it is asked for (its `iat` is the moment of the erasure).
 */
export function deletionReceiptClaims(
  view: ApplicationView,
  accountId: string,
  lender: { clientId: string },
): Omit<DeletionReceiptClaims, 'iss' | 'iat'> | null {
  const account = view.accounts.find((a) => a.accountId === accountId);
  const consent = account?.consent;
  if (
    !account ||
    !consent ||
    !consent.endedAt ||
    !consent.endReason ||
    !consent.unlinkedAt ||
    !consent.bankDataErasedAt
  )
    return null;
  return {
    sub: view.applicationId,
    jti: consent.consentId,
    receipt: {
      version: 1,
      clientId: lender.clientId,
      applicationId: view.applicationId,
      accountId,
      consentId: consent.consentId,
      institution: account.institution,
      accountNumber: account.accountNumber.slice(-4),
      consent: {
        givenAt: consent.givenAt,
        wordingVersion: consent.wordingVersion,
        endedAt: consent.endedAt,
        endReason: consent.endReason,
      },
      unlinkedAt: consent.unlinkedAt,
      bankDataErasedAt: consent.bankDataErasedAt,
      erased: [...ERASED],
      kept: [...KEPT],
    },
  };
}
