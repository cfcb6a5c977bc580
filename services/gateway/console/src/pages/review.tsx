import { useState } from 'preact/hooks';
import { api, ApiError, type ApplicationView, type ReviewView } from '../api';
import { moneyToKobo, monthlyFlowsOf, when, words } from '../model';
import { currentReviewer, rememberReviewer } from '../reviewer';
import { may, notAllowed } from '../permissions';
import { useSession } from '../session';
import {
  cannotConfirm,
  draftOf,
  OUTCOMES,
  reviewBodyOf,
  reviewStageOf,
  type ReviewDraft,
  type Reviewing,
} from '../reviewModel';
import { Badge } from '../ui';
import { BreakdownTable, FlowsTable, TermsFacts } from './decisionParts';
import './reviews.css';

const failure = (e: unknown) => (e instanceof ApiError ? e.message : String(e));
/** A change refused because the review moved on meanwhile (another reviewer's review or confirmation). */
const overtaken = (e: unknown) => e instanceof ApiError && e.status === 409;

/** The reviewer of what is done here, in a console signed in with the API key: typed once per tab. */
function ReviewerField({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <div class="field reviewer">
      <label for="reviewer">Your staff id</label>
      <input
        id="reviewer"
        name="reviewer"
        type="text"
        value={value}
        maxLength={200}
        autocomplete="username"
        spellcheck={false}
        aria-describedby="reviewer-help"
        onInput={(e) => {
          const typed = (e.currentTarget as HTMLInputElement).value;
          rememberReviewer(typed);
          onChange(typed);
        }}
      />
      <span id="reviewer-help" class="hint">
        Recorded as the reviewer of what you do here; kept in this browser tab only.
      </span>
    </div>
  );
}

