import type { Rng } from '../prng';
import { BETTING_PLATFORMS, LENDERS } from '../texture';
import { creditLine, debitLine, naira, type Line } from './book';
import { monthFraction, type SpendingContext, type StatementContext } from './context';
import {
  inboundNarration,
  personName,
  receiptLevyApplies,
  roundNaira,
  stampDutyLine,
  transferOutLines,
  webNarration,
} from './narrations';

type Lender = (typeof LENDERS)[number];

interface LoanTerms {
  lender: Lender;
  /** Repaid by direct debit (which can bounce) or by the holder's own transfer. */
  channel: 'direct_debit' | 'transfer';
  instalments: number;
  /** Flat interest for the 30-day loan. */
  rate: number;
  cap: number;
}

const MAX_ATTEMPTS = 3;

/**
 * Digital loans: a disbursement, repayments in one to four instalments over 30 days, and
 * a new loan soon after the last one (immediately for a persona living on loans). A direct
 * debit that finds no funds bounces and is retried two days later.
 */
export function scheduleLoans(ctx: StatementContext): void {
  const { spec, calendar } = ctx;
  if (!spec.lending) return;
  const rng = ctx.rng.fork('lending');
  const count = rng.int(spec.lending.lenders[0], spec.lending.lenders[1]);
  const stressed = spec.id === 'debt_stressed';
  for (const lender of rng.sample(LENDERS, count)) {
    const lenderRng = rng.fork(lender.name);
    const terms: LoanTerms = {
      lender,
      channel: spec.overdraftLimit || lenderRng.chance(0.6) ? 'direct_debit' : 'transfer',
      instalments: stressed ? lenderRng.pick([2, 4]) : lenderRng.pick([1, 2]),
      rate: lenderRng.float(0.08, 0.25),
      cap: spec.lending.principal[1] * 1.5,
    };
    const principal = lenderRng.int(spec.lending.principal[0], spec.lending.principal[1]);
    const firstDay = lenderRng.int(0, Math.min(stressed ? 10 : 40, calendar.days - 1));
    disburse(ctx, lenderRng, terms, firstDay, principal);
  }
}

function disburse(ctx: StatementContext, rng: Rng, terms: LoanTerms, day: number, principalNaira: number): void {
  const { agenda, book } = ctx;
  const principal = roundNaira(principalNaira, 1_000);
  const ref = `${terms.lender.name.slice(0, 2)}${rng.digits(8)}`;
  const instalment = Math.round((principal * (1 + terms.rate)) / terms.instalments);
  const spacing = 30 / terms.instalments;
  agenda.schedule(day, agenda.time(day, 9, 18, rng), (at) => {
    const line = creditLine(
      inboundNarration(terms.lender.bank, terms.lender.name, `LOAN DISB ${ref}`),
      principal,
      'loan_disbursement',
    );
    book.credit(at, [line]);
    if (receiptLevyApplies(at, principal)) book.charge(at + 30_000, stampDutyLine());
    for (let n = 1; n <= terms.instalments; n += 1) {
      const isLast = n === terms.instalments;
      repay(ctx, rng, terms, { day: day + Math.round(spacing * n), amount: instalment, ref, attempt: 1 }, () => {
        if (!isLast) return;
        const stressed = ctx.spec.id === 'debt_stressed';
        if (!stressed && rng.chance(0.3)) return;
        const gap = stressed ? rng.int(0, 3) : rng.int(3, 25);
        const next = Math.min(terms.cap, (principal / 100) * rng.float(1, 1.3));
        disburse(ctx, rng, terms, day + Math.round(spacing * n) + gap, next);
      });
    }
  });
}

interface Repayment {
  day: number;
  amount: number;
  ref: string;
  attempt: number;
}

