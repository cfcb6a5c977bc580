import { BUILTIN_POLICY, CreditPolicy, type KnockOutRule } from '@loan/contracts';
import { GOLDEN_APPLICANTS, goldenFile } from '../../../golden/goldenTable';
import { scoringInput } from '../../../golden/sandboxApplicant';
import { BAND_THRESHOLDS, DSR_CAP, MIN_COUNTER_OFFER_AMOUNT, MIN_COUNTER_OFFER_SHARE, TENOR_OPTIONS } from '../index';
import { scoreApplicationWithAudit, type AppliedPolicy } from '../scoreApplication/scoreApplication';
import { bandUnder } from './evaluate';
import { simulatePolicy } from './simulate';

const golden = (label: string) => {
  const applicant = GOLDEN_APPLICANTS.find((a) => a.label === label);
  if (!applicant) throw new Error(`no golden applicant ${label}`);
  return goldenFile(applicant);
};
const MEDIUM_ASK = { amount: 500_000, tenor: 12, interestRate: 5 };

const withPolicy = (change: (policy: CreditPolicy) => void, version = 7): AppliedPolicy => {
  const policy = structuredClone(BUILTIN_POLICY);
  change(policy);
  return { version, policy: CreditPolicy.parse(policy) };
};

const decide = (label: string, policy?: AppliedPolicy, loan = MEDIUM_ASK) =>
  scoreApplicationWithAudit({ ...scoringInput(golden(label), loan), policy }).decision;

describe('the built-in policy', () => {
  it('when compared with the rules compiled into the scorecard, then it holds the same values', () => {
    expect(BUILTIN_POLICY.bands.thresholds).toEqual(BAND_THRESHOLDS);
    expect(BUILTIN_POLICY.affordability.maxDebtServiceRatio).toBe(DSR_CAP);
    expect(BUILTIN_POLICY.affordability.tenors).toEqual(TENOR_OPTIONS);
    expect(BUILTIN_POLICY.affordability.counterOffers).toEqual({
      enabled: true,
      minShareOfAsk: MIN_COUNTER_OFFER_SHARE,
      minAmount: MIN_COUNTER_OFFER_AMOUNT,
    });
    expect(CreditPolicy.safeParse(BUILTIN_POLICY).success).toBe(true);
  });

  const cases = GOLDEN_APPLICANTS.flatMap((applicant) =>
    applicant.asks.map((ask) => [applicant.label, ask.amount, ask.tenor, applicant, ask] as const),
  );
  it.each(cases)(
    'when %s asks for %d over %d months under the built-in policy given as version 0, then the decision is the golden one',
    (_label, _amount, _tenor, applicant, ask) => {
      const input = scoringInput(goldenFile(applicant), ask);
      const implicit = scoreApplicationWithAudit(input).decision;
      const explicit = scoreApplicationWithAudit({ ...input, policy: { version: 0, policy: BUILTIN_POLICY } }).decision;
      expect(explicit).toEqual(implicit);
      expect(explicit.policy_version).toBe(0);
    },
  );
});

