import { api, type DecisionOutcome, type PortfolioReport } from '../api';
import { BarChart } from '../charts';
import { say } from '../labels';
import { money } from '../model';
import { navigate } from '../nav';
import { bucketLabels, durationWords, percent, presets, shortDay } from '../portfolioModel';
import { Figure, FigureTable } from '../figures';
import { Loading, PageHeading, Problem, Updated, useLive } from '../ui';

const DECISIONS: DecisionOutcome[] = ['APPROVED', 'COUNTER_OFFER', 'MANUAL_REVIEW', 'DECLINED'];
/** The decisions' colours, as their badges have them; each series is named in the legend and the table. */
const DECISION_COLOUR: Record<DecisionOutcome, string> = {
  APPROVED: '#1b7a3a',
  COUNTER_OFFER: '#b06000',
  MANUAL_REVIEW: '#6a4fb3',
  DECLINED: '#b3261e',
};
/** Why an application was abandoned, short enough for a chart's axis. */
const ABANDONED_BECAUSE = { no_link: 'No account linked in time', no_analyze: 'No analysis asked for in time' };
const UNDECIDED_COLOUR = '#8a96a3';
const BLUE = '#1f5fa8';

function Headline({ report }: { report: PortfolioReport }) {
  const decided = report.decisionTime.decided;
  return (
    <dl class="facts headline portfolio-headline">
      <div>
        <dt>Applications</dt>
        <dd>{report.applications.toLocaleString('en-NG')}</dd>
      </div>
      <div>
        <dt>Approval rate</dt>
        <dd>
          {percent(report.approvalRate)}
          <span class="hint"> of {decided.toLocaleString('en-NG')} decided</span>
        </dd>
      </div>
      <div>
        <dt>Average approved amount</dt>
        <dd>{report.averageApprovedAmount === null ? '—' : money(report.averageApprovedAmount)}</dd>
      </div>
      <div>
        <dt>Time to decision</dt>
        <dd>
          {durationWords(report.decisionTime.medianSeconds)}
          <span class="hint"> median; 90% within {durationWords(report.decisionTime.p90Seconds)}</span>
        </dd>
      </div>
      <div>
        <dt>Webhooks delivered</dt>
        <dd>
          {percent(report.webhooks.deliveredRate)}
          <span class="hint"> of {report.webhooks.deliveries.toLocaleString('en-NG')} deliveries</span>
        </dd>
      </div>
    </dl>
  );
}

