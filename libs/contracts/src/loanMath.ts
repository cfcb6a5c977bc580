/**
 * Level monthly instalment that repays `principal` over `months` at `monthlyRatePercent`
 * (the spreadsheet PMT): P * r / (1 - (1 + r)^-n), with r = rate / 100; at 0% it is P / n.
 * Not rounded: callers round money for display. The scorecard prices its terms with it, and a
 * reviewer's terms are priced the same way, so the two always agree.
 */
export const monthlyPayment = (principal: number, monthlyRatePercent: number, months: number): number => {
  if (months <= 0) throw new RangeError(`tenor must be positive, got ${months}`);
  const rate = monthlyRatePercent / 100;
  if (rate === 0) return principal / months;
  return (principal * rate) / (1 - (1 + rate) ** -months);
};

/** Money to the kobo, as the decision object shows it. */
export const roundToKobo = (naira: number): number => Math.round((naira + Number.EPSILON) * 100) / 100;
