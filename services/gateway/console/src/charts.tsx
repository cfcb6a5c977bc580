import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';

Chart.register(
  BarController,
  BarElement,
  LineController,
  LineElement,
  PointElement,
  CategoryScale,
  LinearScale,
  Legend,
  Tooltip,
);

export interface Series {
  label: string;
  /** null: no figure for that category (too few loans), drawn as nothing rather than as 0. */
  values: (number | null)[];
  colour: string;
  /** A line drawn dashed, told from a solid one of the same colour by more than its colour. */
  dashed?: boolean;
}

/**
 * A bar chart drawn on a canvas by Chart.js. The canvas is an image with a label; the same
 * numbers are in the table every caller puts beside it, for readers who cannot see the chart.
 */
export function BarChart(props: {
  label: string;
  categories: string[];
  series: Series[];
  horizontal?: boolean;
  max?: number;
  /** The series stack into one bar per category (a part and what it falls short of its maximum). */
  stacked?: boolean;
  format?: (n: number) => string;
  /** The values are counts: the axis shows whole numbers only. */
  whole?: boolean;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const data = JSON.stringify([
    props.categories,
    props.series,
    props.horizontal,
    props.max,
    props.stacked,
    props.whole,
  ]);
  useEffect(() => {
    if (!canvas.current) return undefined;
    const format = props.format ?? ((n: number) => String(n));
    const stacked = props.stacked ?? false;
    const valueAxis = {
      beginAtZero: true,
      max: props.max,
      stacked,
      ticks: {
        color: '#333',
        precision: props.whole ? 0 : undefined,
        callback: (value: string | number) => format(Number(value)),
      },
    };
    const chart = new Chart(canvas.current, {
      type: 'bar',
      data: {
        labels: props.categories,
        datasets: props.series.map((s) => ({
          label: s.label,
          data: s.values,
          backgroundColor: s.colour,
          borderColor: s.colour,
        })),
      },
      options: {
        indexAxis: props.horizontal ? 'y' : 'x',
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: {
          legend: { display: props.series.length > 1, labels: { color: '#1a1a1a' } },
          tooltip: { callbacks: { label: (item) => `${item.dataset.label ?? ''}: ${format(Number(item.raw))}` } },
        },
        scales: props.horizontal
          ? { x: valueAxis, y: { stacked, ticks: { color: '#1a1a1a' } } }
          : { y: valueAxis, x: { stacked, ticks: { color: '#1a1a1a' } } },
      },
    });
    return () => chart.destroy();
  }, [data]);
  return (
    <div class="chart">
      <canvas ref={canvas} role="img" aria-label={props.label} />
    </div>
  );
}

/**
 * A line chart on a canvas: one line per series over the categories (months on book), with a
 * point at each value. Like the bar chart, an image with a label beside a table of its numbers.
 */
export function LineChart(props: {
  label: string;
  categories: string[];
  series: Series[];
  max?: number;
  format?: (n: number) => string;
  /** The category axis's title: what the categories count. */
  axisTitle?: string;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const data = JSON.stringify([props.categories, props.series, props.max, props.axisTitle]);
  useEffect(() => {
    if (!canvas.current) return undefined;
    const format = props.format ?? ((n: number) => String(n));
    const chart = new Chart(canvas.current, {
      type: 'line',
      data: {
        labels: props.categories,
        datasets: props.series.map((s) => ({
          label: s.label,
          data: s.values,
          borderColor: s.colour,
          backgroundColor: s.colour,
          borderDash: s.dashed ? [6, 4] : [],
          pointStyle: s.dashed ? 'rect' : 'circle',
          pointRadius: 4,
          spanGaps: false,
        })),
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: {
          legend: { display: props.series.length > 1, labels: { color: '#1a1a1a', usePointStyle: true } },
          tooltip: { callbacks: { label: (item) => `${item.dataset.label ?? ''}: ${format(Number(item.raw))}` } },
        },
        scales: {
          y: { beginAtZero: true, max: props.max, ticks: { color: '#333', callback: (v) => format(Number(v)) } },
          x: {
            ticks: { color: '#1a1a1a' },
            title: props.axisTitle ? { display: true, text: props.axisTitle, color: '#333' } : undefined,
          },
        },
      },
    });
    return () => chart.destroy();
  }, [data]);
  return (
    <div class="chart">
      <canvas ref={canvas} role="img" aria-label={props.label} />
    </div>
  );
}
