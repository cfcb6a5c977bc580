/** The synthetic applicants the sandbox can link. */
export const PERSONA_IDS = [
  'salaried',
  'salaried_high',
  'gig',
  'heavy_betting',
  'debt_stressed',
  'overdrawn',
  'thin_file',
  'name_mismatch',
  'never_completes',
] as const;

export type PersonaId = (typeof PERSONA_IDS)[number];

export const DEFAULT_PERSONA: PersonaId = 'salaried';

type Range = readonly [number, number];

/**
 * The knobs a persona turns in the statement simulation. Money in whole Naira; ranges are
 * drawn once per account from its seed.
 */
export interface PersonaSpec {
  id: PersonaId;
  description: string;
  /** Short label the widget shows in its account picker. */
  accountLabel: string;
  accountType: 'SAVINGS_ACCOUNT' | 'CURRENT_ACCOUNT';
  /** Months of history; ignored when `historyDays` is set. */
  historyMonths: Range;
  /** Days of history, for thin files. */
  historyDays?: Range;
  openingBalance: Range;
  /** Monthly net salary from one employer, paid late in the month. */
  salary?: { monthly: Range; employerTier: 'regular' | 'senior' };
  /** Irregular earnings: many inbound transfers, POS settlements, cash deposits. */
  gig?: { monthly: Range; weeklyPayoutChance: number };
  /** Share of the monthly income spent on day-to-day purchases and transfers. */
  spendRatio: number;
  /** Share of the salary moved to the holder's own account after payday. */
  savingsRatio: number;
  /** Deposits to betting platforms: count per month and size of each. */
  betting?: { perMonth: Range; stake: Range; payoutChance: number };
  /** Concurrent digital loans and their principal. */
  lending?: { lenders: Range; principal: Range };
  /** Arranged overdraft: spending may take the balance down to minus this. */
  overdraftLimit?: Range;
  /** Standing orders that must go out monthly whatever the balance (rent, cooperative). */
  standingOrders?: Range;
  /** The holder named by the bank is someone other than the applicant. */
  holderIsSomeoneElse?: boolean;
  /** Income and insights jobs for this account never finish. */
  jobsNeverFinish?: boolean;
}

const SPECS: Record<PersonaId, PersonaSpec> = {
  salaried: {
    id: 'salaried',
    description: 'Steady monthly salary from one employer, modest everyday spending, small savings.',
    accountLabel: 'Savings account (salary)',
    accountType: 'SAVINGS_ACCOUNT',
    historyMonths: [6, 12],
    openingBalance: [40_000, 180_000],
    salary: { monthly: [220_000, 450_000], employerTier: 'regular' },
    spendRatio: 0.62,
    savingsRatio: 0.12,
  },
  salaried_high: {
    id: 'salaried_high',
    description: 'Senior salary of about ₦1.2m a month, current account, larger bills and savings.',
    accountLabel: 'Current account (senior salary)',
    accountType: 'CURRENT_ACCOUNT',
    historyMonths: [6, 12],
    openingBalance: [600_000, 2_500_000],
    salary: { monthly: [1_100_000, 1_300_000], employerTier: 'senior' },
    spendRatio: 0.5,
    savingsRatio: 0.2,
  },
  gig: {
    id: 'gig',
    description: 'Irregular income from many small transfers, POS settlements and cash deposits; no employer.',
    accountLabel: 'Savings account (business/gig income)',
    accountType: 'SAVINGS_ACCOUNT',
    historyMonths: [6, 12],
    openingBalance: [15_000, 90_000],
    gig: { monthly: [150_000, 380_000], weeklyPayoutChance: 0.5 },
    spendRatio: 0.8,
    savingsRatio: 0.05,
    betting: { perMonth: [0, 2], stake: [500, 2_000], payoutChance: 0.2 },
    lending: { lenders: [0, 1], principal: [10_000, 30_000] },
  },
  heavy_betting: {
    id: 'heavy_betting',
    description: 'Modest salary; a large share of it goes to betting platforms in many small deposits.',
    accountLabel: 'Savings account (betting)',
    accountType: 'SAVINGS_ACCOUNT',
    historyMonths: [6, 12],
    openingBalance: [10_000, 50_000],
    salary: { monthly: [160_000, 260_000], employerTier: 'regular' },
    spendRatio: 0.55,
    savingsRatio: 0,
    betting: { perMonth: [25, 45], stake: [1_000, 6_000], payoutChance: 0.22 },
    lending: { lenders: [1, 2], principal: [10_000, 40_000] },
  },
  debt_stressed: {
    id: 'debt_stressed',
    description: 'Salary eaten by several digital-lender loans, re-borrowed as soon as they are repaid.',
    accountLabel: 'Savings account (digital loans)',
    accountType: 'SAVINGS_ACCOUNT',
    historyMonths: [6, 12],
    openingBalance: [5_000, 40_000],
    salary: { monthly: [180_000, 300_000], employerTier: 'regular' },
    spendRatio: 0.9,
    savingsRatio: 0,
    lending: { lenders: [3, 5], principal: [20_000, 80_000] },
  },
  overdrawn: {
    id: 'overdrawn',
    description: 'Spends past the salary into an arranged overdraft; frequent negative balance and bounced debits.',
    accountLabel: 'Current account (overdraft)',
    accountType: 'CURRENT_ACCOUNT',
    historyMonths: [6, 12],
    openingBalance: [-30_000, 10_000],
    salary: { monthly: [150_000, 240_000], employerTier: 'regular' },
    spendRatio: 1.3,
    savingsRatio: 0,
    lending: { lenders: [1, 2], principal: [15_000, 40_000] },
    overdraftLimit: [80_000, 150_000],
    standingOrders: [2, 3],
  },
  thin_file: {
    id: 'thin_file',
    description: 'Account opened under three months ago: a first salary or two and little else.',
    accountLabel: 'New savings account',
    accountType: 'SAVINGS_ACCOUNT',
    historyMonths: [2, 2],
    historyDays: [50, 85],
    openingBalance: [0, 0],
    salary: { monthly: [120_000, 200_000], employerTier: 'regular' },
    spendRatio: 0.7,
    savingsRatio: 0,
  },
  name_mismatch: {
    id: 'name_mismatch',
    description: 'Salaried, but the bank names a different account holder than the applicant.',
    accountLabel: "Savings account (someone else's name)",
    accountType: 'SAVINGS_ACCOUNT',
    historyMonths: [6, 12],
    openingBalance: [40_000, 180_000],
    salary: { monthly: [220_000, 450_000], employerTier: 'regular' },
    spendRatio: 0.62,
    savingsRatio: 0.12,
    holderIsSomeoneElse: true,
  },
  never_completes: {
    id: 'never_completes',
    description: 'Links like a salaried account, but its income and statement-insights jobs never finish.',
    accountLabel: 'Savings account (data never ready)',
    accountType: 'SAVINGS_ACCOUNT',
    historyMonths: [6, 12],
    openingBalance: [40_000, 180_000],
    salary: { monthly: [220_000, 450_000], employerTier: 'regular' },
    spendRatio: 0.62,
    savingsRatio: 0.12,
    jobsNeverFinish: true,
  },
};

export function isPersonaId(value: string): value is PersonaId {
  return (PERSONA_IDS as readonly string[]).includes(value);
}

export function personaSpec(id: PersonaId): PersonaSpec {
  return SPECS[id];
}

/** `GET /sandbox/personas`. */
export function listPersonas(): Array<{ id: PersonaId; description: string }> {
  return PERSONA_IDS.map((id) => ({ id, description: SPECS[id].description }));
}
