/** How accounts at an institution are numbered. */
export type AccountNumbering = 'nuban' | 'phone';

/** A Nigerian bank or wallet an applicant can link, with its settlement codes. */
export interface Institution {
  /** Stable slug used by the widget and `POST /sandbox/link` (e.g. `gtbank`). */
  id: string;
  name: string;
  /** Three-digit CBN code of a bank, five-digit code of a microfinance bank; null for wallets. */
  cbnCode: string | null;
  /** Six-digit NIBSS Instant Payment institution code. */
  nipCode: string;
  /** Short name as it appears inside transfer narrations (`NIP/GTB/...`). */
  narrationName: string;
  numbering: AccountNumbering;
}

const bank = (id: string, name: string, cbnCode: string, nipCode: string, narrationName: string): Institution => ({
  id,
  name,
  cbnCode,
  nipCode,
  narrationName,
  numbering: 'nuban',
});

const wallet = (id: string, name: string, nipCode: string, narrationName: string): Institution => ({
  id,
  name,
  cbnCode: null,
  nipCode,
  narrationName,
  numbering: 'phone',
});

export const INSTITUTIONS: readonly Institution[] = [
  bank('access', 'Access Bank', '044', '000014', 'ACCESS'),
  bank('gtbank', 'GTBank', '058', '000013', 'GTB'),
  bank('zenith', 'Zenith Bank', '057', '000015', 'ZENITH'),
  bank('firstbank', 'First Bank', '011', '000016', 'FBN'),
  bank('uba', 'UBA', '033', '000004', 'UBA'),
  bank('fidelity', 'Fidelity Bank', '070', '000007', 'FIDELITY'),
  bank('union', 'Union Bank', '032', '000018', 'UNION'),
  bank('sterling', 'Sterling Bank', '232', '000001', 'STERLING'),
  bank('wema', 'Wema Bank', '035', '000017', 'WEMA'),
  bank('stanbic', 'Stanbic IBTC', '221', '000012', 'STANBIC'),
  bank('ecobank', 'Ecobank', '050', '000010', 'ECOBANK'),
  bank('fcmb', 'FCMB', '214', '000003', 'FCMB'),
  bank('polaris', 'Polaris Bank', '076', '000008', 'POLARIS'),
  bank('keystone', 'Keystone Bank', '082', '000002', 'KEYSTONE'),
  bank('providus', 'Providus Bank', '101', '000023', 'PROVIDUS'),
  bank('kuda', 'Kuda MFB', '50211', '090267', 'KUDA'),
  bank('moniepoint', 'Moniepoint MFB', '50515', '090405', 'MONIEPOINT'),
  wallet('opay', 'OPay', '100004', 'OPAY'),
  wallet('palmpay', 'PalmPay', '100033', 'PALMPAY'),
];

/** Commercial banks only: the default pool when no institution is asked for. */
export const COMMERCIAL_BANKS: readonly Institution[] = INSTITUTIONS.filter(
  (institution) => institution.cbnCode !== null && institution.cbnCode.length === 3,
);

/** The bank code the provider reports: the CBN code when there is one, else the NIP code. */
export function bankCodeOf(institution: Institution): string {
  return institution.cbnCode ?? institution.nipCode;
}

const normalise = (value: string): string => value.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Finds an institution by slug, name, CBN code or NIP code, ignoring case and punctuation
 * (`gtbank`, `GTBank`, `058`, `000013` all find GTBank; `Access` finds Access Bank).
 */
export function findInstitution(query: string): Institution | undefined {
  const wanted = normalise(query);
  if (wanted === '') return undefined;
  return INSTITUTIONS.find(
    (institution) =>
      institution.id === wanted ||
      normalise(institution.name) === wanted ||
      normalise(institution.name).replace(/bank$/, '') === wanted ||
      institution.cbnCode === query.trim() ||
      institution.nipCode === query.trim(),
  );
}
