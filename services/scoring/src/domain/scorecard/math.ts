/** Money and ratios in decisions carry two decimals. */
export const round2 = (value: number): number => Math.round((value + Number.EPSILON) * 100) / 100;

export const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);

export const mean = (values: readonly number[]): number => (values.length === 0 ? 0 : sum(values) / values.length);

/** Population standard deviation: the months observed are the whole record, not a sample. */
export const standardDeviation = (values: readonly number[]): number => {
  const average = mean(values);
  return Math.sqrt(mean(values.map((value) => (value - average) ** 2)));
};

/** Standard deviation over mean; null when the mean is not positive (the ratio means nothing). */
export const coefficientOfVariation = (values: readonly number[]): number | null => {
  const average = mean(values);
  return average > 0 ? standardDeviation(values) / average : null;
};

/** `numerator / denominator`, or null when the denominator is not positive. */
export const ratio = (numerator: number, denominator: number): number | null =>
  denominator > 0 ? numerator / denominator : null;

/**
 * Where `value` sits between `worst` (0) and `best` (1), clamped to [0, 1]. Works both ways:
 * `best` may be below `worst` when lower is better.
 */
export const linearScale = (value: number, worst: number, best: number): number => {
  if (best === worst) return value >= best ? 1 : 0;
  return Math.min(1, Math.max(0, (value - worst) / (best - worst)));
};

/** Thousands separators without locale data, so that text is the same on every host. */
const groupThousands = (digits: string): string => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** `₦350,000` (whole Naira) or `₦56,412.71` (with kobo). */
export const formatNaira = (amount: number, decimals: 0 | 2 = 0): string => {
  const [whole = '0', fraction] = Math.abs(amount).toFixed(decimals).split('.');
  const sign = amount < 0 && Number(whole + (fraction ?? '')) !== 0 ? '-' : '';
  return `${sign}₦${groupThousands(whole)}${fraction === undefined ? '' : `.${fraction}`}`;
};

export const formatPercent = (fraction: number): string => `${Math.round(fraction * 100)}%`;
