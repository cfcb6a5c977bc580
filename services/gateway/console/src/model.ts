import type { ApplicationView, DeliveryView, MonthlyFlow } from './api';
import { say } from './labels';

/** What the console shows, computed from the API's answers: no I/O, no DOM. */

export interface TimelineEntry {
  at: string;
  title: string;
  detail?: string;
  /** The delivery this entry is about, when it is one. */
  delivery?: DeliveryView;
}

/**
 * The application's history, oldest first: its creation, each account linked, each webhook
 * delivery (with its attempts) and the decision.
 */
export function timelineOf(application: ApplicationView, deliveries: DeliveryView[]): TimelineEntry[] {
  const entries: TimelineEntry[] = [{ at: application.createdAt, title: 'Application created' }];
  for (const account of application.accounts) {
    entries.push({ at: account.linkedAt, title: `Account linked: ${account.institution} ${account.accountNumber}`, detail: say(account.enrichmentStatus, 'enrichment') });
  }
  for (const delivery of deliveries) {
    entries.push({ at: delivery.createdAt, title: `Webhook: ${say(delivery.event, 'event')}`, detail: deliverySummary(delivery), delivery });
  }
  if (application.decision) {
    entries.push({ at: application.decision.timestamp, title: `Decision: ${say(application.decision.decision, 'decision')}`, detail: `Score ${application.decision.score}` });
  }
  if (application.failureReason) entries.push({ at: application.updatedAt, title: 'Application failed', detail: say(application.failureReason, 'failureReason') });
  if (application.abandonReason) entries.push({ at: application.updatedAt, title: 'Application abandoned', detail: say(application.abandonReason, 'abandonReason') });
  return entries.sort((a, b) => a.at.localeCompare(b.at));
}

/** "Delivered after 2 attempts (500, 200)", "Sending, no attempt yet". */
export function deliverySummary(delivery: DeliveryView): string {
  const codes = delivery.attempts.map((a) => (a.statusCode === null ? 'no answer' : String(a.statusCode)));
  const status = say(delivery.status, 'delivery');
  if (codes.length === 0) return `${status}, no attempt yet`;
  const attempts = codes.length === 1 ? '1 attempt' : `${codes.length} attempts`;
  return `${status} after ${attempts} (${codes.join(', ')})`;
}

/** The applicant's money in and out per month, over every linked account, oldest month first (partial when any account's month is); null when no account has any. */
export function monthlyFlowsOf(application: ApplicationView): MonthlyFlow[] | null {
  const byMonth = new Map<string, MonthlyFlow>();
  for (const account of application.accounts) {
    for (const flow of account.monthlyFlows) {
      const sum: MonthlyFlow = byMonth.get(flow.month) ?? { month: flow.month, inflow: 0, outflow: 0 };
      sum.inflow += flow.inflow;
      sum.outflow += flow.outflow;
      // A month some account's statement covers only in part is not a whole month's money.
      if (flow.partial) sum.partial = true;
      byMonth.set(flow.month, sum);
    }
  }
  if (byMonth.size === 0) return null;
  return [...byMonth.values()].sort((a, b) => a.month.localeCompare(b.month));
}

/** The score's parts, in the order of docs/scoring.md, with readable labels. */
export const BREAKDOWN_PARTS = [
  ['cash_flow_health', 'Cash-flow health'],
  ['income_stability', 'Income stability'],
  ['debt_service_capacity', 'Debt-service capacity'],
  ['account_behavior', 'Account behaviour'],
  ['credit_history', 'Credit history'],
] as const;

/**
 * The most points each part of the score can earn, and the total: the scorecard's own maxima
 * (COMPONENT_MAX_POINTS in services/scoring, docs/scoring.md "Components"; a unit test holds
 * them equal).
 */
export const BREAKDOWN_MAX = {
  cash_flow_health: 20,
  income_stability: 20,
  debt_service_capacity: 25,
  account_behavior: 20,
  credit_history: 15,
  total: 100,
} as const;

type DecisionView = NonNullable<ApplicationView['decision']>;
type Terms = DecisionView['approval_details'];

/** The terms a decision puts forward, once, under a heading that says what they are. */
export interface TermsShown {
  heading: 'Approved terms' | 'Offered instead' | 'An analyst could grant';
  terms: Terms;
  /** Why these terms and not the ask, when the scorecard says. */
  reason: string | null;
  /** Every tenor the applicant could afford, when the scorecard found any. */
  tenors: number[];
}

/**
 * What a decision offers: the ask when approved, the counter-offer instead of it, what an
 * analyst could grant on a referral (nothing when scoring found no affordable terms), and
 * nothing for a decline.
 */
export function termsOf(decision: DecisionView): TermsShown | null {
  const counter = decision.counter_offer;
  const reason = counter?.reason ?? null;
  const tenors = decision.eligible_tenors;
  if (decision.decision === 'APPROVED') return { heading: 'Approved terms', terms: decision.approval_details, reason: null, tenors };
  if (decision.decision === 'COUNTER_OFFER') {
    const terms = counter
      ? { approved_amount: counter.amount, approved_tenor: counter.tenor, approved_interest: counter.interest_rate, monthly_payment: counter.monthly_payment }
      : decision.approval_details;
    return { heading: 'Offered instead', terms, reason, tenors };
  }
  if (decision.decision === 'MANUAL_REVIEW' && decision.approval_details.approved_amount > 0) {
    return { heading: 'An analyst could grant', terms: decision.approval_details, reason, tenors };
  }
  return null;
}

/** `LOW_RISK` -> `Low risk`, `COUNTER_OFFER` -> `Counter-offer`: a code in words (labels.ts). */
export const words = (code: string) => say(code);

const naira = new Intl.NumberFormat('en-NG', { style: 'currency', currency: 'NGN', maximumFractionDigits: 0 });
export const money = (amount: number) => naira.format(amount);

/** A time in UTC, to the minute: `2026-11-24 10:05 UTC`. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A time in UTC, to the second: `2026-11-24 10:05:09 UTC`. */
export function whenExactly(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** `2026-03` -> `Mar 2026`. */
export function monthLabel(month: string): string {
  const [year, m] = month.split('-').map(Number);
  if (!year || !m) return month;
  return new Date(Date.UTC(year, m - 1, 1)).toLocaleString('en-GB', { month: 'short', year: 'numeric', timeZone: 'UTC' });
}
