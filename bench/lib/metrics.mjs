// Reads the services' Prometheus endpoints: time spent in Kafka handlers and HTTP routes, and
// the requests sent to Kafka and to the database.
/* global AbortSignal */
const HISTOGRAMS = ['kafka_handler_duration_seconds', 'http_request_duration_seconds'];

function parseLabels(text) {
  const labels = {};
  for (const m of text.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[m[1]] = m[2];
  return labels;
}

/** Attempts at a service's endpoint, each given this long, before it counts as not scraped. */
const SCRAPE_ATTEMPTS = 3;
const SCRAPE_TIMEOUT_MS = 10_000;

/**
 * { `${histogram} ${detail}` -> { sum, count } } of one service, or null when its endpoint did
 * not answer: a snapshot without a service must not read as a service that sent nothing (the
 * difference would drop it, or count everything it ever sent).
 */
export async function scrape(url) {
  const out = {};
  let text;
  for (let attempt = 1; text === undefined; attempt++) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      text = await res.text();
    } catch {
      if (attempt >= SCRAPE_ATTEMPTS) return null;
    }
  }
  for (const line of text.split('\n')) {
    const c = /^(kafka_requests_total|mongo_commands_total)\{([^}]*)\}\s+(\S+)/.exec(line);
    if (c) {
      const labels = parseLabels(c[2]);
      const detail =
        c[1] === 'kafka_requests_total'
          ? `requests kafka ${labels.client} ${labels.api}`
          : `requests db ${labels.command}${labels.collection ? ` ${labels.collection}` : ''}`;
      out[detail] = { count: Number(c[3]), sum: 0 };
      continue;
    }
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

/** The services (`name:port`) one of the two snapshots has no figures of. */
export function unscraped(before, after) {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((s) => !before[s] || !after[s]).sort();
}

/**
 * Requests each service sent to Kafka and to the database between two snapshots, by API or
 * command, divided by `per` (the applications completed); a service missing from either
 * snapshot is left out (see `unscraped`).
 */
export function requests(before, after, per) {
  const rows = [];
  for (const [service, entries] of Object.entries(after)) {
    if (!entries || !before[service]) continue;
    for (const [detail, a] of Object.entries(entries)) {
      if (!detail.startsWith('requests ')) continue;
      const count = a.count - (before[service][detail]?.count ?? 0);
      if (count <= 0) continue;
      const [, to, ...what] = detail.split(' ');
      rows.push({
        service: service.split(':')[0],
        to,
        what: what.join(' '),
        count,
        perApplication: Number((count / per).toFixed(2)),
      });
    }
  }
  return rows.sort((x, y) => y.count - x.count);
}

/** Per service and handler: calls and mean/total milliseconds between two snapshots. */
export function diff(before, after) {
  const rows = [];
  for (const [service, entries] of Object.entries(after)) {
    if (!entries || !before[service]) continue;
    for (const [detail, a] of Object.entries(entries)) {
      if (detail.startsWith('requests ')) continue;
      const b = before[service][detail] ?? { sum: 0, count: 0 };
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
