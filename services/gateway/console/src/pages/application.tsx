import { useState } from 'preact/hooks';
import { api, ApiError, type ApplicationView, type DeliveryView } from '../api';
import { BarChart } from '../charts';
import {
  attemptsSummary,
  BREAKDOWN_MAX,
  BREAKDOWN_PARTS,
  money,
  monthlyFlowsOf,
  storyOf,
  termsOf,
  tracesUrl,
} from '../model';
import { say } from '../labels';
import { Badge, Loading, PageHeading, Problem, ShortId, Time, Updated, useLive } from '../ui';
import { BreakdownTable, flowMonthLabel, FlowsTable, KeyFactsPanel, OfferStatus, TermsFacts } from './decisionParts';
import { ContestSection, ReviewSection } from './review';
import { badnessWords, inOrder, outcomeWords } from '../performanceModel';
import { may } from '../permissions';
import { useSession } from '../session';

/** Redelivers one webhook delivery and says how it went. */
export function RedeliverButton({ delivery, onDone }: { delivery: DeliveryView; onDone: () => void }) {
  const [state, setState] = useState<{ busy: boolean; message?: string; failed?: boolean }>({ busy: false });
  // Redelivery is a developer's (or an owner's): other roles are not offered it.
  if (!may(useSession(), 'developer')) return null;
  return (
    <span class="redeliver">
      <button
        type="button"
        disabled={state.busy}
        aria-label={`Redeliver ${delivery.event} (${delivery.id})`}
        onClick={() => {
          setState({ busy: true });
          api.redeliver(delivery.id).then(
            () => {
              setState({ busy: false, message: 'Redelivery queued' });
              onDone();
            },
            (e: unknown) =>
              setState({ busy: false, failed: true, message: e instanceof ApiError ? e.message : String(e) }),
          );
        }}
      >
        Redeliver
      </button>
      {state.message ? (
        <span class={state.failed ? 'inline-error' : 'inline-ok'} role={state.failed ? 'alert' : 'status'}>
          {state.message}
        </span>
      ) : null}
    </span>
  );
}

