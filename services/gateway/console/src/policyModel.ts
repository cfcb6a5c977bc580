import type { CreditPolicy, OfferTerms, PolicyFeature } from '@loan/contracts';

/**
 * The offer terms of a policy that sets none: the contracts' `DEFAULT_OFFER_TERMS`, written out
 * here because the page's bundle takes only types from the contracts (a unit test holds the two equal).
 */
export const DEFAULT_OFFER_TERMS: OfferTerms = { validityDays: 7, coolingOffWorkingDays: 3 };
import { money } from './model';

/**
 * The credit policy in the console's words: sentences for the rules, the draft form's fields and
 * back, the API's validation problems by field, and what changed between two versions.
 */

export type Policy = CreditPolicy;
export type KnockOut = CreditPolicy['knockOuts'][number];

/** Every feature a knock-out rule may test, in words (the list is the contract's, checked by the compiler). */
export const FEATURE_WORDS = {
  bettingShareOfIncome: 'betting debits as a share of monthly income',
  bouncedDebitsPerMonth: 'bounced debits per month',
  overdraftDaysPerMonth: 'overdrawn days per month',
  historyMonths: 'months of account history',
  monthsObserved: 'months of statement scored',
  monthlyIncome: 'verified monthly income (Naira)',
  incomeCv: 'month-to-month variation of income',
  netFlowShareOfIncome: 'average net flow as a share of income',
  negativeNetFlowMonths: 'months spending more than earned',
  averageBalance: 'average balance (Naira)',
  existingDebtToIncome: 'existing repayments as a share of income',
  digitalLoanShareOfIncome: 'digital loans received as a share of income',
  loanDisbursementMonths: 'months another lender paid out a loan',
  statementRedFlags: 'statement red flags',
  bureauScore: 'bureau score',
  worstDaysPastDue: 'worst days past due on the bureau file',
  bureauOverdueAmount: 'amount overdue on the bureau file (Naira)',
  delinquentFacilities: 'delinquent facilities on the bureau file',
  writtenOffFacilities: 'written-off facilities on the bureau file',
  bureauEnquiriesLast3m: 'bureau enquiries in the last three months',
} satisfies Record<PolicyFeature, string>;
export const FEATURES = Object.keys(FEATURE_WORDS) as PolicyFeature[];

export const OPERATOR_WORDS: Record<KnockOut['operator'], string> = {
  '>': 'is more than',
  '>=': 'is at least',
  '<': 'is less than',
  '<=': 'is at most',
  '==': 'equals',
  '!=': 'is not',
};
export const OPERATORS = Object.keys(OPERATOR_WORDS) as KnockOut['operator'][];

export const BANDS = ['LOW_RISK', 'MEDIUM_RISK', 'HIGH_RISK', 'VERY_HIGH_RISK'] as const;
export const BAND_WORDS: Record<(typeof BANDS)[number], string> = {
  LOW_RISK: 'Low risk',
  MEDIUM_RISK: 'Medium risk',
  HIGH_RISK: 'High risk',
  VERY_HIGH_RISK: 'Very high risk',
};
const ACTION_WORDS: Record<string, string> = {
  APPROVE: 'approve',
  REVIEW: 'refer for manual review',
  DECLINE: 'decline',
  PROCEED: 'decide on the bank statements alone',
};
export const actionWords = (action: string) => ACTION_WORDS[action] ?? action;

/** 0.3333 -> `33.33%`. */
export const percent = (share: number) => `${Number((share * 100).toFixed(2))}%`;

/** Each band's score range and action, highest band first. */
export function bandSentences(policy: Policy): string[] {
  const t = policy.bands.thresholds;
  const a = policy.bands.actions;
  return [
    `Low risk, a score of ${t.LOW_RISK} or more: ${actionWords(a.LOW_RISK)}.`,
    `Medium risk, from ${t.MEDIUM_RISK} to below ${t.LOW_RISK}: ${actionWords(a.MEDIUM_RISK)}.`,
    `High risk, from ${t.HIGH_RISK} to below ${t.MEDIUM_RISK}: ${actionWords(a.HIGH_RISK)}.`,
    `Very high risk, below ${t.HIGH_RISK}: ${actionWords(a.VERY_HIGH_RISK)}.`,
  ];
}