describe('a decision under a lender policy', () => {
  it('when the debt-service cap is lowered to 10%, then an approved ask becomes a counter-offer or a decline, naming the version', () => {
    expect(decide('salaried').decision).toBe('APPROVED');
    const decision = decide(
      'salaried',
      withPolicy((p) => (p.affordability.maxDebtServiceRatio = 0.1), 3),
    );
    expect(['COUNTER_OFFER', 'DECLINED']).toContain(decision.decision);
    expect(decision.policy_version).toBe(3);
    if (decision.decision === 'COUNTER_OFFER') expect(decision.explainability.primary_reason).toContain('cap 10%');
  });

  it('when counter-offers are off, then an ask that does not fit is declined as not affordable', () => {
    const decision = decide(
      'salaried',
      withPolicy((p) => (p.affordability.counterOffers.enabled = false)),
      { amount: 1_500_000, tenor: 12, interestRate: 4 },
    );
    expect(decision.decision).toBe('DECLINED');
    expect(decision.counter_offer).toBeNull();
    expect(decision.explainability.primary_reason).toMatch(/^Declined: no amount is affordable/);
  });

  it('when the ask is above the maximum amount, then the counter-offer is the maximum', () => {
    const decision = decide(
      'salaried',
      withPolicy((p) => (p.loanLimits.maxAmount = 300_000)),
    );
    expect(decision.decision).toBe('COUNTER_OFFER');
    expect(decision.counter_offer?.amount).toBe(300_000);
  });

  it('when the ask is above the income multiple, then the counter-offer stays within it', () => {
    const decision = decide(
      'salaried',
      withPolicy((p) => (p.loanLimits.maxIncomeMultiple = 0.5)),
    );
    expect(decision.decision).toBe('COUNTER_OFFER');
    expect(decision.counter_offer!.amount).toBeLessThan(500_000);
  });

  it('when the ask is below the minimum amount, then it is declined', () => {
    const decision = decide(
      'salaried',
      withPolicy((p) => (p.loanLimits.minAmount = 600_000)),
    );
    expect(decision.decision).toBe('DECLINED');
    expect(decision.explainability.primary_reason).toContain('below the smallest loan');
  });

  it('when the HIGH_RISK band is approved, then a HIGH_RISK applicant without other concerns is approved', () => {
    expect(decide('gig').decision).toBe('MANUAL_REVIEW');
    expect(
      decide(
        'gig',
        withPolicy((p) => (p.bands.actions.HIGH_RISK = 'APPROVE')),
      ).decision,
    ).toBe('APPROVED');
  });

  it('when the thresholds move, then the band follows them', () => {
    const policy = withPolicy((p) => (p.bands.thresholds = { LOW_RISK: 99, MEDIUM_RISK: 96, HIGH_RISK: 90 }));
    expect(decide('salaried', policy).score_band).toBe('HIGH_RISK');
    expect(bandUnder(89.99, policy.policy)).toBe('VERY_HIGH_RISK');
    expect(bandUnder(90, policy.policy)).toBe('HIGH_RISK');
  });

  it('when the bureau is unavailable and the policy proceeds, then statements alone decide', () => {
    expect(decide('salaried, bureau down').decision).toBe('MANUAL_REVIEW');
    const decision = decide(
      'salaried, bureau down',
      withPolicy((p) => (p.dataRules.bureauUnavailable = 'PROCEED')),
    );
    expect(decision.decision).toBe('APPROVED');
    expect(decision.regulatory_compliance.credit_bureau_checked).toBe(false);
  });

  it('when a thin file is declined by the policy, then the decision is DECLINED with THIN_FILE', () => {
    const decision = decide(
      'thin_file',
      withPolicy((p) => (p.dataRules.thinFile = 'DECLINE')),
    );
    expect(decision.decision).toBe('DECLINED');
    expect(decision.explainability.primary_reason).toMatch(/^Declined \(THIN_FILE\)/);
  });

  it('when an identity mismatch is declined by the policy, then the decision is DECLINED', () => {
    expect(
      decide(
        'name_mismatch',
        withPolicy((p) => (p.dataRules.identityMismatch = 'DECLINE')),
      ).decision,
    ).toBe('DECLINED');
  });

  const betting: KnockOutRule = {
    code: 'HIGH_BETTING',
    feature: 'bettingShareOfIncome',
    operator: '>',
    value: 0.1,
    action: 'DECLINE',
    description: 'Betting takes more than a tenth of income.',
  };

  it('when a DECLINE knock-out matches, then its code is the primary reason and the first risk factor', () => {
    const decision = decide(
      'heavy_betting',
      withPolicy((p) => (p.knockOuts = [betting])),
    );
    expect(decision.decision).toBe('DECLINED');
    expect(decision.explainability.primary_reason).toBe(
      'Declined (HIGH_BETTING): Betting takes more than a tenth of income.',
    );
    expect(decision.risk_factors[0]).toEqual({
      code: 'HIGH_BETTING',
      severity: 'HIGH',
      description: betting.description,
    });
    expect(decision.approval_details.approved_amount).toBe(0);
  });

  it('when a REVIEW knock-out matches, then its code is among the manual review reasons', () => {
    const decision = decide(
      'salaried',
      withPolicy(
        (p) =>
          (p.knockOuts = [
            { ...betting, feature: 'monthlyIncome', operator: '>', value: 1, action: 'REVIEW', code: 'ANY_INCOME' },
          ]),
      ),
    );
    expect(decision.decision).toBe('MANUAL_REVIEW');
    expect(decision.manual_review_reasons).toEqual([{ code: 'ANY_INCOME', description: betting.description }]);
  });

  it('when a knock-out tests a feature without a value, then it does not match', () => {
    const decision = decide(
      'salaried, bureau down',
      withPolicy((p) => {
        p.dataRules.bureauUnavailable = 'PROCEED';
        p.knockOuts = [{ ...betting, feature: 'bureauScore', operator: '<', value: 1000, code: 'LOW_BUREAU' }];
      }),
    );
    expect(decision.decision).toBe('APPROVED');
  });

  it('when a knock-out does not match, then the decision is as without it', () => {
    const decision = decide(
      'salaried',
      withPolicy((p) => (p.knockOuts = [betting]), 0),
    );
    expect(decision).toEqual(decide('salaried'));
  });
});

describe('simulating a policy on stored audits', () => {
  const stored = GOLDEN_APPLICANTS.flatMap((applicant) =>
    applicant.asks.map((loan, n) => {
      const input = scoringInput(goldenFile(applicant), loan);
      return {
        applicationId: `${applicant.label} #${n}`,
        applicantId: input.applicantId,
        loan,
        audit: scoreApplicationWithAudit(input).audit,
        decidedAt: input.now,
      };
    }),
  );
  const builtin = { version: 0, policy: BUILTIN_POLICY };

  it('when the draft is the active policy, then nothing changes and the counts are the golden decisions', () => {
    const result = simulatePolicy(stored, builtin, builtin);
    expect(result.evaluated).toBe(stored.length);
    expect(result.changed).toEqual([]);
    expect(result.draft).toEqual(result.current);
    const golden = stored.map(
      (s) =>
        scoreApplicationWithAudit(
          scoringInput(goldenFile(GOLDEN_APPLICANTS.find((a) => s.applicationId.startsWith(`${a.label} #`))!), s.loan),
        ).decision.decision,
    );
    for (const outcome of ['APPROVED', 'COUNTER_OFFER', 'MANUAL_REVIEW', 'DECLINED'] as const)
      expect(result.current[outcome]).toBe(golden.filter((d) => d === outcome).length);
  });

  it('when the draft caps repayments at 10% of income, then the approvals it turns down are listed with the new outcome, and the same input gives the same answer', () => {
    const draft = withPolicy((p) => (p.affordability.maxDebtServiceRatio = 0.1), 1);
    const result = simulatePolicy(stored, builtin, draft);
    expect(result.changed.length).toBeGreaterThan(0);
    expect(result.changed.every((c) => c.from !== c.to)).toBe(true);
    expect(result.changed.find((c) => c.applicationId === 'salaried #1')).toMatchObject({ from: 'APPROVED' });
    expect(result.approvedAmount.draft).toBeLessThan(result.approvedAmount.current);
    expect(simulatePolicy(stored, builtin, draft)).toEqual(result);
  });
});
