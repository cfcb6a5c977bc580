const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

/** Naira as the bureau writes it: thousands separators and two decimals (`1,260,995.00`). */
export function formatAmount(naira: number): string {
  const [whole, fraction] = Math.abs(naira).toFixed(2).split('.');
  const grouped = (whole ?? '0').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${naira < 0 ? '-' : ''}${grouped}.${fraction ?? '00'}`;
}

/** `20-May-2023` */
export function formatDate(date: Date): string {
  return `${String(date.getUTCDate()).padStart(2, '0')}-${MONTHS[date.getUTCMonth()]}-${date.getUTCFullYear()}`;
}

/** `20/May/2023`, the report header's style. */
export function formatHeaderDate(date: Date): string {
  return formatDate(date).replace(/-/g, '/');
}

export function monthsBefore(date: Date, months: number, dayOfMonth?: number): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - months, dayOfMonth ?? date.getUTCDate()));
}

/** Last day of the month before `date`: when lenders last reported. */
export function lastMonthEnd(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 0));
}