export function affordabilitySentences(policy: Policy): string[] {
  const { maxDebtServiceRatio, tenors, counterOffers } = policy.affordability;
  return [
    `All monthly repayments, the new one included, may take at most ${percent(maxDebtServiceRatio)} of verified monthly income.`,
    `Tenors offered: ${[...tenors].sort((x, y) => x - y).join(', ')} months.`,
    counterOffers.enabled
      ? `When the ask is not affordable, a smaller amount is offered if it is at least ${percent(counterOffers.minShareOfAsk)} of the ask and at least ${money(counterOffers.minAmount)}.`
      : 'When the ask is not affordable, no smaller amount is offered.',
  ];
}

export function limitSentences(policy: Policy): string[] {
  const { minAmount, maxAmount, maxIncomeMultiple } = policy.loanLimits;
  return [
    minAmount > 0 ? `Asks below ${money(minAmount)} are declined.` : 'No minimum amount.',
    maxAmount === null ? 'No maximum amount.' : `At most ${money(maxAmount)} is lent.`,
    maxIncomeMultiple === null
      ? 'No limit as a multiple of income.'
      : `At most ${maxIncomeMultiple} times the verified monthly income is lent.`,
  ];
}

export function dataRuleSentences(policy: Policy): string[] {
  const { thinFile, bureauUnavailable, identityMismatch } = policy.dataRules;
  return [
    `A thin file (too little history to score): ${actionWords(thinFile)}.`,
    `The credit bureau unavailable: ${actionWords(bureauUnavailable)}.`,
    `The account holder's name not matching the applicant: ${actionWords(identityMismatch)}.`,
  ];
}

/** How long the policy's offers stand and the cooling-off after acceptance (the defaults when it sets none). */
export function offerSentences(policy: Policy): string[] {
  const { validityDays, coolingOffWorkingDays } = policy.offer ?? DEFAULT_OFFER_TERMS;
  return [
    `An offer stands ${validityDays} days unanswered, and at least to the end of the second working day after it is made; then it expires.`,
    `After acceptance, the applicant may withdraw without cost for ${coolingOffWorkingDays} working days in Lagos (weekends and public holidays do not count).`,
    'Nothing is accepted automatically.',
  ];
}

/** `HIGH_BETTING: decline when betting debits as a share of monthly income is more than 0.25.` */
export function knockOutSentence(rule: KnockOut): string {
  return `${rule.code}: ${actionWords(rule.action)} when ${FEATURE_WORDS[rule.feature] ?? rule.feature} ${OPERATOR_WORDS[rule.operator] ?? rule.operator} ${rule.value} (${rule.description}).`;
}

/** The draft form: text as typed, turned into a policy only when sent. */
export interface PolicyForm {
  name: string;
  thresholds: { LOW_RISK: string; MEDIUM_RISK: string; HIGH_RISK: string };
  actions: Policy['bands']['actions'];
  maxDebtServicePercent: string;
  tenors: string;
  counterOffers: boolean;
  minSharePercent: string;
  counterMinAmount: string;
  minAmount: string;
  maxAmount: string;
  maxIncomeMultiple: string;
  dataRules: Policy['dataRules'];
  validityDays: string;
  coolingOffWorkingDays: string;
  knockOuts: {
    code: string;
    feature: string;
    operator: KnockOut['operator'];
    value: string;
    action: KnockOut['action'];
    description: string;
  }[];
}

const shown = (share: number) => String(Number((share * 100).toFixed(2)));

