import type { TransactionCategory } from './types';

/** Word pools that give the synthetic statements their Nigerian texture. */

export const FIRST_NAMES = [
  'ADEBAYO',
  'CHIDI',
  'NGOZI',
  'OLUWASEUN',
  'AISHA',
  'EMEKA',
  'FUNMILAYO',
  'IBRAHIM',
  'BLESSING',
  'TUNDE',
  'CHIAMAKA',
  'MUSA',
  'YETUNDE',
  'OBINNA',
  'HAUWA',
  'KELECHI',
  'BOLANLE',
  'SANI',
  'NNEKA',
  'OLUMIDE',
  'ZAINAB',
  'UCHE',
  'TEMITOPE',
  'ABDULLAHI',
  'IFEOMA',
  'SEGUN',
  'AMINA',
  'CHINEDU',
  'TOLULOPE',
  'EFOSA',
] as const;

export const SURNAMES = [
  'OKAFOR',
  'ADEYEMI',
  'BELLO',
  'OKONKWO',
  'ABUBAKAR',
  'ADEWALE',
  'EZE',
  'OGUNLEYE',
  'NWOSU',
  'SULAIMAN',
  'OLADIPO',
  'IBEKWE',
  'YUSUF',
  'ADEBISI',
  'OBI',
  'AKINWUMI',
  'UMAR',
  'NWACHUKWU',
  'OYELARAN',
  'EKWUEME',
  'DANJUMA',
  'AJAYI',
  'OKORO',
  'BALOGUN',
  'IGBINEDION',
  'LAWAL',
] as const;

/** Employers whose payroll credits carry the name and the month. */
export const EMPLOYERS = {
  regular: [
    'LAGOS STATE GOVT',
    'DANGOTE CEMENT PLC',
    'NIGERIAN BREWERIES PLC',
    'FLOUR MILLS OF NIG PLC',
    'INTERSWITCH LTD',
    'NESTLE NIGERIA PLC',
    'CHI LIMITED',
    'JUMIA SERVICES NIG LTD',
    'FED MIN OF EDUCATION',
    'PAYSTACK PAYMENTS LTD',
    'LAFARGE AFRICA PLC',
    'TOTALENERGIES MKTG NIG',
  ],
  senior: [
    'SEPLAT ENERGY PLC',
    'MTN NIGERIA COMMS PLC',
    'SHELL PET DEV CO NIG',
    'CHEVRON NIGERIA LTD',
    'ANDELA NIGERIA LTD',
    'STANBIC IBTC HOLDINGS',
    'NLNG LIMITED',
    'AIRTEL NETWORKS LTD',
  ],
} as const;

export interface Merchant {
  name: string;
  category: TransactionCategory;
  /** Typical spend in Naira. */
  typical: readonly [number, number];
}

export const POS_MERCHANTS: readonly Merchant[] = [
  { name: 'SHOPRITE LEKKI LA NG', category: 'food', typical: [4_000, 35_000] },
  { name: 'SPAR NIGERIA IKEJA LA NG', category: 'food', typical: [5_000, 40_000] },
  { name: 'CHICKEN REPUBLIC YABA LA NG', category: 'food', typical: [2_500, 9_000] },
  { name: 'DOMINOS PIZZA VI LA NG', category: 'food', typical: [6_000, 18_000] },
  { name: 'HUBMART ILUPEJU LA NG', category: 'food', typical: [4_000, 30_000] },
  { name: 'JUSTRITE SUPERSTORE LA NG', category: 'food', typical: [3_000, 25_000] },
  { name: 'MRS FILLING STATION LA NG', category: 'transport', typical: [8_000, 30_000] },
  { name: 'TOTALENERGIES ALLEN LA NG', category: 'transport', typical: [8_000, 35_000] },
  { name: 'MEDPLUS PHARMACY LA NG', category: 'health', typical: [2_000, 15_000] },
  { name: 'FILMHOUSE CINEMAS LA NG', category: 'entertainment', typical: [4_000, 12_000] },
  { name: 'SLOT SYSTEMS IKEJA LA NG', category: 'shopping', typical: [10_000, 60_000] },
  { name: 'MARKET SQUARE ABJ NG', category: 'food', typical: [3_000, 25_000] },
];

