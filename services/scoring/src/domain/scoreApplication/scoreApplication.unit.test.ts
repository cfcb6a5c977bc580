import { BUILTIN_POLICY, Decision, type MonthSummary } from '@loan/contracts';
import { PERSONA_NAMES, applicationOf, bureauDown, notChecked, noHitBureau, persona } from '../__tests__/personas';
import { FIXTURE_NOW } from '../__tests__/statements';
import { SCORECARD_VERSION, TENOR_OPTIONS } from '../index';
import { NoEnrichedAccountsError } from './errors';
import { buildScoringAudit, decideFromAudit, scoreApplication, scoreApplicationWithAudit } from './scoreApplication';

const ASK = { amount: 500_000, tenor: 12, interestRate: 5 };
const ASKS = [
  ASK,
  { amount: 100_000, tenor: 3, interestRate: 10 },
  { amount: 2_000_000, tenor: 6, interestRate: 5 },
  { amount: 120_000, tenor: 6, interestRate: 0 },
];

const ZERO_TERMS = { approved_amount: 0, approved_tenor: 0, approved_interest: 0, monthly_payment: 0 };

const codes = (entries: Array<{ code: string }>): string[] => entries.map((entry) => entry.code);

describe('scoreApplication', () => {
  describe.each(PERSONA_NAMES)('when %s applies', (name) => {
    it.each(ASKS)('for %o, then the decision parses with the Decision schema and is consistent', (ask) => {
      const decision = scoreApplication(applicationOf(name, ask));

      expect(Decision.safeParse(decision).error).toBeUndefined();
      expect(decision.score).toBe(decision.score_breakdown.total);
      expect(decision.scorecard_version).toBe(SCORECARD_VERSION);
      expect(decision.timestamp).toBe(FIXTURE_NOW.toISOString());
      expect(decision.manual_review_reasons.length > 0).toBe(decision.decision === 'MANUAL_REVIEW');
      expect(decision.eligible_tenors.every((tenor) => TENOR_OPTIONS.includes(tenor))).toBe(true);
      expect(decision.explainability.primary_reason.length).toBeGreaterThan(10);
    });
  });

  it('when the salaried persona asks what it can afford, then it is approved with the asked terms', () => {
    const decision = scoreApplication(applicationOf('salaried', ASK));

    expect(decision).toMatchObject({
      decision: 'APPROVED',
      score_band: 'LOW_RISK',
      applicant_id: persona('salaried').applicantId,
      approval_details: {
        approved_amount: 500_000,
        approved_tenor: 12,
        approved_interest: 5,
        monthly_payment: 56_412.71,
      },
      counter_offer: null,
      eligible_tenors: [9, 12, 18, 24, 36],
      manual_review_reasons: [],
      regulatory_compliance: {
        thin_file: false,
        identity_verified: true,
        credit_bureau_checked: true,
        affordability_assessed: true,
      },
    });
    expect(decision.explainability.key_strengths).toContain(
      'Regular salary from ZENITH LOGISTICS LTD in 12 of 12 months.',
    );
    expect(decision.explainability.key_weaknesses).toEqual([]);
  });

  it('when the ask is not affordable but a smaller amount is, then the counter-offer is both in counter_offer and approval_details', () => {
    const decision = scoreApplication(applicationOf('salaried', { amount: 1_500_000, tenor: 12, interestRate: 5 }));

    expect(decision.decision).toBe('COUNTER_OFFER');
    expect(decision.counter_offer).toMatchObject({ amount: 840_000, tenor: 12, interest_rate: 5 });
    expect(decision.approval_details).toEqual({
      approved_amount: decision.counter_offer?.amount,
      approved_tenor: decision.counter_offer?.tenor,
      approved_interest: decision.counter_offer?.interest_rate,
      monthly_payment: decision.counter_offer?.monthly_payment,
    });
    // 36 months would carry the whole amount, but stretches the 12 asked beyond twice.
    expect(decision.eligible_tenors).toEqual([36]);
    expect(decision.explainability.primary_reason).toContain(
      '₦840,000 is the largest amount affordable over 12 months.',
    );
  });

  it('when a longer tenor makes the ask affordable, then the counter-offer keeps the amount and stretches the tenor', () => {
    const decision = scoreApplication(
      applicationOf('salaried_high', { amount: 5_000_000, tenor: 12, interestRate: 4 }),
    );

    expect(decision.decision).toBe('COUNTER_OFFER');
    expect(decision.counter_offer).toMatchObject({
      amount: 5_000_000,
      tenor: 24,
      monthly_payment: 327_934.16,
    });
    expect(decision.eligible_tenors).toEqual([24, 36]);
  });

  it('when the bureau is down, then the decision still completes as MANUAL_REVIEW with BUREAU_UNAVAILABLE', () => {
    const decision = scoreApplication(applicationOf('salaried', ASK, { bureau: bureauDown }));

    expect(decision.decision).toBe('MANUAL_REVIEW');
    expect(codes(decision.manual_review_reasons)).toEqual(['BUREAU_UNAVAILABLE']);
    expect(decision.regulatory_compliance.credit_bureau_checked).toBe(false);
    expect(decision.approval_details.approved_amount).toBe(500_000);
    expect(Decision.safeParse(decision).success).toBe(true);
  });

  it('when no BVN was given, then credit history comes from statements and the bureau is not checked', () => {
    const withBureau = scoreApplication(applicationOf('salaried', ASK));
    const withoutBvn = scoreApplication(
      applicationOf('salaried', ASK, {
        bureau: notChecked,
        applicant: { ...persona('salaried').applicant, bvn: null },
      }),
    );

    expect(withoutBvn.regulatory_compliance.credit_bureau_checked).toBe(false);
    expect(withoutBvn.score_breakdown.credit_history).toBeLessThan(withBureau.score_breakdown.credit_history);
    expect(withoutBvn.score_breakdown.cash_flow_health).toBe(withBureau.score_breakdown.cash_flow_health);
    expect(withoutBvn.manual_review_reasons).toEqual([]);
  });

  it('when the bureau answers with no record, then the bureau counts as checked', () => {
    const decision = scoreApplication(applicationOf('salaried', ASK, { bureau: noHitBureau() }));

    expect(decision.regulatory_compliance.credit_bureau_checked).toBe(true);
  });

  it('when the bureau shows 90+ days past due, then the application is declined with zero terms', () => {
    const decision = scoreApplication(applicationOf('debt_stressed', { amount: 100_000, tenor: 6, interestRate: 5 }));

    expect(decision).toMatchObject({
      decision: 'DECLINED',
      approval_details: ZERO_TERMS,
      counter_offer: null,
      eligible_tenors: [],
      manual_review_reasons: [],
    });
    expect(codes(decision.risk_factors)).toEqual(
      expect.arrayContaining(['BUREAU_DELINQUENCY', 'EXISTING_DIGITAL_LOANS']),
    );
    expect(decision.explainability.primary_reason).toBe('Declined: the credit bureau shows a loan 96 days past due.');
  });

  it('when existing repayments leave no room under the cap, then the application is declined as not affordable', () => {
    const decision = scoreApplication(
      applicationOf('debt_stressed', { amount: 100_000, tenor: 6, interestRate: 5 }, { bureau: noHitBureau() }),
    );

    expect(decision.decision).toBe('DECLINED');
    expect(decision.explainability.primary_reason).toMatch(/^Declined: no amount is affordable/);
  });

  it('when the score is very high risk, then the application is declined', () => {
    const decision = scoreApplication(applicationOf('overdrawn', { amount: 50_000, tenor: 3, interestRate: 5 }));

    expect(decision).toMatchObject({
      decision: 'DECLINED',
      score_band: 'VERY_HIGH_RISK',
      approval_details: ZERO_TERMS,
    });
    expect(codes(decision.risk_factors)).toEqual(expect.arrayContaining(['FREQUENT_OVERDRAFT', 'BOUNCED_DEBITS']));
  });

  it('when betting takes a third of income, then an analyst must look', () => {
    const decision = scoreApplication(applicationOf('heavy_betting', { amount: 100_000, tenor: 6, interestRate: 5 }));

    expect(decision.decision).toBe('MANUAL_REVIEW');
    expect(decision.risk_factors[0]).toMatchObject({ code: 'HIGH_BETTING_SPEND', severity: 'HIGH' });
    expect(codes(decision.manual_review_reasons)).toContain('SEVERE_RISK_FACTOR');
    expect(decision.regulatory_compliance.credit_bureau_checked).toBe(false);
  });

  describe('when one risk factor is HIGH but the band and affordability would approve', () => {
    const input = applicationOf('salaried', ASK);
    const audit = buildScoringAudit(input);
    const betting = {
      ...audit,
      features: {
        ...audit.features,
        bettingDebitsMonthlyAverage: audit.features.monthlyIncome * 0.3,
        bettingShareOfIncome: 0.3,
      },
    };

    it('then the ask goes to manual review with the factor as the reason, its terms kept', () => {
      const decision = decideFromAudit(betting, input);

      expect(['LOW_RISK', 'MEDIUM_RISK']).toContain(decision.score_band);
      expect(decision.decision).toBe('MANUAL_REVIEW');
      expect(decision.manual_review_reasons).toEqual([
        { code: 'SEVERE_RISK_FACTOR', description: expect.stringMatching(/^Betting takes 30% of income/) },
      ]);
      expect(decision.approval_details).toMatchObject({ approved_amount: ASK.amount, approved_tenor: ASK.tenor });
      expect(decideFromAudit(audit, input).decision).toBe('APPROVED');
    });

    it('then an ask that would get a counter-offer goes to manual review with the counter-offer', () => {
      const decision = decideFromAudit(betting, { ...input, loan: { amount: 1_500_000, tenor: 12, interestRate: 5 } });

      expect(decision.decision).toBe('MANUAL_REVIEW');
      expect(decision.counter_offer).not.toBeNull();
      expect(codes(decision.manual_review_reasons)).toEqual(['SEVERE_RISK_FACTOR']);
    });
  });

  it('when the statements are too short, then the file is thin and goes to manual review', () => {
    const decision = scoreApplication(applicationOf('thin_file', { amount: 100_000, tenor: 3, interestRate: 5 }));

    expect(decision.decision).toBe('MANUAL_REVIEW');
    expect(codes(decision.manual_review_reasons)).toEqual(['THIN_FILE']);
    expect(decision.regulatory_compliance.thin_file).toBe(true);
    expect(codes(decision.risk_factors)).toContain('THIN_FILE');
  });

  it('when the account holder is not the applicant, then identity is not verified and an analyst must look', () => {
    const decision = scoreApplication(applicationOf('name_mismatch', ASK));

    expect(decision.decision).toBe('MANUAL_REVIEW');
    expect(decision.manual_review_reasons).toEqual([
      {
        code: 'IDENTITY_MISMATCH',
        description: "The Stanbic IBTC account is in another person's name, not the applicant's.",
      },
    ]);
    // The holder is a third party: no reason names them.
    expect(JSON.stringify(decision)).not.toMatch(/mustapha|bello/i);
    expect(decision.regulatory_compliance.identity_verified).toBe(false);
  });

  it('when the gig worker’s income varies, then irregular income is a weakness and the band is medium', () => {
    const decision = scoreApplication(applicationOf('gig', { amount: 150_000, tenor: 6, interestRate: 6 }));

    expect(decision).toMatchObject({ decision: 'APPROVED', score_band: 'MEDIUM_RISK' });
    expect(codes(decision.risk_factors)).toContain('IRREGULAR_INCOME');
  });

  it('when there is no enriched account, then it throws a non-retriable typed error', () => {
    const call = () => scoreApplication(applicationOf('salaried', ASK, { accounts: [] }));

    expect(call).toThrow(NoEnrichedAccountsError);
    try {
      call();
    } catch (error) {
      expect(error).toMatchObject({ code: 'NO_ENRICHED_ACCOUNTS', retriable: false });
    }
  });

  it('when scored twice, then the decision is the same: the function is pure', () => {
    expect(scoreApplication(applicationOf('gig', ASK))).toEqual(scoreApplication(applicationOf('gig', ASK)));
  });

  it('when own transfers between the linked accounts are added, then the decision does not change', () => {
    const input = applicationOf('salaried', ASK);
    const [salaryAccount, savings] = input.accounts;
    const shuffle =
      (extra: number) =>
      (month: MonthSummary): MonthSummary => ({
        ...month,
        credits: month.credits + extra,
        debits: month.debits + extra,
        ownTransfersIn: month.ownTransfersIn + extra,
        ownTransfersOut: month.ownTransfersOut + extra,
      });
    const withMoreTransfers = [
      { ...salaryAccount!, months: salaryAccount!.months.map(shuffle(75_000)) },
      { ...savings!, months: savings!.months.map(shuffle(75_000)) },
    ];

    const before = scoreApplication(input);
    const after = scoreApplication({ ...input, accounts: withMoreTransfers });

    expect(after.score_breakdown).toEqual(before.score_breakdown);
    expect(after.approval_details).toEqual(before.approval_details);
  });
});

