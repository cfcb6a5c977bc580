import { createRng } from '../personas';

/** CBN prudential classification as CRC words it. */
export type ClassificationLabel = 'Performing' | 'Pass and Watch' | 'Substandard' | 'Doubtful' | 'Lost';

/** One facility on a bureau file, before it is rendered in CRC's shape. Money in Naira. */
export interface FacilityProfile {
  institution: string;
  institutionType: 'Commercial Banks' | 'Micro Lenders' | 'Mobile Lenders';
  product: 'Personal Loan' | 'Credit Card' | 'Overdraft' | 'Auto Loan';
  openedMonthsAgo: number;
  principal: number;
  balance: number;
  overdue: number;
  instalment: number;
  /** Days past due now. */
  dpd: number;
  /** Days past due per month, most recent first (MONTH1 = last month). */
  history: number[];
  classification: ClassificationLabel;
  /** Set for closed facilities. */
  closedMonthsAgo?: number;
}

/** Everything the sandbox bureau knows about one BVN. */
export interface BureauProfile {
  score: number;
  reasons: string[];
  facilities: FacilityProfile[];
  /** Months ago of each enquiry by a lender. */
  enquiriesMonthsAgo: number[];
  subjectName: string;
}

/** Test BVNs with documented behaviour. */
export const TEST_BVNS = {
  clean: '22200000001',
  delinquent: '22200000002',
  noRecord: '22200000003',
  timeout: '22200000004',
  error: '22200000005',
} as const;

export type BureauScenario = 'hit' | 'no_record' | 'timeout' | 'error';

export function scenarioFor(bvn: string): BureauScenario {
  if (bvn === TEST_BVNS.noRecord) return 'no_record';
  if (bvn === TEST_BVNS.timeout) return 'timeout';
  if (bvn === TEST_BVNS.error) return 'error';
  return 'hit';
}

const CLEAN: BureauProfile = {
  score: 762,
  reasons: ['Length of time accounts have been established is short.', 'Number of recent inquiries.'],
  subjectName: 'ADEBAYO OLUWASEUN OKAFOR',
  enquiriesMonthsAgo: [1, 8, 28],
  facilities: [
    {
      institution: 'GUARANTY TRUST BANK',
      institutionType: 'Commercial Banks',
      product: 'Personal Loan',
      openedMonthsAgo: 18,
      principal: 1_000_000,
      balance: 400_000,
      overdue: 0,
      instalment: 25_000,
      dpd: 0,
      history: Array<number>(17).fill(0),
      classification: 'Performing',
    },
    {
      institution: 'ACCESS BANK',
      institutionType: 'Commercial Banks',
      product: 'Credit Card',
      openedMonthsAgo: 33,
      principal: 500_000,
      balance: 20_000,
      overdue: 0,
      instalment: 0,
      dpd: 0,
      history: Array<number>(24).fill(0),
      classification: 'Performing',
    },
    {
      institution: 'FAIRMONEY MICROFINANCE BANK',
      institutionType: 'Micro Lenders',
      product: 'Personal Loan',
      openedMonthsAgo: 22,
      principal: 50_000,
      balance: 0,
      overdue: 0,
      instalment: 0,
      dpd: 0,
      history: [0, 0, 0],
      classification: 'Performing',
      closedMonthsAgo: 19,
    },
  ],
};

const DELINQUENT: BureauProfile = {
  score: 521,
  reasons: [
    'Serious delinquency.',
    'Proportion of balances to credit limits is too high.',
    'Number of accounts with delinquency.',
    'Too many inquiries in the last 12 months.',
  ],
  subjectName: 'CHIDI EMEKA NWOSU',
  enquiriesMonthsAgo: [0, 0, 2, 5, 8, 11],
  facilities: [
    {
      institution: 'RENMONEY MFB',
      institutionType: 'Micro Lenders',
      product: 'Personal Loan',
      openedMonthsAgo: 8,
      principal: 400_000,
      balance: 262_300,
      overdue: 142_500,
      instalment: 47_500,
      dpd: 96,
      history: [96, 66, 35, 0, 0, 0, 0, 0],
      classification: 'Substandard',
    },
    {
      institution: 'CARBON',
      institutionType: 'Mobile Lenders',
      product: 'Personal Loan',
      openedMonthsAgo: 5,
      principal: 150_000,
      balance: 90_000,
      overdue: 45_000,
      instalment: 30_000,
      dpd: 41,
      history: [41, 11, 0, 0, 0],
      classification: 'Pass and Watch',
    },
    {
      institution: 'FAIRMONEY MICROFINANCE BANK',
      institutionType: 'Micro Lenders',
      product: 'Personal Loan',
      openedMonthsAgo: 3,
      principal: 100_000,
      balance: 50_000,
      overdue: 0,
      instalment: 20_000,
      dpd: 0,
      history: [0, 0, 0],
      classification: 'Performing',
    },
    {
      institution: 'BRANCH INTERNATIONAL',
      institutionType: 'Mobile Lenders',
      product: 'Personal Loan',
      openedMonthsAgo: 20,
      principal: 60_000,
      balance: 0,
      overdue: 0,
      instalment: 0,
      dpd: 0,
      history: [0, 120, 90, 60, 30, 0],
      classification: 'Lost',
      closedMonthsAgo: 14,
    },
  ],
};

