/**
 * Reading Nigerian statement narrations: who the other party of a transfer is, whether a
 * line is a transfer between the holder's own accounts, a digital loan, a bet, a reversal or
 * a returned debit. Patterns follow what banks print (NIP inbound and outbound transfers,
 * intra-bank `TRF FRM A TO B`, direct debits, payroll credits); the provider's categories
 * are used when it gives them.
 */

/** A statement line as the classifier needs it (amount in kobo). */
export interface StatementLine {
  narration: string;
  type: 'credit' | 'debit';
  amount: number;
  category?: string | null;
}

/** What a credit is, for the monthly summary. */
export type CreditKind = 'reversal' | 'own_transfer' | 'loan_disbursement' | 'betting' | 'salary' | 'other';
/** What a debit is, for the monthly summary. */
export type DebitKind = 'returned' | 'own_transfer' | 'betting' | 'loan_repayment' | 'other';

const BETTING =
  /\b(BET9JA|BET 9JA|SPORTY\s?BET|BETKING|BET KING|1XBET|NAIRA\s?BET|MSPORT|BETWAY|MERRYBET|BANGBET|BETLAND|SUREBET247|BETBONANZA|ACCESSBET|BETBIGA)\b/;
/** Digital lenders named in disbursements and repayments (Branch only with a loan word, it is a common word). */
const LENDER =
  /\b(CARBON|PAYLATER|FAIR\s?MONEY|PALM\s?CREDIT|RENMONEY|REN MONEY|AELLA|EASE\s?MONI|QUICKCHECK|QUICK CHECK|OKASH|KIAKIA|LIDYA|SPECTA|NEWCREDIT|SOKOLOAN|BRANCH (INTERNATIONAL|INTL|LOANS?))\b/;
const BRANCH_LOAN = /\bBRANCH\b.*\b(LOAN|REPAY\w*|DISB\w*)\b|\b(LOAN|REPAY\w*|DISB\w*)\b.*\bBRANCH\b/;
const LOAN_REPAYMENT = /\bLOAN\s*(REPAY\w*|RPMT|RPYMT|REPMT|INSTAL\w*|DEBIT|RECOVERY)\b|\bREPAYMENT\b.*\bLOAN\b/;
const LOAN_DISBURSEMENT = /\bLOAN\s*(DISB\w*|CREDIT|PAYOUT)\b|\bDISBURSE\w*\b/;
const REVERSAL = /^(REV|RVSL|REVERSAL)\b[-\s/:]?|\bREVERSAL\b|\bRVSL\b|\bREVERSED\b/;
const RETURNED = /\bRETURNED\b|\bINSUFF(ICIENT)?\.?\s*(FUNDS?|FUND|BAL\w*)\b|\bDISHONOU?RED\b|\bUNPAID\b|\bBOUNCED\b/;
const SALARY = /\bSAL(ARY|ARIES)?\b|\bPAYROLL\b|\bSTAFF\s+PAY\b|\bMONTHLY\s+PAY\b|\bWAGES?\b/;

export const normalise = (text: string): string => text.toUpperCase().replace(/\s+/g, ' ').trim();

const nameTokens = (name: string): string[] =>
  normalise(name)
    .replace(/[^A-Z ]/g, ' ')
    .split(' ')
    .filter((t) => t.length > 1);

/**
 * Two names are the same person when they share at least two name parts (or the only one)
 * and differ by at most one (a middle name, a title): `CHIDI OKAFOR`, `OKAFOR CHIDI` and
 * `OKAFOR CHIDI EMEKA` are one person.
 */
export function sameName(a: string, b: string): boolean {
  const x = new Set(nameTokens(a));
  const y = new Set(nameTokens(b));
  if (x.size === 0 || y.size === 0) return false;
  const shared = [...x].filter((t) => y.has(t)).length;
  const needed = Math.min(2, x.size, y.size);
  const extra = Math.max(x.size, y.size) - shared;
  return shared >= needed && extra <= 1;
}

/** Both sides of an intra-bank transfer `TRF FRM <A> TO <B>|remark`. */
function intraBank(narration: string): { from: string; to: string } | null {
  const match = /^(?:TRF|TRANSFER|FT) (?:FRM|FROM) (.+?) TO (.+?)(?:\||\/|$)/.exec(narration);
  return match?.[1] && match[2] ? { from: match[1].trim(), to: match[2].trim() } : null;
}

/**
 * The other party of a transfer, from its narration: the sender of an inbound NIP transfer
 * (`NIP/<BANK>/<SENDER>/<remark>`), the beneficiary of an outbound one
 * (`NIP CR/<BENEFICIARY>/<BANK>`), either side of an intra-bank transfer. Null for lines
 * that are not transfers (card purchases, cash, charges).
 */
