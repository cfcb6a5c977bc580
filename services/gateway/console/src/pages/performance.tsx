import { useState } from 'preact/hooks';
import { api, ApiError, type BadDefinition, type OutcomeUpload, type PerformanceReportView } from '../api';
import { BarChart, LineChart } from '../charts';
import { say } from '../labels';
import { navigate } from '../nav';
import { may } from '../permissions';
import {
  badDefinitionWords,
  count,
  DPD_CHOICES,
  measureName,
  monthsOnBookAxis,
  OUTCOME_CSV_HEADER,
  performanceQuery,
  rateCell,
  refusedRows,
  twoPlaces,
  uploadSummary,
  versionName,
  vintageRows,
} from '../performanceModel';
import { percent } from '../portfolioModel';
import { useSession } from '../session';
import { Badge, Loading, PageHeading, Problem, RoleNote, Updated, useLive } from '../ui';
import { Figure, FigureTable } from '../figures';

const RED = '#b3261e';
const GREY = '#5f6b7a';
/** One colour per vintage month, the newest last; ever 90+ is the same colour, dashed. */
const VINTAGE_COLOURS = ['#1f5fa8', '#b06000', '#1b7a3a', '#6a4fb3', '#b3261e', '#00738a'];
/** A chart's percentages: to a tenth below 10%, so that an axis of small rates has no two ticks alike. */
const asPercent = (n: number) => `${(n * 100).toFixed(n > 0 && n < 0.1 ? 1 : 0)}%`;

/** A reason there is no figure, where the figure would be. */
const Note = ({ children }: { children: string }) => <p class="notice figure-missing">{children}</p>;

function Headline({ report }: { report: PerformanceReportView }) {
  return (
    <dl class="facts headline portfolio-headline performance-headline">
      <div>
        <dt>Loans with outcomes</dt>
        <dd>{report.loans.toLocaleString('en-NG')}</dd>
      </div>
      <div>
        <dt>Bad loans</dt>
        <dd>{report.bad.toLocaleString('en-NG')}</dd>
      </div>
      <div>
        <dt>Bad rate</dt>
        <dd>
          {report.badRate === null ? 'None yet' : percent(report.badRate)}
          <span class="hint">
            {report.badRate === null ? ' no loan has an outcome' : ` of ${count(report.loans, 'loan')}`}
          </span>
        </dd>
      </div>
      <div class="headline-definition">
        <dt>Bad means</dt>
        <dd>{badDefinitionWords(report.badDefinition)}</dd>
      </div>
    </dl>
  );
}