export function formOf(policy: Policy): PolicyForm {
  return {
    name: policy.name ?? '',
    thresholds: {
      LOW_RISK: String(policy.bands.thresholds.LOW_RISK),
      MEDIUM_RISK: String(policy.bands.thresholds.MEDIUM_RISK),
      HIGH_RISK: String(policy.bands.thresholds.HIGH_RISK),
    },
    actions: { ...policy.bands.actions },
    maxDebtServicePercent: shown(policy.affordability.maxDebtServiceRatio),
    tenors: policy.affordability.tenors.join(', '),
    counterOffers: policy.affordability.counterOffers.enabled,
    minSharePercent: shown(policy.affordability.counterOffers.minShareOfAsk),
    counterMinAmount: String(policy.affordability.counterOffers.minAmount),
    minAmount: String(policy.loanLimits.minAmount),
    maxAmount: policy.loanLimits.maxAmount === null ? '' : String(policy.loanLimits.maxAmount),
    maxIncomeMultiple: policy.loanLimits.maxIncomeMultiple === null ? '' : String(policy.loanLimits.maxIncomeMultiple),
    dataRules: { ...policy.dataRules },
    validityDays: String((policy.offer ?? DEFAULT_OFFER_TERMS).validityDays),
    coolingOffWorkingDays: String((policy.offer ?? DEFAULT_OFFER_TERMS).coolingOffWorkingDays),
    knockOuts: policy.knockOuts.map((rule) => ({ ...rule, value: String(rule.value) })),
  };
}

/** A typed number; what is not one goes as typed, for the API to name. */
function numberOf(text: string): number | string | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const n = Number(trimmed.replace(/,/g, ''));
  return Number.isFinite(n) ? n : trimmed;
}

/** A typed percentage as a share; a figure the form showed unchanged keeps its exact value (1/3 stays 1/3). */
function shareOf(text: string, base: number | undefined): number | string | null {
  if (base !== undefined && text.trim() === shown(base)) return base;
  const n = numberOf(text);
  return typeof n === 'number' ? Number((n / 100).toFixed(6)) : n;
}

/** The body to send: the form's policy, as the API will check it. */
export function policyOf(form: PolicyForm, base?: Policy): unknown {
  const name = form.name.trim();
  return {
    ...(name ? { name } : {}),
    bands: {
      thresholds: {
        LOW_RISK: numberOf(form.thresholds.LOW_RISK),
        MEDIUM_RISK: numberOf(form.thresholds.MEDIUM_RISK),
        HIGH_RISK: numberOf(form.thresholds.HIGH_RISK),
      },
      actions: form.actions,
    },
    affordability: {
      maxDebtServiceRatio: shareOf(form.maxDebtServicePercent, base?.affordability.maxDebtServiceRatio),
      tenors: form.tenors
        .split(/[\s,]+/)
        .filter(Boolean)
        .map((t) => numberOf(t)),
      counterOffers: {
        enabled: form.counterOffers,
        minShareOfAsk: shareOf(form.minSharePercent, base?.affordability.counterOffers.minShareOfAsk),
        minAmount: numberOf(form.counterMinAmount),
      },
    },
    loanLimits: {
      minAmount: numberOf(form.minAmount) ?? 0,
      maxAmount: numberOf(form.maxAmount),
      maxIncomeMultiple: numberOf(form.maxIncomeMultiple),
    },
    dataRules: form.dataRules,
    // The version's fees are not edited here: the new version keeps them.
    ...(base?.disclosure ? { disclosure: base.disclosure } : {}),
    ...offerOf(form, base),
    knockOuts: form.knockOuts.map((rule) => ({
      code: rule.code.trim(),
      feature: rule.feature,
      operator: rule.operator,
      value: numberOf(rule.value),
      action: rule.action,
      description: rule.description,
    })),
  };
}

/** The form's offer terms; none when the base had none and the form keeps the defaults (they stay the defaults). */
function offerOf(form: PolicyForm, base?: Policy): { offer?: unknown } {
  const offer = {
    validityDays: numberOf(form.validityDays),
    coolingOffWorkingDays: numberOf(form.coolingOffWorkingDays),
  };
  const defaults =
    offer.validityDays === DEFAULT_OFFER_TERMS.validityDays &&
    offer.coolingOffWorkingDays === DEFAULT_OFFER_TERMS.coolingOffWorkingDays;
  return base?.offer || !defaults ? { offer } : {};
}

/**
 * The problems of a 400 by field: the API names each as `path: message`, joined by `; `
 * (`affordability.maxDebtServiceRatio: ...`). A problem without a path is under `''`.
 */
export function problemsByField(message: string): Map<string, string[]> {
  const byField = new Map<string, string[]>();
  for (const part of message.split('; ')) {
    const match = /^([A-Za-z][\w]*(?:\.[\w]+)*): (.+)$/s.exec(part.trim());
    const [field, text] = match ? [match[1]!, match[2]!] : ['', part.trim()];
    if (!text) continue;
    byField.set(field, [...(byField.get(field) ?? []), text]);
  }
  return byField;
}

