import { api, type ApplicationStatus, type DecisionOutcome } from '../api';
import { say } from '../labels';
import { money } from '../model';
import { navigate } from '../nav';
import { pageTrails } from '../pageTrail';
import { Badge, Loading, PageHeading, Problem, ShortId, Time, Updated, useLive } from '../ui';

const STATUSES: ApplicationStatus[] = ['PENDING_LINKING', 'LINKED', 'PROCESSING', 'COMPLETED', 'FAILED', 'ABANDONED'];
const DECISIONS: DecisionOutcome[] = ['APPROVED', 'COUNTER_OFFER', 'MANUAL_REVIEW', 'DECLINED'];
const PAGE_SIZE = 20;
/** The tab's memory of the pages before each page, so that a reload or Back keeps the pager. */
const trails = pageTrails(typeof sessionStorage === 'undefined' ? null : sessionStorage);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the list is narrowed to, as the address and the API name it. */
interface ListFilter {
  status: string[];
  decision: string[];
  /** Lagos days of creation, both included (`YYYY-MM-DD`). */
  from?: string;
  to?: string;
  q?: string;
}

const filterOf = (params: URLSearchParams): ListFilter => ({
  status: params.getAll('status'),
  decision: params.getAll('decision'),
  from: params.get('from') || undefined,
  to: params.get('to') || undefined,
  q: params.get('q') || undefined,
});

/** The CSV of the list as filtered now (the API's `GET /api/applications/export.csv`, for the session's lender). */
function exportHref(filter: ListFilter): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filter)) {
    for (const one of Array.isArray(value) ? value : value ? [value] : []) query.append(name, one);
  }
  const search = query.toString();
  return `/console/api/applications/export.csv${search ? `?${search}` : ''}`;
}

/** What the caption says the list holds. */
function captionOf(filter: ListFilter): string {
  const parts = [
    filter.status.length ? ` with status ${filter.status.map((s) => say(s, 'status')).join(' or ')}` : '',
    filter.decision.length ? ` decided ${filter.decision.map((d) => say(d, 'decision')).join(' or ')}` : '',
    filter.from ? ` created from ${filter.from}` : '',
    filter.to ? ` created up to ${filter.to}` : '',
    filter.q ? ` matching ${filter.q}` : '',
  ];
  return `Applications${parts.join('')}`;
}

/** How many the list holds in all, in words: `47 in all`, or `more than 10,000` where the count stopped. */
export function countWords(total: number, capped: boolean): string {
  return capped ? `more than ${total.toLocaleString('en-NG')}` : `${total.toLocaleString('en-NG')} in all`;
}

