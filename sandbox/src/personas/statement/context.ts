import type { PersonaSpec } from '../catalog';
import type { Institution } from '../institutions';
import type { Rng } from '../prng';
import type { Book } from './book';
import type { Agenda, Calendar, WindowMonth } from './calendar';

/** What every behaviour of the statement simulation works with. */
export interface StatementContext {
  spec: PersonaSpec;
  rng: Rng;
  /** The account holder's name as the bank prints it (upper case). */
  holder: string;
  institution: Institution;
  phone: { phone: string; network: string };
  calendar: Calendar;
  agenda: Agenda;
  book: Book;
  /** Transfers are often made by USSD, which adds session charges. */
  usesUssd: boolean;
}

/** Context once the income side is known, for the behaviours that size spending from it. */
export interface SpendingContext extends StatementContext {
  /** Expected monthly income in Naira. */
  monthlyIncome: number;
}

/** Share of a calendar month that lies inside the window (1 for a whole month). */
export function monthFraction(month: WindowMonth): number {
  const length = new Date(Date.UTC(month.year, month.month + 1, 0)).getUTCDate();
  return (month.lastDay - month.firstDay + 1) / length;
}
