import {
  COUNTER_OFFER_STEP,
  DSR_CAP,
  MIN_COUNTER_OFFER_AMOUNT,
  MIN_COUNTER_OFFER_SHARE,
  TENOR_OPTIONS,
  assessAffordability,
  counterOffer,
  debtServiceRatio,
  eligibleTenors,
  maxPrincipal,
  monthlyPayment,
  repaymentCapacity,
} from './affordability';

/**
 * Reference instalments, as a spreadsheet's =PMT(rate, n, -principal) gives them, computed
 * independently with 40-digit decimal arithmetic from P * r / (1 - (1 + r)^-n).
 */
const PMT_TABLE: Array<[ratePercent: number, months: number, principal: number, payment: number]> = [
  [5, 12, 500_000, 56_412.71],
  [0, 6, 120_000, 20_000],
  [10, 6, 200_000, 45_921.48],
  [4, 24, 1_000_000, 65_586.83],
  [2.5, 36, 3_000_000, 127_354.73],
  [15, 3, 50_000, 21_898.85],
  [7.5, 9, 250_000, 39_191.79],
  [3, 18, 750_000, 54_531.52],
];

describe('monthlyPayment', () => {
  it.each(PMT_TABLE)(
    'when %p%% a month over %p months on ₦%p, then the instalment is ₦%p',
    (rate, months, principal, payment) => {
      expect(monthlyPayment(principal, rate, months)).toBeCloseTo(payment, 2);
    },
  );

  it('when the tenor is not positive, then it refuses', () => {
    expect(() => monthlyPayment(100_000, 5, 0)).toThrow(RangeError);
  });
});

describe('maxPrincipal', () => {
  it.each(PMT_TABLE)(
    'when %p%% over %p months, then the PMT of ₦%p is repaid by its own instalment',
    (rate, months, principal) => {
      expect(maxPrincipal(monthlyPayment(principal, rate, months), rate, months)).toBeCloseTo(principal, 6);
    },
  );

  it('when there is no room for a payment, then nothing can be borrowed', () => {
    expect(maxPrincipal(0, 5, 12)).toBe(0);
  });
});

describe('debt service ratio and capacity', () => {
  it('when income is ₦300k and existing repayments ₦40k, then a ₦50k payment gives a 30% ratio', () => {
    expect(debtServiceRatio(50_000, 40_000, 300_000)).toBeCloseTo(0.3, 10);
  });

  it('when there is no income, then the ratio is undefined', () => {
    expect(debtServiceRatio(50_000, 0, 0)).toBeNull();
  });

  it('when income is ₦300k and existing repayments ₦40k, then ₦60k a month is left under the one-third cap', () => {
    expect(DSR_CAP).toBeCloseTo(1 / 3, 12);
    expect(repaymentCapacity(300_000, 40_000)).toBeCloseTo(60_000, 6);
  });

  it('when existing repayments already exceed the cap, then the capacity is zero, not negative', () => {
    expect(repaymentCapacity(300_000, 150_000)).toBe(0);
  });
});

describe('eligibleTenors', () => {
  it('when ₦500k at 5% must fit in ₦60k a month, then 12 months and longer qualify', () => {
    expect(eligibleTenors(500_000, 5, 60_000)).toEqual([12, 18, 24, 36]);
  });

  it('when the capacity is large, then every tenor of the set qualifies', () => {
    expect(eligibleTenors(100_000, 5, 1_000_000)).toEqual([...TENOR_OPTIONS]);
  });

  it('when the instalment equals the capacity exactly, then the tenor qualifies', () => {
    expect(eligibleTenors(120_000, 0, 20_000)).toContain(6);
  });

  it('when there is no capacity, then no tenor qualifies', () => {
    expect(eligibleTenors(100_000, 5, 0)).toEqual([]);
  });
});

