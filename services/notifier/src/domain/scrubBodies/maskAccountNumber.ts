/**
 * A stored webhook body with the account number reduced to its last four digits, as banks
 * print it; null when the body carries none (nothing to scrub). The body keeps the spec's
 * shape, so a later redelivery still parses; it is no longer the applicant's bank data.
 */
export function maskAccountNumber(body: string): string | null {
  const parsed = JSON.parse(body) as { data?: { accountNumber?: unknown } };
  const number = parsed.data?.accountNumber;
  if (typeof number !== 'string' || /^\*+\d{0,4}$/.test(number)) return null;
  parsed.data!.accountNumber = `******${number.slice(-4)}`;
  return JSON.stringify(parsed);
}
