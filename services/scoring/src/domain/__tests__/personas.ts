import type { EnrichedAccount } from '@loan/contracts';
import {
  CLEAN_BVN,
  DELINQUENT_BVN,
  NO_RECORD_BVN,
  crcCleanHit,
  crcDelinquentHit,
  crcNoHit,
} from '../../data-access/bureau/__tests__/crc';
import { normaliseCrcResponse, type BureauOutcome } from '../../data-access/bureau';
import type { LoanAsk } from '../affordability';
import type { ScoreApplicationInput } from '../scoreApplication';
import type { ApplicantIdentity } from '../scorecard';
import { FIXTURE_NOW, buildAccount, jitter, planMonths } from './statements';

export type PersonaName =
  | 'salaried'
  | 'salaried_high'
  | 'gig'
  | 'heavy_betting'
  | 'debt_stressed'
  | 'overdrawn'
  | 'thin_file'
  | 'name_mismatch';

/** A synthetic applicant: who they say they are, their linked accounts, their bureau answer. */
export interface Persona {
  name: PersonaName;
  summary: string;
  applicantId: string;
  applicant: ApplicantIdentity;
  accounts: EnrichedAccount[];
  bureau: BureauOutcome;
}

const BUREAU_PULLED_AT = new Date('2026-11-15T08:59:00.000Z');

const crcOutcome = (json: unknown, bvn: string): BureauOutcome =>
  normaliseCrcResponse(json, { bvn, pulledAt: BUREAU_PULLED_AT });

export const cleanBureau = (bvn: string = CLEAN_BVN): BureauOutcome => crcOutcome(crcCleanHit(bvn), bvn);
export const delinquentBureau = (bvn: string = DELINQUENT_BVN): BureauOutcome => crcOutcome(crcDelinquentHit(bvn), bvn);
export const noHitBureau = (): BureauOutcome => crcOutcome(crcNoHit(), NO_RECORD_BVN);
export const bureauDown: BureauOutcome = { status: 'UNAVAILABLE', reason: 'TIMEOUT' };
export const notChecked: BureauOutcome = { status: 'NOT_CHECKED' };

const applicantId = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const accountId = (persona: number, account: number): string =>
  `${String(persona).padStart(8, '0')}-0000-4000-9000-${String(account).padStart(12, '0')}`;

const MONTHS = 12;

/** ~₦350k salary, a GTBank salary account and a Kuda savings account; a ₦25k bank loan instalment. */
const salaried = (): Persona => {
  const salaryAccount = planMonths(MONTHS, 1, (_, random) => ({
    salary: 350_000,
    otherIncome: jitter(random, 8_000, 0.5),
    spending: jitter(random, 245_000, 0.08),
    loanRepayments: 25_000,
    ownOut: 40_000,
    transactions: jitter(random, 60, 0.2),
  }));
  const savings = planMonths(MONTHS, 2, (_, random) => ({
    ownIn: 40_000,
    otherIncome: jitter(random, 1_200, 0.3),
    spending: jitter(random, 12_000, 0.5),
    transactions: 8,
  }));
  return {
    name: 'salaried',
    summary: '₦350k salary, two accounts with own transfers, small bank loan, clean bureau file',
    applicantId: applicantId(1),
    applicant: { firstName: 'Chinedu', lastName: 'Okafor', bvn: CLEAN_BVN },
    accounts: [
      buildAccount({
        accountId: accountId(1, 1),
        institution: 'GTBank',
        bankCode: '058',
        accountNumber: '0123456785',
        holderName: 'OKAFOR CHINEDU EMMANUEL',
        bvnLast4: CLEAN_BVN.slice(-4),
        employer: 'ZENITH LOGISTICS LTD',
        openingBalance: 180_000,
        months: salaryAccount,
      }),
      buildAccount({
        accountId: accountId(1, 2),
        institution: 'Kuda MFB',
        bankCode: '50211',
        accountNumber: '2012345678',
        holderName: 'Chinedu E. Okafor',
        openingBalance: 60_000,
        months: savings,
      }),
    ],
    bureau: cleanBureau(),
  };
};

