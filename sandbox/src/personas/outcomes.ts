import type { PersonaId } from './catalog';
import { createRng } from './prng';

/**
 * How loans to each persona turn out, for demonstrations: the chance a loan goes bad (missed
 * instalments, default, write-off) and the chance a good one is repaid early. A lender's own
 * book is what the service measures; these only make a plausible one.
 */
export const PERSONA_LOAN_RISK: Record<PersonaId, { bad: number; early: number }> = {
  salaried: { bad: 0.04, early: 0.15 },
  salaried_high: { bad: 0.02, early: 0.25 },
  gig: { bad: 0.14, early: 0.05 },
  heavy_betting: { bad: 0.38, early: 0.02 },
  debt_stressed: { bad: 0.32, early: 0.02 },
  overdrawn: { bad: 0.22, early: 0.03 },
  thin_file: { bad: 0.12, early: 0.05 },
  name_mismatch: { bad: 0.1, early: 0.05 },
  never_completes: { bad: 0.04, early: 0.15 },
};

/** One step of a loan's story: an outcome the lender would report, `month` months after disbursement. */
export type LoanStep =
  | { month: number; type: 'INSTALMENT_PAID'; number: number; amount: number }
  | { month: number; type: 'INSTALMENT_MISSED'; number: number; daysPastDue: number }
  | { month: number; type: 'REPAID'; early: boolean }
  | { month: number; type: 'DEFAULTED'; outstanding: number }
  | { month: number; type: 'WRITTEN_OFF'; outstanding: number };

/**
 * The story of a loan of `amount` over `tenor` months to a persona, the same for the same seed:
 * instalments paid month by month and the loan repaid (early, sometimes); or, for a loan that
 * goes bad, paid up to some instalment, then that one missed at 15, 45 and 95 days past due,
 * defaulted and written off. The disbursement itself is the lender's to report first.
 */
export function loanStory(persona: PersonaId, seed: string, amount: number, tenor: number): LoanStep[] {
  const rng = createRng(`outcomes:${persona}:${seed}`);
  const risk = PERSONA_LOAN_RISK[persona];
  const instalment = Math.round((amount / tenor) * 1.08 * 100) / 100;
  const badFrom = rng.chance(risk.bad) ? rng.int(1, tenor) : null;
  const earlyAt = badFrom === null && tenor > 2 && rng.chance(risk.early) ? rng.int(2, tenor - 1) : null;
  const steps: LoanStep[] = [];
  for (let n = 1; n <= tenor; n++) {
    if (badFrom !== null && n === badFrom) {
      const outstanding = Math.round(instalment * (tenor - n + 1) * 100) / 100;
      steps.push({ month: n, type: 'INSTALMENT_MISSED', number: n, daysPastDue: 15 });
      steps.push({ month: n + 1, type: 'INSTALMENT_MISSED', number: n, daysPastDue: 45 });
      steps.push({ month: n + 3, type: 'INSTALMENT_MISSED', number: n, daysPastDue: 95 });
      steps.push({ month: n + 3, type: 'DEFAULTED', outstanding });
      steps.push({ month: n + 6, type: 'WRITTEN_OFF', outstanding });
      return steps;
    }
    steps.push({ month: n, type: 'INSTALMENT_PAID', number: n, amount: instalment });
    if (earlyAt === n) {
      steps.push({ month: n, type: 'REPAID', early: true });
      return steps;
    }
  }
  steps.push({ month: tenor, type: 'REPAID', early: false });
  return steps;
}