/** The lender's applications, newest first: filter by status, decision and days, search by who applied or by id, page on. */
export function ApplicationsPage({ params }: { params: URLSearchParams }) {
  const filter = filterOf(params);
  const { q = '' } = filter;
  const cursor = params.get('cursor');
  const listKey = JSON.stringify(filter);
  // The cursors of the pages before this one, for "Previous page" (kept for the tab).
  const trail = trails.before(listKey, cursor);
  const [list, , updatedAt] = useLive(
    () => api.applications({ ...filter, limit: PAGE_SIZE, cursor }),
    params.toString(),
  );

  function search(event: Event) {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => String(form.get(name) ?? '').trim() || undefined;
    navigate('/applications', {
      status: form.getAll('status').map(String),
      decision: form.getAll('decision').map(String),
      from: text('from'),
      to: text('to'),
      q: text('q'),
    });
  }
  const go = (next: string | null, nextTrail: (string | null)[]) => {
    trails.remember(listKey, next, nextTrail);
    navigate('/applications', { ...filter, cursor: next ?? undefined });
  };

  return (
    <>
      <PageHeading>Applications</PageHeading>
      <Updated at={updatedAt} />
      {/*
        The fields start from the address and are the user's from then on: the list refreshes
        itself, and a refresh must not undo what is being typed or ticked. A new address (a
        search, a page, Back) starts them again from it.
      */}
      <form key={JSON.stringify(filter)} class="filters" onSubmit={search} role="search" aria-label="Applications">
        <fieldset>
          <legend>Status</legend>
          {STATUSES.map((status) => (
            <label key={status} class="check">
              <input type="checkbox" name="status" value={status} defaultChecked={filter.status.includes(status)} />{' '}
              {say(status, 'status')}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Decision</legend>
          {DECISIONS.map((decision) => (
            <label key={decision} class="check">
              <input
                type="checkbox"
                name="decision"
                value={decision}
                defaultChecked={filter.decision.includes(decision)}
              />{' '}
              {say(decision, 'decision')}
            </label>
          ))}
        </fieldset>
        <div class="field">
          <label for="from">Created from</label>
          <input id="from" name="from" type="date" defaultValue={filter.from ?? ''} />
        </div>
        <div class="field">
          <label for="to">Created up to</label>
          <input id="to" name="to" type="date" defaultValue={filter.to ?? ''} />
        </div>
        <div class="field">
          <label for="q">Name, e-mail, phone, BVN or id</label>
          <input id="q" name="q" type="search" defaultValue={q} size={40} autocomplete="off" spellcheck={false} />
        </div>
        <button type="submit">Search</button>
      </form>
      {list.state === 'loading' ? <Loading what="the applications" /> : null}
      {list.state === 'error' ? (
        <>
          <Problem error={list.error} what="The applications list" />
          {UUID.test(q) ? (
            <p>
              <a href={`#/applications/${q}`}>Open application {q}</a>
            </p>
          ) : null}
        </>
      ) : null}
      {list.state === 'ok' ? (
        <>
          <table class="data cards">
            <caption>
              {list.value.items.length === 0
                ? 'No application matches.'
                : `${captionOf(filter)}: ${countWords(list.value.total, list.value.totalCapped)}`}
            </caption>
            <thead>
              <tr>
                <th scope="col">Application</th>
                <th scope="col">Applicant</th>
                <th scope="col">Status</th>
                <th scope="col" class="num">
                  Amount
                </th>
                <th scope="col" class="num">
                  Tenor
                </th>
                <th scope="col" class="num">
                  Accounts
                </th>
                <th scope="col" class="num">
                  Score
                </th>
                <th scope="col">Decision</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.value.items.map((item) => (
                <tr key={item.applicationId}>
                  <td class="card-title">
                    <ShortId id={item.applicationId} href={`#/applications/${item.applicationId}`} what="application" />
                  </td>
                  <td data-label="Applicant" class="name">
                    {item.applicantName}
                  </td>
                  <td data-label="Status">
                    <Badge value={item.status} kind="status" />
                  </td>
                  <td data-label="Amount" class="num">
                    {money(item.amount)}
                  </td>
                  <td data-label="Tenor" class="num">
                    {item.tenor} mo
                  </td>
                  <td data-label="Accounts" class="num">
                    {item.accountCount}
                  </td>
                  <td data-label="Score" class="num">
                    {item.score ?? '—'}
                  </td>
                  <td data-label="Decision">{item.decision ? <Badge value={item.decision} kind="decision" /> : '—'}</td>
                  <td data-label="Created" class="when">
                    <Time iso={item.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p class="export">
            <a href={exportHref(filter)} download>
              Export these applications as CSV
            </a>{' '}
            <span class="hint">Every page of them, with decisions and terms; the applicant by name only.</span>
          </p>
          <nav class="pager" aria-label="Pages of applications">
            <button
              type="button"
              disabled={trail.length === 0}
              onClick={() => go(trail[trail.length - 1] ?? null, trail.slice(0, -1))}
            >
              Previous page
            </button>
            <span class="page-number" aria-live="polite">
              Page {trail.length + 1}
              {list.value.totalCapped ? '' : ` of ${Math.max(1, Math.ceil(list.value.total / PAGE_SIZE))}`}
            </span>
            <button
              type="button"
              disabled={!list.value.nextCursor}
              onClick={() => go(list.value.nextCursor, [...trail, cursor])}
            >
              Next page
            </button>
          </nav>
        </>
      ) : null}
    </>
  );
}
