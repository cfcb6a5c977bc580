import { summariseBureau, deriveFeatures, type BureauSummary, type ScoringFeatures } from '../scorecard';
import { persona } from './personas';
import { FIXTURE_NOW } from './statements';

/** Features of the salaried persona: a clean applicant to vary one signal at a time. */
export const cleanFeatures = (overrides: Partial<ScoringFeatures> = {}): ScoringFeatures => {
  const { applicant, accounts } = persona('salaried');
  return { ...deriveFeatures({ applicant, accounts, now: FIXTURE_NOW }), ...overrides };
};

/** A bureau summary with no file (no hit), varied by `overrides`. */
export const bureauSummary = (overrides: Partial<BureauSummary> = {}): BureauSummary => ({
  ...summariseBureau({ status: 'NO_HIT' }),
  ...overrides,
});
