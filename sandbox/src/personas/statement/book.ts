import type { Rng } from '../prng';
import type { Kobo, MonoTransaction, TransactionCategory, TransactionType } from '../types';

/** Naira to kobo, rounded to the nearest kobo. */
export const naira = (value: number): Kobo => Math.round(value * 100);

/** A statement line before it is posted (no id, no running balance yet). */
export interface Line {
  narration: string;
  amount: Kobo;
  type: TransactionType;
  category: TransactionCategory;
}

export const debitLine = (narration: string, amount: Kobo, category: TransactionCategory): Line => ({
  narration,
  amount,
  type: 'debit',
  category,
});

export const creditLine = (narration: string, amount: Kobo, category: TransactionCategory): Line => ({
  narration,
  amount,
  type: 'credit',
  category,
});

/** Who a bounced debit was meant for, to word the return or reversal. */
export interface BounceInfo {
  /** Reversal narration suffix is added to the original; the return line names the payee. */
  payee: string;
  ref: string;
}

/**
 * The account's ledger: posts lines with a running balance and decides, from the balance,
 * whether optional spending happens and whether a scheduled debit goes through or bounces.
 */
export interface Book {
  balance(): Kobo;
  /** Credits always go through. */
  credit(at: number, lines: Line[]): void;
  /** Optional spending: posted only if every line fits above the floor, else skipped. */
  spend(at: number, lines: Line[]): boolean;
  /** A bank charge: taken when it fits, and always on an account with an overdraft. */
  charge(at: number, line: Line): void;
  /** A scheduled debit (direct debit, standing order): goes through when it fits, else bounces. */
  collect(at: number, lines: Line[], bounce: BounceInfo): boolean;
  /** Lines posted so far, oldest first. */
  lines(): readonly MonoTransaction[];
}

export interface BookOptions {
  openingBalance: Kobo;
  /** Lowest balance spending may reach: 0, or minus the overdraft limit. */
  floor: Kobo;
  rng: Rng;
}

/** Charge for a returned direct debit: ₦50 plus 7.5% VAT. */
const RETURNED_ITEM_FEE = naira(53.75);

export function createBook({ openingBalance, floor, rng }: BookOptions): Book {
  const posted: MonoTransaction[] = [];
  let balance = openingBalance;
  let lastAt = 0;
  const hasOverdraft = floor < 0;

  const post = (at: number, line: Line): void => {
    lastAt = Math.max(at, lastAt + 1_000);
    balance += line.type === 'credit' ? line.amount : -line.amount;
    posted.push({
      id: rng.hex(24),
      narration: line.narration,
      amount: line.amount,
      type: line.type,
      balance,
      date: new Date(lastAt).toISOString(),
      category: line.category,
    });
  };
  const postAll = (at: number, lines: Line[]): void => {
    for (const line of lines) post(at, line);
  };
  const totalDebits = (lines: Line[]): Kobo =>
    lines.reduce((sum, line) => sum + (line.type === 'debit' ? line.amount : -line.amount), 0);
  const fits = (lines: Line[]): boolean => balance - totalDebits(lines) >= floor;

  return {
    balance: () => balance,
    credit: postAll,
    spend: (at, lines) => {
      if (!fits(lines)) return false;
      postAll(at, lines);
      return true;
    },
    charge: (at, line) => {
      if (hasOverdraft || fits([line])) post(at, line);
    },
    collect: (at, lines, bounce) => {
      if (fits(lines)) {
        postAll(at, lines);
        return true;
      }
      const [first] = lines;
      if (hasOverdraft && first && rng.chance(0.5)) {
        // The bank posts the debit, then reverses it for lack of funds.
        post(at, first);
        post(at + 60_000, {
          narration: `REV-${first.narration} INSUFFICIENT FUNDS`,
          amount: first.amount,
          type: 'credit',
          category: 'reversal',
        });
        return false;
      }
      const returned = debitLine(
        `DD RETURNED - INSUFF FUNDS/${bounce.payee}/${bounce.ref}`,
        RETURNED_ITEM_FEE,
        'bank_charges',
      );
      if (hasOverdraft || fits([returned])) post(at, returned);
      return false;
    },
    lines: () => posted,
  };
}
