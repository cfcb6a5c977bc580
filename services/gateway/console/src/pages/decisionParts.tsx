import type { ApplicationView, MonthlyFlow } from '../api';
import { BREAKDOWN_MAX, BREAKDOWN_PARTS, money, moneyToKobo, monthLabel } from '../model';

type Decision = NonNullable<ApplicationView['decision']>;
type KeyFacts = NonNullable<Decision['key_facts']>;
type Offer = NonNullable<ApplicationView['offer']>;

/** The score's parts and total, each with the most it can earn, as a table labelled by the heading `labelledBy`. */
export function BreakdownTable({
  breakdown,
  labelledBy,
}: {
  breakdown: Decision['score_breakdown'];
  labelledBy: string;
}) {
  return (
    <table class="data compact" aria-labelledby={labelledBy}>
      <thead>
        <tr>
          <th scope="col">Part</th>
          <th scope="col" class="num">
            Points
          </th>
        </tr>
      </thead>
      <tbody>
        {BREAKDOWN_PARTS.map(([key, label]) => (
          <tr key={key}>
            <th scope="row">
              {label} <span class="out-of">(of {BREAKDOWN_MAX[key]})</span>
            </th>
            <td class="num">{breakdown[key]}</td>
          </tr>
        ))}
        <tr class="total">
          <th scope="row">
            Total <span class="out-of">(of {BREAKDOWN_MAX.total})</span>
          </th>
          <td class="num">{breakdown.total}</td>
        </tr>
      </tbody>
    </table>
  );
}

/** A month's name, marked when the statement covers only part of it. */
export const flowMonthLabel = (flow: MonthlyFlow) => `${monthLabel(flow.month)}${flow.partial ? ' (partial)' : ''}`;

