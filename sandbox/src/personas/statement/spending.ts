import {
  ATM_LOCATIONS,
  DISCOS,
  POS_MERCHANTS,
  P2P_OUT_REMARKS,
  TRANSFER_BANKS,
  TV_PLANS,
  WEB_MERCHANTS,
} from '../texture';
import { creditLine, debitLine, type Line } from './book';
import { monthFraction, type SpendingContext } from './context';
import {
  ownTransferNarration,
  personName,
  posNarration,
  roundNaira,
  transferOutLines,
  webNarration,
} from './narrations';

/**
 * Day-to-day spending sized to the persona's income: card purchases in shops and online,
 * transfers to people, cash from ATMs. Optional: skipped when the balance cannot take it.
 */
export function scheduleEverydaySpending(ctx: SpendingContext): void {
  const { spec, calendar, agenda, book, institution } = ctx;
  const rng = ctx.rng.fork('spending');
  const budget = ctx.monthlyIncome * spec.spendRatio;
  if (budget <= 0) return;

  for (const month of calendar.months()) {
    const fraction = monthFraction(month);
    const count = Math.max(1, Math.round(rng.int(16, 30) * fraction));
    const mean = (budget * fraction) / count;
    for (let i = 0; i < count; i += 1) {
      const day = rng.int(month.firstDay, month.lastDay);
      const at = agenda.time(day, 7, 21, rng);
      const kind = rng.next();
      let lines: Line[];
      if (kind < 0.38) {
        const merchant = rng.pick(POS_MERCHANTS);
        lines = [debitLine(posNarration(rng, merchant), roundNaira(mean * rng.float(0.3, 1.7), 50), merchant.category)];
      } else if (kind < 0.5) {
        const merchant = rng.pick(WEB_MERCHANTS);
        lines = [
          debitLine(webNarration(rng, merchant.name), roundNaira(mean * rng.float(0.3, 1.5), 50), merchant.category),
        ];
      } else if (kind < 0.8) {
        const beneficiary = personName(rng);
        const amount = roundNaira(mean * rng.float(0.4, 2), 500);
        const sameBank = rng.chance(0.2);
        lines = sameBank
          ? [debitLine(`TRF FRM ${ctx.holder} TO ${beneficiary}|${rng.pick(P2P_OUT_REMARKS)}`, amount, 'transfer')]
          : transferOutLines({
              at,
              beneficiary,
              bank: rng.pick(TRANSFER_BANKS),
              amount,
              category: 'transfer',
              ussd: ctx.usesUssd && rng.chance(0.5),
            });
      } else {
        const amount = roundNaira(Math.min(mean * rng.float(0.5, 1.5), 40_000), 1_000);
        lines = [
          debitLine(
            `ATM WDL ${rng.digits(8)} ${institution.narrationName} ${rng.pick(ATM_LOCATIONS)}`,
            amount,
            'cash_withdrawal',
          ),
        ];
      }
      agenda.schedule(day, at, () => book.spend(at, lines));
    }
  }
}

/** Airtime and data, a TV subscription on a fixed day, prepaid electricity. */
export function scheduleBills(ctx: SpendingContext): void {
  const { spec, calendar, agenda, book, phone } = ctx;
  const rng = ctx.rng.fork('bills');
  const senior = spec.salary?.employerTier === 'senior';
  const tv = rng.chance(0.75)
    ? rng.pick(senior ? TV_PLANS.filter((p) => p.provider === 'DStv') : TV_PLANS.filter((p) => p.naira < 20_000))
    : null;
  const tvDay = rng.int(1, 28);
  const smartcard = rng.digits(10);
  const disco = rng.pick(DISCOS);
  const meter = rng.digits(11);
  const airtimeAmounts = senior ? [1_000, 2_000, 5_000, 10_000] : [200, 500, 1_000, 1_500, 2_000];

  for (const month of calendar.months()) {
    const fraction = monthFraction(month);
    const airtimeCount = Math.round(rng.int(2, 5) * fraction);
    for (let i = 0; i < airtimeCount; i += 1) {
      const day = rng.int(month.firstDay, month.lastDay);
      const at = agenda.time(day, 7, 22, rng);
      const line = debitLine(
        `Airtime//${phone.phone}/${phone.network}`,
        roundNaira(rng.pick(airtimeAmounts), 50),
        'airtime_and_data',
      );
      agenda.schedule(day, at, () => book.spend(at, [line]));
    }
    if (rng.chance(0.6 * fraction)) {
      const day = rng.int(month.firstDay, month.lastDay);
      const at = agenda.time(day, 7, 22, rng);
      const line = debitLine(
        `${phone.network} DATA BUNDLE//${phone.phone}`,
        roundNaira(rng.pick([1_000, 1_500, 2_500, 3_500, 5_000]), 500),
        'airtime_and_data',
      );
      agenda.schedule(day, at, () => book.spend(at, [line]));
    }
    const tvDate = tv ? calendar.dayOf(month.year, month.month, tvDay) : null;
    if (tv && tvDate !== null) {
      const at = agenda.time(tvDate, 8, 20, rng);
      const line = debitLine(
        `${tv.provider} SUBSCRIPTION/${smartcard}/${tv.plan}`,
        roundNaira(tv.naira, 50),
        'bills_and_utilities',
      );
      agenda.schedule(tvDate, at, () => book.spend(at, [line]));
    }
    const tokens = Math.round(rng.int(1, 2) * fraction);
    for (let i = 0; i < tokens; i += 1) {
      const day = rng.int(month.firstDay, month.lastDay);
      const at = agenda.time(day, 7, 21, rng);
      const line = debitLine(
        `${disco} PREPAID/${meter}/TOKEN`,
        roundNaira(rng.float(5_000, 25_000) * (senior ? 2 : 1), 500),
        'bills_and_utilities',
      );
      agenda.schedule(day, at, () => book.spend(at, [line]));
    }
  }
}

/** Money moved in from the holder's other account when this one runs low. */
export function scheduleOwnTopUps(ctx: SpendingContext): void {
  const { calendar, agenda, book } = ctx;
  if (ctx.spec.overdraftLimit) return;
  const rng = ctx.rng.fork('top-ups');
  const size = Math.max(10_000, ctx.monthlyIncome * 0.1);
  for (const month of calendar.months()) {
    if (!rng.chance(0.3 * monthFraction(month))) continue;
    const day = rng.int(month.firstDay, month.lastDay);
    const at = agenda.time(day, 8, 20, rng);
    const amount = roundNaira(size * rng.float(0.5, 1.5), 1_000);
    agenda.schedule(day, at, () =>
      book.credit(at, [creditLine(ownTransferNarration(ctx.holder, 'top up'), amount, 'transfer')]),
    );
  }
}