function Charts({ report }: { report: PortfolioReport }) {
  const days = report.days;
  const statuses = Object.entries(report.byStatus) as [string, number][];
  const buckets = bucketLabels(report.decisionTime.buckets.map((b) => b.upToSeconds));
  const abandoned = Object.entries(report.abandoned) as [string, number][];
  const deliveries = Object.entries(report.webhooks.byStatus) as [string, number][];
  return (
    <>
      <Figure
        id="by-day"
        title="Applications by day and what became of them"
        chart={
          <BarChart
            label={`Applications created each day from ${report.from} to ${report.to}, by decision: ${report.applications} in all`}
            categories={days.map((d) => shortDay(d.day))}
            series={[
              ...DECISIONS.map((outcome) => ({
                label: say(outcome, 'decision'),
                values: days.map((d) => d.byDecision[outcome]),
                colour: DECISION_COLOUR[outcome],
              })),
              { label: 'Not decided', values: days.map((d) => d.undecided), colour: UNDECIDED_COLOUR },
            ]}
            stacked
            whole
          />
        }
        table={
          <details class="figure-table">
            <summary>The numbers by day</summary>
            <FigureTable
              caption="Applications created each day, by decision"
              headers={['Day', 'Created', ...DECISIONS.map((o) => say(o, 'decision')), 'Not decided']}
              rows={[...days]
                .reverse()
                .map((d) => [d.day, d.created, ...DECISIONS.map((o) => d.byDecision[o]), d.undecided])}
              cards
            />
          </details>
        }
      />
      <Figure
        id="by-status"
        title="Where they stand"
        chart={
          <BarChart
            label={`Applications by status: ${statuses.map(([s, n]) => `${say(s, 'status')} ${n}`).join(', ')}`}
            categories={statuses.map(([s]) => say(s, 'status'))}
            series={[{ label: 'Applications', values: statuses.map(([, n]) => n), colour: BLUE }]}
            horizontal
            whole
          />
        }
        table={
          <FigureTable
            caption="Applications by status"
            headers={['Status', 'Applications']}
            rows={statuses.map(([s, n]) => [say(s, 'status'), n])}
          />
        }
      />
      <Figure
        id="by-decision"
        title="Decisions"
        chart={
          <BarChart
            label={`Decisions: ${DECISIONS.map((o) => `${say(o, 'decision')} ${report.byDecision[o]}`).join(', ')}`}
            categories={DECISIONS.map((o) => say(o, 'decision'))}
            series={[{ label: 'Decisions', values: DECISIONS.map((o) => report.byDecision[o]), colour: BLUE }]}
            horizontal
            whole
          />
        }
        table={
          <FigureTable
            caption="Decisions by outcome"
            headers={['Decision', 'Applications']}
            rows={DECISIONS.map((o) => [say(o, 'decision'), report.byDecision[o]])}
          />
        }
      />
      <Figure
        id="scores"
        title="Scores"
        chart={
          <BarChart
            label={`Decided applications by score: ${report.scoreBands.map((b) => `${b.from} to ${b.to}: ${b.count}`).join(', ')}`}
            categories={report.scoreBands.map((b) => `${b.from}–${b.to}`)}
            series={[{ label: 'Applications', values: report.scoreBands.map((b) => b.count), colour: BLUE }]}
            whole
          />
        }
        table={
          <details class="figure-table">
            <summary>The numbers by score</summary>
            <FigureTable
              caption="Decided applications by score (out of 100)"
              headers={['Score', 'Applications']}
              rows={report.scoreBands.map((b) => [`${b.from} to ${b.to}`, b.count])}
            />
          </details>
        }
      />
      <Figure
        id="decision-time"
        title="Time from initiate to decision"
        chart={
          <BarChart
            label={`Time to decision: ${buckets.map((b, i) => `${b}: ${report.decisionTime.buckets[i]!.count}`).join(', ')}`}
            categories={buckets}
            series={[{ label: 'Applications', values: report.decisionTime.buckets.map((b) => b.count), colour: BLUE }]}
            horizontal
            whole
          />
        }
        table={
          <FigureTable
            caption={`Time to decision: median ${durationWords(report.decisionTime.medianSeconds)}`}
            headers={['Time', 'Applications']}
            rows={buckets.map((b, i) => [b, report.decisionTime.buckets[i]!.count])}
          />
        }
      />
      <Figure
        id="abandoned"
        title="Abandoned, and why"
        chart={
          <BarChart
            label={`Abandoned applications by reason: ${abandoned.map(([r, n]) => `${ABANDONED_BECAUSE[r as keyof typeof ABANDONED_BECAUSE]} ${n}`).join(', ')}`}
            categories={abandoned.map(([r]) => ABANDONED_BECAUSE[r as keyof typeof ABANDONED_BECAUSE])}
            series={[{ label: 'Applications', values: abandoned.map(([, n]) => n), colour: '#b06000' }]}
            horizontal
            whole
          />
        }
        table={
          <FigureTable
            caption="Abandoned applications by reason"
            headers={['Reason', 'Applications']}
            rows={abandoned.map(([r, n]) => [ABANDONED_BECAUSE[r as keyof typeof ABANDONED_BECAUSE], n])}
          />
        }
      />
      <Figure
        id="webhooks"
        title="Webhook deliveries"
        chart={
          <BarChart
            label={`Webhook deliveries by status: ${deliveries.map(([s, n]) => `${say(s, 'delivery')} ${n}`).join(', ')}`}
            categories={deliveries.map(([s]) => say(s, 'delivery'))}
            series={[{ label: 'Deliveries', values: deliveries.map(([, n]) => n), colour: BLUE }]}
            horizontal
            whole
          />
        }
        table={
          <FigureTable
            caption={`Webhook deliveries: ${percent(report.webhooks.deliveredRate)} of those finished were delivered`}
            headers={['Status', 'Deliveries']}
            rows={deliveries.map(([s, n]) => [say(s, 'delivery'), n])}
          />
        }
      />
    </>
  );
}

/**
 * The home page: the lender's numbers over a period of its days (the last 30 by default),
 * counted by the services that own them (`GET /api/portfolio`), each chart with its table.
 */
export function PortfolioPage({ params }: { params: URLSearchParams }) {
  const from = params.get('from') || undefined;
  const to = params.get('to') || undefined;
  const [report, , updatedAt] = useLive(() => api.portfolio({ from, to }), params.toString());

  function choose(event: Event) {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => String(form.get(name) ?? '').trim() || undefined;
    navigate('/portfolio', { from: text('from'), to: text('to') });
  }

  const shown = report.state === 'ok' ? report.value : null;
  return (
    <>
      <PageHeading>Portfolio</PageHeading>
      <Updated at={updatedAt} />
      <form key={params.toString()} class="filters" onSubmit={choose} aria-label="Period">
        <div class="field">
          <label for="portfolio-from">From</label>
          <input id="portfolio-from" name="from" type="date" defaultValue={from ?? shown?.from ?? ''} />
        </div>
        <div class="field">
          <label for="portfolio-to">To</label>
          <input id="portfolio-to" name="to" type="date" defaultValue={to ?? shown?.to ?? ''} />
        </div>
        <button type="submit">Show</button>
      </form>
      {shown ? (
        <p class="presets">
          {presets(shown.days.length > 0 && !to ? shown.to : (to ?? shown.to)).map((p) => (
            <a key={p.label} href={`#/portfolio?from=${p.from}&to=${p.to}`}>
              {p.label}
            </a>
          ))}
        </p>
      ) : null}
      {report.state === 'loading' ? <Loading what="the portfolio" /> : null}
      {report.state === 'error' ? <Problem error={report.error} what="The portfolio" /> : null}
      {shown ? (
        <>
          <p class="period">
            Applications created from <strong>{shown.from}</strong> to <strong>{shown.to}</strong> (days in{' '}
            {shown.timeZone}), as they stand now.{' '}
            <a href={`#/applications?from=${shown.from}&to=${shown.to}`}>List them</a>
          </p>
          <Headline report={shown} />
          <Charts report={shown} />
        </>
      ) : null}
    </>
  );
}