/** Money in and out per month, as a table labelled by the heading `labelledBy`; partial months are marked and explained. */
export function FlowsTable({ flows, labelledBy }: { flows: MonthlyFlow[]; labelledBy: string }) {
  const partial = flows.some((f) => f.partial);
  return (
    <table class="data compact" aria-labelledby={labelledBy}>
      {partial ? (
        <caption>Partial: the statement starts or ends within the month, so it holds only some days' money.</caption>
      ) : null}
      <thead>
        <tr>
          <th scope="col">Month</th>
          <th scope="col" class="num">
            Inflow
          </th>
          <th scope="col" class="num">
            Outflow
          </th>
        </tr>
      </thead>
      <tbody>
        {flows.map((f) => (
          <tr key={f.month}>
            <th scope="row">
              {monthLabel(f.month)}
              {f.partial ? <span class="out-of"> (partial)</span> : null}
            </th>
            <td class="num">{money(f.inflow)}</td>
            <td class="num">{money(f.outflow)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Loan terms: amount, tenor, interest and the monthly payment. */
export function TermsFacts({ terms }: { terms: Decision['approval_details'] }) {
  return (
    <dl class="facts">
      <div>
        <dt>Amount</dt>
        <dd>{money(terms.approved_amount)}</dd>
      </div>
      <div>
        <dt>Tenor</dt>
        <dd>{terms.approved_tenor} months</dd>
      </div>
      <div>
        <dt>Interest</dt>
        <dd>{terms.approved_interest}% a month</dd>
      </div>
      <div>
        <dt>Monthly payment</dt>
        <dd>{money(terms.monthly_payment)}</dd>
      </div>
    </dl>
  );
}

const dayLabel = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString('en-NG', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });

/** The Key Facts Statement of an offer: what is paid out, every fee, the totals, the APR and the schedule. */
export function KeyFactsPanel({ facts, id }: { facts: KeyFacts; id: string }) {
  const sum = (pick: (row: KeyFacts['schedule'][number]) => number) =>
    facts.schedule.reduce((total, row) => total + Math.round(pick(row) * 100), 0) / 100;
  return (
    <section aria-labelledby={`${id}-heading`} class="key-facts">
      <h3 id={`${id}-heading`}>Key facts</h3>
      <dl class="facts">
        <div>
          <dt>APR</dt>
          <dd>{facts.apr_percent.toFixed(2)}%</dd>
        </div>
        <div>
          <dt>Paid out</dt>
          <dd>{moneyToKobo(facts.amount_disbursed)}</dd>
        </div>
        <div>
          <dt>Total repayable</dt>
          <dd>{moneyToKobo(facts.total_repayable)}</dd>
        </div>
        <div>
          <dt>Cost of credit</dt>
          <dd>{moneyToKobo(facts.total_cost_of_credit)}</dd>
        </div>
      </dl>
      {/* The printed one-page summary keeps the four figures; the fees and the schedule are the screen's. */}
      {facts.fees.length > 0 ? (
        <ul class="fees screen-only">
          {facts.fees.map((fee) => (
            <li key={fee.code}>
              {fee.description}: {moneyToKobo(fee.amount)}
            </li>
          ))}
          <li>
            {facts.fee_collection === 'UPFRONT'
              ? 'Fees are taken from the amount paid out.'
              : 'Fees are spread over the instalments.'}
          </li>
        </ul>
      ) : (
        <p class="screen-only">No fees.</p>
      )}
      <p class="hint screen-only">{facts.schedule_basis.reason}.</p>
      {/* Six columns may be wider than a phone: the table scrolls on its own, reachable by keyboard. */}
      <div
        class="table-scroll screen-only"
        tabIndex={0}
        role="region"
        aria-label="Repayment schedule, scrolls sideways"
      >
        <table class="data compact" aria-label="Repayment schedule">
          <thead>
            <tr>
              <th scope="col">No.</th>
              <th scope="col">Due</th>
              <th scope="col" class="num">
                Principal
              </th>
              <th scope="col" class="num">
                Interest
              </th>
              <th scope="col" class="num">
                Fees
              </th>
              <th scope="col" class="num">
                Amount
              </th>
            </tr>
          </thead>
          <tbody>
            {facts.schedule.map((row) => (
              <tr key={row.number}>
                <th scope="row">{row.number}</th>
                <td>{dayLabel(row.due_date)}</td>
                <td class="num">{moneyToKobo(row.principal)}</td>
                <td class="num">{moneyToKobo(row.interest)}</td>
                <td class="num">{moneyToKobo(row.fees)}</td>
                <td class="num">{moneyToKobo(row.amount)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colSpan={2}>
                Total
              </th>
              <td class="num">{moneyToKobo(sum((r) => r.principal))}</td>
              <td class="num">{moneyToKobo(sum((r) => r.interest))}</td>
              <td class="num">{moneyToKobo(sum((r) => r.fees))}</td>
              <td class="num">{moneyToKobo(sum((r) => r.amount))}</td>
            </tr>
          </tfoot>
        </table>
      </div>
    </section>
  );
}

const instant = (iso: string) =>
  new Date(iso).toLocaleString('en-NG', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Africa/Lagos' });

/** Where the offer stands: open until it expires, answered, or withdrawn in its cooling-off period (Lagos times). */
export function OfferStatus({ offer }: { offer: Offer }) {
  const said = {
    OPEN: `Open: the applicant has until ${instant(offer.expiresAt)} to accept or decline it.`,
    EXPIRED: `Expired on ${instant(offer.expiresAt)} without an answer.`,
    DECLINED: `Declined by the applicant on ${instant(offer.declinedAt ?? offer.madeAt)}.`,
    ACCEPTED: `Accepted on ${instant(offer.acceptedAt ?? offer.madeAt)}; the applicant may withdraw without cost until ${instant(offer.coolingOffEndsAt ?? offer.madeAt)}.`,
    WITHDRAWN: `Accepted on ${instant(offer.acceptedAt ?? offer.madeAt)}, withdrawn on ${instant(offer.withdrawnAt ?? offer.madeAt)} in the cooling-off period.`,
  }[offer.status];
  return (
    <section aria-labelledby="offer-heading" class="offer">
      <h3 id="offer-heading">Offer</h3>
      <p id="offer-status">{said}</p>
    </section>
  );
}
