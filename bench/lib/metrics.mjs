// Reads the services' Prometheus endpoints: time spent in Kafka handlers and HTTP routes.
/* global AbortSignal */
const HISTOGRAMS = ['kafka_handler_duration_seconds', 'http_request_duration_seconds'];

function parseLabels(text) {
  const labels = {};
  for (const m of text.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[m[1]] = m[2];
  return labels;
}

/** { `${histogram} ${detail}` -> { sum, count } } of one service. */
export async function scrape(url) {
  const out = {};
  let text;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    if (!res.ok) return out;
    text = await res.text();
  } catch {
    return out;
  }
  for (const line of text.split('\n')) {
    const m = /^(\w+)_(sum|count)\{([^}]*)\}\s+(\S+)/.exec(line);
    if (!m || !HISTOGRAMS.includes(m[1])) continue;
    const labels = parseLabels(m[3]);
    const detail =
      m[1] === 'kafka_handler_duration_seconds'
        ? `kafka ${labels.topic}${labels.outcome && labels.outcome !== 'ok' ? ` (${labels.outcome})` : ''}`
        : `http ${labels.method} ${labels.route}${labels.status && !/^2/.test(labels.status) ? ` ${labels.status}` : ''}`;
    const entry = (out[detail] ??= { sum: 0, count: 0 });
    entry[m[2]] += Number(m[4]);
  }
  return out;
}

export async function scrapeAll(processes) {
  const result = {};
  await Promise.all(
    processes
      .filter((p) => p.name !== 'sandbox')
      .map(async (p) => {
        result[`${p.name}:${p.port}`] = await scrape(`http://127.0.0.1:${p.port}/metrics`);
      }),
  );
  return result;
}

/** Per service and handler: calls and mean/total milliseconds between two snapshots. */
export function diff(before, after) {
  const rows = [];
  for (const [service, entries] of Object.entries(after)) {
    for (const [detail, a] of Object.entries(entries)) {
      const b = before[service]?.[detail] ?? { sum: 0, count: 0 };
      const count = a.count - b.count;
      if (count <= 0) continue;
      const totalMs = (a.sum - b.sum) * 1000;
      rows.push({
        service: service.split(':')[0],
        handler: detail,
        calls: count,
        meanMs: Number((totalMs / count).toFixed(2)),
        totalSeconds: Number((totalMs / 1000).toFixed(2)),
      });
    }
  }
  return rows.sort((x, y) => y.totalSeconds - x.totalSeconds);
}