function Figures({ report }: { report: PerformanceReportView }) {
  const bands = report.byBand;
  const rated = bands.filter((b) => b.badRate !== null);
  const calibration = report.calibration;
  const vintages = report.vintages;
  const axis = monthsOnBookAxis(vintages);
  const d = report.discrimination;
  return (
    <>
      <Figure
        id="by-band"
        title="Bad rate by band"
        chart={
          rated.length > 0 ? (
            <BarChart
              label={`Bad rate by band: ${bands.map((b) => `${say(b.band, 'band')} ${b.badRate === null ? 'too few loans' : percent(b.badRate)}`).join(', ')}`}
              categories={bands.map((b) => say(b.band, 'band'))}
              series={[{ label: 'Bad rate', values: bands.map((b) => b.badRate), colour: RED }]}
              format={asPercent}
              horizontal
            />
          ) : (
            <Note>
              {bands.length === 0
                ? 'No loan has an outcome yet: there is no band to show.'
                : 'No band has enough loans with outcomes for a bad rate yet; the table says how many each has.'}
            </Note>
          )
        }
        table={
          <FigureTable
            caption="Loans with outcomes by the score band of their decision"
            headers={['Band', 'Loans', 'Bad', 'Bad rate']}
            rows={bands.map((b) => [say(b.band, 'band'), b.loans, b.bad, rateCell(b)])}
            cards
          />
        }
      />

      <section class="portfolio-figure" aria-labelledby="by-decision">
        <h2 id="by-decision">Bad rate by decision and policy version</h2>
        {report.byDecision.length > 0 ? (
          <FigureTable
            caption="Loans with outcomes by the policy version that decided them, the decision and its band"
            headers={['Policy version', 'Decision', 'Band', 'Loans', 'Bad', 'Bad rate']}
            rows={report.byDecision.map((r) => [
              versionName(r.policyVersion),
              say(r.decision, 'decision'),
              say(r.band, 'band'),
              r.loans,
              r.bad,
              rateCell(r),
            ])}
            cards
          />
        ) : (
          <Note>No loan has an outcome yet.</Note>
        )}
      </section>

      {report.challengers.length > 0 ? (
        <section class="portfolio-figure" aria-labelledby="challengers">
          <h2 id="challengers">What a challenger would have decided</h2>
          <p class="hint">
            The same loans by the shadow decision of each challenger policy, which decided nothing itself.
          </p>
          <FigureTable
            caption="Loans with outcomes by a challenger's shadow decision"
            headers={['Challenger', 'Its decision', 'Loans', 'Bad', 'Bad rate']}
            rows={report.challengers.map((c) => [
              versionName(c.version),
              say(c.decision, 'decision'),
              c.loans,
              c.bad,
              rateCell(c),
            ])}
            cards
          />
        </section>
      ) : null}

      <section class="portfolio-figure" aria-labelledby="discrimination">
        <h2 id="discrimination">How well the score tells bad loans from good</h2>
        {d.gini === null || d.auc === null ? (
          <Note>{d.note ?? 'Too few loans with outcomes for Gini, AUC and KS.'}</Note>
        ) : (
          <dl class="facts headline portfolio-headline">
            <div>
              <dt>Gini</dt>
              <dd>{twoPlaces(d.gini)}</dd>
            </div>
            <div>
              <dt>AUC</dt>
              <dd>{twoPlaces(d.auc)}</dd>
            </div>
            <div>
              <dt>KS</dt>
              <dd>
                {d.ks === null ? '—' : twoPlaces(d.ks)}
                {d.ksAtScore === null ? null : <span class="hint"> widest at a score of {d.ksAtScore}</span>}
              </dd>
            </div>
            <div>
              <dt>Loans</dt>
              <dd>
                {d.loans.toLocaleString('en-NG')}
                <span class="hint">
                  {' '}
                  {d.bad.toLocaleString('en-NG')} bad, {d.good.toLocaleString('en-NG')} good
                </span>
              </dd>
            </div>
          </dl>
        )}
      </section>

      <Figure
        id="calibration"
        title="Expected and observed bad rate by band"
        chart={
          calibration.length > 0 ? (
            <BarChart
              label={`Bad rate the scorecard expected and the bad rate observed, by band: ${calibration
                .map(
                  (c) =>
                    `${say(c.band, 'band')} expected ${percent(c.expectedBadRate)}, observed ${c.observedBadRate === null ? 'not yet (too few loans)' : percent(c.observedBadRate)}`,
                )
                .join('; ')}`}
              categories={calibration.map((c) => say(c.band, 'band'))}
              series={[
                { label: 'Expected', values: calibration.map((c) => c.expectedBadRate), colour: GREY },
                { label: 'Observed', values: calibration.map((c) => c.observedBadRate), colour: RED },
              ]}
              format={asPercent}
              horizontal
            />
          ) : (
            <Note>No loan has an outcome yet: there is nothing to compare.</Note>
          )
        }
        table={
          <FigureTable
            caption="The bad rate the scorecard expects of each band's scores against the one observed"
            headers={['Band', 'Loans', 'Expected', 'Observed']}
            rows={calibration.map((c) => [
              say(c.band, 'band'),
              c.loans,
              percent(c.expectedBadRate),
              rateCell({ badRate: c.observedBadRate, note: c.note }),
            ])}
            cards
          />
        }
      />

      <Figure
        id="vintages"
        title="Vintage curves"
        chart={
          vintages.length > 0 ? (
            <LineChart
              label={`Share of each month's loans ever 30 and ever 90 or more days past due, by months on book: ${vintages
                .map(
                  (v) =>
                    `${v.vintage} (${count(v.loans, 'loan')}) ever 30+ ${percent(v.ever30.at(-1) ?? null)}, ever 90+ ${percent(v.ever90.at(-1) ?? null)} at ${v.monthsOnBook} months`,
                )
                .join('; ')}`}
              categories={axis}
              axisTitle="Months on book"
              series={vintages.flatMap((v, i) => {
                const colour = VINTAGE_COLOURS[i % VINTAGE_COLOURS.length]!;
                const along = (shares: number[]) => axis.map((_, m) => shares[m] ?? null);
                return [
                  { label: `${v.vintage} ever 30+`, values: along(v.ever30), colour },
                  { label: `${v.vintage} ever 90+`, values: along(v.ever90), colour, dashed: true },
                ];
              })}
              format={asPercent}
            />
          ) : (
            <Note>No loan has been disbursed with an outcome yet: there is no vintage to follow.</Note>
          )
        }
        table={
          <details class="figure-table" open={vintages.length <= 2}>
            <summary>The numbers by vintage</summary>
            <FigureTable
              caption="Share of each disbursement month's loans ever 30+ and ever 90+ days past due, by months on book"
              headers={['Vintage', 'Months on book', 'Loans', 'Ever 30+', 'Ever 90+']}
              rows={vintageRows(vintages)}
              cards
            />
          </details>
        }
      />
    </>
  );
}

