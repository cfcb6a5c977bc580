import { BUILTIN_POLICY, CreditPolicy, DEFAULT_OFFER_TERMS as CONTRACT_OFFER_TERMS } from '@loan/contracts';
import {
  affordabilitySentences,
  DEFAULT_OFFER_TERMS,
  bandSentences,
  differences,
  formOf,
  knockOutSentence,
  limitSentences,
  offerSentences,
  policyOf,
  problemsByField,
  type Policy,
} from './policyModel';

const builtin = BUILTIN_POLICY as Policy;
const rule = {
  code: 'HIGH_BETTING',
  feature: 'bettingShareOfIncome',
  operator: '>',
  value: 0.25,
  action: 'DECLINE',
  description: 'Betting takes over a quarter of income',
} as const;

describe('the credit policy in words', () => {
  it('when the built-in policy is described, then the bands, the cap as a percentage and the limits read as sentences', () => {
    expect(bandSentences(builtin)).toEqual([
      'Low risk, a score of 85 or more: approve.',
      'Medium risk, from 70 to below 85: approve.',
      'High risk, from 55 to below 70: refer for manual review.',
      'Very high risk, below 55: decline.',
    ]);
    expect(affordabilitySentences(builtin)[0]).toContain('at most 33.33% of verified monthly income');
    expect(affordabilitySentences(builtin)[1]).toBe('Tenors offered: 3, 6, 9, 12, 18, 24, 36 months.');
    expect(limitSentences(builtin)).toEqual([
      'No minimum amount.',
      'No maximum amount.',
      'No limit as a multiple of income.',
    ]);
    expect(knockOutSentence(rule)).toBe(
      'HIGH_BETTING: decline when betting debits as a share of monthly income is more than 0.25 (Betting takes over a quarter of income).',
    );
  });
});

describe('the draft form', () => {
  it('when a policy is put in the form and sent back unchanged, then it is the same policy (1/3 stays exact)', () => {
    const policy: Policy = { ...builtin, knockOuts: [rule] };
    expect(policyOf(formOf(policy), policy)).toEqual(policy);
    expect(CreditPolicy.safeParse(policyOf(formOf(policy), policy)).success).toBe(true);
  });

  it('when the offer terms are typed, then the policy carries them; a policy with its own terms or fees keeps them when sent back', () => {
    expect(offerSentences(builtin)[0]).toMatch(/^An offer stands 7 days unanswered/);
    const body = policyOf({ ...formOf(builtin), validityDays: '3', coolingOffWorkingDays: '5' }, builtin) as Policy;
    expect(body.offer).toEqual({ validityDays: 3, coolingOffWorkingDays: 5 });
    expect(offerSentences(body)[1]).toMatch(/for 5 working days in Lagos/);
    const own: Policy = {
      ...builtin,
      offer: { validityDays: 7, coolingOffWorkingDays: 3 },
      disclosure: {
        fees: { managementPercent: 1, insurancePercent: 0, vatPercent: 7.5, collection: 'UPFRONT' },
        schedule: { alignToPayDay: true, daysAfterPayDay: 1 },
      },
    };
    expect(policyOf(formOf(own), own)).toEqual(own);
    expect(differences(builtin, body).map((d) => [d.label, d.before, d.after])).toEqual([
      ['Days an offer stands', '7', '3'],
      ['Working days of cooling-off', '3', '5'],
    ]);
  });

  it('when the cap is typed as a percentage and a number is mistyped, then the ratio is a share and the mistyped text goes as typed', () => {
    const form = { ...formOf(builtin), maxDebtServicePercent: '10', tenors: '6, 12, x', maxAmount: '' };
    const body = policyOf(form, builtin) as Policy;
    expect(body.affordability.maxDebtServiceRatio).toBe(0.1);
    expect(body.affordability.tenors).toEqual([6, 12, 'x']);
    expect(body.loanLimits.maxAmount).toBeNull();
  });

  it('when the API names problems, then each is found under its field and one without a field under the empty name', () => {
    const problems = problemsByField(
      'affordability.maxDebtServiceRatio: maxDebtServiceRatio must be between 0.05 and 0.80; knockOuts.1.code: duplicate knock-out code A_B; thresholds must be strictly descending',
    );
    expect(problems.get('affordability.maxDebtServiceRatio')).toEqual([
      'maxDebtServiceRatio must be between 0.05 and 0.80',
    ]);
    expect(problems.get('knockOuts.1.code')).toEqual(['duplicate knock-out code A_B']);
    expect(problems.get('')).toEqual(['thresholds must be strictly descending']);
  });
});

describe('the differences between versions', () => {
  it('when a version changes the cap and adds a rule, then exactly those show, in words', () => {
    const next: Policy = {
      ...builtin,
      affordability: { ...builtin.affordability, maxDebtServiceRatio: 0.1 },
      knockOuts: [rule],
    };
    expect(differences(builtin, next)).toEqual([
      {
        field: 'affordability.maxDebtServiceRatio',
        label: 'Maximum debt-service ratio',
        before: '33.33%',
        after: '10%',
      },
      {
        field: 'knockOuts.HIGH_BETTING',
        label: 'Knock-out rule HIGH_BETTING',
        before: null,
        after: knockOutSentence(rule),
      },
    ]);
    expect(differences(next, next)).toEqual([]);
  });
});

describe('the offer terms of a policy without its own', () => {
  it('when the page shows them, then they are the service’s defaults', () => {
    expect(DEFAULT_OFFER_TERMS).toEqual(CONTRACT_OFFER_TERMS);
  });
});
