// What the soak (`node bench/run.mjs soak`) needs beside the e2e: the databases' size after each
// thousand applications, and whether the last thousand cost what the first did.
import path from 'node:path';
import { createRequire } from 'node:module';
import { infraEnv, root, round } from './lib/util.mjs';

/** Applications measured together: each row of the soak's table. */
export const SOAK_CHUNK = 1_000;
/** How far the last thousand may drift from the first before the soak says it grew. */
export const SOAK_TOLERANCE = 0.1;

const SERVICES = ['gateway', 'applications', 'enrichment', 'scoring', 'notifier', 'janitor'];

/** Data and storage size of each service's database (MiB), and their total. */
export async function databaseSizes(dbPrefix) {
  const mongoose = createRequire(path.join(root, 'libs', 'runtime', 'package.json'))('mongoose');
  const url = process.env.MONGO_URL ?? infraEnv().MONGO_URL ?? 'mongodb://127.0.0.1:27017/';
  const connection = await mongoose.createConnection(url, { serverSelectionTimeoutMS: 5_000 }).asPromise();
  const mib = (bytes) => round(Number(bytes ?? 0) / 2 ** 20, 1);
  try {
    const perService = {};
    let total = 0;
    for (const service of SERVICES) {
      const stats = await connection.useDb(dbPrefix ? `${dbPrefix}${service}` : `loan_${service}`).db.stats();
      const size = Number(stats.storageSize ?? stats.dataSize ?? 0);
      perService[service] = mib(size);
      total += size;
    }
    return { totalMiB: mib(total), perService };
  } finally {
    await connection.close();
  }
}

/** The bench's own process: measured beside the platform's, never judged with them. */
const LOAD_GENERATOR = 'bench (load generator)';

/**
 * The last thousand against the first: applications per minute no more than 10% lower, CPU per
 * application (the services', every process's) no more than 10% higher, and the peak RSS of
 * every process of the platform no more than 10% higher (flat). `notFlat` names the processes
 * whose RSS grew more, highest first; `rssHighest` is the platform's highest ratio.
 */
export function soakVerdict(rows) {
  if (rows.length < 2) return { comparable: false, reason: 'fewer than two thousands ran' };
  const first = rows[0];
  const last = rows[rows.length - 1];
  const ratio = (a, b) => (a && b ? round(b / a, 3) : null);
  const within = (r, higherIsWorse) =>
    r === null ? null : higherIsWorse ? r <= 1 + SOAK_TOLERANCE : r >= 1 - SOAK_TOLERANCE;
  const figures = {
    applicationsPerMinute: ratio(first.applicationsPerMinute, last.applicationsPerMinute),
    cpuMsServices: ratio(first.cpuMsPerApplication.services, last.cpuMsPerApplication.services),
    cpuMsAll: ratio(first.cpuMsPerApplication.all, last.cpuMsPerApplication.all),
  };
  const rss = Object.fromEntries(
    Object.keys(last.peakRssMiB)
      .filter((name) => first.peakRssMiB[name])
      .map((name) => [name, ratio(first.peakRssMiB[name], last.peakRssMiB[name])]),
  );
  const met = {
    applicationsPerMinute: within(figures.applicationsPerMinute, false),
    cpuMsServices: within(figures.cpuMsServices, true),
    cpuMsAll: within(figures.cpuMsAll, true),
    rssFlat: Object.entries(rss).every(([name, r]) => name === LOAD_GENERATOR || within(r, true)),
  };
  const platformRss = Object.entries(rss)
    .filter(([name, r]) => name !== LOAD_GENERATOR && r !== null)
    .sort(([, a], [, b]) => b - a)
    .map(([name, r]) => ({ process: name, ratio: r }));
  return {
    comparable: true,
    lastOverFirst: figures,
    rssLastOverFirst: rss,
    rssHighest: platformRss[0] ?? null,
    notFlat: platformRss.filter(({ ratio }) => !within(ratio, true)),
    met,
    allMet: Object.values(met).every(Boolean),
  };
}
