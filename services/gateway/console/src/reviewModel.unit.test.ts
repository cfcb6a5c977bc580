import type { ApplicationView, ReviewView } from './api';
import { ageInWords, cannotConfirm, draftOf, reviewBodyOf, reviewStageOf } from './reviewModel';

const referred = (review: ReviewView | null = null): ApplicationView =>
  ({
    applicationId: 'a',
    applicantId: 'b',
    status: 'COMPLETED',
    loan: { amount: 500000, tenor: 12, interestRate: 5, purpose: null },
    decision: {
      decision: 'MANUAL_REVIEW',
      approval_details: {
        approved_amount: 400000,
        approved_tenor: 12,
        approved_interest: 5,
        monthly_payment: 45130.17,
      },
    },
    review,
  }) as unknown as ApplicationView;

const pending = (reviewer: string): ReviewView => ({
  outcome: 'APPROVED',
  status: 'PENDING_CONFIRMATION',
  approval_details: { approved_amount: 500000, approved_tenor: 12, approved_interest: 5, monthly_payment: 56412.71 },
  reasonCode: 'INCOME_VERIFIED',
  note: null,
  override: false,
  reviewer,
  confirmedBy: null,
  confirmationRequired: true,
  madeAt: '2026-11-24T10:00:00.000Z',
  reviewedAt: null,
});

describe('ageInWords', () => {
  it.each([
    [0, 'less than a minute'],
    [59, 'less than a minute'],
    [60, '1 minute'],
    [125, '2 minutes'],
    [3600, '1 hour'],
    [3600 + 20 * 60, '1 hour 20 minutes'],
    [2 * 86400, '2 days'],
    [86400 + 4 * 3600 + 59, '1 day 4 hours'],
  ])('when %i seconds have passed, then it reads "%s"', (seconds, words) => {
    expect(ageInWords(seconds)).toBe(words);
  });
});

describe('reviewStageOf', () => {
  it('when a MANUAL_REVIEW application has no review, a pending one or a final one, then its stage says so', () => {
    expect(reviewStageOf(referred())).toBe('TO_REVIEW');
    expect(reviewStageOf(referred(pending('officer-1')))).toBe('PENDING_CONFIRMATION');
    expect(reviewStageOf(referred({ ...pending('officer-1'), status: 'FINAL' }))).toBe('FINAL');
  });

  it('when the decision is not MANUAL_REVIEW or the application is not completed, then there is nothing to review', () => {
    const approved = referred();
    expect(reviewStageOf({ ...approved, decision: { ...approved.decision!, decision: 'APPROVED' } })).toBe('NONE');
    expect(reviewStageOf({ ...approved, status: 'PROCESSING', decision: null })).toBe('NONE');
  });

  it('when a DECLINED decision is contested, then it is to review while the contest is open and not once resolved without a review', () => {
    const app = referred();
    const declined = { ...app, decision: { ...app.decision!, decision: 'DECLINED' as const } };
    const contest = {
      contestId: 'c',
      status: 'OPEN' as const,
      contestedOutcome: 'DECLINED' as const,
      statement: 'My salary moved',
      openedAt: '2026-11-22T09:30:00.000Z',
      resolvedAt: null,
      priorReview: null,
    };
    expect(reviewStageOf({ ...declined, contest })).toBe('TO_REVIEW');
    expect(reviewStageOf({ ...declined, contest, review: pending('officer-1') })).toBe('PENDING_CONFIRMATION');
    expect(reviewStageOf({ ...declined, contest: { ...contest, status: 'RESOLVED' } })).toBe('NONE');
  });
});

describe('cannotConfirm', () => {
  it('when the maker would confirm their own review, whatever the case and spaces, then it says why not', () => {
    expect(cannotConfirm(pending('Officer-1'), { staffId: ' officer-1 ' })).toMatch(/made this review/);
  });

  it('when no staff id is given, then it asks for one; another reviewer may confirm', () => {
    expect(cannotConfirm(pending('officer-1'), { staffId: '  ' })).toMatch(/staff id/);
    expect(cannotConfirm(pending('officer-1'), { staffId: 'manager-7' })).toBeNull();
  });

  it('when the signed-in user made the review, then they are told a second reviewer must confirm it; another signed-in user may', () => {
    expect(cannotConfirm(pending('ada@lender.example'), { signedIn: 'ada@lender.example' })).toMatch(
      /^You \(ada@lender\.example\) made this review/,
    );
    expect(cannotConfirm(pending('ada@lender.example'), { signedIn: 'bola@lender.example' })).toBeNull();
  });
});

describe('reviewBodyOf', () => {
  it('when the form is prefilled, then its terms are those scoring would grant', () => {
    const draft = { ...draftOf(referred()), reasonCode: 'INCOME_VERIFIED' };
    expect(reviewBodyOf(draft, { staffId: ' officer-1 ' })).toEqual({
      body: {
        outcome: 'APPROVED',
        reasonCode: 'INCOME_VERIFIED',
        reviewer: 'officer-1',
        terms: { amount: 400000, tenor: 12, interestRate: 5 },
      },
    });
  });

  it('when a staff user is signed in, then the body names no reviewer: the gateway records the user', () => {
    const draft = { ...draftOf(referred()), outcome: 'DECLINED' as const, reasonCode: 'FRAUD' };
    expect(reviewBodyOf(draft, { signedIn: 'ada@lender.example' })).toEqual({
      body: { outcome: 'DECLINED', reasonCode: 'FRAUD' },
    });
  });

  it('when the outcome is a decline, then no terms and no override are sent', () => {
    const draft = {
      ...draftOf(referred()),
      outcome: 'DECLINED' as const,
      reasonCode: 'FRAUD',
      override: true,
      note: 'Payslip forged',
    };
    expect(reviewBodyOf(draft, { staffId: 'officer-1' })).toEqual({
      body: { outcome: 'DECLINED', reasonCode: 'FRAUD', reviewer: 'officer-1', note: 'Payslip forged' },
    });
  });

  it('when an override has no note, no reviewer or reason code is given, or the tenor is not whole, then the form says so', () => {
    const draft = { ...draftOf(referred()), reasonCode: 'X' };
    expect(reviewBodyOf({ ...draft, override: true }, { staffId: 'officer-1' })).toEqual({
      problem: 'An override needs a note saying why.',
    });
    expect(reviewBodyOf(draft, { staffId: '' })).toEqual({ problem: expect.stringMatching(/staff id/) });
    expect(reviewBodyOf({ ...draft, reasonCode: ' ' }, { staffId: 'officer-1' })).toEqual({
      problem: 'Enter a reason code.',
    });
    expect(reviewBodyOf({ ...draft, tenor: '6.5' }, { staffId: 'officer-1' })).toEqual({
      problem: 'Enter the tenor in whole months.',
    });
  });
});
