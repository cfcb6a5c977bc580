const WEIGHTS = [3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3] as const;

/**
 * The six-digit prefix a NUBAN check digit is computed over: `000` + a three-digit bank code,
 * or `9` + a five-digit code of another institution.
 */
export function nubanPrefix(bankCode: string): string {
  if (/^\d{3}$/.test(bankCode)) return `000${bankCode}`;
  if (/^\d{5}$/.test(bankCode)) return `9${bankCode}`;
  throw new Error(`not a NUBAN bank code: ${bankCode}`);
}

/** Check digit of a nine-digit serial at the given bank (CBN NUBAN scheme). */
export function nubanCheckDigit(bankCode: string, serial: string): number {
  if (!/^\d{9}$/.test(serial)) throw new Error('a NUBAN serial has nine digits');
  const digits = `${nubanPrefix(bankCode)}${serial}`;
  let sum = 0;
  for (let i = 0; i < WEIGHTS.length; i += 1) {
    sum += Number(digits[i]) * (WEIGHTS[i] ?? 0);
  }
  return (10 - (sum % 10)) % 10;
}

/** The ten-digit account number for a serial at a bank. */
export function makeNuban(bankCode: string, serial: string): string {
  return `${serial}${nubanCheckDigit(bankCode, serial)}`;
}

export function isValidNuban(bankCode: string, accountNumber: string): boolean {
  if (!/^\d{10}$/.test(accountNumber)) return false;
  return nubanCheckDigit(bankCode, accountNumber.slice(0, 9)) === Number(accountNumber[9]);
}
