/**
 * Finding a lender's applications by who applied without the database holding who applied in
 * a readable form: the applications service keeps, beside the sealed identity, a blind index
 * (a keyed hash) of each of these terms, and a search hashes the terms of the text it is given
 * the same way. The terms are normalised here, in one place, so that both sides agree.
 */

/** What a term is of, so that a name never matches an e-mail address that happens to equal it. */
type TermKind = 'name' | 'email' | 'phone' | 'bvn';
const term = (kind: TermKind, value: string) => `${kind}:${value}`;

/** The words of a name, lower-cased, accents and apostrophes dropped ("Adébáyọ̀ O'Neil" -> adebayo, oneil). */
export const nameWords = (name: string): string[] =>
  name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/['’`]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);

/** A Nigerian phone number as 11 local digits (0803…), from +234 803…, 234803…, 0803… or 803…; null when it is none. */
export function localPhone(text: string): string | null {
  const digits = text.replace(/[\s().+-]/g, '');
  if (!/^\d+$/.test(digits)) return null;
  if (digits.length === 13 && digits.startsWith('234')) return `0${digits.slice(3)}`;
  if (digits.length === 11 && digits.startsWith('0')) return digits;
  if (digits.length === 10 && !digits.startsWith('0')) return `0${digits}`;
  return null;
}

/** The terms an applicant can be found by: each word of either name, the e-mail address, the phone number and the BVN. */
export function applicantSearchTerms(applicant: {
  firstName: string;
  lastName: string;
  email: string;
  phone: string | null;
  bvn: string | null;
}): string[] {
  const terms = new Set<string>();
  for (const word of [...nameWords(applicant.firstName), ...nameWords(applicant.lastName)])
    terms.add(term('name', word));
  const email = applicant.email.trim().toLowerCase();
  if (email) terms.add(term('email', email));
  const phone = applicant.phone ? localPhone(applicant.phone) : null;
  if (phone) terms.add(term('phone', phone));
  if (applicant.bvn && /^\d{11}$/.test(applicant.bvn)) terms.add(term('bvn', applicant.bvn));
  return [...terms];
}

/**
 * What a search text asks for, as terms an application must all have, each given as its
 * alternatives: an e-mail address is one term; 11 digits are a BVN or a phone number; another
 * phone form is a phone number; anything else is words of a name, every one of which the
 * applicant's names must hold (in any order). Null when the text holds nothing to search by.
 */
export function searchTextTerms(text: string): string[][] | null {
  const trimmed = text.trim();
  if (trimmed.includes('@')) return [[term('email', trimmed.toLowerCase())]];
  const digits = trimmed.replace(/[\s().+-]/g, '');
  if (/^\d+$/.test(digits)) {
    const phone = localPhone(trimmed);
    const alternatives = [
      ...(/^\d{11}$/.test(digits) ? [term('bvn', digits)] : []),
      ...(phone ? [term('phone', phone)] : []),
    ];
    return alternatives.length > 0 ? [alternatives] : null;
  }
  const words = nameWords(trimmed);
  return words.length > 0 ? [...new Set(words)].map((word) => [term('name', word)]) : null;
}

/**
 * The text a term's blind index is computed over: bound to the lender, so that one person's
 * indexes at two lenders differ and cannot be matched up.
 */
export const indexedTerm = (clientId: string, searchTerm: string) => `${clientId}\u0000${searchTerm}`;
