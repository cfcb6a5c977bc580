import { BUILTIN_POLICY, CreditPolicy, POLICY_FEATURES, SimulateRequest, policyProblems } from './policy';

const valid = () => structuredClone(BUILTIN_POLICY) as Record<string, unknown> & CreditPolicy;
const problemsOf = (input: unknown): string[] => {
  const result = CreditPolicy.safeParse(input);
  return result.success ? [] : policyProblems(result.error);
};

describe('CreditPolicy', () => {
  it('when the built-in policy is parsed, then it is valid', () => {
    expect(problemsOf(BUILTIN_POLICY)).toEqual([]);
  });

  it('when several fields are bad, then every one is named', () => {
    const policy = valid();
    policy.bands.thresholds = { LOW_RISK: 70, MEDIUM_RISK: 80, HIGH_RISK: 55 };
    policy.affordability.maxDebtServiceRatio = 0.9;
    policy.affordability.tenors = [];
    policy.knockOuts = [
      {
        code: 'HIGH_BETTING',
        feature: 'bettingShareOfIncome',
        operator: '>',
        value: 0.2,
        action: 'DECLINE',
        description: 'a',
      },
      {
        code: 'HIGH_BETTING',
        feature: 'horoscope' as never,
        operator: '>',
        value: 1,
        action: 'REVIEW',
        description: 'b',
      },
    ];
    const problems = problemsOf(policy);
    expect(problems).toEqual(
      expect.arrayContaining([
        'affordability.maxDebtServiceRatio: maxDebtServiceRatio must be between 0.05 and 0.80',
        'affordability.tenors: tenors must not be empty',
        expect.stringMatching(/^knockOuts\.1\.feature: unknown feature "horoscope"/),
      ]),
    );
  });

  it('when the thresholds do not descend, then the thresholds are named', () => {
    const policy = valid();
    policy.bands.thresholds = { LOW_RISK: 85, MEDIUM_RISK: 85, HIGH_RISK: 55 };
    expect(problemsOf(policy)).toEqual([
      'bands.thresholds: thresholds must be strictly descending: LOW_RISK > MEDIUM_RISK > HIGH_RISK',
    ]);
  });

  it('when two knock-outs share a code, then the second is named', () => {
    const policy = valid();
    const rule = {
      code: 'HIGH_BETTING',
      feature: 'bettingShareOfIncome',
      operator: '>',
      value: 0.2,
      action: 'DECLINE',
      description: 'a',
    } as const;
    policy.knockOuts = [rule, rule];
    expect(problemsOf(policy)).toEqual(['knockOuts.1.code: duplicate knock-out code HIGH_BETTING']);
  });

  it('when a tenor is outside 1-60 months, then the tenor is named', () => {
    const policy = valid();
    policy.affordability.tenors = [0, 12, 61];
    expect(problemsOf(policy)).toEqual([
      'affordability.tenors.0: tenors must be between 1 and 60 months',
      'affordability.tenors.2: tenors must be between 1 and 60 months',
    ]);
  });

  it('when a field is unknown or missing, then it is named', () => {
    const { knockOuts: _k, ...rest } = valid();
    expect(problemsOf({ ...rest, colour: 'red' })).toEqual(
      expect.arrayContaining([expect.stringMatching(/^knockOuts: /), expect.stringMatching(/colour/)]),
    );
  });

  it('when the bureau is unavailable, then PROCEED is allowed but not for a thin file', () => {
    const policy = valid();
    policy.dataRules.bureauUnavailable = 'PROCEED';
    expect(problemsOf(policy)).toEqual([]);
    (policy.dataRules as Record<string, string>).thinFile = 'PROCEED';
    expect(problemsOf(policy)).toEqual([expect.stringMatching(/^dataRules\.thinFile: /)]);
  });

  it('when offer terms are set, then validity must be 2-30 whole days and cooling-off 3-14 whole working days', () => {
    const withOffer = (offer: unknown) => problemsOf({ ...valid(), offer });
    expect(withOffer({ validityDays: 3, coolingOffWorkingDays: 5 })).toEqual([]);
    expect(withOffer({ validityDays: 2, coolingOffWorkingDays: 3 })).toEqual([]);
    expect(withOffer({ validityDays: 30, coolingOffWorkingDays: 14 })).toEqual([]);
    for (const validityDays of [0, -1, 1, 31])
      expect(withOffer({ validityDays, coolingOffWorkingDays: 3 })).toEqual([
        'offer.validityDays: validityDays must be between 2 and 30 days',
      ]);
    expect(withOffer({ validityDays: 2.5, coolingOffWorkingDays: 3 })).toEqual([
      'offer.validityDays: validityDays must be a whole number of days',
    ]);
    expect(withOffer({ validityDays: '7', coolingOffWorkingDays: 3 })).toEqual([
      'offer.validityDays: validityDays must be a whole number of days',
    ]);
    for (const coolingOffWorkingDays of [2, 15])
      expect(withOffer({ validityDays: 7, coolingOffWorkingDays })).toEqual([
        'offer.coolingOffWorkingDays: coolingOffWorkingDays must be between 3 and 14 working days',
      ]);
    expect(withOffer({ validityDays: 7 })).toEqual([
      'offer.coolingOffWorkingDays: coolingOffWorkingDays must be a whole number of working days',
    ]);
    expect(withOffer({ validityDays: 7, coolingOffWorkingDays: 3, autoAccept: true })).toEqual([
      'offer: Unrecognized key: "autoAccept"',
    ]);
  });

  it('when the feature catalogue is read, then every feature has a description', () => {
    for (const description of Object.values(POLICY_FEATURES)) expect(description.length).toBeGreaterThan(10);
  });
});

describe('SimulateRequest', () => {
  it('when no limit is given, then it is 500; above 5000 it is refused', () => {
    expect(SimulateRequest.parse({})).toEqual({ limit: 500 });
    expect(SimulateRequest.safeParse({ limit: 5001 }).success).toBe(false);
    expect(SimulateRequest.parse({ limit: 5000 })).toEqual({ limit: 5000 });
  });
});
