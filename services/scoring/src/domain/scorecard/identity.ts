import { nameWords, type EnrichedAccount } from '@loan/contracts';

/** The applicant as declared at initiate. */
export interface ApplicantIdentity {
  firstName: string;
  lastName: string;
  /** 11 digits, or null when the applicant gave none. */
  bvn: string | null;
}

/** Why a linked account may not be the applicant's. */
export type IdentityMismatchReason = 'NAME' | 'BVN';

export interface IdentityMismatch {
  accountId: string;
  institution: string;
  /** Why; never whose name the bank gave (a third party's, kept out of the audit and the reasons). */
  reason: IdentityMismatchReason;
}

/**
 * Identity check: every linked account must be held by the applicant. Only then is the
 * statement data the applicant's, and only then are transfers between the accounts "own".
 */
export interface IdentityCheck {
  verified: boolean;
  mismatches: IdentityMismatch[];
}

/** Titles banks put before names; they say nothing about who holds the account. */
const TITLES = new Set([
  'mr',
  'mrs',
  'ms',
  'miss',
  'mister',
  'madam',
  'dr',
  'prof',
  'engr',
  'chief',
  'alhaji',
  'alhaja',
  'hajia',
  'mallam',
  'pastor',
  'rev',
  'barr',
  'hon',
  'sir',
  'arc',
  'pharm',
]);

/** The words of a name as a search reads them (accents, apostrophes, punctuation and case dropped), titles dropped too. */
export const nameTokens = (name: string): string[] => nameWords(name).filter((token) => !TITLES.has(token));

/**
 * A declared name part (first or last name) is on the account when all its tokens are, or
 * when the bank wrote a compound name in one word ("Mary-Jane" as "MARYJANE").
 */
const partMatches = (part: string, holder: ReadonlySet<string>): boolean => {
  const tokens = nameTokens(part);
  if (tokens.length === 0) return false;
  return tokens.every((token) => holder.has(token)) || holder.has(tokens.join(''));
};

/**
 * Whether the account holder's name is the applicant's: first and last name must both
 * appear, in any order, whatever the case, punctuation, titles or extra (middle) names.
 */
export const holderNameMatches = (applicant: Pick<ApplicantIdentity, 'firstName' | 'lastName'>, holderName: string) => {
  const holder = new Set(nameTokens(holderName));
  return partMatches(applicant.firstName, holder) && partMatches(applicant.lastName, holder);
};

const bvnConflicts = (bvn: string | null, bvnLast4: string | null): boolean =>
  bvn !== null && bvnLast4 !== null && bvnLast4.length === 4 && !bvn.endsWith(bvnLast4);

const mismatchOf = (applicant: ApplicantIdentity, account: EnrichedAccount): IdentityMismatch | null => {
  const base = {
    accountId: account.accountId,
    institution: account.institution,
  };
  if (!holderNameMatches(applicant, account.holderName)) return { ...base, reason: 'NAME' };
  if (bvnConflicts(applicant.bvn, account.bvnLast4)) return { ...base, reason: 'BVN' };
  return null;
};

export const checkIdentity = (applicant: ApplicantIdentity, accounts: readonly EnrichedAccount[]): IdentityCheck => {
  const mismatches = accounts
    .map((account) => mismatchOf(applicant, account))
    .filter((mismatch): mismatch is IdentityMismatch => mismatch !== null);
  return { verified: accounts.length > 0 && mismatches.length === 0, mismatches };
};