/** The score's drift: each measure's PSI between the two periods, with its flag; the periods can be picked. */
function Drift({ report, params }: { report: PerformanceReportView; params: URLSearchParams }) {
  const drift = report.drift;
  function choose(event: Event) {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => String(form.get(name) ?? '').trim() || undefined;
    navigate('/performance', {
      baselineFrom: text('baselineFrom'),
      baselineTo: text('baselineTo'),
      from: text('from'),
      to: text('to'),
      asOf: params.get('asOf') ?? undefined,
    });
  }
  return (
    <section class="portfolio-figure" aria-labelledby="drift">
      <h2 id="drift">Drift of the score</h2>
      <p>
        The decisions of <strong>{drift.period.from}</strong> to <strong>{drift.period.to}</strong> (
        {count(drift.currentDecisions, 'decision')}) against the baseline of <strong>{drift.baseline.from}</strong> to{' '}
        <strong>{drift.baseline.to}</strong> ({count(drift.baselineDecisions, 'decision')}).
      </p>
      <form key={params.toString()} class="filters drift-periods" onSubmit={choose} aria-label="Drift periods">
        <fieldset>
          <legend>Baseline</legend>
          <div class="field">
            <label for="baseline-from">From</label>
            <input id="baseline-from" name="baselineFrom" type="date" defaultValue={drift.baseline.from} />
          </div>
          <div class="field">
            <label for="baseline-to">To</label>
            <input id="baseline-to" name="baselineTo" type="date" defaultValue={drift.baseline.to} />
          </div>
        </fieldset>
        <fieldset>
          <legend>Compared period</legend>
          <div class="field">
            <label for="period-from">From</label>
            <input id="period-from" name="from" type="date" defaultValue={drift.period.from} />
          </div>
          <div class="field">
            <label for="period-to">To</label>
            <input id="period-to" name="to" type="date" defaultValue={drift.period.to} />
          </div>
        </fieldset>
        <button type="submit">Compare</button>
      </form>
      {drift.note ? (
        <Note>{drift.note}</Note>
      ) : (
        <table class="data">
          <caption>
            Population stability index (PSI) of the total score and of each part: above 0.10 watch it, above 0.25 act
          </caption>
          <thead>
            <tr>
              <th scope="col">Measure</th>
              <th scope="col" class="num">
                PSI
              </th>
              <th scope="col">Flag</th>
            </tr>
          </thead>
          <tbody>
            {drift.measures.map((m) => (
              <tr key={m.measure}>
                <th scope="row">{measureName(m.measure)}</th>
                <td class="num">{m.psi === null ? 'Not measured' : m.psi.toFixed(3)}</td>
                <td>{m.flag === null ? 'None' : <Badge value={m.flag} kind="drift" />}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** What makes a loan bad for this lender: changed by a credit manager or an owner, read by everyone else. */
function BadDefinitionForm({ bad, onSaved }: { bad: BadDefinition; onSaved: () => void }) {
  const session = useSession();
  const manage = may(session, 'manage');
  const [state, setState] = useState<{ busy: boolean; said?: string; error?: string }>({ busy: false });
  async function save(event: Event) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const field = (name: string) => form.elements.namedItem(name) as HTMLInputElement;
    const chosen: BadDefinition = {
      daysPastDue: Number(field('daysPastDue').value) as BadDefinition['daysPastDue'],
      writtenOff: field('writtenOff').checked,
      defaulted: field('defaulted').checked,
    };
    setState({ busy: true });
    try {
      const saved = await api.updateBadDefinition(chosen);
      setState({ busy: false, said: `Saved: a loan is now bad when ${badDefinitionWords(saved.bad)}.` });
      onSaved();
    } catch (e) {
      setState({ busy: false, error: e instanceof ApiError ? e.message : String(e) });
    }
  }
  return (
    <section class="portfolio-figure" aria-labelledby="bad-definition">
      <h2 id="bad-definition">What counts as a bad loan</h2>
      <form
        key={JSON.stringify(bad)}
        class="filters"
        onSubmit={(e) => void save(e)}
        aria-labelledby="bad-definition"
        aria-describedby={state.error ? 'bad-definition-error' : undefined}
      >
        <fieldset class="stacked" disabled={!manage || state.busy}>
          <legend>A loan is bad when it was</legend>
          <div class="field">
            <label for="bad-dpd">Days past due, at any time</label>
            <select id="bad-dpd" name="daysPastDue">
              {DPD_CHOICES.map((days) => (
                <option key={days} value={String(days)} selected={days === bad.daysPastDue}>
                  {days === 1 ? '1 day or more' : `${days} days or more`}
                </option>
              ))}
            </select>
          </div>
          <label class="check">
            <input type="checkbox" name="writtenOff" defaultChecked={bad.writtenOff} /> or written off
          </label>
          <label class="check">
            <input type="checkbox" name="defaulted" defaultChecked={bad.defaulted} /> or declared defaulted
          </label>
        </fieldset>
        {manage ? (
          <button type="submit" disabled={state.busy}>
            {state.busy ? 'Saving…' : 'Save the definition'}
          </button>
        ) : null}
      </form>
      <RoleNote permission="manage" what="change what counts as a bad loan" />
      <p class="inline-ok saved" role="status">
        {state.said ?? ''}
      </p>
      {state.error ? (
        <p id="bad-definition-error" class="notice notice-error" role="alert">
          The definition was not saved: {state.error}
        </p>
      ) : null}
      <p class="hint">
        Every figure on this page counts loans by this definition; a change applies to them all at once.
      </p>
    </section>
  );
}

/** A CSV of loan outcomes sent as it is; the answer counts the rows and names each refused one by its line. */
function UploadForm({ onUploaded }: { onUploaded: () => void }) {
  const [state, setState] = useState<{ busy: boolean; result?: OutcomeUpload; error?: string }>({ busy: false });
  if (!may(useSession(), 'applications')) return null;
  async function upload(event: Event) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const file = (form.elements.namedItem('outcomes') as HTMLInputElement).files?.[0];
    if (!file) {
      setState({ busy: false, error: 'Choose a CSV file of outcomes first.' });
      return;
    }
    setState({ busy: true });
    try {
      const result = await api.uploadOutcomes(await file.text());
      setState({ busy: false, result });
      onUploaded();
    } catch (e) {
      setState({ busy: false, error: e instanceof ApiError ? e.message : String(e) });
    }
  }
  const refused = state.result ? refusedRows(state.result) : [];
  return (
    <section class="portfolio-figure" aria-labelledby="upload-outcomes">
      <h2 id="upload-outcomes">Report loan outcomes</h2>
      <p id="upload-help">
        A CSV file with the header <code class="csv-header">{OUTCOME_CSV_HEADER}</code>, one outcome a row, each loan's
        rows in the order they happened. A row sent again with its idempotency key is taken once.
      </p>
      <form
        class="filters"
        onSubmit={(e) => void upload(e)}
        aria-labelledby="upload-outcomes"
        aria-describedby={state.error ? 'upload-help upload-error' : 'upload-help'}
      >
        <div class="field">
          <label for="outcomes-file">CSV file of outcomes</label>
          <input id="outcomes-file" name="outcomes" type="file" accept=".csv,text/csv" required />
        </div>
        <button type="submit" disabled={state.busy}>
          {state.busy ? 'Uploading…' : 'Upload outcomes'}
        </button>
      </form>
      <div role="status" class="upload-result">
        {state.result ? <p class="notice">{uploadSummary(state.result)}.</p> : null}
      </div>
      {state.error ? (
        <p id="upload-error" class="notice notice-error" role="alert">
          The outcomes were not uploaded: {state.error}
        </p>
      ) : null}
      {refused.length > 0 ? (
        <table class="data cards refused-rows">
          <caption>Rows refused, by their line in the file (line 1 is the header)</caption>
          <thead>
            <tr>
              <th scope="col">Line</th>
              <th scope="col">Why it was refused</th>
            </tr>
          </thead>
          <tbody>
            {refused.map((row) => (
              <tr key={row.line}>
                <th scope="row" class="card-title">
                  Line {row.line}
                </th>
                <td data-label="Reason">{row.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

/**
 * How the lender's loans performed (`GET /api/performance`): bad rates by band, decision and
 * policy version, how well the score ranks them, expected against observed, vintage curves and
 * the score's drift, each figure from enough loans or the reason it is not given; and the forms
 * that feed it (the bad definition, an upload of outcomes).
 */
export function PerformancePage({ params }: { params: URLSearchParams }) {
  const query = performanceQuery(params);
  const [report, reload, updatedAt] = useLive(() => api.performance(query), params.toString());
  const shown = report.state === 'ok' ? report.value : null;
  return (
    <>
      <PageHeading>Performance</PageHeading>
      <Updated at={updatedAt} />
      {report.state === 'loading' ? <Loading what="the performance" /> : null}
      {report.state === 'error' ? <Problem error={report.error} what="The performance" /> : null}
      {shown ? (
        <>
          <p class="period">
            The loans the lender reported outcomes for, as they stand on <strong>{shown.asOf}</strong>.{' '}
            <a href={api.performanceCsvUrl(query)} download={`performance-${shown.asOf}.csv`}>
              Download CSV
            </a>
          </p>
          <Headline report={shown} />
          {shown.loans === 0 ? (
            <p class="notice" role="status">
              No loan outcomes have been reported yet, so there is nothing to measure: report them below, or over the
              API, and the figures appear here.
            </p>
          ) : null}
          <Figures report={shown} />
          <Drift report={shown} params={params} />
          <BadDefinitionForm bad={shown.badDefinition} onSaved={reload} />
        </>
      ) : null}
      <UploadForm onUploaded={reload} />
    </>
  );
}
