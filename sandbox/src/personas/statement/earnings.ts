import { EMPLOYERS, GIG_REMARKS, MONTHS, P2P_IN_REMARKS, TRANSFER_BANKS } from '../texture';
import { creditLine, debitLine, naira, type Line } from './book';
import { DAY_MS } from './calendar';
import { monthFraction, type StatementContext } from './context';
import {
  inboundNarration,
  ownTransferNarration,
  personName,
  receiptLevyApplies,
  roundNaira,
  stampDutyLine,
  transferOutLines,
} from './narrations';

/** Posts a non-exempt credit and, before 2026, the receiver's stamp duty. */
function receive(ctx: StatementContext, at: number, line: Line): void {
  ctx.book.credit(at, [line]);
  if (receiptLevyApplies(at, line.amount)) ctx.book.charge(at + 30_000, stampDutyLine());
}

function salaryNarration(format: number, employer: string, bank: string, period: Date): string {
  const mon = MONTHS[period.getUTCMonth()] ?? '';
  const year = period.getUTCFullYear();
  if (format === 0) return inboundNarration(bank, employer, `SALARY ${mon} ${year}`);
  if (format === 1) return `${employer} SALARY FOR ${mon} ${year}`;
  return `SAL/${mon}${String(year).slice(2)}/${employer}`;
}

/**
 * Monthly salary from one employer, paid on a fixed day late in the month (the Friday before
 * when it falls on a weekend), followed by a transfer of savings to the holder's own account.
 * Returns the monthly salary in Naira (0 when the persona has none).
 */
export function scheduleSalary(ctx: StatementContext): number {
  const { spec, calendar, agenda, book } = ctx;
  if (!spec.salary) return 0;
  const rng = ctx.rng.fork('salary');
  const base = rng.int(spec.salary.monthly[0], spec.salary.monthly[1]) + rng.int(0, 99) / 100;
  const employer = rng.pick(EMPLOYERS[spec.salary.employerTier]);
  const employerBank = rng.pick(TRANSFER_BANKS);
  const format = rng.int(0, 2);
  const payday = rng.int(24, 28);

  for (const month of calendar.months()) {
    let dayOfMonth = payday;
    const weekday = new Date(Date.UTC(month.year, month.month, dayOfMonth)).getUTCDay();
    if (weekday === 6) dayOfMonth -= 1;
    if (weekday === 0) dayOfMonth -= 2;
    const day = calendar.dayOf(month.year, month.month, dayOfMonth);
    if (day === null) continue;
    const amount = rng.chance(0.12) ? base * rng.float(0.97, 1.04) : base;
    const narration = salaryNarration(format, employer, employerBank, calendar.date(day));
    const at = agenda.time(day, 7, 11, rng);
    const savingsDay = day + rng.int(0, 2);
    const savingsAt = agenda.time(savingsDay, 12, 20, rng);
    const savings = amount * spec.savingsRatio * rng.float(0.8, 1.2);
    agenda.schedule(day, at, () => book.credit(at, [creditLine(narration, naira(amount), 'salary')]));
    if (savings > 0) {
      agenda.schedule(savingsDay, savingsAt, () =>
        book.spend(savingsAt, [
          debitLine(ownTransferNarration(ctx.holder, 'savings'), roundNaira(savings, 1_000), 'transfer'),
        ]),
      );
    }
  }
  return base;
}

const WEEKLY_PAYERS = [
  { name: 'BOLT OPERATIONS NIG LTD', bank: 'STANBIC', remark: 'DRIVER PAYOUT' },
  { name: 'GLOVO NIGERIA LTD', bank: 'ZENITH', remark: 'RIDER EARNINGS' },
  { name: 'CHOWDECK TECHNOLOGIES', bank: 'PROVIDUS', remark: 'RIDER PAYOUT' },
] as const;

/**
 * Irregular earnings: many transfers from different customers, POS settlements and cash
 * deposits, sometimes a weekly platform payout, and now and then money passed straight on.
 * Returns the expected monthly income in Naira.
 */