/** ~₦1.2m salary across Zenith and Access, clean bureau file. */
const salariedHigh = (): Persona => {
  const bvn = '22212345678';
  const main = planMonths(MONTHS, 3, (_, random) => ({
    salary: 1_200_000,
    spending: jitter(random, 780_000, 0.1),
    loanRepayments: 25_000,
    ownOut: 150_000,
    transactions: jitter(random, 90, 0.2),
  }));
  const second = planMonths(MONTHS, 4, (_, random) => ({
    ownIn: 150_000,
    otherIncome: jitter(random, 30_000, 0.6),
    spending: jitter(random, 110_000, 0.2),
    transactions: jitter(random, 25, 0.2),
  }));
  return {
    name: 'salaried_high',
    summary: '₦1.2m salary, two accounts, clean bureau file',
    applicantId: applicantId(2),
    applicant: { firstName: 'Oluwaseun', lastName: 'Adebayo', bvn },
    accounts: [
      buildAccount({
        accountId: accountId(2, 1),
        institution: 'Zenith Bank',
        bankCode: '057',
        accountNumber: '1012345670',
        holderName: 'ADEBAYO OLUWASEUN TITILAYO',
        bvnLast4: bvn.slice(-4),
        employer: 'ANDELA NIGERIA',
        openingBalance: 900_000,
        months: main,
      }),
      buildAccount({
        accountId: accountId(2, 2),
        institution: 'Access Bank',
        bankCode: '044',
        accountNumber: '0690000031',
        holderName: 'Mrs. Oluwaseun Adebayo',
        openingBalance: 250_000,
        months: second,
      }),
    ],
    bureau: cleanBureau(bvn),
  };
};

/** Ride-hailing driver: ~₦230k irregular payouts in two wallets, two small digital loans repaid; no bureau record. */
const gig = (): Persona => {
  const wallet = planMonths(MONTHS, 5, (index, random) => {
    const payouts = jitter(random, 230_000, 0.75);
    return {
      otherIncome: payouts,
      spending: jitter(random, payouts * 0.85, 0.1),
      betting: jitter(random, 6_000, 0.5),
      ownOut: 20_000,
      loanDisbursements: index === 3 ? 30_000 : index === 6 ? 50_000 : 0,
      loanRepayments: index === 4 ? 34_500 : index === 7 ? 57_500 : 0,
      overdraftDays: random() < 0.25 ? 2 : 0,
      transactions: jitter(random, 110, 0.2),
    };
  });
  const savings = planMonths(MONTHS, 6, (_, random) => ({
    ownIn: 20_000,
    spending: jitter(random, 12_000, 0.4),
    transactions: 10,
  }));
  return {
    name: 'gig',
    summary: '~₦230k variable ride-hailing payouts, two wallets, two small digital loans repaid, no bureau record',
    applicantId: applicantId(3),
    applicant: { firstName: 'Emeka', lastName: 'Nwosu', bvn: NO_RECORD_BVN },
    accounts: [
      buildAccount({
        accountId: accountId(3, 1),
        institution: 'Moniepoint MFB',
        bankCode: '50515',
        accountNumber: '8031234567',
        holderName: 'EMEKA NWOSU',
        openingBalance: 40_000,
        months: wallet,
      }),
      buildAccount({
        accountId: accountId(3, 2),
        institution: 'OPay',
        bankCode: '100004',
        accountNumber: '9061234567',
        holderName: 'Nwosu Emeka Chukwudi',
        openingBalance: 15_000,
        months: savings,
      }),
    ],
    bureau: noHitBureau(),
  };
};

/** ₦250k salary, about a third of it staked on betting; no BVN given. */
const heavyBetting = (): Persona => ({
  name: 'heavy_betting',
  summary: '₦250k salary, betting ~30% of income, some overdraft days, no BVN',
  applicantId: applicantId(4),
  applicant: { firstName: 'Babatunde', lastName: 'Bakare', bvn: null },
  accounts: [
    buildAccount({
      accountId: accountId(4, 1),
      institution: 'UBA',
      bankCode: '033',
      accountNumber: '2098765432',
      holderName: 'BAKARE BABATUNDE',
      employer: 'DANGOTE CEMENT PLC',
      openingBalance: 25_000,
      months: planMonths(MONTHS, 7, (_, random) => ({
        salary: 250_000,
        spending: jitter(random, 175_000, 0.1),
        betting: jitter(random, 85_000, 0.3),
        bettingWins: jitter(random, 15_000, 0.9),
        overdraftDays: Math.round(random() * 4),
        bounced: random() < 0.25 ? 1 : 0,
        transactions: jitter(random, 95, 0.2),
      })),
      redFlags: { immediateLargeWithdrawalPostPayday: true },
    }),
  ],
  bureau: notChecked,
});

/** ₦300k salary, stacking digital loans, bounced repayments; the bureau shows 90+ days past due. */
const debtStressed = (): Persona => ({
  name: 'debt_stressed',
  summary: '₦300k salary, digital loans most months, ~₦95k repayments a month, bureau 90+ DPD',
  applicantId: applicantId(5),
  applicant: { firstName: 'Ngozi', lastName: 'Eze', bvn: DELINQUENT_BVN },
  accounts: [
    buildAccount({
      accountId: accountId(5, 1),
      institution: 'First Bank',
      bankCode: '011',
      accountNumber: '3012345678',
      holderName: 'EZE NGOZI BLESSING',
      bvnLast4: DELINQUENT_BVN.slice(-4),
      employer: 'LAGOS STATE GOVERNMENT',
      openingBalance: 30_000,
      months: planMonths(MONTHS, 8, (index, random) => ({
        salary: 300_000,
        spending: jitter(random, 275_000, 0.08),
        loanDisbursements: index % 3 === 2 ? 0 : jitter(random, 90_000, 0.3),
        loanRepayments: jitter(random, 95_000, 0.15),
        bounced: index >= 8 ? 2 : random() < 0.3 ? 1 : 0,
        overdraftDays: index >= 8 ? 3 : 0,
        transactions: jitter(random, 70, 0.2),
      })),
    }),
  ],
  bureau: delinquentBureau(),
});