export function counterpartyOf(line: Pick<StatementLine, 'narration' | 'type'>): string | null {
  const n = normalise(line.narration);
  const both = intraBank(n);
  if (both) return line.type === 'credit' ? both.from : both.to;
  const nipOut = /^NIP CR\/([^/|]+)/.exec(n);
  if (nipOut?.[1]) return nipOut[1].trim();
  const nipIn = /^NIP\/[^/]+\/([^/|]+)/.exec(n);
  if (nipIn?.[1]) return nipIn[1].trim();
  const from = /\b(?:TRANSFER|TRF|FT|INWARD)\s+(?:FROM|FRM)\s+(.+?)(?:\s+TO\s|[|/]|$)/.exec(n);
  if (from?.[1] && line.type === 'credit') return from[1].trim();
  const to = /\b(?:TRANSFER|TRF|FT)\s+TO\s+(.+?)(?:[|/]|$)/.exec(n);
  if (to?.[1] && line.type === 'debit') return to[1].trim();
  return null;
}

/**
 * A transfer between two accounts of the same person: the narration names the same person
 * on both sides (`TRF FRM <HOLDER> TO <HOLDER>`), or the other party is the holder.
 */
export function isOwnTransfer(line: Pick<StatementLine, 'narration' | 'type'>, holderName: string): boolean {
  const both = intraBank(normalise(line.narration));
  if (both && sameName(both.from, both.to)) return true;
  const other = counterpartyOf(line);
  return other !== null && holderName.trim() !== '' && sameName(other, holderName);
}

/** The narration without the bank segment of a NIP transfer (a lender's wallet can be a bank name). */
function withoutBank(narration: string): string {
  const n = normalise(narration);
  const nipIn = /^NIP\/[^/]+\/(.*)$/.exec(n);
  if (nipIn?.[1] !== undefined) return nipIn[1];
  const nipOut = /^NIP CR\/([^/]+)(?:\/[^/]*)?$/.exec(n);
  if (nipOut?.[1]) return nipOut[1];
  return n;
}

export const namesLender = (narration: string): boolean => {
  const text = withoutBank(narration);
  return LENDER.test(text) || BRANCH_LOAN.test(text);
};

export const isBetting = (line: Pick<StatementLine, 'narration' | 'category'>): boolean =>
  (line.category ?? '').toLowerCase().startsWith('betting') || BETTING.test(normalise(line.narration));

export const isReversal = (line: Pick<StatementLine, 'narration' | 'category'>): boolean =>
  (line.category ?? '').toLowerCase() === 'reversal' || REVERSAL.test(normalise(line.narration));

export const isReturnedDebit = (line: Pick<StatementLine, 'narration'>): boolean =>
  RETURNED.test(normalise(line.narration));

export const namesSalary = (line: Pick<StatementLine, 'narration' | 'category'>): boolean =>
  (line.category ?? '').toLowerCase() === 'salary' || SALARY.test(normalise(line.narration));

export function classifyCredit(line: StatementLine, holderName: string): CreditKind {
  const category = (line.category ?? '').toLowerCase();
  const n = normalise(line.narration);
  if (isReversal(line)) return 'reversal';
  if (isOwnTransfer(line, holderName)) return 'own_transfer';
  if (category === 'loan_disbursement' || LOAN_DISBURSEMENT.test(n) || namesLender(n)) return 'loan_disbursement';
  if (isBetting(line)) return 'betting';
  if (namesSalary(line)) return 'salary';
  return 'other';
}

export function classifyDebit(line: StatementLine, holderName: string): DebitKind {
  const category = (line.category ?? '').toLowerCase();
  const n = normalise(line.narration);
  if (isReturnedDebit(line)) return 'returned';
  if (isOwnTransfer(line, holderName)) return 'own_transfer';
  if (isBetting(line)) return 'betting';
  if (category === 'loan_repayment' || LOAN_REPAYMENT.test(n) || namesLender(n)) return 'loan_repayment';
  return 'other';
}

/**
 * The debit a reversal gives back, read from its narration (`REV-<original narration>
 * INSUFFICIENT FUNDS`), so that the reversed repayment or bet is not counted as made.
 */
export function reversedDebit(narration: string): DebitKind | null {
  const n = normalise(narration);
  const inner = n
    .replace(/^(REV|RVSL|REVERSAL)\b[-\s/:]*/, '')
    .replace(/\s*\b(INSUFF(ICIENT)?\.?\s*(FUNDS?|BAL\w*)|REVERSAL|REVERSED)\b.*$/, '')
    .trim();
  if (!inner || inner === n) return null;
  if (BETTING.test(inner)) return 'betting';
  if (LOAN_REPAYMENT.test(inner) || namesLender(inner)) return 'loan_repayment';
  return 'other';
}

/**
 * Who pays a credit, as a key to find the same payer month after month: the sender of a
 * transfer, else the narration without references, digits and month names.
 */
export function payerKey(line: Pick<StatementLine, 'narration' | 'type'>): string {
  const other = counterpartyOf(line);
  if (other) return nameTokens(other).join(' ');
  return normalise(line.narration)
    .replace(/\b(JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)[A-Z]*\b/g, '')
    .replace(/[A-Z]*\d[A-Z\d]*/g, '#')
    .replace(/[^A-Z# ]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
