import { useState } from 'preact/hooks';
import { api, ApiError, type ClientSettings, type ReviewQueueItem, type ReviewQueueStatus } from '../api';
import { money, when, words } from '../model';
import { navigate } from '../nav';
import { ageInWords } from '../reviewModel';
import { may } from '../permissions';
import { useSession } from '../session';
import { Badge, Loading, PageHeading, Problem, RoleNote, useLoad, Time } from '../ui';
import { say } from '../labels';
import './reviews.css';

const PAGE_SIZE = 20;
const VIEWS: readonly (readonly [ReviewQueueStatus, string])[] = [
  ['OPEN', 'Open (to review or to confirm)'],
  ['DONE', 'Done (final)'],
];

function ReviewState({ item }: { item: ReviewQueueItem }) {
  const review = item.review;
  if (!review) return <span>Not reviewed yet</span>;
  if (review.status === 'PENDING_CONFIRMATION') {
    return (
      <span>
        <Badge value={review.outcome} kind="decision" /> by {review.reviewer}, awaiting a second reviewer
      </span>
    );
  }
  return (
    <span>
      <Badge value={review.outcome} kind="decision" /> by {review.reviewer}
      {review.confirmedBy ? `, confirmed by ${review.confirmedBy}` : ''}
    </span>
  );
}

/**
 * The lender's maker-checker threshold: reviews granting more wait for a second reviewer. Set
 * with the account (`PATCH /api/client`), so by an owner or a developer; everyone sees it.
 */
function Threshold() {
  const [client, reload] = useLoad(() => api.client(), 'client');
  const [state, setState] = useState<{ busy: boolean; message?: string; failed?: boolean }>({ busy: false });
  const changes = may(useSession(), 'developer');
  if (client.state === 'loading') return <Loading what="the confirmation threshold" />;
  if (client.state === 'error') return <Problem error={client.error} what="The confirmation threshold" />;
  const above = (client.value as ClientSettings).reviewConfirmationAbove;
  function save(event: Event) {
    event.preventDefault();
    const typed = String(new FormData(event.currentTarget as HTMLFormElement).get('threshold') ?? '').trim();
    const value = typed === '' ? null : Number(typed);
    if (value !== null && (!Number.isFinite(value) || value < 0)) {
      setState({ busy: false, failed: true, message: 'Enter an amount of Naira, 0 or more, or leave it empty' });
      return;
    }
    setState({ busy: true });
    api.updateReviewThreshold(value).then(
      () => {
        setState({
          busy: false,
          message:
            value === null
              ? 'Every review is now final at once.'
              : `Reviews granting more than ${money(value)} now wait for a second reviewer.`,
        });
        reload();
      },
      (e: unknown) => setState({ busy: false, failed: true, message: e instanceof ApiError ? e.message : String(e) }),
    );
  }
  return (
    <>
      <p>
        {above === null
          ? 'Every review is final at once: no amount needs a second reviewer.'
          : `Reviews granting more than ${money(above)} wait for a second reviewer, a credit manager or owner other than the one who made them.`}
      </p>
      {changes ? (
        <form class="filters" onSubmit={save}>
          <div class="field">
            <label for="review-threshold">Second reviewer above (Naira; empty: never)</label>
            {/* Not held to the loaded value: a render while the page loads must not undo what is typed. */}
            <input
              id="review-threshold"
              name="threshold"
              type="number"
              inputMode="decimal"
              min={0}
              step="any"
              defaultValue={above === null ? '' : String(above)}
            />
          </div>
          <button type="submit" disabled={state.busy}>
            Save threshold
          </button>
        </form>
      ) : (
        <RoleNote permission="developer" what="change the threshold" />
      )}
      {state.message ? (
        <p class={state.failed ? 'notice notice-error' : 'notice'} role={state.failed ? 'alert' : 'status'}>
          {state.message}
        </p>
      ) : null}
    </>
  );
}