/** ₦150k salary spent before it lands: overdrawn half the month, bounced debits, small digital loans. */
const overdrawn = (): Persona => ({
  name: 'overdrawn',
  summary:
    '₦150k salary, spending above income, overdrawn ~14 days a month, bounced debits, digital loans part-repaid, no bureau record',
  applicantId: applicantId(6),
  applicant: { firstName: 'Ibrahim', lastName: 'Musa', bvn: NO_RECORD_BVN },
  accounts: [
    buildAccount({
      accountId: accountId(6, 1),
      institution: 'Fidelity Bank',
      bankCode: '070',
      accountNumber: '4012345678',
      holderName: 'MUSA IBRAHIM',
      employer: 'KANO TRADERS LTD',
      openingBalance: 5_000,
      months: planMonths(MONTHS, 9, (index, random) => ({
        salary: 150_000,
        otherIncome: jitter(random, 10_000, 0.8),
        spending: jitter(random, 172_000, 0.1),
        betting: jitter(random, 8_000, 0.5),
        loanDisbursements: index % 3 === 1 ? 20_000 : 0,
        loanRepayments: index % 3 === 2 ? 15_000 : 0,
        overdraftDays: jitter(random, 14, 0.3),
        bounced: 1 + Math.round(random() * 2),
        transactions: jitter(random, 70, 0.2),
      })),
      redFlags: { immediateLargeWithdrawalPostPayday: true },
    }),
  ],
  bureau: noHitBureau(),
});

/** Two months of a new salary account; no BVN. */
const thinFile = (): Persona => ({
  name: 'thin_file',
  summary: '₦200k salary, only two months of statements, no BVN',
  applicantId: applicantId(7),
  applicant: { firstName: 'Blessing', lastName: 'Okon', bvn: null },
  accounts: [
    buildAccount({
      accountId: accountId(7, 1),
      institution: 'Wema Bank',
      bankCode: '035',
      accountNumber: '0212345678',
      holderName: 'OKON BLESSING',
      employer: 'ALAT PARTNER SERVICES',
      openingBalance: 10_000,
      firstMonth: '2026-09',
      months: planMonths(2, 10, (_, random) => ({
        salary: 200_000,
        spending: jitter(random, 150_000, 0.1),
        transactions: 14,
      })),
    }),
  ],
  bureau: notChecked,
});

/** Applicant Aisha Bello linked her husband's account: healthy data, wrong holder. */
const nameMismatch = (): Persona => ({
  name: 'name_mismatch',
  summary: '₦400k salary on an account held by someone else (MUSTAPHA BELLO), clean bureau file',
  applicantId: applicantId(8),
  applicant: { firstName: 'Aisha', lastName: 'Bello', bvn: '22287654321' },
  accounts: [
    buildAccount({
      accountId: accountId(8, 1),
      institution: 'Stanbic IBTC',
      bankCode: '221',
      accountNumber: '0012345678',
      holderName: 'MUSTAPHA BELLO',
      employer: 'NNPC LIMITED',
      openingBalance: 200_000,
      months: planMonths(MONTHS, 11, (_, random) => ({
        salary: 400_000,
        spending: jitter(random, 300_000, 0.1),
        transactions: jitter(random, 60, 0.2),
      })),
    }),
  ],
  bureau: cleanBureau('22287654321'),
});

const BUILDERS: Record<PersonaName, () => Persona> = {
  salaried,
  salaried_high: salariedHigh,
  gig,
  heavy_betting: heavyBetting,
  debt_stressed: debtStressed,
  overdrawn,
  thin_file: thinFile,
  name_mismatch: nameMismatch,
};

export const PERSONA_NAMES = Object.keys(BUILDERS) as PersonaName[];

export const persona = (name: PersonaName): Persona => BUILDERS[name]();

/** A scoring input for a persona and an ask; `overrides` swap parts (bureau, accounts...). */
export const applicationOf = (
  name: PersonaName,
  loan: LoanAsk,
  overrides: Partial<ScoreApplicationInput> = {},
): ScoreApplicationInput => {
  const { applicantId: id, applicant, accounts, bureau } = persona(name);
  return { applicantId: id, applicant, loan, accounts, bureau, now: FIXTURE_NOW, ...overrides };
};