describe('counterOffer', () => {
  it('when the ask fits, then there is no counter-offer', () => {
    expect(counterOffer({ amount: 500_000, tenor: 12, interestRate: 5 }, 60_000)).toBeNull();
  });

  it('when a longer tenor within twice the ask fits, then the same amount is offered over the shortest such tenor', () => {
    const offer = counterOffer({ amount: 500_000, tenor: 9, interestRate: 5 }, 60_000);

    expect(offer).toEqual({
      amount: 500_000,
      tenor: 12,
      interest_rate: 5,
      monthly_payment: 56_412.71,
      reason: '₦500,000 is affordable over 12 months instead of 9.',
    });
  });

  it('when only a tenor beyond twice the ask would fit, then a smaller amount is offered at the asked tenor', () => {
    // 12 and more months would fit, but stretch the 3 asked beyond twice.
    const offer = counterOffer({ amount: 500_000, tenor: 3, interestRate: 5 }, 60_000);

    // 60,000 * (1 - 1.05^-3) / 0.05 = 163,394.88, rounded down to the ₦5,000 step.
    expect(offer).toMatchObject({ amount: 160_000, tenor: 3, interest_rate: 5, monthly_payment: 58_753.37 });
    expect(offer?.reason).toBe('₦160,000 is the largest amount affordable over 3 months.');
  });

  it('when no longer tenor fits, then the largest amount at the asked tenor is offered, a multiple of ₦5,000', () => {
    const offer = counterOffer({ amount: 2_000_000, tenor: 12, interestRate: 5 }, 94_800);

    // 94,800 * (1 - 1.05^-12) / 0.05 = 840,236.39
    expect(offer?.tenor).toBe(12);
    expect(offer?.amount).toBe(840_000);
    expect((offer?.amount ?? 1) % COUNTER_OFFER_STEP).toBe(0);
    expect(offer?.monthly_payment).toBeLessThanOrEqual(94_800);
  });

  it('when the largest affordable amount is below the minimum, then there is no counter-offer', () => {
    const capacity = monthlyPayment(MIN_COUNTER_OFFER_AMOUNT - 1, 5, 3);

    expect(counterOffer({ amount: 200_000, tenor: 3, interestRate: 5 }, capacity)).toBeNull();
  });

  it('when the largest affordable amount is below a fifth of the ask, then there is no counter-offer', () => {
    const ask = { amount: 1_000_000, tenor: 6, interestRate: 5 };
    const capacity = monthlyPayment(MIN_COUNTER_OFFER_SHARE * ask.amount - COUNTER_OFFER_STEP, 5, 6);

    expect(counterOffer(ask, capacity)).toBeNull();
    expect(counterOffer(ask, monthlyPayment(MIN_COUNTER_OFFER_SHARE * ask.amount, 5, 6))?.amount).toBe(200_000);
  });

  it('when there is no capacity at all, then there is no counter-offer', () => {
    expect(counterOffer({ amount: 200_000, tenor: 3, interestRate: 5 }, 0)).toBeNull();
  });
});

describe('assessAffordability', () => {
  it('when ₦500k over 12 months at 5% meets ₦300k income and ₦40k repayments, then it is affordable with a 32% ratio', () => {
    const assessment = assessAffordability({ amount: 500_000, tenor: 12, interestRate: 5 }, 300_000, 40_000);

    expect(assessment).toMatchObject({
      affordable: true,
      counterOffer: null,
      eligibleTenors: [12, 18, 24, 36],
    });
    expect(assessment.askPayment).toBeCloseTo(56_412.71, 2);
    expect(assessment.debtServiceRatio).toBeCloseTo((56_412.71 + 40_000) / 300_000, 6);
    expect(assessment.existingDebtServiceRatio).toBeCloseTo(40_000 / 300_000, 6);
  });

  it('when the ask does not fit, then it is not affordable and a counter-offer is proposed', () => {
    const assessment = assessAffordability({ amount: 1_000_000, tenor: 12, interestRate: 5 }, 300_000, 40_000);

    expect(assessment.affordable).toBe(false);
    // No tenor up to 24 months fits ₦60k, so the amount shrinks: 60,000 * (1 - 1.05^-12) / 0.05 = 531,795.
    expect(assessment.counterOffer).toMatchObject({ amount: 530_000, tenor: 12 });
  });

  it('when there is no income, then nothing is affordable and there is no ratio', () => {
    const assessment = assessAffordability({ amount: 100_000, tenor: 6, interestRate: 5 }, 0, 0);

    expect(assessment).toMatchObject({
      affordable: false,
      counterOffer: null,
      eligibleTenors: [],
      debtServiceRatio: null,
    });
  });
});
