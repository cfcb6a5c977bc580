import { personaSpec, type PersonaId } from './catalog';
import { analyzeIncome } from './income';
import { analyzeStatement } from './insights';
import { bankCodeOf, type Institution } from './institutions';
import { makeNuban } from './nuban';
import { createRng, seededId, type Rng } from './prng';
import { personName, phoneNumber } from './statement/narrations';
import { simulateStatement } from './statement/simulate';
import type { MonoAccount, MonoIdentity, MonoIncome, MonoStatementInsights, MonoTransaction } from './types';

export interface GenerateAccountInput {
  persona: PersonaId;
  /** Everything below is a pure function of this seed (and `now`). */
  seed: string;
  /** The applicant's name; the bank's holder name unless the persona says otherwise. */
  holderName: string;
  institution: Institution;
  /** The statement runs up to the day before `now`. */
  now: Date;
  /** The applicant's e-mail, for the identity record. */
  email?: string;
  /** The applicant's BVN when known; the account then reports its last four digits. */
  bvn?: string;
}

/** One synthetic linked account with everything the provider can report about it. */
export interface GeneratedAccount {
  persona: PersonaId;
  account: MonoAccount;
  /** Newest first, as the provider lists them. */
  transactions: MonoTransaction[];
  /** Income analysis over the whole history. */
  income: MonoIncome;
  insights: MonoStatementInsights;
  identity: MonoIdentity;
}

const ADDRESSES = [
  ['14 Adeola Odeku Street', 'Victoria Island, Lagos'],
  ['7 Ogunlana Drive', 'Surulere, Lagos'],
  ['22 Aminu Kano Crescent', 'Wuse II, Abuja'],
  ['5 Okpara Avenue', 'Enugu'],
  ['31 Aba Road', 'Port Harcourt, Rivers'],
  ['9 Awolowo Road', 'Ikoyi, Lagos'],
] as const;

const normaliseName = (name: string): string => name.trim().replace(/\s+/g, ' ').toUpperCase();

function accountNumber(rng: Rng, institution: Institution, phone: string): string {
  if (institution.numbering === 'phone' || institution.cbnCode === null) return phone.slice(1);
  return makeNuban(institution.cbnCode, `${rng.int(0, 3)}${rng.digits(8)}`);
}

function holderFor(rng: Rng, applicant: string, someoneElse: boolean): string {
  if (!someoneElse) return applicant;
  for (;;) {
    const other = personName(rng);
    if (other !== applicant) return other;
  }
}

/**
 * Generates a linked account for a persona: details, statement lines with running balances,
 * and the income and insights the provider would compute from them. Pure and deterministic:
 * the same input always gives the same output.
 */
export function generateAccount(input: GenerateAccountInput): GeneratedAccount {
  const spec = personaSpec(input.persona);
  const rng = createRng(`account:${input.seed}`);
  const holder = holderFor(rng.fork('holder'), normaliseName(input.holderName), spec.holderIsSomeoneElse === true);
  const phone = phoneNumber(rng.fork('phone'));
  const number = accountNumber(rng.fork('number'), input.institution, phone.phone);
  const bvn = input.bvn && !spec.holderIsSomeoneElse ? input.bvn : `222${rng.fork('bvn').digits(8)}`;
  const simulation = simulateStatement({
    spec,
    seed: input.seed,
    holder,
    institution: input.institution,
    phone,
    now: input.now,
  });
  const lastLine = simulation.transactions[simulation.transactions.length - 1];
  const account: MonoAccount = {
    id: seededId(`account:${input.seed}`),
    name: holder,
    currency: 'NGN',
    type: input.institution.numbering === 'phone' ? 'WALLET_ACCOUNT' : spec.accountType,
    account_number: number,
    balance: lastLine?.balance ?? simulation.openingBalance,
    bvn: bvn.slice(-4),
    institution: { name: input.institution.name, bank_code: bankCodeOf(input.institution), type: 'PERSONAL_BANKING' },
  };
  const identityRng = rng.fork('identity');
  const [line1, line2] = identityRng.pick(ADDRESSES);
  const identity: MonoIdentity = {
    full_name: holder,
    email: input.email ?? `${holder.toLowerCase().replace(/\s+/g, '.')}@example.com`,
    phone: phone.phone,
    gender: identityRng.chance(0.5) ? 'Male' : 'Female',
    dob: new Date(Date.UTC(identityRng.int(1975, 2003), identityRng.int(0, 11), identityRng.int(1, 28)))
      .toISOString()
      .slice(0, 10),
    bvn,
    marital_status: identityRng.pick(['Single', 'Married']),
    address_line1: line1,
    address_line2: line2,
    created_at: simulation.start.toISOString(),
    updated_at: input.now.toISOString(),
  };
  return {
    persona: input.persona,
    account,
    transactions: [...simulation.transactions].reverse(),
    income: analyzeIncome({ account, transactions: simulation.transactions, now: input.now }),
    insights: analyzeStatement(simulation.transactions),
    identity,
  };
}