/** The labels of a policy's settings, for the differences between versions. */
const SETTING_LABELS: [string, string, (p: Policy) => string][] = [
  ['name', 'Name', (p) => p.name ?? ''],
  ['bands.thresholds.LOW_RISK', 'Lowest score of low risk', (p) => String(p.bands.thresholds.LOW_RISK)],
  ['bands.thresholds.MEDIUM_RISK', 'Lowest score of medium risk', (p) => String(p.bands.thresholds.MEDIUM_RISK)],
  ['bands.thresholds.HIGH_RISK', 'Lowest score of high risk', (p) => String(p.bands.thresholds.HIGH_RISK)],
  ...BANDS.map(
    (band) =>
      [`bands.actions.${band}`, `${BAND_WORDS[band]}: action`, (p: Policy) => actionWords(p.bands.actions[band])] as [
        string,
        string,
        (p: Policy) => string,
      ],
  ),
  [
    'affordability.maxDebtServiceRatio',
    'Maximum debt-service ratio',
    (p) => percent(p.affordability.maxDebtServiceRatio),
  ],
  ['affordability.tenors', 'Tenors (months)', (p) => [...p.affordability.tenors].sort((x, y) => x - y).join(', ')],
  [
    'affordability.counterOffers.enabled',
    'Counter-offers',
    (p) => (p.affordability.counterOffers.enabled ? 'on' : 'off'),
  ],
  [
    'affordability.counterOffers.minShareOfAsk',
    'Counter-offer: least share of the ask',
    (p) => percent(p.affordability.counterOffers.minShareOfAsk),
  ],
  [
    'affordability.counterOffers.minAmount',
    'Counter-offer: least amount',
    (p) => money(p.affordability.counterOffers.minAmount),
  ],
  ['loanLimits.minAmount', 'Minimum amount', (p) => money(p.loanLimits.minAmount)],
  [
    'loanLimits.maxAmount',
    'Maximum amount',
    (p) => (p.loanLimits.maxAmount === null ? 'no limit' : money(p.loanLimits.maxAmount)),
  ],
  [
    'loanLimits.maxIncomeMultiple',
    'Maximum multiple of monthly income',
    (p) => (p.loanLimits.maxIncomeMultiple === null ? 'no limit' : String(p.loanLimits.maxIncomeMultiple)),
  ],
  ['dataRules.thinFile', 'Thin file', (p) => actionWords(p.dataRules.thinFile)],
  ['dataRules.bureauUnavailable', 'Bureau unavailable', (p) => actionWords(p.dataRules.bureauUnavailable)],
  ['dataRules.identityMismatch', 'Identity mismatch', (p) => actionWords(p.dataRules.identityMismatch)],
  ['offer.validityDays', 'Days an offer stands', (p) => String((p.offer ?? DEFAULT_OFFER_TERMS).validityDays)],
  [
    'offer.coolingOffWorkingDays',
    'Working days of cooling-off',
    (p) => String((p.offer ?? DEFAULT_OFFER_TERMS).coolingOffWorkingDays),
  ],
];

export interface Difference {
  field: string;
  label: string;
  before: string | null;
  after: string | null;
}

/** What changed from one version to the next, field by field; knock-out rules by their code. */
export function differences(before: Policy, after: Policy): Difference[] {
  const found: Difference[] = [];
  for (const [field, label, show] of SETTING_LABELS) {
    const [b, a] = [show(before), show(after)];
    if (b !== a) found.push({ field, label, before: b, after: a });
  }
  const rules = (p: Policy) => new Map(p.knockOuts.map((rule) => [rule.code, knockOutSentence(rule)]));
  const [was, now] = [rules(before), rules(after)];
  for (const code of new Set([...was.keys(), ...now.keys()])) {
    const [b, a] = [was.get(code) ?? null, now.get(code) ?? null];
    if (b !== a) found.push({ field: `knockOuts.${code}`, label: `Knock-out rule ${code}`, before: b, after: a });
  }
  return found;
}