const LENDERS = [
  { name: 'GUARANTY TRUST BANK', type: 'Commercial Banks', product: 'Personal Loan' },
  { name: 'ZENITH BANK', type: 'Commercial Banks', product: 'Overdraft' },
  { name: 'FIRST BANK OF NIGERIA', type: 'Commercial Banks', product: 'Personal Loan' },
  { name: 'ACCESS BANK', type: 'Commercial Banks', product: 'Credit Card' },
  { name: 'STANBIC IBTC BANK', type: 'Commercial Banks', product: 'Auto Loan' },
  { name: 'FAIRMONEY MICROFINANCE BANK', type: 'Micro Lenders', product: 'Personal Loan' },
  { name: 'RENMONEY MFB', type: 'Micro Lenders', product: 'Personal Loan' },
  { name: 'CARBON', type: 'Mobile Lenders', product: 'Personal Loan' },
] as const;

const GENERATED_REASONS = [
  'Length of time accounts have been established is short.',
  'Number of recent inquiries.',
  'Proportion of balances to credit limits is too high.',
  'Too few accounts currently paid as agreed.',
  'Lack of recent instalment loan information.',
];

const FIRST = ['ADEBAYO', 'NGOZI', 'IBRAHIM', 'FUNMILAYO', 'CHIDI', 'AISHA', 'TUNDE', 'BLESSING'];
const LAST = ['OKAFOR', 'BELLO', 'ADEYEMI', 'EZE', 'OGUNLEYE', 'YUSUF', 'NWOSU', 'BALOGUN'];

/** A clean-ish file derived from the BVN: mostly performing, now and then a little late. */
function generatedProfile(bvn: string): BureauProfile {
  const rng = createRng(`bureau:${bvn}`);
  const facilities: FacilityProfile[] = rng.sample(LENDERS, rng.int(1, 4)).map((lender) => {
    const openedMonthsAgo = rng.int(2, 36);
    const principal = rng.int(5, 150) * 10_000;
    const closed = openedMonthsAgo > 12 && rng.chance(0.4);
    const late = !closed && rng.chance(0.1);
    const dpd = late ? rng.int(5, 20) : 0;
    const balance = closed ? 0 : Math.round(principal * rng.float(0.1, 0.9));
    const instalment = closed || lender.product === 'Credit Card' ? 0 : Math.round(principal / rng.int(6, 24));
    return {
      institution: lender.name,
      institutionType: lender.type,
      product: lender.product,
      openedMonthsAgo,
      principal,
      balance,
      overdue: late ? instalment : 0,
      instalment,
      dpd,
      history: Array.from({ length: Math.min(24, openedMonthsAgo) }, (_, month) => (month === 0 ? dpd : 0)),
      classification: 'Performing',
      ...(closed ? { closedMonthsAgo: rng.int(1, openedMonthsAgo - 1) } : {}),
    };
  });
  const anyLate = facilities.some((facility) => facility.dpd > 0);
  return {
    score: anyLate ? rng.int(640, 700) : rng.int(680, 810),
    reasons: rng.sample(GENERATED_REASONS, rng.int(1, 3)),
    facilities,
    enquiriesMonthsAgo: Array.from({ length: rng.int(0, 4) }, () => rng.int(0, 30)).sort((a, b) => a - b),
    subjectName: `${rng.pick(FIRST)} ${rng.pick(LAST)}`,
  };
}

/** The file behind a BVN that has one (every BVN except the no-record, timeout and error ones). */
export function profileFor(bvn: string): BureauProfile {
  if (bvn === TEST_BVNS.clean || bvn === TEST_BVNS.timeout) return CLEAN;
  if (bvn === TEST_BVNS.delinquent) return DELINQUENT;
  return generatedProfile(bvn);
}

/** CRC's bands on the 300-850 scale. */
export function ratingOf(score: number): string {
  if (score >= 800) return 'EXCEPTIONAL';
  if (score >= 740) return 'VERY GOOD';
  if (score >= 670) return 'GOOD';
  if (score >= 580) return 'FAIR';
  return 'POOR';
}