function repay(ctx: StatementContext, rng: Rng, terms: LoanTerms, due: Repayment, settled: () => void): void {
  const { agenda, book } = ctx;
  agenda.schedule(due.day, agenda.time(due.day, 6, 11, rng), (at) => {
    let paid: boolean;
    if (terms.channel === 'direct_debit') {
      const line = debitLine(`DD/${terms.lender.name}/LOAN REPAYMENT/${due.ref}`, due.amount, 'loan_repayment');
      paid = book.collect(at, [line], { payee: terms.lender.name, ref: due.ref });
    } else {
      paid = book.spend(
        at,
        transferOutLines({
          at,
          beneficiary: `${terms.lender.name} LOAN REPAYMENT`,
          bank: terms.lender.bank,
          amount: due.amount,
          category: 'loan_repayment',
          ussd: ctx.usesUssd && rng.chance(0.5),
        }),
      );
    }
    if (!paid && due.attempt < MAX_ATTEMPTS) {
      repay(ctx, rng, terms, { ...due, day: due.day + 2, attempt: due.attempt + 1 }, settled);
      return;
    }
    settled();
  });
}

/**
 * Deposits to betting platforms by card or transfer; a minority come back as payouts a few
 * days later, so the holder loses on balance.
 */
export function scheduleBetting(ctx: SpendingContext): void {
  const { spec, calendar, agenda, book } = ctx;
  if (!spec.betting) return;
  const betting = spec.betting;
  const rng = ctx.rng.fork('betting');
  const platforms = rng.sample(BETTING_PLATFORMS, rng.int(1, 3));
  for (const month of calendar.months()) {
    const count = Math.round(rng.int(betting.perMonth[0], betting.perMonth[1]) * monthFraction(month));
    for (let i = 0; i < count; i += 1) {
      const day = rng.int(month.firstDay, month.lastDay);
      const at = agenda.time(day, 10, 23, rng);
      const platform = rng.pick(platforms);
      const stake = roundNaira(rng.int(betting.stake[0], betting.stake[1]), 100);
      const lines: Line[] = rng.chance(0.5)
        ? [debitLine(webNarration(rng, `${platform} DEPOSIT`), stake, 'betting_deposit')]
        : transferOutLines({
            at,
            beneficiary: platform,
            bank: 'PAYSTACK-TITAN',
            amount: stake,
            category: 'betting_deposit',
            ussd: ctx.usesUssd && rng.chance(0.3),
          });
      const wins = rng.chance(betting.payoutChance);
      const payoutDay = day + rng.int(0, 3);
      const payoutAt = agenda.time(payoutDay, 10, 23, rng);
      const payout = naira(Math.round((stake / 100) * rng.float(1.2, 4)));
      const payoutLine = creditLine(
        inboundNarration(rng.pick(['PROVIDUS', 'WEMA', 'GTB']), platform, `WITHDRAWAL ${rng.digits(9)}`),
        payout,
        'betting_payout',
      );
      agenda.schedule(day, at, () => {
        if (!book.spend(at, lines) || !wins) return;
        agenda.schedule(payoutDay, Math.max(payoutAt, at + 3_600_000), (when) => {
          book.credit(when, [payoutLine]);
          if (receiptLevyApplies(when, payout)) book.charge(when + 30_000, stampDutyLine());
        });
      });
    }
  }
}

/** Monthly standing orders that go out whatever the balance, and bounce when it cannot. */
export function scheduleStandingOrders(ctx: StatementContext): void {
  const { spec, calendar, agenda, book } = ctx;
  if (!spec.standingOrders) return;
  const rng = ctx.rng.fork('standing-orders');
  const count = rng.int(spec.standingOrders[0], spec.standingOrders[1]);
  const payees = [
    'STAFF COOPERATIVE THRIFT',
    'ESTATE SERVICE CHARGE',
    `RENT/${personName(rng)}`,
    'SCHOOL FEES INSTALMENT',
  ];
  for (const payee of rng.sample(payees, count)) {
    const amount = roundNaira(rng.int(15_000, 45_000), 1_000);
    // Due in the week before payday, when the account is at its lowest.
    const dayOfMonth = rng.int(15, 22);
    const ref = `SO${rng.digits(7)}`;
    for (const month of calendar.months()) {
      const day = calendar.dayOf(month.year, month.month, dayOfMonth);
      if (day === null) continue;
      const at = agenda.time(day, 6, 9, rng);
      const line = debitLine(
        `SO/${payee}/MONTHLY/${ref}`,
        amount,
        payee.startsWith('SCHOOL') ? 'education' : 'transfer',
      );
      agenda.schedule(day, at, () => book.collect(at, [line], { payee, ref }));
    }
  }
}