/** One webhook delivery folded under the step it announced: its outcome, its attempts on demand, a redelivery. */
function FoldedDelivery({ delivery, onRedelivered }: { delivery: DeliveryView; onRedelivered: () => void }) {
  return (
    <li>
      <span class="delivery-event" title={delivery.event}>
        Webhook {say(delivery.event, 'event')}
      </span>
      : <Badge value={delivery.status} kind="delivery" /> <span class="detail">{attemptsSummary(delivery)}</span>{' '}
      <RedeliverButton delivery={delivery} onDone={onRedelivered} />
      {delivery.attempts.length > 0 ? (
        <details>
          <summary>Attempts</summary>
          <ul class="attempts" aria-label={`Attempts of ${delivery.event}`}>
            {delivery.attempts.map((attempt, n) => (
              <li key={n}>
                {attempt.manual ? 'Redelivery' : 'Attempt'} {n + 1} at <Time iso={attempt.at} />:{' '}
                {attempt.statusCode === null
                  ? `no answer${attempt.error ? ` (${attempt.error})` : ''}`
                  : `HTTP ${attempt.statusCode}`}{' '}
                in {Math.round(attempt.durationMs)} ms
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </li>
  );
}

/**
 * An account's consent: given (and until when it stands unless used again or withdrawn), or how
 * and when it ended, and whether the account is erased yet (its deletion receipt is then ready).
 */
function ConsentCell({ consent }: { consent: ApplicationView['accounts'][number]['consent'] }) {
  if (!consent) return <span class="muted">Not recorded</span>;
  if (consent.status === 'ACTIVE') {
    const ends = consent.lapsesAt < consent.expiresAt ? consent.lapsesAt : consent.expiresAt;
    return (
      <>
        <Badge value={consent.status} kind="consent" />{' '}
        <span class="muted">
          until <Time iso={ends} />
        </span>
      </>
    );
  }
  return (
    <>
      <Badge value={consent.status} kind="consent" />{' '}
      <span class="muted">
        <Time iso={consent.endedAt!} />
        {consent.bankDataErasedAt ? ', bank data erased' : ', erasing bank data'}
      </span>
    </>
  );
}

function Timeline({
  application,
  deliveries,
  onRedelivered,
}: {
  application: ApplicationView;
  deliveries: DeliveryView[];
  onRedelivered: () => void;
}) {
  const steps = storyOf(application, deliveries);
  return (
    <ol class="timeline">
      {steps.map((step, i) => (
        <li key={`${step.at}-${i}`}>
          <Time iso={step.at} />
          <div>
            <strong title={step.code}>{step.title}</strong>
            {step.detail ? <span class="detail">: {step.detail}</span> : null}
            {step.deliveries.length > 0 ? (
              <ul class="deliveries" aria-label={`Webhooks of: ${step.title}`}>
                {step.deliveries.map((delivery) => (
                  <FoldedDelivery key={delivery.id} delivery={delivery} onRedelivered={onRedelivered} />
                ))}
              </ul>
            ) : null}
          </div>
        </li>
      ))}
    </ol>
  );
}

function Decision({ application }: { application: ApplicationView }) {
  const decision = application.decision;
  const flows = monthlyFlowsOf(application);
  if (!decision) {
    return (
      <section aria-labelledby="decision-heading">
        <h2 id="decision-heading">Decision</h2>
        <p>
          No decision yet
          {application.failureReason ? (
            <>
              : the application failed (
              <span title={application.failureReason}>{say(application.failureReason, 'failureReason')}</span>)
            </>
          ) : null}
          .
        </p>
      </section>
    );
  }
  const breakdown = decision.score_breakdown;
  const offered = termsOf(decision);
  return (
    <section aria-labelledby="decision-heading" class="decision">
      <h2 id="decision-heading">Decision</h2>
      <dl class="facts headline">
        <div>
          <dt>Outcome</dt>
          <dd>
            <Badge value={decision.decision} kind="decision" />
          </dd>
        </div>
        <div>
          <dt>Score</dt>
          <dd>
            <span class="score">{decision.score}</span> <span class="out-of">of {BREAKDOWN_MAX.total}</span>
          </dd>
        </div>
        <div>
          <dt>Band</dt>
          <dd>
            <Badge value={decision.score_band} kind="band" />
          </dd>
        </div>
        <div>
          <dt>Decided</dt>
          <dd>
            <Time iso={decision.timestamp} />
          </dd>
        </div>
      </dl>

      <h3 id="explanation-heading">Explanation</h3>
      <p class="primary-reason">{decision.explainability.primary_reason}</p>
      <div class="columns">
        <div>
          <h4>Strengths</h4>
          {decision.explainability.key_strengths.length ? (
            <ul>
              {decision.explainability.key_strengths.map((s) => (
                <li key={s}>{s}</li>
              ))}
            </ul>
          ) : (
            <p>None noted.</p>
          )}
        </div>
        <div>
          <h4>Weaknesses</h4>
          {decision.explainability.key_weaknesses.length ? (
            <ul>
              {decision.explainability.key_weaknesses.map((s) => (
                <li key={s}>{s}</li>
              ))}
            </ul>
          ) : (
            <p>None noted.</p>
          )}
        </div>
      </div>

      {/* On paper the breakdown stands beside the terms and risks, so a summary stays on one page. */}
      <div class="print-pair">
        <div>
          <h3 id="breakdown-heading">Score breakdown</h3>
          <div class="chart-with-table">
            <BarChart
              label={`Score breakdown: ${BREAKDOWN_PARTS.map(([key, label]) => `${label} ${breakdown[key]} of ${BREAKDOWN_MAX[key]}`).join(', ')}; total ${breakdown.total} of ${BREAKDOWN_MAX.total}`}
              categories={BREAKDOWN_PARTS.map(([key, label]) => `${label} (of ${BREAKDOWN_MAX[key]})`)}
              series={[
                { label: 'Points', values: BREAKDOWN_PARTS.map(([key]) => breakdown[key]), colour: '#1f5fa8' },
                {
                  label: 'Short of the maximum',
                  values: BREAKDOWN_PARTS.map(([key]) =>
                    Math.max(0, Math.round((BREAKDOWN_MAX[key] - breakdown[key]) * 100) / 100),
                  ),
                  colour: '#d5dbe3',
                },
              ]}
              max={Math.max(...BREAKDOWN_PARTS.map(([key]) => BREAKDOWN_MAX[key]))}
              horizontal
              stacked
            />
            <BreakdownTable breakdown={breakdown} labelledBy="breakdown-heading" />
          </div>
        </div>

        <h3 id="flows-heading" class="screen-only">
          Monthly inflows and outflows
        </h3>
        {flows && flows.length > 0 ? (
          <div class="chart-with-table screen-only">
            <BarChart
              label={`Monthly inflows and outflows over ${flows.length} months, all accounts`}
              categories={flows.map(flowMonthLabel)}
              series={[
                { label: 'Inflow', values: flows.map((f) => f.inflow), colour: '#1b7a3a' },
                { label: 'Outflow', values: flows.map((f) => f.outflow), colour: '#b3261e' },
              ]}
              format={money}
            />
            <FlowsTable flows={flows} labelledBy="flows-heading" />
          </div>
        ) : (
          <p class="notice screen-only" role="status">
            Monthly flows are not available for this application.
          </p>
        )}

        <div>
          {offered ? (
            <section aria-labelledby="terms-heading" class="terms">
              <h3 id="terms-heading">{offered.heading}</h3>
              {decision.decision === 'APPROVED' ? null : (
                <p class="hint">
                  Asked for: {money(application.loan.amount)} over {application.loan.tenor} months at{' '}
                  {application.loan.interestRate}% a month.
                </p>
              )}
              <TermsFacts terms={offered.terms} />
              {offered.reason ? <p>{offered.reason}</p> : null}
              {offered.tenors.length > 0 ? (
                <p>Affordable tenors: {offered.tenors.map((t) => `${t}`).join(', ')} months.</p>
              ) : null}
            </section>
          ) : null}
          {decision.key_facts ? <KeyFactsPanel facts={decision.key_facts} id="key-facts" /> : null}
          {application.offer ? <OfferStatus offer={application.offer} /> : null}

          <h3 id="risk-heading">Risk factors</h3>
          {decision.risk_factors.length ? (
            <ul class="risks">
              {decision.risk_factors.map((risk) => (
                <li key={risk.code}>
                  <Badge value={risk.severity} kind="severity" /> <span title={risk.code}>{risk.description}</span>
                </li>
              ))}
            </ul>
          ) : (
            <p>No risk factor was found.</p>
          )}
          {decision.manual_review_reasons.length ? (
            <>
              <h3>Manual review</h3>
              <ul>
                {decision.manual_review_reasons.map((r) => (
                  <li key={r.code} title={r.code}>
                    {r.description}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </div>
      </div>
    </section>
  );
}

/** One application: summary, timeline with its webhook deliveries, accounts and the explained decision. */
/** The application's traces in the trace UI, for developers, when the gateway names one. */
function TracesLink({ application }: { application: ApplicationView }) {
  const session = useSession();
  if (!session?.traceUiUrl || !may(session, 'developer')) return null;
  return (
    <p class="hint">
      <a href={tracesUrl(session.traceUiUrl, application)} target="_blank" rel="noopener noreferrer">
        Traces of this application
      </a>{' '}
      (each request and linking, through every service, in the trace UI)
    </p>
  );
}

/**
 * The loan's outcomes as the lender reported them, and where it stands by them. Only an offer the
 * applicant accepted can be disbursed, so no other application is asked for them; an accepted
 * one without outcomes (404) shows nothing.
 */
function LoanOutcomesSection({ applicationId }: { applicationId: string }) {
  const [loaded] = useLive(() => api.outcomes(applicationId), applicationId);
  if (loaded.state !== 'ok') return null;
  const { loan, outcomes } = loaded.value;
  return (
    <section aria-labelledby="outcomes-heading" class="loan-outcomes">
      <h2 id="outcomes-heading">Loan outcomes</h2>
      <dl class="facts">
        <div>
          <dt>Loan</dt>
          <dd>
            <Badge value={loan.status} kind="loanStatus" />
          </dd>
        </div>
        <div>
          <dt>Disbursed</dt>
          <dd>
            {money(loan.disbursed.amount)} on {loan.disbursed.date}, {loan.tenor} months
          </dd>
        </div>
        <div>
          <dt>Days past due</dt>
          <dd>
            {loan.currentDaysPastDue} now, {loan.maxDaysPastDue} at most
          </dd>
        </div>
        <div>
          <dt>By the lender's bad definition</dt>
          <dd>{badnessWords(loan.bad)}</dd>
        </div>
      </dl>
      <ol class="outcome-list" aria-label="Outcomes in the order they apply">
        {inOrder(outcomes).map((outcome) => (
          <li key={outcome.outcomeId}>
            <span class="outcome-date">{outcome.date}</span> {outcomeWords(outcome)}
          </li>
        ))}
      </ol>
      <p class="hint">
        <a href="#/performance">How all the lender's loans perform</a>
      </p>
    </section>
  );
}

export function ApplicationPage({ applicationId }: { applicationId: string }) {
  // The page follows the application as it moves on (a decision, a review, a redelivery).
  const [application, reloadApplication, updatedAt] = useLive(() => api.application(applicationId), applicationId);
  const [deliveries, reloadDeliveries] = useLive(() => api.deliveries({ applicationId, limit: 100 }), applicationId);

  if (application.state === 'loading') return <Loading what="the application" />;
  if (application.state === 'error') {
    return (
      <>
        <PageHeading>Application</PageHeading>
        {application.error.status === 404 ? (
          <p class="notice" role="status">
            Application {applicationId} was not found.
          </p>
        ) : (
          <Problem error={application.error} what="The application" />
        )}
        <p>
          <a href="#/applications">Back to the applications</a>
        </p>
      </>
    );
  }
  const app = application.value;
  return (
    <>
      <p class="crumbs">
        <a href="#/applications">Applications</a>
      </p>
      <PageHeading>
        {app.applicant.firstName} {app.applicant.lastName} <Badge value={app.status} kind="status" />
      </PageHeading>
      <Updated at={updatedAt} />
      <p class="print-only">
        Decision summary as of <Time iso={updatedAt} />.
      </p>
      {app.decision ? (
        <p class="print-action">
          <button type="button" onClick={() => window.print()}>
            Print decision summary
          </button>{' '}
          <span class="hint">
            One page for the credit file: the ask, the decision, its reasons and terms, the accounts and the review.
          </span>
        </p>
      ) : null}
      <dl class="facts summary">
        <div>
          <dt>Application</dt>
          <dd>
            <ShortId id={app.applicationId} what="application" />
          </dd>
        </div>
        <div>
          <dt>Applicant</dt>
          <dd>
            <ShortId id={app.applicantId} what="applicant" />
          </dd>
        </div>
        <div>
          <dt>E-mail</dt>
          <dd>{app.applicant.email}</dd>
        </div>
        <div>
          <dt>Amount</dt>
          <dd>{money(app.loan.amount)}</dd>
        </div>
        <div>
          <dt>Tenor</dt>
          <dd>{app.loan.tenor} months</dd>
        </div>
        <div>
          <dt>Interest</dt>
          <dd>{app.loan.interestRate}% a month</dd>
        </div>
        {app.loan.purpose ? (
          <div>
            <dt>Purpose</dt>
            <dd>{app.loan.purpose}</dd>
          </div>
        ) : null}
        <div>
          <dt>Created</dt>
          <dd>
            <Time iso={app.createdAt} />
          </dd>
        </div>
      </dl>
      {app.abandonReason ? (
        <p class="notice" role="status">
          Abandoned: <span title={app.abandonReason}>{say(app.abandonReason, 'abandonReason')}</span>.
        </p>
      ) : null}

      <ReviewSection application={app} onChanged={reloadApplication} />
      <ContestSection application={app} onChanged={reloadApplication} />

      <Decision application={app} />
      {app.offer && (app.offer.status === 'ACCEPTED' || app.offer.status === 'WITHDRAWN') ? (
        <LoanOutcomesSection applicationId={app.applicationId} />
      ) : null}

      <section aria-labelledby="accounts-heading">
        <h2 id="accounts-heading">Accounts</h2>
        {app.accounts.length ? (
          <table class="data cards">
            <thead>
              <tr>
                <th scope="col">Bank</th>
                <th scope="col">Account number</th>
                <th scope="col">Enrichment</th>
                <th scope="col">Linked</th>
                <th scope="col">Consent</th>
              </tr>
            </thead>
            <tbody>
              {app.accounts.map((account) => (
                <tr key={account.accountId}>
                  <td data-label="Bank">{account.institution}</td>
                  <td data-label="Account number">{account.accountNumber}</td>
                  <td data-label="Enrichment">
                    <Badge value={account.enrichmentStatus} kind="enrichment" />
                  </td>
                  <td data-label="Linked">
                    <Time iso={account.linkedAt} />
                  </td>
                  <td data-label="Consent">
                    <ConsentCell consent={account.consent} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p>No account linked yet.</p>
        )}
      </section>

      <section aria-labelledby="timeline-heading" class="screen-only">
        <h2 id="timeline-heading">Timeline</h2>
        {deliveries.state === 'error' ? <Problem error={deliveries.error} what="The webhook delivery log" /> : null}
        {deliveries.state === 'loading' ? <Loading what="the webhook deliveries" /> : null}
        <Timeline
          application={app}
          deliveries={deliveries.state === 'ok' ? deliveries.value.data : []}
          onRedelivered={reloadDeliveries}
        />
        {deliveries.state === 'ok' && deliveries.value.data.length > 0 ? (
          <p class="hint">
            {deliveries.value.data.length === 1
              ? '1 webhook delivery'
              : `${deliveries.value.data.length} webhook deliveries`}{' '}
            for this application, each under the step it announced.
          </p>
        ) : null}
        <TracesLink application={app} />
      </section>
    </>
  );
}
