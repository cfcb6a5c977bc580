import type { ComponentChildren } from 'preact';

/** A table cell: a count, a figure in words, or, where there is no figure, the reason in words. */
export type Cell = string | number | { note: string };

/**
 * A chart's numbers as a table under it, what a reader who cannot see the chart reads: a count,
 * a figure in words, or, where there is no figure, its reason in words in that cell.
 */
export function FigureTable(props: { caption: string; headers: string[]; rows: Cell[][]; cards?: boolean }) {
  return (
    <table class={props.cards ? 'data cards' : 'data'}>
      <caption>{props.caption}</caption>
      <thead>
        <tr>
          {props.headers.map((h, i) => (
            <th key={h} scope="col" class={i === 0 ? undefined : 'num'}>
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row, r) => (
          <tr key={r}>
            {row.map((cell, i) => {
              if (i === 0)
                return (
                  <th key={i} scope="row" class={props.cards ? 'card-title' : undefined}>
                    {typeof cell === 'object' ? cell.note : cell}
                  </th>
                );
              if (typeof cell === 'object')
                return (
                  <td key={i} class="figure-note" data-label={props.headers[i]}>
                    {cell.note}
                  </td>
                );
              return (
                <td key={i} class="num" data-label={props.headers[i]}>
                  {typeof cell === 'number' ? cell.toLocaleString('en-NG') : cell}
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One chart and its table, under a heading. */
export function Figure(props: { id: string; title: string; chart: ComponentChildren; table: ComponentChildren }) {
  return (
    <section class="portfolio-figure" aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      <div class="chart-with-table">
        {props.chart}
        {props.table}
      </div>
    </section>
  );
}