export const WEB_MERCHANTS: readonly Merchant[] = [
  { name: 'JUMIA NIGERIA', category: 'shopping', typical: [5_000, 45_000] },
  { name: 'BOLT.EU/O/2', category: 'transport', typical: [1_500, 7_000] },
  { name: 'UBER *TRIP', category: 'transport', typical: [2_000, 8_000] },
  { name: 'NETFLIX.COM', category: 'entertainment', typical: [4_400, 7_000] },
  { name: 'REMITA WEB PYMNT', category: 'bills_and_utilities', typical: [5_000, 30_000] },
  { name: 'CHOWDECK', category: 'food', typical: [3_000, 12_000] },
  { name: 'SPOTIFY', category: 'entertainment', typical: [1_300, 1_300] },
];

export const NETWORKS = [
  { name: 'MTN', prefixes: ['0803', '0806', '0813', '0816', '0903'] },
  { name: 'AIRTEL', prefixes: ['0802', '0808', '0812', '0902'] },
  { name: 'GLO', prefixes: ['0805', '0807', '0815', '0905'] },
  { name: '9MOBILE', prefixes: ['0809', '0817', '0818', '0909'] },
] as const;

export const TV_PLANS = [
  { provider: 'DStv', plan: 'COMPACT', naira: 15_700 },
  { provider: 'DStv', plan: 'COMPACT PLUS', naira: 25_000 },
  { provider: 'DStv', plan: 'PREMIUM', naira: 37_000 },
  { provider: 'GOtv', plan: 'JOLLI', naira: 4_850 },
  { provider: 'GOtv', plan: 'MAX', naira: 7_200 },
] as const;

export const DISCOS = ['IKEDC', 'EKEDC', 'AEDC', 'PHED'] as const;

export const BETTING_PLATFORMS = ['BET9JA', 'SPORTYBET NIGERIA', 'BETKING', '1XBET', 'NAIRABET', 'MSPORT'] as const;

/** Digital lenders: the name in narrations and the institution their transfers come from. */
export const LENDERS = [
  { name: 'CARBON', bank: 'CARBON' },
  { name: 'FAIRMONEY', bank: 'FAIRMONEY MFB' },
  { name: 'BRANCH', bank: 'BRANCH' },
  { name: 'PALMCREDIT', bank: 'PALMPAY' },
  { name: 'RENMONEY', bank: 'RENMONEY MFB' },
  { name: 'AELLA', bank: 'AELLA MFB' },
  { name: 'EASEMONI', bank: 'PROVIDUS' },
] as const;

export const P2P_OUT_REMARKS = [
  'upkeep',
  'transport',
  'school fees',
  'contribution',
  'food stuff',
  'rent balance',
  'gift',
  'repairs',
] as const;
export const P2P_IN_REMARKS = ['refund', 'gift', 'contribution', 'thank you', 'balance'] as const;
export const GIG_REMARKS = [
  'payment for delivery',
  'logo design',
  'hair do',
  'tailoring',
  'phone repair',
  'catering balance',
  'photography',
  'errand',
  'generator repair',
  'braids',
  'website',
  'ankara order',
] as const;
export const ATM_LOCATIONS = [
  'ALLEN AVE',
  'OJUELEGBA',
  'WUSE II',
  'OBALENDE',
  'GRA PH',
  'MARINA',
  'IKORODU RD',
] as const;
export const TRANSFER_BANKS = [
  'GTB',
  'ACCESS',
  'ZENITH',
  'FBN',
  'UBA',
  'OPAY',
  'PALMPAY',
  'KUDA',
  'MONIEPOINT',
  'FIDELITY',
  'WEMA',
] as const;
export const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;
