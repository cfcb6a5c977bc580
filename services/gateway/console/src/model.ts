import type { ApplicationView, DeliveryView, MonthlyFlow } from './api';
import { say } from './labels';

/** What the console shows, computed from the API's answers: no I/O, no DOM. */

/** One step of an application's story, with the webhook deliveries that announced it. */
export interface StoryStep {
  at: string;
  title: string;
  detail?: string;
  /** The code behind the title (an event name), for its tooltip. */
  code?: string;
  deliveries: DeliveryView[];
}

/** Where a step stands in the story: its place, then (for accounts) the account's and the step's within it. */
interface Placed extends StoryStep {
  order: [number, number, number];
  /** The events whose deliveries fold under this step. */
  events: string[];
}

const ACCOUNT_EVENTS = new Set(['account.linked', 'account.enrichment_ready', 'account.enrichment_failed']);

/**
 * The application's story in order: created, each account linked and its statement read,
 * linking finalized, ready for analysis, analysis asked for, decided, reviewed, the offer made
 * and answered or expired (or failed, abandoned). Each webhook delivery is folded under the step it announced: an account's under
 * the latest step of its kind at or before it; an event no step tells gets a step of its own.
 */
export function storyOf(application: ApplicationView, deliveries: DeliveryView[]): StoryStep[] {
  const steps: Placed[] = [
    { at: application.createdAt, title: 'Application created', order: [0, 0, 0], events: [], deliveries: [] },
  ];
  const accounts = [...application.accounts].sort((a, b) => a.linkedAt.localeCompare(b.linkedAt));
  const byEvent = (event: string) =>
    deliveries.filter((d) => d.event === event).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  accounts.forEach((account, i) => {
    const name = `${account.institution} ${account.accountNumber}`;
    steps.push({
      at: account.linkedAt,
      title: `Bank account linked: ${name}`,
      order: [1, i, 0],
      events: ['account.linked'],
      deliveries: [],
    });
    if (account.enrichmentStatus === 'READY') {
      steps.push({
        at: account.enrichedAt ?? account.linkedAt,
        title: `Statement read: ${name}`,
        order: [1, i, 1],
        events: ['account.enrichment_ready'],
        deliveries: [],
      });
    } else if (account.enrichmentStatus === 'FAILED') {
      const failed = byEvent('account.enrichment_failed').find((d) => d.createdAt >= account.linkedAt);
      steps.push({
        at: failed?.createdAt ?? account.linkedAt,
        title: `Statement could not be read: ${name}`,
        order: [1, i, 1],
        events: ['account.enrichment_failed'],
        deliveries: [],
      });
    }
  });
  if (application.linkingFinalizedAt) {
    steps.push({
      at: application.linkingFinalizedAt,
      title: 'Linking finished',
      detail: 'no more accounts can be linked',
      order: [2, 0, 0],
      events: [],
      deliveries: [],
    });
  }
  const ready = byEvent('application.ready_for_analysis')[0];
  if (ready)
    steps.push({
      at: ready.createdAt,
      title: 'Ready for analysis',
      order: [3, 0, 0],
      events: ['application.ready_for_analysis'],
      deliveries: [],
    });
  if (application.analysisRequestedAt) {
    steps.push({
      at: application.analysisRequestedAt,
      title: 'Analysis asked for',
      order: [4, 0, 0],
      events: [],
      deliveries: [],
    });
  }
  if (application.decision) {
    const decision = application.decision;
    steps.push({
      at: decision.timestamp,
      title: `Decided: ${say(decision.decision, 'decision')}`,
      detail: `score ${decision.score} of 100`,
      order: [5, 0, 0],
      events: ['application.decision'],
      deliveries: [],
    });
  }
  if (application.review) {
    const review = application.review;
    steps.push({
      at: review.madeAt,
      title: `Reviewed: ${say(review.outcome, 'decision')}`,
      detail: `by ${review.reviewer}`,
      order: [6, 0, 0],
      events: review.reviewedAt ? [] : ['application.review_completed'],
      deliveries: [],
    });
    if (review.reviewedAt && review.confirmedBy) {
      steps.push({
        at: review.reviewedAt,
        title: 'Review confirmed',
        detail: `by ${review.confirmedBy}`,
        order: [6, 1, 0],
        events: ['application.review_completed'],
        deliveries: [],
      });
    } else if (review.reviewedAt) {
      steps[steps.length - 1]!.events.push('application.review_completed');
    }
  }
  const offer = application.offer;
  if (offer) {
    // The offer's own steps: made, then its answer or its expiry; order 6 places them after a review.
    const step = (at: string, title: string, n: number, events: string[], detail?: string) =>
      steps.push({ at, title, order: [6, 2, n], events, deliveries: [], ...(detail ? { detail } : {}) });
    step(offer.madeAt, 'Offer made', 0, [], `${offer.validityDays} days to answer`);
    if (offer.acceptedAt)
      step(
        offer.acceptedAt,
        'Offer accepted',
        1,
        ['application.offer_accepted'],
        `${offer.coolingOffWorkingDays} working days of cooling-off`,
      );
    if (offer.declinedAt) step(offer.declinedAt, 'Offer declined', 1, ['application.offer_declined']);
    if (offer.withdrawnAt) step(offer.withdrawnAt, 'Acceptance withdrawn', 2, ['application.offer_withdrawn']);
    if (offer.expiredAt) step(offer.expiredAt, 'Offer expired', 1, ['application.offer_expired'], 'unanswered');
  }
  if (application.failureReason) {
    steps.push({
      at: application.updatedAt,
      title: 'Application failed',
      detail: say(application.failureReason, 'failureReason'),
      order: [7, 0, 0],
      events: ['application.failed'],
      deliveries: [],
    });
  }
  if (application.abandonReason) {
    steps.push({
      at: application.updatedAt,
      title: 'Application abandoned',
      detail: say(application.abandonReason, 'abandonReason'),
      order: [7, 0, 0],
      events: ['application.abandoned'],
      deliveries: [],
    });
  }

  for (const delivery of [...deliveries].sort((a, b) => a.createdAt.localeCompare(b.createdAt))) {
    const candidates = steps.filter((step) => step.events.includes(delivery.event));
    // An account's event belongs to the account whose step came last before it was sent.
    const home = ACCOUNT_EVENTS.has(delivery.event)
      ? (candidates.filter((step) => step.at <= delivery.createdAt).at(-1) ?? candidates[0])
      : candidates[0];
    if (home) home.deliveries.push(delivery);
    else {
      steps.push({
        at: delivery.createdAt,
        title: `Webhook: ${say(delivery.event, 'event')}`,
        code: delivery.event,
        order: [8, 0, 0],
        events: [],
        deliveries: [delivery],
      });
    }
  }
  const compare = (a: Placed, b: Placed) =>
    a.order[0] - b.order[0] || a.order[1] - b.order[1] || a.order[2] - b.order[2] || a.at.localeCompare(b.at);
  return steps.sort(compare).map(({ order: _order, events: _events, ...step }) => step);
}

