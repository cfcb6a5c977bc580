import type { Rng } from '../prng';
import type { Kobo, TransactionCategory } from '../types';
import { FIRST_NAMES, MONTHS, NETWORKS, SURNAMES, type Merchant } from '../texture';
import { debitLine, naira, type Line } from './book';

/** From 1 January 2026 the ₦50 duty on transfers of ₦10,000 or more is paid by the sender. */
export const SENDER_PAYS_STAMP_DUTY_FROM = Date.UTC(2026, 0, 1);
export const STAMP_DUTY = naira(50);
const STAMP_DUTY_THRESHOLD = naira(10_000);
const USSD_SESSION_CHARGE = naira(6.98);

/** NIP transfer fee plus 7.5% VAT: ₦10.75 up to ₦5,000, ₦26.88 up to ₦50,000, ₦53.75 above. */
export function nipFee(amount: Kobo): Kobo {
  if (amount <= naira(5_000)) return naira(10.75);
  if (amount <= naira(50_000)) return naira(26.88);
  return naira(53.75);
}

export const stampDutyLine = (): Line => debitLine('STAMP DUTY CHARGE', STAMP_DUTY, 'bank_charges');

export interface TransferOut {
  at: number;
  beneficiary: string;
  bank: string;
  amount: Kobo;
  category: TransactionCategory;
  /** Initiated by USSD, which adds a session charge. */
  ussd?: boolean;
}

/** An outbound interbank transfer and the fee lines that follow it. */
export function transferOutLines(transfer: TransferOut): Line[] {
  const lines = [
    debitLine(`NIP CR/${transfer.beneficiary}/${transfer.bank}`, transfer.amount, transfer.category),
    debitLine('NIP Charge + VAT', nipFee(transfer.amount), 'bank_charges'),
  ];
  if (transfer.at >= SENDER_PAYS_STAMP_DUTY_FROM && transfer.amount >= STAMP_DUTY_THRESHOLD) {
    lines.push(stampDutyLine());
  }
  if (transfer.ussd) lines.push(debitLine('USSD SESSION CHARGE', USSD_SESSION_CHARGE, 'bank_charges'));
  return lines;
}

/** Before 2026 the receiver of ₦10,000 or more paid the duty (salaries and own transfers exempt). */
export function receiptLevyApplies(at: number, amount: Kobo): boolean {
  return at < SENDER_PAYS_STAMP_DUTY_FROM && amount >= STAMP_DUTY_THRESHOLD;
}

export const inboundNarration = (bank: string, sender: string, remark: string): string =>
  `NIP/${bank}/${sender}/${remark}`;

export const ownTransferNarration = (holder: string, remark: string): string =>
  `TRF FRM ${holder} TO ${holder}|${remark}`;

export const posNarration = (rng: Rng, merchant: Merchant): string =>
  `MC Loc POS Prch-${rng.digits(12)}--${merchant.name}`;

export const webNarration = (rng: Rng, merchant: string): string => `MC Loc Web Prch-${rng.digits(12)}--${merchant}`;

export function personName(rng: Rng): string {
  return `${rng.pick(FIRST_NAMES)} ${rng.pick(SURNAMES)}`;
}

export function phoneNumber(rng: Rng): { phone: string; network: string } {
  const network = rng.pick(NETWORKS);
  return { phone: `${rng.pick(network.prefixes)}${rng.digits(7)}`, network: network.name };
}

export function monthLabel(date: Date): string {
  return `${MONTHS[date.getUTCMonth()] ?? ''} ${date.getUTCFullYear()}`;
}

/** A Naira amount rounded to a step (₦50, ₦100, ₦1,000...), never below one step. */
export function roundNaira(value: number, step: number): Kobo {
  return naira(Math.max(step, Math.round(value / step) * step));
}