/** What the reviewer decides from: why it was referred, the score, the flows and what scoring would grant. */
function Evidence({ application }: { application: ApplicationView }) {
  const decision = application.decision!;
  const contest = application.contest ?? null;
  const flows = monthlyFlowsOf(application);
  return (
    <div class="evidence" aria-labelledby="evidence-heading" role="region">
      <h3 id="evidence-heading">Evidence</h3>
      {contest ? (
        <>
          <h4 id="evidence-contest">
            Contested by the applicant <Badge value={contest.contestedOutcome} />
          </h4>
          <p class="hint">Opened {when(contest.openedAt)}; a second reviewer confirms whatever you decide.</p>
          <blockquote class="review-note" aria-labelledby="evidence-contest">
            {contest.statement}
          </blockquote>
          {contest.priorReview ? <ReviewFacts review={contest.priorReview} /> : null}
        </>
      ) : null}
      {decision.manual_review_reasons.length > 0 ? (
        <>
          <h4>Why it was referred</h4>
          <ul class="reasons">
            {decision.manual_review_reasons.map((r) => (
              <li key={r.code}>
                {r.description} <code>{r.code}</code>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <h4 id="evidence-breakdown">
        Score {decision.score} <Badge value={decision.score_band} />
      </h4>
      <BreakdownTable breakdown={decision.score_breakdown} labelledBy="evidence-breakdown" />
      <h4 id="evidence-grant">Scoring would grant</h4>
      <TermsFacts terms={decision.approval_details} />
      <h4 id="evidence-flows">Monthly flows</h4>
      {flows && flows.length > 0 ? (
        <FlowsTable flows={flows} labelledBy="evidence-flows" />
      ) : (
        <p>Not available for this application.</p>
      )}
    </div>
  );
}

/** A review as made: who, when, the outcome, the terms, the reason and the note. */
function ReviewFacts({ review }: { review: ReviewView }) {
  return (
    <>
      <dl class="facts">
        <div>
          <dt>Outcome</dt>
          <dd>
            <Badge value={review.outcome} />
          </dd>
        </div>
        <div>
          <dt>Reviewed by</dt>
          <dd>{review.reviewer}</dd>
        </div>
        <div>
          <dt>Made</dt>
          <dd>{when(review.madeAt)}</dd>
        </div>
        {review.confirmedBy ? (
          <div>
            <dt>Confirmed by</dt>
            <dd>{review.confirmedBy}</dd>
          </div>
        ) : null}
        {review.reviewedAt ? (
          <div>
            <dt>Final</dt>
            <dd>{when(review.reviewedAt)}</dd>
          </div>
        ) : null}
        <div>
          <dt>Reason</dt>
          <dd>
            <code>{review.reasonCode}</code>
          </dd>
        </div>
        {review.override ? (
          <div>
            <dt>Override</dt>
            <dd>Beyond the repayment capacity, on purpose</dd>
          </div>
        ) : null}
      </dl>
      {review.approval_details ? (
        <>
          <h4>Terms granted</h4>
          <TermsFacts terms={review.approval_details} />
          {review.key_facts ? (
            <p>
              APR {review.key_facts.apr_percent.toFixed(2)}%, {moneyToKobo(review.key_facts.total_repayable)} repayable
              over {review.key_facts.schedule.length} instalments, {moneyToKobo(review.key_facts.amount_disbursed)} paid
              out.
            </p>
          ) : null}
        </>
      ) : (
        <p>No terms: the loan is declined.</p>
      )}
      {review.note ? (
        <>
          <h4>Note</h4>
          <p class="review-note">{review.note}</p>
        </>
      ) : null}
    </>
  );
}

function ReviewForm(props: {
  application: ApplicationView;
  reviewer: Reviewing;
  onDone: () => void;
  onOvertaken: (message: string) => void;
}) {
  const { application, reviewer, onDone } = props;
  const [draft, setDraft] = useState<ReviewDraft>(() => draftOf(application));
  const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const set = (change: Partial<ReviewDraft>) => setDraft((d) => ({ ...d, ...change }));
  const text = (name: keyof ReviewDraft) => (e: Event) => set({ [name]: (e.currentTarget as HTMLInputElement).value });
  const lends = draft.outcome !== 'DECLINED';

  function submit(event: Event) {
    event.preventDefault();
    const made = reviewBodyOf(draft, reviewer);
    if ('problem' in made) {
      setState({ busy: false, error: made.problem });
      return;
    }
    setState({ busy: true });
    api.review(application.applicationId, made.body).then(
      () => {
        setState({ busy: false });
        onDone();
      },
      (e: unknown) => {
        // Overtaken: the section says so above the review as it now is; anything else is said here.
        setState({ busy: false, error: overtaken(e) ? undefined : failure(e) });
        if (overtaken(e)) props.onOvertaken(failure(e));
      },
    );
  }

  return (
    <form class="review-form stacked" onSubmit={submit} aria-labelledby="review-form-heading" noValidate>
      <h3 id="review-form-heading">Your review</h3>
      <fieldset>
        <legend>Outcome</legend>
        {OUTCOMES.map(([value, label]) => (
          <label key={value} class="check">
            <input
              type="radio"
              name="outcome"
              value={value}
              checked={draft.outcome === value}
              onChange={() => set({ outcome: value })}
            />{' '}
            {label}
          </label>
        ))}
      </fieldset>
      {lends ? (
        <fieldset class="terms">
          <legend>Terms{draft.outcome === 'COUNTER_OFFER' ? ' offered instead' : ''}</legend>
          <p class="hint">Prefilled with what scoring would grant.</p>
          <div class="field">
            <label for="review-amount">Amount (Naira)</label>
            <input
              id="review-amount"
              type="number"
              inputMode="decimal"
              min={1}
              step="any"
              value={draft.amount}
              onInput={text('amount')}
            />
          </div>
          <div class="field">
            <label for="review-tenor">Tenor (months)</label>
            <input
              id="review-tenor"
              type="number"
              inputMode="numeric"
              min={1}
              step={1}
              value={draft.tenor}
              onInput={text('tenor')}
            />
          </div>
          <div class="field">
            <label for="review-rate">Interest (% a month)</label>
            <input
              id="review-rate"
              type="number"
              inputMode="decimal"
              min={0}
              step="any"
              value={draft.interestRate}
              onInput={text('interestRate')}
            />
          </div>
        </fieldset>
      ) : null}
      <div class="field">
        <label for="review-reason">Reason code</label>
        <input
          id="review-reason"
          type="text"
          value={draft.reasonCode}
          maxLength={64}
          spellcheck={false}
          aria-describedby="review-reason-help"
          onInput={text('reasonCode')}
        />
        <span id="review-reason-help" class="hint">
          Your lender's code, such as INCOME_VERIFIED: letters, digits, dots, dashes or underscores.
        </span>
      </div>
      {lends ? (
        <label class="check override">
          <input
            type="checkbox"
            checked={draft.override}
            onChange={(e) => set({ override: (e.currentTarget as HTMLInputElement).checked })}
          />{' '}
          Override: grant beyond the applicant's repayment capacity
        </label>
      ) : null}
      <div class="field">
        <label for="review-note">Note{draft.override && lends ? ' (required with an override)' : ''}</label>
        <textarea id="review-note" rows={3} maxLength={2000} value={draft.note} onInput={text('note')} />
      </div>
      <button type="submit" disabled={state.busy}>
        {state.busy ? 'Submitting…' : 'Submit review'}
      </button>
      {state.error ? (
        <p class="notice notice-error" role="alert">
          {state.error}
        </p>
      ) : null}
    </form>
  );
}

function Confirmation(props: {
  application: ApplicationView;
  review: ReviewView;
  reviewer: Reviewing;
  onDone: () => void;
}) {
  const { application, review, reviewer, onDone } = props;
  const session = useSession();
  const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  // The role first: a viewer or a credit officer is never offered a confirmation.
  const why = may(session, 'manage')
    ? cannotConfirm(review, reviewer)
    : notAllowed(session, 'manage', 'confirm a review');
  return (
    <div class="confirmation" role="region" aria-labelledby="confirmation-heading">
      <h3 id="confirmation-heading">Awaiting a second reviewer</h3>
      <p>
        This review grants more than your lender lets one person grant: it is final once another reviewer confirms it.
      </p>
      <ReviewFacts review={review} />
      <button
        type="button"
        disabled={state.busy || why !== null}
        aria-describedby={why ? 'confirm-why' : undefined}
        onClick={() => {
          setState({ busy: true });
          api.confirmReview(application.applicationId, 'staffId' in reviewer ? reviewer.staffId.trim() : null).then(
            () => {
              setState({ busy: false });
              onDone();
            },
            (e: unknown) => setState({ busy: false, error: failure(e) }),
          );
        }}
      >
        {state.busy ? 'Confirming…' : 'Confirm review'}
      </button>
      {why ? (
        <p id="confirm-why" class="hint">
          {why}
        </p>
      ) : null}
      {state.error ? (
        <p class="notice notice-error" role="alert">
          {state.error}
        </p>
      ) : null}
    </div>
  );
}

/**
 * The review of a MANUAL_REVIEW decision on its application's page: the form with the evidence
 * beside it, the maker-checker confirmation while a review awaits it, or the final review.
 */
export function ReviewSection({ application, onChanged }: { application: ApplicationView; onChanged: () => void }) {
  const stage = reviewStageOf(application);
  const session = useSession();
  const signedIn = session?.user?.email ?? null;
  const [staffId, setStaffId] = useState(currentReviewer);
  const reviewer: Reviewing = signedIn ? { signedIn } : { staffId };
  // Why the last change was refused when the review moved on meanwhile; the page shows it as it is now.
  const [notice, setNotice] = useState<string | null>(null);
  if (stage === 'NONE') return null;
  const done = () => {
    setNotice(null);
    onChanged();
  };
  const overtakenBy = (message: string) => {
    setNotice(message);
    onChanged();
  };
  const review = application.review;
  return (
    <section aria-labelledby="review-heading" class="review">
      <h2 id="review-heading">
        Review {review ? <Badge value={review.status === 'FINAL' ? review.outcome : review.status} /> : null}
      </h2>
      {notice ? (
        <p class="notice notice-error" role="alert">
          {notice}
        </p>
      ) : null}
      {stage === 'FINAL' && review ? (
        <div class="final-review" role="region" aria-label="Final review">
          <p>
            Reviewed: <strong>{words(review.outcome)}</strong>, final since {when(review.reviewedAt)}.
          </p>
          <ReviewFacts review={review} />
        </div>
      ) : (
        <div class="review-layout">
          <div class="review-work">
            {!may(session, 'applications') ? null : signedIn ? (
              <p class="reviewer">
                Reviewing as <strong>{signedIn}</strong>
              </p>
            ) : (
              <ReviewerField value={staffId} onChange={setStaffId} />
            )}
            {stage === 'TO_REVIEW' && !may(session, 'applications') ? (
              <p class="notice" role="status">
                {notAllowed(session, 'applications', 'review applications')}
              </p>
            ) : stage === 'TO_REVIEW' ? (
              <ReviewForm application={application} reviewer={reviewer} onDone={done} onOvertaken={overtakenBy} />
            ) : (
              <Confirmation application={application} review={review!} reviewer={reviewer} onDone={done} />
            )}
          </div>
          <Evidence application={application} />
        </div>
      )}
    </section>
  );
}

/**
 * The applicant's contest (NDPA s.37) on a decision that may be contested: the officer enters the
 * applicant's statement as they gave it, and the application goes back to the review queue.
 */
export function ContestSection({ application, onChanged }: { application: ApplicationView; onChanged: () => void }) {
  const session = useSession();
  const [statement, setStatement] = useState('');
  const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const availability = application.contestAvailability;
  if (!availability?.available || !may(session, 'applications')) return null;
  const submit = (e: Event) => {
    e.preventDefault();
    setState({ busy: true });
    api.contest(application.applicationId, statement).then(
      () => {
        setState({ busy: false });
        setStatement('');
        onChanged();
      },
      (error: unknown) => setState({ busy: false, error: failure(error) }),
    );
  };
  return (
    <section aria-labelledby="contest-heading" class="contest screen-only">
      <h2 id="contest-heading">Contest</h2>
      <p class="hint">
        The applicant may ask for a person to look at this decision again and give their view. Their statement sends it
        back to the review queue; its review needs a second reviewer.
      </p>
      <form class="stacked" onSubmit={submit} noValidate>
        <label for="contest-statement">The applicant's statement</label>
        <textarea
          id="contest-statement"
          name="statement"
          rows={4}
          maxLength={4000}
          value={statement}
          onInput={(e) => setStatement((e.currentTarget as HTMLTextAreaElement).value)}
        />
        <button type="submit" disabled={state.busy}>
          {state.busy ? 'Opening…' : 'Open contest'}
        </button>
        {state.error ? (
          <p class="notice notice-error" role="alert">
            {state.error}
          </p>
        ) : null}
      </form>
    </section>
  );
}
