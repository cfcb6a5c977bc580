import { debitLine, naira } from './book';
import { daysInMonth } from './calendar';
import type { StatementContext } from './context';

const SMS_ALERT_FEE = naira(4);
const CARD_MAINTENANCE_FEE = naira(50);
const QUARTER_END_MONTHS = new Set([2, 5, 8, 11]);
/** Monthly interest on the average overdrawn balance. */
const OVERDRAFT_MONTHLY_RATE = 0.025;

/**
 * Month-end bank charges: SMS alerts (₦4 per line of the month), card maintenance (₦50 a
 * quarter), account maintenance on current accounts (₦1 per mille of debits, plus VAT) and
 * interest on the overdrawn balance.
 */
export function scheduleMonthEndCharges(ctx: StatementContext): void {
  const { calendar, agenda, book, spec } = ctx;
  const endOfDay: number[] = [];
  agenda.onDayEnd((day) => {
    endOfDay[day] = book.balance();
  });

  for (const month of calendar.months()) {
    const monthEnd = calendar.dayOf(month.year, month.month, daysInMonth(month.year, month.month));
    if (monthEnd === null) continue;
    const at = calendar.dayStart(monthEnd) + 22.5 * 3_600_000;
    const prefix = `${month.year}-${String(month.month + 1).padStart(2, '0')}`;
    agenda.schedule(monthEnd, at, (when) => {
      const lines = book.lines().filter((line) => line.date.startsWith(prefix));
      if (lines.length > 0)
        book.charge(when, debitLine('SMS ALERT CHARGES', lines.length * SMS_ALERT_FEE, 'bank_charges'));
      if (QUARTER_END_MONTHS.has(month.month))
        book.charge(when, debitLine('CARD MAINT FEE', CARD_MAINTENANCE_FEE, 'bank_charges'));
      if (spec.accountType === 'CURRENT_ACCOUNT') {
        const debits = lines
          .filter((line) => line.type === 'debit' && line.category !== 'bank_charges')
          .reduce((sum, line) => sum + line.amount, 0);
        const fee = Math.round(debits / 1_000);
        if (fee > 0) {
          book.charge(when, debitLine('ACCOUNT MAINTENANCE FEE', fee, 'bank_charges'));
          book.charge(when, debitLine('VAT ON ACCOUNT MAINTENANCE FEE', Math.round(fee * 0.075), 'bank_charges'));
        }
      }
      if (spec.overdraftLimit) {
        const balances = endOfDay.slice(month.firstDay, monthEnd);
        const overdrawn = balances.reduce((sum, balance) => sum + Math.min(0, balance), 0);
        const interest = Math.round((-overdrawn / Math.max(1, balances.length)) * OVERDRAFT_MONTHLY_RATE);
        if (interest > 0) book.charge(when, debitLine('OD INTEREST CHARGE', interest, 'bank_charges'));
      }
    });
  }
}
