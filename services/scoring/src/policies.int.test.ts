import { randomUUID } from 'node:crypto';
import {
  BUILTIN_POLICY,
  Topics,
  type ApplicationFact,
  type CreditPolicy,
  type Decision,
  type EnrichedAccount,
} from '@loan/contracts';
import { waitFor } from '@testing/helpers';
import { startScoring, suiteNamespace, testBus, type Running } from '@testing/stack';

/**
 * Lenders' credit policies in the scoring service, against the real broker, registry and
 * database: versions, simulation on stored analyses, the challenger and activation, through the
 * internal API the gateway calls.
 */
const ns = suiteNamespace();
const bus = testBus(ns, 'policies-test');
const TOKEN = 'a-policy-test-internal-token';
let scoring: Running;
const lender = `lender-${randomUUID()}`;
const other = `lender-${randomUUID()}`;

beforeAll(async () => {
  scoring = await startScoring(ns, {
    BUREAU_BASE_URL: 'http://127.0.0.1:9',
    BUREAU_TIMEOUT: '500ms',
    PROFILE_WAIT: '1s',
    INTERNAL_TOKEN: TOKEN,
  });
  await bus.connect();
});

afterAll(async () => {
  await bus.disconnect();
  await scoring?.stop();
});

async function call(clientId: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${scoring.url}/internal${path}`, {
    method,
    headers: {
      'x-internal-token': TOKEN,
      'x-client-id': clientId,
      'x-actor': 'analyst@lender',
      'content-type': 'application/json',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

function profile(accountId: string): EnrichedAccount {
  const months = Array.from({ length: 6 }, (_, i) => ({
    month: `2026-0${i + 1}`,
    credits: 400_000,
    debits: 300_000,
    salaryCredits: 350_000,
    otherIncomeCredits: 50_000,
    bettingDebits: 0,
    bettingCredits: 0,
    loanRepayments: 0,
    loanDisbursements: 0,
    ownTransfersIn: 0,
    ownTransfersOut: 0,
    bouncedDebits: 0,
    overdraftDays: 0,
    openingBalance: 50_000,
    closingBalance: 150_000,
    minBalance: 40_000,
    averageBalance: 100_000,
    transactionCount: 40,
  }));
  return {
    accountId,
    providerAccountId: `p-${accountId}`,
    institution: 'GTBank',
    bankCode: '058',
    accountNumber: '0123456785',
    holderName: 'ADAEZE OKAFOR',
    bvnLast4: null,
    currency: 'NGN',
    balance: 150_000,
    income: {
      employer: 'ACME LTD',
      monthlyIncome: 350_000,
      annualIncome: 4_200_000,
      totalIncome: 2_100_000,
      regularMonthlyAverage: 350_000,
      irregularMonthlyAverage: 0,
      // A salary paid on the 27th: the day instalments are dated from.
      streams: [
        {
          incomeType: 'SALARY',
          frequency: 'MONTHLY',
          monthlyAverage: 350_000,
          stability: 0.98,
          firstIncomeDate: '2026-01-27',
          lastIncomeDate: '2026-06-27',
          lastIncomeDescription: 'SALARY ACME LTD',
          numberOfIncomes: 6,
          numberOfMonths: 6,
        },
      ],
      periodMonths: 6,
    },
    insights: {
      startDate: '2026-01-01',
      endDate: '2026-06-30',
      transactionDays: 180,
      transactionCount: 240,
      openingBalance: 50_000,
      closingBalance: 150_000,
      averageBalance: 100_000,
      debitToCreditRatio: 0.75,
      overallCredits: 2_400_000,
      overallDebits: 1_800_000,
      totalRecurringCredits: 2_100_000,
      totalRecurringDebits: 0,
      redFlags: {
        immediateLargeWithdrawalPostPayday: false,
        identicalDebitVsCredit: false,
        cashDepositsLargerThanSalary: false,
      },
    },
    months,
    enrichedAt: new Date().toISOString(),
  };
}

/** Enriches one account, asks for its analysis (at `at`) and waits for the decision. */
async function analyze(clientId: string, at = new Date()) {
  const applicationId = randomUUID();
  const accountId = randomUUID();
  await bus.publish(Topics.enrichmentResults, [
    {
      key: applicationId,
      value: {
        type: 'AccountEnriched',
        factId: randomUUID(),
        clientId,
        applicationId,
        applicantId: randomUUID(),
        accountId,
        providerAccountId: `p-${accountId}`,
        attempt: 1,
        at: new Date().toISOString(),
        profile: profile(accountId),
      },
    },
  ]);
  await waitFor(() => scoring.runtime.db.model('Profile').exists({ _id: accountId }), { what: 'the profile' });
  const fact: ApplicationFact = {
    type: 'AnalysisRequested',
    factId: randomUUID(),
    clientId,
    applicationId,
    applicantId: randomUUID(),
    analysisId: randomUUID(),
    at: at.toISOString(),
    applicant: { firstName: 'Adaeze', lastName: 'Okafor', bvn: null },
    loan: { amount: 300_000, tenor: 6, interestRate: 5 },
    accountIds: [accountId],
  };
  await bus.publish(Topics.applicationFacts, [{ key: applicationId, value: fact }]);
  // The decision as stored with the analysis, the very object its result carries.
  const analysis = await waitFor(
    () =>
      scoring.runtime.db
        .collection<{ applicationId: string; status: string; decision: Decision }>('analyses')
        .findOne({ applicationId, status: 'DECIDED' }),
    { what: 'the decision' },
  );
  return { applicationId, decision: analysis.decision };
}

/** Declines everyone: a knock-out every analysis matches. */
const strict = (): CreditPolicy => ({
  ...structuredClone(BUILTIN_POLICY),
  name: 'Strict',
  knockOuts: [
    {
      code: 'EVERYONE_OUT',
      feature: 'monthlyIncome',
      operator: '>=',
      value: 0,
      action: 'DECLINE',
      description: 'Closed for new loans.',
    },
  ],
});

describe('credit policies in scoring', () => {
  it('when a lender has no policy of its own, then the built-in policy is active as version 0 and decides with policy_version 0', async () => {
    const listed = await call(lender, 'GET', '/policies');
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ active: { version: 0, status: 'ACTIVE', builtin: true }, challenger: null });
    expect(listed.body.versions).toHaveLength(1);
    const { decision } = await analyze(lender);
    expect(decision.policy_version).toBe(0);
  });

  it('when a bad policy is posted, then the answer is 400 naming every bad field', async () => {
    const bad = structuredClone(BUILTIN_POLICY) as any;
    bad.affordability.maxDebtServiceRatio = 0.95;
    bad.affordability.tenors = [];
    bad.bands.thresholds.MEDIUM_RISK = 90;
    bad.knockOuts = [
      { code: 'A_RULE', feature: 'shoeSize', operator: '>', value: 1, action: 'DECLINE', description: 'x' },
      { code: 'A_RULE', feature: 'monthlyIncome', operator: '>', value: 1, action: 'DECLINE', description: 'x' },
    ];
    const answer = await call(lender, 'POST', '/policies', bad);
    expect(answer.status).toBe(400);
    for (const field of [
      'affordability.maxDebtServiceRatio',
      'affordability.tenors',
      'bands.thresholds',
      'knockOuts.0.feature',
      'knockOuts.1.code',
    ])
      expect(answer.body.message).toContain(field);
  });

  it('when a draft is simulated, made the challenger and activated, then each step shows on the right analyses and the other lender sees none of it', async () => {
    const past = await analyze(lender);
    expect(past.decision.decision).not.toBe('DECLINED');
    const created = await call(lender, 'POST', '/policies', strict());
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'DRAFT', policy: { name: 'Strict' } });
    const version: number = created.body.version;
    expect(version).toBeGreaterThan(0);

    // Simulation: read-only, on the stored audit.
    const before = await scoring.runtime.db.collection('analyses').find({ clientId: lender }).toArray();
    const simulated = await call(lender, 'POST', `/policies/${version}/simulate`, {});
    expect(simulated.status).toBe(200);
    expect(simulated.body.evaluated).toBeGreaterThanOrEqual(2);
    expect(simulated.body.draft.DECLINED).toBe(simulated.body.evaluated);
    expect(simulated.body.approvedAmount.draft).toBe(0);
    expect(simulated.body.changed).toContainEqual({
      applicationId: past.applicationId,
      from: past.decision.decision,
      to: 'DECLINED',
      reasons: ['Declined (EVERYONE_OUT): Closed for new loans.'],
    });
    expect(await scoring.runtime.db.collection('analyses').find({ clientId: lender }).toArray()).toEqual(before);
    expect((await call(lender, 'POST', `/policies/${version}/simulate`, { limit: 5001 })).status).toBe(400);

    // The other lender sees none of it.
    expect((await call(other, 'GET', `/policies/${version}`)).status).toBe(404);
    expect((await call(other, 'POST', `/policies/${version}/activate`)).status).toBe(404);
    expect((await call(other, 'POST', `/policies/${version}/simulate`, {})).status).toBe(404);
    expect((await call(other, 'GET', '/policies')).body.versions).toHaveLength(1);

    // Challenger: decides in the shadow of the active version.
    expect((await call(lender, 'GET', '/policies/challenger/report')).status).toBe(404);
    const challenged = await call(lender, 'POST', `/policies/${version}/challenger`);
    expect(challenged.status).toBe(200);
    expect(challenged.body).toMatchObject({ version, status: 'DRAFT', challenger: true });
    const shadowed = await analyze(lender);
    expect(shadowed.decision).toMatchObject({ decision: past.decision.decision, policy_version: 0 });
    const report = await call(lender, 'GET', '/policies/challenger/report');
    expect(report.status).toBe(200);
    expect(report.body.challenger.version).toBe(version);
    expect(report.body.disagreements.map((d: { applicationId: string }) => d.applicationId)).toEqual([
      shadowed.applicationId,
    ]);
    expect(report.body.disagreements[0]).toMatchObject({
      active: { version: 0, decision: past.decision.decision },
      challenger: { version, decision: 'DECLINED' },
    });
    expect(report.body.matrix[past.decision.decision].DECLINED).toBe(1);

    // An analysis asked for before the activation is decided by the version active then.
    const askedBefore = new Date();
    const activated = await call(lender, 'POST', `/policies/${version}/activate`);
    expect(activated.status).toBe(200);
    expect(activated.body).toMatchObject({ version, status: 'ACTIVE', challenger: false });
    const late = await analyze(lender, new Date(askedBefore.getTime() - 1000));
    expect(late.decision).toMatchObject({ decision: past.decision.decision, policy_version: 0 });
    const after = await analyze(lender);
    expect(after.decision).toMatchObject({ decision: 'DECLINED', policy_version: version });
    expect(after.decision.risk_factors[0]).toEqual({
      code: 'EVERYONE_OUT',
      severity: 'HIGH',
      description: 'Closed for new loans.',
    });
    expect(after.decision.explainability.primary_reason).toBe('Declined (EVERYONE_OUT): Closed for new loans.');
    // The decision made before stays as it was.
    expect(
      (await scoring.runtime.db.collection('analyses').findOne({ applicationId: past.applicationId }))?.decision,
    ).toEqual(past.decision);

    const listed = await call(lender, 'GET', '/policies');
    expect(listed.body).toMatchObject({ active: { version, status: 'ACTIVE' }, challenger: null });
    expect(listed.body.versions.find((v: { version: number }) => v.version === 0)).toMatchObject({
      status: 'RETIRED',
      builtin: true,
    });
    expect((await call(lender, 'POST', '/policies/0/activate')).status).toBe(400);
    expect((await call(lender, 'POST', `/policies/${version}/activate`)).status).toBe(200);
    expect((await call(lender, 'POST', `/policies/${version}/challenger`)).status).toBe(400);
    expect((await call(lender, 'DELETE', '/policies/challenger')).status).toBe(404);
    expect((await call(lender, 'GET', '/policies/999')).status).toBe(404);
    expect((await call(lender, 'GET', '/policies/abc')).status).toBe(404);

    const changes = await scoring.runtime.db
      .collection('policy_changes')
      .find({ clientId: lender })
      .sort({ at: 1 })
      .toArray();
    expect(changes.map(({ version: v, action, actor }) => ({ version: v, action, actor }))).toEqual([
      { version, action: 'create', actor: 'analyst@lender' },
      { version, action: 'set_challenger', actor: 'analyst@lender' },
      { version, action: 'activate', actor: 'analyst@lender' },
      { version, action: 'activate', actor: 'analyst@lender' },
    ]);
  });

  it('when a lender activates a policy with fees, then its approvals disclose them in key facts dated after the pay day; fees up front that leave nothing to pay out are a 400', async () => {
    const feeLender = `lender-${randomUUID()}`;
    const undefinedApr = {
      ...structuredClone(BUILTIN_POLICY),
      disclosure: {
        fees: { managementPercent: 50, insurancePercent: 45, vatPercent: 7.5, collection: 'UPFRONT' },
        schedule: { alignToPayDay: true, daysAfterPayDay: 1 },
      },
    };
    const refused = await call(feeLender, 'POST', '/policies', undefinedApr);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('disclosure.fees');
    expect(refused.body.message).toContain('the APR is undefined');

    const disclosure = {
      fees: { managementPercent: 1, insurancePercent: 0.5, vatPercent: 7.5, collection: 'UPFRONT' as const },
      schedule: { alignToPayDay: true, daysAfterPayDay: 1 },
    };
    const created = await call(feeLender, 'POST', '/policies', { ...structuredClone(BUILTIN_POLICY), disclosure });
    expect(created.status).toBe(201);
    expect(created.body.policy.disclosure).toEqual(disclosure);
    expect((await call(feeLender, 'POST', `/policies/${created.body.version}/activate`)).status).toBe(200);
    const { decision } = await analyze(feeLender);
    expect(decision.decision).toBe('APPROVED');
    expect(decision.key_facts).toMatchObject({
      principal: 300_000,
      tenor_months: 6,
      total_fees: 4837.5,
      amount_disbursed: 295_162.5,
      fee_collection: 'UPFRONT',
      schedule_basis: { kind: 'PAY_DATE', pay_day_of_month: 27, days_after_pay_day: 1 },
      terms: disclosure,
    });
    expect(decision.key_facts!.schedule.every((s) => s.due_date.endsWith('-28'))).toBe(true);
    expect(decision.key_facts!.apr_percent).toBeGreaterThan(0);
  });

  it('when a lender activates a policy with its own offer terms, then its approvals carry them and a later version leaves them as they were; bad terms are a 400 naming the field', async () => {
    const offerLender = `lender-${randomUUID()}`;
    for (const [offer, problem] of [
      [{ validityDays: 0, coolingOffWorkingDays: 5 }, 'offer.validityDays: validityDays must be between 2 and 30 days'],
      [
        { validityDays: -3, coolingOffWorkingDays: 5 },
        'offer.validityDays: validityDays must be between 2 and 30 days',
      ],
      [
        { validityDays: 2.5, coolingOffWorkingDays: 5 },
        'offer.validityDays: validityDays must be a whole number of days',
      ],
      [
        { validityDays: 31, coolingOffWorkingDays: 5 },
        'offer.validityDays: validityDays must be between 2 and 30 days',
      ],
      [
        { validityDays: 3, coolingOffWorkingDays: 2 },
        'offer.coolingOffWorkingDays: coolingOffWorkingDays must be between 3 and 14 working days',
      ],
    ] as const) {
      const refused = await call(offerLender, 'POST', '/policies', { ...structuredClone(BUILTIN_POLICY), offer });
      expect([refused.status, refused.body.statusCode, refused.body.error]).toEqual([400, 400, 'Bad Request']);
      expect(refused.body.message).toContain(problem);
    }

    const before = await analyze(offerLender);
    expect(before.decision.offer_terms).toEqual({ validity_days: 7, cooling_off_working_days: 3 });
    const offer = { validityDays: 3, coolingOffWorkingDays: 5 };
    const created = await call(offerLender, 'POST', '/policies', { ...structuredClone(BUILTIN_POLICY), offer });
    expect([created.status, created.body.policy.offer]).toEqual([201, offer]);
    expect((await call(offerLender, 'POST', `/policies/${created.body.version}/activate`)).status).toBe(200);
    const under = await analyze(offerLender);
    expect(under.decision).toMatchObject({
      decision: 'APPROVED',
      policy_version: created.body.version,
      offer_terms: { validity_days: 3, cooling_off_working_days: 5 },
    });

    const longer = { validityDays: 14, coolingOffWorkingDays: 10 };
    const next = await call(offerLender, 'POST', '/policies', { ...structuredClone(BUILTIN_POLICY), offer: longer });
    expect((await call(offerLender, 'POST', `/policies/${next.body.version}/activate`)).status).toBe(200);
    const stored = await scoring.runtime.db
      .collection<{ applicationId: string; decision: Decision }>('analyses')
      .findOne({ applicationId: under.applicationId });
    expect(stored!.decision.offer_terms).toEqual({ validity_days: 3, cooling_off_working_days: 5 });
    expect((await analyze(offerLender)).decision.offer_terms).toEqual({
      validity_days: 14,
      cooling_off_working_days: 10,
    });
  });

  it('when the internal token is missing, then the policy API answers 401', async () => {
    const response = await fetch(`${scoring.url}/internal/policies`, { headers: { 'x-client-id': lender } });
    expect(response.status).toBe(401);
  });
});
