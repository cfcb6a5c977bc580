import type { ApplicationView, MonthlyFlow } from '../api';
import { BREAKDOWN_MAX, BREAKDOWN_PARTS, money, monthLabel } from '../model';

type Decision = NonNullable<ApplicationView['decision']>;

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