export function scheduleGigIncome(ctx: StatementContext): number {
  const { spec, calendar, agenda } = ctx;
  if (!spec.gig) return 0;
  const rng = ctx.rng.fork('gig');
  const monthly = rng.int(spec.gig.monthly[0], spec.gig.monthly[1]);
  const weekly = rng.chance(spec.gig.weeklyPayoutChance) ? rng.pick(WEEKLY_PAYERS) : null;
  const terminal = `2${rng.digits(7)}`;

  for (const month of calendar.months()) {
    const fraction = monthFraction(month);
    const target = monthly * rng.float(0.4, 1.6) * fraction * (weekly ? 0.65 : 1);
    const count = Math.max(1, Math.round(rng.int(12, 30) * fraction));
    const weights = Array.from({ length: count }, () => rng.float(0.2, 1.8));
    const weightSum = weights.reduce((a, b) => a + b, 0);
    for (const weight of weights) {
      const day = rng.int(month.firstDay, month.lastDay);
      const at = agenda.time(day, 8, 21, rng);
      const share = (target * weight) / weightSum;
      const kind = rng.next();
      let line: Line;
      if (kind < 0.6) {
        const narration = inboundNarration(rng.pick(TRANSFER_BANKS), personName(rng), rng.pick(GIG_REMARKS));
        line = creditLine(narration, roundNaira(share, 100), 'income');
      } else if (kind < 0.85) {
        line = creditLine(
          `POS SETTLEMENT/${terminal}/${rng.digits(6)}`,
          naira(Math.round(share * 100) / 100),
          'income',
        );
      } else {
        line = creditLine(`CASH DEPOSIT/BY ${ctx.holder}`, roundNaira(share, 1_000), 'cash_deposit');
      }
      agenda.schedule(day, at, () => receive(ctx, at, line));
    }
    if (rng.chance(0.35)) schedulePassThrough(ctx, rng.int(month.firstDay, month.lastDay));
  }

  if (weekly) {
    for (let day = 0; day < calendar.days; day += 1) {
      const date = calendar.date(day);
      if (date.getUTCDay() !== 2) continue;
      const week = Math.floor((date.getTime() - Date.UTC(date.getUTCFullYear(), 0, 1)) / (7 * DAY_MS)) + 1;
      const amount = (monthly * 0.35 * rng.float(0.5, 1.5)) / 4.33;
      const at = agenda.time(day, 9, 13, rng);
      const line = creditLine(
        inboundNarration(weekly.bank, weekly.name, `${weekly.remark} WK${String(week).padStart(2, '0')}`),
        naira(Math.round(amount * 100) / 100),
        'income',
      );
      agenda.schedule(day, at, () => receive(ctx, at, line));
    }
  }
  return monthly;
}

/** Money received for someone else and sent on the same day, same amount. */
function schedulePassThrough(ctx: StatementContext, day: number): void {
  const rng = ctx.rng.fork(`pass-through-${day}`);
  const amount = roundNaira(rng.int(20_000, 90_000), 1_000);
  const at = ctx.agenda.time(day, 9, 14, rng);
  const onwardAt = at + rng.int(20, 180) * 60_000;
  const line = creditLine(
    inboundNarration(rng.pick(TRANSFER_BANKS), personName(rng), 'for onward transfer'),
    amount,
    'transfer',
  );
  ctx.agenda.schedule(day, at, () => {
    receive(ctx, at, line);
    ctx.book.spend(
      onwardAt,
      transferOutLines({
        at: onwardAt,
        beneficiary: personName(rng),
        bank: rng.pick(TRANSFER_BANKS),
        amount,
        category: 'transfer',
      }),
    );
  });
}

/** Occasional transfers in from family and friends. */
export function scheduleGifts(ctx: StatementContext): void {
  const rng = ctx.rng.fork('gifts');
  for (const month of ctx.calendar.months()) {
    if (!rng.chance(0.4 * monthFraction(month))) continue;
    const day = rng.int(month.firstDay, month.lastDay);
    const at = ctx.agenda.time(day, 8, 21, rng);
    const line = creditLine(
      inboundNarration(rng.pick(TRANSFER_BANKS), personName(rng), rng.pick(P2P_IN_REMARKS)),
      roundNaira(rng.int(3_000, 30_000), 500),
      'transfer',
    );
    ctx.agenda.schedule(day, at, () => receive(ctx, at, line));
  }
}

/** A new account's first credit: the opening deposit. */
export function scheduleOpeningDeposit(ctx: StatementContext): void {
  const rng = ctx.rng.fork('opening');
  const at = ctx.agenda.time(0, 9, 12, rng);
  const line = creditLine(
    `CASH DEPOSIT/ACCOUNT OPENING/BY ${ctx.holder}`,
    roundNaira(rng.int(2_000, 10_000), 500),
    'cash_deposit',
  );
  ctx.agenda.schedule(0, at, () => ctx.book.credit(at, [line]));
}
