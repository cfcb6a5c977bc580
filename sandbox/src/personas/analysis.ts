import type { Kobo, MonoTransaction } from './types';

export const DAY_MS = 86_400_000;
export const AVERAGE_MONTH_DAYS = 30.44;

export const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

/** Coefficient of variation (standard deviation over mean); 0 for fewer than two values. */
export function coefficientOfVariation(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const mean = sum(values) / values.length;
  if (mean === 0) return 0;
  const variance = sum(values.map((v) => (v - mean) ** 2)) / values.length;
  return Math.sqrt(variance) / Math.abs(mean);
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export const monthKey = (iso: string): string => iso.slice(0, 7);

export const time = (tx: MonoTransaction): number => Date.parse(tx.date);

/** Oldest first; lines at the same moment keep their order. */
export function chronological(transactions: readonly MonoTransaction[]): MonoTransaction[] {
  return transactions
    .map((tx, index) => ({ tx, at: time(tx), index }))
    .sort((a, b) => a.at - b.at || a.index - b.index)
    .map(({ tx }) => tx);
}

/** `TRF FRM <A> TO <A>`: a transfer between two accounts of the same holder. */
export function isOwnTransfer(narration: string): boolean {
  const match = /^TRF FRM (.+?) TO (.+?)(\||$)/.exec(narration);
  return match !== null && match[1] === match[2];
}

export const isReversal = (tx: MonoTransaction): boolean =>
  tx.category === 'reversal' || tx.narration.startsWith('REV-');

export const signed = (tx: MonoTransaction): Kobo => (tx.type === 'credit' ? tx.amount : -tx.amount);

export const round2 = (value: number): number => Math.round(value * 100) / 100;
