import type { EnrichedAccount } from '@loan/contracts';
import { buildEnrichedAccount, looksLikeIncome } from '@loan/enrichment/domain';
import { toProviderAccount, type ProviderTransaction } from '@loan/provider';
import {
  COMMERCIAL_BANKS,
  TEST_BVNS,
  analyzeIncome,
  consumerHitResponse,
  consumerNoHitResponse,
  createRng,
  findInstitution,
  generateAccount,
  type PersonaId,
} from '@loan/sandbox';
import { normaliseCrcResponse, type BureauOutcome } from '../src/data-access/bureau';
import type { LoanAsk } from '../src/domain/affordability';
import type { ScoreApplicationInput } from '../src/domain/scoreApplication';

/** Months of history enrichment asks the provider's income analysis to cover (`INCOME_PERIOD_MONTHS`). */
export const INCOME_PERIOD_MONTHS = 12;

/**
 * An applicant of the sandbox: who they say they are at initiate, and the persona of each
 * account they link through the widget, in linking order.
 */
export interface SandboxApplicant {
  /** Name of the applicant in the golden table. */
  label: string;
  firstName: string;
  lastName: string;
  /** 11 digits (a sandbox test BVN or any other), or null when none was given. */
  bvn: string | null;
  accounts: ReadonlyArray<{
    persona: PersonaId;
    /** Institution picked in the widget; else the sandbox's choice. */
    institution?: string;
  }>;
}

/** When things happen: accounts linked and enriched, then the analysis decided. */
export interface SandboxTimeline {
  linkedAt: Date;
  decidedAt: Date;
}

/** What scoring holds for one applicant before any ask: enriched accounts and bureau outcome. */
export interface SandboxFile {
  applicant: SandboxApplicant;
  accounts: EnrichedAccount[];
  bureau: BureauOutcome;
  decidedAt: Date;
}

/** The provider's answer as it comes over HTTP: JSON in, JSON out. */
const overTheWire = <T>(value: unknown): T => JSON.parse(JSON.stringify(value)) as T;

/** A stable UUID-shaped id (the services' own ids are random UUIDs). */
const idOf = (kind: '8000' | '9000', seed: string): string =>
  `00000000-0000-4000-${kind}-${createRng(`golden-id:${seed}`).digits(12)}`;

/**
 * One linked account as enrichment reads it. The sandbox generates the n-th account of a
 * link session from the seed `<session>:<n>` (provider/linking.ts); the provider's answers
 * (account details, statement, income job for the enrichment's period, statement insights)
 * go through the Mono client's reading and enrichment's `buildEnrichedAccount`, as in
 * enrichment's worker (`finish`, in `entry-points/worker/advanceEnrichment.ts`).
 */
function enrichedAccount(applicant: SandboxApplicant, n: number, { linkedAt }: SandboxTimeline): EnrichedAccount {
  const spec = applicant.accounts[n]!;
  const seed = `golden:${applicant.label}:${n}`;
  const institution = spec.institution
    ? findInstitution(spec.institution)
    : createRng(`institution:${seed}`).pick(COMMERCIAL_BANKS);
  if (!institution) throw new Error(`No sandbox institution ${spec.institution}`);
  const generated = generateAccount({
    persona: spec.persona,
    seed,
    holderName: `${applicant.firstName} ${applicant.lastName}`,
    institution,
    now: linkedAt,
    ...(applicant.bvn ? { bvn: applicant.bvn } : {}),
  });
  const income = overTheWire<Record<string, unknown>>(
    analyzeIncome({
      account: generated.account,
      transactions: generated.transactions,
      periodMonths: INCOME_PERIOD_MONTHS,
      now: linkedAt,
    }),
  );
  if (!looksLikeIncome(income))
    throw new Error(`The sandbox's income result for ${seed} is not one enrichment accepts`);
  return buildEnrichedAccount({
    accountId: idOf('9000', `${applicant.label}:${n}`),
    providerAccountId: generated.account.id,
    linked: { institution: institution.name, accountNumber: generated.account.account_number },
    account: toProviderAccount(overTheWire(generated.account), generated.account.id),
    transactions: overTheWire<ProviderTransaction[]>(generated.transactions),
    income,
    insights: overTheWire<Record<string, unknown>>(generated.insights),
    periodMonths: INCOME_PERIOD_MONTHS,
    now: linkedAt,
  });
}

/**
 * The sandbox bureau's answer for a BVN (bureau/routes.ts) as the HTTP bureau client reads it:
 * the timeout BVN outlasts the client's timeout, the error BVN answers 503.
 */
export function sandboxBureauOutcome(bvn: string | null, pulledAt: Date): BureauOutcome {
  if (bvn === null) return { status: 'NOT_CHECKED' };
  if (bvn === TEST_BVNS.timeout) return { status: 'UNAVAILABLE', reason: 'bureau unreachable: ECONNABORTED' };
  if (bvn === TEST_BVNS.error) return { status: 'UNAVAILABLE', reason: 'bureau answered 503' };
  const body = overTheWire(
    bvn === TEST_BVNS.noRecord ? consumerNoHitResponse(bvn, pulledAt) : consumerHitResponse(bvn, pulledAt),
  );
  return normaliseCrcResponse(body, { bvn, pulledAt });
}

/** Links the applicant's accounts in the sandbox, enriches them and looks the BVN up. */
export function sandboxFile(applicant: SandboxApplicant, timeline: SandboxTimeline): SandboxFile {
  return {
    applicant,
    accounts: applicant.accounts.map((_, n) => enrichedAccount(applicant, n, timeline)),
    bureau: sandboxBureauOutcome(applicant.bvn, timeline.decidedAt),
    decidedAt: timeline.decidedAt,
  };
}

/** The scorecard's input for one ask of a sandbox applicant, as the scoring service builds it. */
export function scoringInput(file: SandboxFile, loan: LoanAsk): ScoreApplicationInput {
  const { applicant } = file;
  return {
    applicantId: idOf('8000', applicant.label),
    applicant: { firstName: applicant.firstName, lastName: applicant.lastName, bvn: applicant.bvn },
    loan,
    accounts: file.accounts,
    bureau: file.bureau,
    now: file.decidedAt,
  };
}
