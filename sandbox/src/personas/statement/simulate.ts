import type { PersonaSpec } from '../catalog';
import type { Institution } from '../institutions';
import { createRng } from '../prng';
import type { Kobo, MonoTransaction } from '../types';
import { scheduleBetting, scheduleLoans, scheduleStandingOrders } from './borrowing';
import { createBook, naira } from './book';
import { createAgenda, createCalendar, DAY_MS, startOfUtcDay } from './calendar';
import { scheduleMonthEndCharges } from './charges';
import type { StatementContext } from './context';
import { scheduleGifts, scheduleGigIncome, scheduleOpeningDeposit, scheduleSalary } from './earnings';
import { scheduleBills, scheduleEverydaySpending, scheduleOwnTopUps } from './spending';

export interface SimulationInput {
  spec: PersonaSpec;
  seed: string;
  /** Holder's name as the bank prints it. */
  holder: string;
  institution: Institution;
  phone: { phone: string; network: string };
  now: Date;
}

export interface Simulation {
  openingBalance: Kobo;
  /** Oldest first. */
  transactions: MonoTransaction[];
  /** First day of the window (UTC midnight). */
  start: Date;
}

/** Senior earners rarely dial USSD codes; people without internet banking often do. */
function ussdLikelihood(spec: PersonaSpec): number {
  if (spec.salary?.employerTier === 'senior') return 0.1;
  return spec.id === 'salaried' ? 0.3 : 0.7;
}

function windowStart(spec: PersonaSpec, today: number, seed: string): number {
  const rng = createRng(`window:${seed}`);
  if (spec.historyDays) return today - rng.int(spec.historyDays[0], spec.historyDays[1]) * DAY_MS;
  const months = rng.int(spec.historyMonths[0], spec.historyMonths[1]);
  const date = new Date(today);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - months, date.getUTCDate());
}

/**
 * Plays a persona's financial life forward day by day over the statement window (which ends
 * the day before `now`) and returns the resulting statement lines with running balances.
 */
export function simulateStatement(input: SimulationInput): Simulation {
  const { spec, seed } = input;
  const rng = createRng(`statement:${seed}`);
  const today = startOfUtcDay(input.now);
  const start = windowStart(spec, today, seed);
  const calendar = createCalendar({ start, days: Math.round((today - start) / DAY_MS) });
  const agenda = createAgenda({ calendar });
  const [lowest, highest] = spec.openingBalance;
  const newAccount = lowest === 0 && highest === 0;
  const openingBalance = newAccount ? 0 : naira(rng.int(lowest, highest) + rng.int(0, 99) / 100);
  const floor = spec.overdraftLimit ? -naira(rng.int(spec.overdraftLimit[0], spec.overdraftLimit[1])) : 0;
  const book = createBook({ openingBalance, floor, rng: rng.fork('ids') });
  const ctx: StatementContext = {
    spec,
    rng,
    holder: input.holder,
    institution: input.institution,
    phone: input.phone,
    calendar,
    agenda,
    book,
    usesUssd: rng.chance(ussdLikelihood(spec)),
  };

  if (newAccount) scheduleOpeningDeposit(ctx);
  const monthlyIncome = scheduleSalary(ctx) + scheduleGigIncome(ctx);
  const spending = { ...ctx, monthlyIncome };
  scheduleGifts(ctx);
  scheduleOwnTopUps(spending);
  scheduleEverydaySpending(spending);
  scheduleBills(spending);
  scheduleBetting(spending);
  scheduleLoans(ctx);
  scheduleStandingOrders(ctx);
  scheduleMonthEndCharges(ctx);
  agenda.run();

  return { openingBalance, transactions: [...book.lines()], start: new Date(start) };
}
