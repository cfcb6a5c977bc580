import type { ApplicationView, ReviewOutcome, ReviewView } from './api';

/** What the review pages show, computed from the API's answers: no I/O, no DOM. */

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** How long ago in plain words: "less than a minute", "5 minutes", "3 hours 20 minutes", "2 days 4 hours". */
export function ageInWords(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return 'less than a minute';
  const minutes = Math.floor(s / 60);
  if (minutes < 60) return plural(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  if (hours < 24)
    return minutes % 60 ? `${plural(hours, 'hour')} ${plural(minutes % 60, 'minute')}` : plural(hours, 'hour');
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${plural(days, 'day')} ${plural(hours % 24, 'hour')}` : plural(days, 'day');
}

/** Staff ids are compared as the API compares them: case and surrounding spaces aside. */
export const sameReviewer = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** Where an application stands for review: nothing to review, to review, awaiting a second reviewer, or final. */
export type ReviewStage = 'NONE' | 'TO_REVIEW' | 'PENDING_CONFIRMATION' | 'FINAL';

export function reviewStageOf(application: ApplicationView): ReviewStage {
  const review = application.review;
  if (review) return review.status === 'FINAL' ? 'FINAL' : 'PENDING_CONFIRMATION';
  if (application.status !== 'COMPLETED' || !application.decision) return 'NONE';
  // Referred by the scorecard, or contested by the applicant (the earlier review is kept in the contest).
  if (application.decision.decision === 'MANUAL_REVIEW' || application.contest?.status === 'OPEN') return 'TO_REVIEW';
  return 'NONE';
}

/**
 * Who is reviewing: the signed-in user (by e-mail address, which the gateway records itself), or
 * in a console signed in with the API key the staff id typed on the page.
 */
export type Reviewing = { signedIn: string } | { staffId: string };
const nameOf = (who: Reviewing) => ('signedIn' in who ? who.signedIn : who.staffId.trim());

/** Why this reviewer cannot confirm the review, or null when they can. */
export function cannotConfirm(review: ReviewView, who: Reviewing): string | null {
  if (!nameOf(who)) return 'Enter your staff id above to confirm this review.';
  if (sameReviewer(review.reviewer, nameOf(who))) {
    return `You (${nameOf(who)}) made this review: a second reviewer, other than its maker, must confirm it.`;
  }
  return null;
}

export const OUTCOMES: readonly (readonly [ReviewOutcome, string])[] = [
  ['APPROVED', 'Approve'],
  ['COUNTER_OFFER', 'Counter-offer'],
  ['DECLINED', 'Decline'],
];

/** The review form as typed: numbers still text. */
export interface ReviewDraft {
  outcome: ReviewOutcome;
  amount: string;
  tenor: string;
  interestRate: string;
  reasonCode: string;
  note: string;
  override: boolean;
}

/** A draft prefilled with the terms scoring would grant (its approval details). */
export function draftOf(application: ApplicationView): ReviewDraft {
  const grant = application.decision?.approval_details;
  return {
    outcome: 'APPROVED',
    amount: grant ? String(grant.approved_amount) : String(application.loan.amount),
    tenor: grant ? String(grant.approved_tenor) : String(application.loan.tenor),
    interestRate: grant ? String(grant.approved_interest) : String(application.loan.interestRate),
    reasonCode: '',
    note: '',
    override: false,
  };
}

/**
 * The body of `POST /api/applications/:id/review` for a draft, or the first problem the form can
 * tell by itself (the API checks everything again and its message is shown as it comes).
 */
export function reviewBodyOf(
  draft: ReviewDraft,
  who: Reviewing,
): { body: Record<string, unknown> } | { problem: string } {
  if (!nameOf(who)) return { problem: 'Enter your staff id: it is recorded as the reviewer.' };
  if (!draft.reasonCode.trim()) return { problem: 'Enter a reason code.' };
  if (draft.override && !draft.note.trim()) return { problem: 'An override needs a note saying why.' };
  const body: Record<string, unknown> = { outcome: draft.outcome, reasonCode: draft.reasonCode.trim() };
  // A signed-in user is recorded by the gateway itself; the body names no one.
  if ('staffId' in who) body.reviewer = who.staffId.trim();
  if (draft.outcome !== 'DECLINED') {
    const terms = {
      amount: Number(draft.amount),
      tenor: Number(draft.tenor),
      interestRate: Number(draft.interestRate),
    };
    if (!draft.amount.trim() || !Number.isFinite(terms.amount)) return { problem: 'Enter the amount in Naira.' };
    if (!draft.tenor.trim() || !Number.isInteger(terms.tenor)) return { problem: 'Enter the tenor in whole months.' };
    if (!draft.interestRate.trim() || !Number.isFinite(terms.interestRate))
      return { problem: 'Enter the interest rate in percent a month.' };
    body.terms = terms;
  }
  if (draft.note.trim()) body.note = draft.note;
  if (draft.override && draft.outcome !== 'DECLINED') body.override = true;
  return { body };
}