/** The MANUAL_REVIEW applications, oldest decision first: still open, or done; each links to its application. */
export function ReviewsPage({ params }: { params: URLSearchParams }) {
  const status: ReviewQueueStatus = params.get('status') === 'DONE' ? 'DONE' : 'OPEN';
  const cursor = params.get('cursor');
  // The cursors of the pages before this one, for "Previous page".
  const [trail, setTrail] = useState<(string | null)[]>([]);
  // The view chosen in the form, shown once "Show" is pressed.
  const [chosen, setChosen] = useState<{ for: ReviewQueueStatus; value: ReviewQueueStatus }>({
    for: status,
    value: status,
  });
  const picked = chosen.for === status ? chosen.value : status;
  const [queue] = useLoad(() => api.reviews({ status, limit: PAGE_SIZE, cursor }), params.toString());

  function show(event: Event) {
    event.preventDefault();
    setTrail([]);
    navigate('/reviews', { status: picked });
  }
  const go = (next: string | null, nextTrail: (string | null)[]) => {
    setTrail(nextTrail);
    navigate('/reviews', { status, cursor: next ?? undefined });
  };

  return (
    <>
      <PageHeading>Reviews</PageHeading>
      <p class="hint">Applications the scorecard referred for a person to decide, oldest decision first.</p>
      <form class="filters" onSubmit={show} aria-label="Reviews">
        <fieldset>
          <legend>Show</legend>
          {VIEWS.map(([value, label]) => (
            <label key={value} class="check">
              <input
                type="radio"
                name="status"
                value={value}
                checked={picked === value}
                onChange={() => setChosen({ for: status, value })}
              />{' '}
              {label}
            </label>
          ))}
        </fieldset>
        <button type="submit">Show</button>
      </form>
      {queue.state === 'loading' ? <Loading what="the review queue" /> : null}
      {queue.state === 'error' ? <Problem error={queue.error} what="The review queue" /> : null}
      {queue.state === 'ok' ? (
        <>
          <table class="data queue">
            <caption>
              {queue.value.items.length === 0
                ? status === 'OPEN'
                  ? 'Nothing to review.'
                  : 'No review is final yet.'
                : status === 'OPEN'
                  ? 'Applications to review or to confirm'
                  : 'Applications reviewed'}
            </caption>
            <thead>
              <tr>
                <th scope="col">Applicant</th>
                <th scope="col">Waiting</th>
                <th scope="col">Why referred</th>
                <th scope="col" class="num">
                  Score
                </th>
                <th scope="col">Ask</th>
                <th scope="col">Scoring would grant</th>
                <th scope="col">Review</th>
              </tr>
            </thead>
            <tbody>
              {queue.value.items.map((item) => (
                <tr key={item.applicationId}>
                  <td data-label="Applicant">
                    <a href={`#/applications/${item.applicationId}`}>{item.applicantName}</a>
                    <span class="id detail"> {item.applicationId.slice(0, 8)}</span>
                  </td>
                  <td data-label="Waiting">
                    <span title={`Decided ${when(item.decidedAt)}`}>{ageInWords(item.ageSeconds)}</span>
                    <span class="detail">
                      {' '}
                      since <Time iso={item.decidedAt} />
                    </span>
                  </td>
                  <td data-label="Why referred">
                    <ul class="reasons">
                      {item.contest ? (
                        <li key="contest">Contested by the applicant ({words(item.contest.contestedOutcome)})</li>
                      ) : null}
                      {item.manual_review_reasons.map((r) => (
                        <li key={r.code}>{r.description}</li>
                      ))}
                    </ul>
                  </td>
                  <td data-label="Score" class="num">
                    {item.score}{' '}
                    <span class="detail" title={item.score_band}>
                      {say(item.score_band, 'band')}
                    </span>
                  </td>
                  <td data-label="Ask">
                    {money(item.loan.amount)}, {item.loan.tenor} months at {item.loan.interestRate}%
                  </td>
                  <td data-label="Scoring would grant">
                    {money(item.approval_details.approved_amount)}, {item.approval_details.approved_tenor} months at{' '}
                    {item.approval_details.approved_interest}% ({money(item.approval_details.monthly_payment)} a month)
                  </td>
                  <td data-label="Review">
                    <ReviewState item={item} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <nav class="pager" aria-label="Pages of reviews">
            <button
              type="button"
              disabled={trail.length === 0}
              onClick={() => go(trail[trail.length - 1] ?? null, trail.slice(0, -1))}
            >
              Previous page
            </button>
            <button
              type="button"
              disabled={!queue.value.nextCursor}
              onClick={() => go(queue.value.nextCursor, [...trail, cursor])}
            >
              Next page
            </button>
          </nav>
        </>
      ) : null}
      <section aria-labelledby="threshold-heading">
        <h2 id="threshold-heading">Second reviewer</h2>
        <Threshold />
      </section>
    </>
  );
}