describe('audit and re-scoring', () => {
  it('when a stored audit record is decided again, then the same decision comes out', () => {
    const input = applicationOf('gig', ASK);
    const { decision, audit } = scoreApplicationWithAudit(input);
    const stored = JSON.parse(JSON.stringify(audit)) as typeof audit;

    expect(decideFromAudit(stored, input)).toEqual(decision);
    expect(stored.scorecardVersion).toBe(SCORECARD_VERSION);
    expect(stored.bureauSummary.status).toBe('NO_HIT');
  });

  it('when the audit record is re-scored for another ask, then only affordability-driven parts change', () => {
    const input = applicationOf('salaried', ASK);
    const audit = buildScoringAudit(input);

    const bigger = decideFromAudit(audit, {
      ...input,
      loan: { amount: 1_500_000, tenor: 12, interestRate: 5 },
    });

    expect(bigger.score).toBe(scoreApplication(input).score);
    expect(bigger.decision).toBe('COUNTER_OFFER');
  });
});

describe('the key facts of a decision', () => {
  const disclosure = {
    fees: { managementPercent: 1, insurancePercent: 0.5, vatPercent: 7.5, collection: 'UPFRONT' as const },
    schedule: { alignToPayDay: true, daysAfterPayDay: 2 },
  };

  it('when an approval is made under a policy with fees, then its key facts disclose the granted terms with those fees, the APR and a schedule summing to the kobo', () => {
    const decision = scoreApplication(
      applicationOf('salaried', ASK, { policy: { version: 3, policy: { ...BUILTIN_POLICY, disclosure } } }),
    );
    expect(decision.decision).toBe('APPROVED');
    const facts = decision.key_facts!;
    expect(facts).toMatchObject({
      principal: 500_000,
      tenor_months: 12,
      interest_rate_monthly_percent: 5,
      total_fees: 8062.5,
      amount_disbursed: 491_937.5,
      terms: disclosure,
    });
    expect(facts.schedule).toHaveLength(12);
    const kobo = (values: number[]) => values.reduce((sum, v) => sum + Math.round(v * 100), 0);
    expect(kobo(facts.schedule.map((s) => s.principal))).toBe(50_000_000);
    expect(kobo(facts.schedule.map((s) => s.amount))).toBe(Math.round(facts.total_repayable * 100));
    // Every instalment but the last is the decision's own monthly payment.
    for (const s of facts.schedule.slice(0, -1)) expect(s.amount).toBe(decision.approval_details.monthly_payment);
    // Dated monthly from disbursement, fees taken up front cost more than the 5% a month alone
    // ((1.05^12 - 1) = 79.59% a year); dated after a pay day, the first period may be longer.
    const monthly = scoreApplication(
      applicationOf('salaried', ASK, {
        policy: {
          version: 3,
          policy: {
            ...BUILTIN_POLICY,
            disclosure: { ...disclosure, schedule: { alignToPayDay: false, daysAfterPayDay: 0 } },
          },
        },
      }),
    ).key_facts!;
    expect(monthly.schedule_basis.kind).toBe('MONTHLY_FROM_DISBURSEMENT');
    expect(monthly.apr_percent).toBeGreaterThan((1.05 ** 12 - 1) * 100);
  });

  it('when the applicant has a regular monthly salary, then instalments fall the policy’s days after its pay day, and the decision says so', () => {
    const decision = scoreApplication(
      applicationOf('salaried', ASK, { policy: { version: 3, policy: { ...BUILTIN_POLICY, disclosure } } }),
    );
    const basis = decision.key_facts!.schedule_basis;
    expect(basis).toMatchObject({ kind: 'PAY_DATE', days_after_pay_day: 2 });
    const payDay = basis.pay_day_of_month!;
    for (const s of decision.key_facts!.schedule) {
      const due = new Date(`${s.due_date}T00:00:00Z`);
      const pay = new Date(due.getTime() - 2 * 86_400_000);
      const lastDay = new Date(Date.UTC(pay.getUTCFullYear(), pay.getUTCMonth() + 1, 0)).getUTCDate();
      expect(pay.getUTCDate()).toBe(Math.min(payDay, lastDay));
    }
  });

  it('when the decision is DECLINED, then it has no key facts; under the built-in policy an approval discloses no fees', () => {
    for (const name of PERSONA_NAMES) {
      const decision = scoreApplication(applicationOf(name, ASK));
      if (decision.decision === 'DECLINED') expect(decision.key_facts).toBeNull();
      else if (decision.approval_details.approved_amount > 0) {
        expect(decision.key_facts).toMatchObject({ fees: [], total_fees: 0 });
        expect(decision.key_facts!.total_cost_of_credit).toBe(decision.key_facts!.total_interest);
      }
    }
  });
});