const answers = (attempts: DeliveryView['attempts']) =>
  attempts.map((a) => (a.statusCode === null ? 'no answer' : String(a.statusCode))).join(', ');

/**
 * "after 2 attempts (500, 200)", "no attempt yet", "after 1 attempt (200); redelivered once (500)":
 * a delivery's own attempts and the answers they got, then the redeliveries asked for, apart.
 */
export function attemptsSummary(delivery: DeliveryView): string {
  const automatic = delivery.attempts.filter((a) => !a.manual);
  const manual = delivery.attempts.filter((a) => a.manual);
  const parts: string[] = [];
  if (automatic.length > 0) {
    parts.push(
      `after ${automatic.length === 1 ? '1 attempt' : `${automatic.length} attempts`} (${answers(automatic)})`,
    );
  } else if (manual.length === 0) parts.push('no attempt yet');
  if (manual.length > 0) {
    parts.push(`redelivered ${manual.length === 1 ? 'once' : `${manual.length} times`} (${answers(manual)})`);
  }
  return parts.join('; ');
}

/** "Delivered after 2 attempts (500, 200)", "Sending, no attempt yet". */
export function deliverySummary(delivery: DeliveryView): string {
  const attempts = attemptsSummary(delivery);
  return `${say(delivery.status, 'delivery')}${delivery.attempts.some((a) => !a.manual) ? '' : ','} ${attempts}`;
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
 * (SCORE_BREAKDOWN_MAX in libs/contracts, docs/scoring.md "Components"; a unit test holds
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
  if (decision.decision === 'APPROVED')
    return { heading: 'Approved terms', terms: decision.approval_details, reason: null, tenors };
  if (decision.decision === 'COUNTER_OFFER') {
    const terms = counter
      ? {
          approved_amount: counter.amount,
          approved_tenor: counter.tenor,
          approved_interest: counter.interest_rate,
          monthly_payment: counter.monthly_payment,
        }
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
const toKobo = new Intl.NumberFormat('en-NG', {
  style: 'currency',
  currency: 'NGN',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});
/** Money to the kobo: what a Key Facts Statement and its schedule show. */
export const moneyToKobo = (amount: number) => toKobo.format(amount);

/** The time zone of a lender that has not set one. */
export const TIME_ZONE = 'Africa/Lagos';

const clockIn = (timeZone: string) =>
  new Intl.DateTimeFormat('en-NG', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  });
let lenderZone = TIME_ZONE;
let lenderClock = clockIn(TIME_ZONE);

/** The lender's time zone (its account's `timeZone`): times are shown in it, with their UTC on hover. */
export function setTimeZone(timeZone: string | undefined): void {
  const zone = timeZone || TIME_ZONE;
  if (zone === lenderZone) return;
  try {
    lenderClock = clockIn(zone);
    lenderZone = zone;
  } catch {
    // A zone this browser does not know: times stay in the last one it did.
  }
}

/** The time zone times are shown in now. */
export const timeZone = () => lenderZone;

/** A time in the lender's time zone, to the second: `2026-11-24 11:05:09 WAT`. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const part = Object.fromEntries(lenderClock.formatToParts(date).map((p) => [p.type, p.value]));
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}:${part.second} ${part.timeZoneName}`;
}

/** A time in UTC, to the second: `2026-11-24 10:05:09 UTC`. */
export function whenUtc(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** `2026-03` -> `Mar 2026`. */
export function monthLabel(month: string): string {
  const [year, m] = month.split('-').map(Number);
  if (!year || !m) return month;
  return new Date(Date.UTC(year, m - 1, 1)).toLocaleString('en-GB', {
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });
}

/**
 * Where a Jaeger UI shows an application's traces: the gateway's spans tagged with its id, from
 * an hour before it was created to an hour after its last change (the UI's times are in µs).
 * Each lender request and each linking starts a trace of its own; all carry the id.
 */
export function tracesUrl(
  traceUiUrl: string,
  application: Pick<ApplicationView, 'applicationId' | 'createdAt' | 'updatedAt'>,
): string {
  const hour = 3_600_000;
  const micros = (ms: number) => String(ms * 1000);
  const query = new URLSearchParams({
    service: 'gateway',
    tags: JSON.stringify({ 'loan.application_id': application.applicationId }),
    lookback: 'custom',
    start: micros(Date.parse(application.createdAt) - hour),
    end: micros(Date.parse(application.updatedAt) + hour),
    limit: '50',
  });
  return `${traceUiUrl.replace(/\/+$/, '')}/search?${query.toString()}`;
}
