/**
 * The codes of the API in words: every status, outcome, band, severity, event and reason the
 * console shows, with the tone of its badge. The code itself stays on the page as a tooltip
 * (`title`). Tones: good (green), bad (red), warn (amber), neutral (grey); a badge always says
 * its words, so no tone is told by colour alone.
 */

export type Tone = 'good' | 'bad' | 'warn' | 'neutral';
export interface Label {
  text: string;
  tone: Tone;
}

const table = <K extends string>(entries: Record<K, [string, Tone]>): Record<K, Label> =>
  Object.fromEntries(
    (Object.entries(entries) as [K, [string, Tone]][]).map(([code, [text, tone]]) => [code, { text, tone }]),
  ) as Record<K, Label>;

export const LABELS = {
  /** An application's status. A completed one is neither good nor bad: its decision says which. */
  status: table({
    PENDING_LINKING: ['Waiting for bank link', 'neutral'],
    LINKED: ['Bank linked', 'neutral'],
    PROCESSING: ['Being scored', 'neutral'],
    COMPLETED: ['Completed', 'neutral'],
    FAILED: ['Failed', 'bad'],
    ABANDONED: ['Abandoned', 'warn'],
  }),
  /** An account's statement analysis. */
  enrichment: table({
    PENDING: ['Reading statement', 'neutral'],
    READY: ['Statement read', 'good'],
    FAILED: ['Statement not read', 'bad'],
  }),
  /** The applicant's consent to read a linked account. */
  consent: table({
    ACTIVE: ['Consent given', 'good'],
    WITHDRAWN: ['Consent withdrawn', 'neutral'],
    EXPIRED: ['Consent expired', 'neutral'],
    LAPSED: ['Consent lapsed (unused)', 'neutral'],
  }),
  /** The scorecard's outcome, and a reviewer's. */
  decision: table({
    APPROVED: ['Approved', 'good'],
    COUNTER_OFFER: ['Counter-offer', 'warn'],
    MANUAL_REVIEW: ['Manual review', 'warn'],
    DECLINED: ['Declined', 'bad'],
  }),
  band: table({
    LOW_RISK: ['Low risk', 'good'],
    MEDIUM_RISK: ['Medium risk', 'neutral'],
    HIGH_RISK: ['High risk', 'warn'],
    VERY_HIGH_RISK: ['Very high risk', 'bad'],
  }),
  /** A risk factor's severity. */
  severity: table({
    LOW: ['Low', 'neutral'],
    MEDIUM: ['Medium', 'warn'],
    HIGH: ['High', 'bad'],
  }),
  /** A webhook delivery's status. */
  delivery: table({
    PENDING: ['Sending', 'neutral'],
    DELIVERED: ['Delivered', 'good'],
    FAILED: ['Failed', 'bad'],
    SKIPPED: ['Not sent', 'neutral'],
  }),
  /** Why a delivery failed or was not sent. */
  deliveryReason: table({
    no_webhook_url: ['no webhook URL was set', 'neutral'],
    no_webhook_secret: ['no webhook secret was set', 'bad'],
    retries_exhausted: ['every retry failed', 'bad'],
    unknown_client: ['the lender is not known', 'bad'],
    url_refused: ['the webhook URL was refused', 'bad'],
  }),
  /** The webhook events. */
  event: table({
    'account.linked': ['Account linked', 'neutral'],
    'account.enrichment_ready': ['Statement read', 'neutral'],
    'account.enrichment_failed': ['Statement not read', 'neutral'],
    'application.ready_for_analysis': ['Ready for analysis', 'neutral'],
    'application.decision': ['Decision', 'neutral'],
    'application.failed': ['Application failed', 'neutral'],
    'application.abandoned': ['Application abandoned', 'neutral'],
    'application.review_completed': ['Review completed', 'neutral'],
    'application.offer_accepted': ['Offer accepted', 'neutral'],
    'application.offer_declined': ['Offer declined', 'neutral'],
    'application.offer_withdrawn': ['Offer withdrawn', 'neutral'],
    'account.consent_ended': ['Consent ended', 'neutral'],
    'account.data_erased': ['Bank data erased', 'neutral'],
    'application.offer_expired': ['Offer expired', 'neutral'],
  }),
  abandonReason: table({
    no_link: ['the applicant linked no bank account in time', 'warn'],
    no_analyze: ['no analysis was asked for in time', 'warn'],
  }),
  /** How far a measure of the score moved against its baseline (population stability index). */
  drift: table({
    STABLE: ['Stable', 'good'],
    WATCH: ['Watch', 'warn'],
    ACT: ['Act', 'bad'],
  }),
  /** Where a loan stands, from the outcomes the lender reported. */
  loanStatus: table({
    OPEN: ['Open', 'neutral'],
    REPAID: ['Repaid', 'good'],
    DEFAULTED: ['Defaulted', 'bad'],
    WRITTEN_OFF: ['Written off', 'bad'],
  }),
  /** An outcome the lender reported of a loan. */
  outcome: table({
    DISBURSED: ['Disbursed', 'neutral'],
    INSTALMENT_PAID: ['Instalment paid', 'good'],
    INSTALMENT_MISSED: ['Instalment missed', 'warn'],
    RESTRUCTURED: ['Restructured', 'warn'],
    REPAID: ['Repaid', 'good'],
    DEFAULTED: ['Defaulted', 'bad'],
    WRITTEN_OFF: ['Written off', 'bad'],
  }),
  failureReason: table({
    analysis_timeout: ['the analysis did not finish in time', 'bad'],
  }),
} as const;

export type LabelKind = keyof typeof LABELS;

/** `LOW_RISK` -> `Low risk`: a code no table names, in words. */
export const codeInWords = (code: string) => {
  const text = code.toLowerCase().replace(/[_.]/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
};

/**
 * The words and tone of `code` as a `kind` (an application status, an outcome...). Without a
 * kind, the first table that knows the code; a code none knows reads as its words, neutral.
 */
export function labelOf(code: string, kind?: LabelKind): Label {
  const tables: Record<string, Label>[] = kind ? [LABELS[kind]] : Object.values(LABELS);
  for (const labels of tables) {
    const found = Object.hasOwn(labels, code) ? labels[code] : undefined;
    if (found) return found;
  }
  return { text: codeInWords(code), tone: 'neutral' };
}

/** The words of `code` as a `kind`. */
export const say = (code: string, kind?: LabelKind) => labelOf(code, kind).text;
