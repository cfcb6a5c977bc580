// Read-only process accounting from /proc: resident memory (VmRSS) and CPU time per process.
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let clockTicks = 100;
try {
  clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
} catch {
  // Linux default
}

/** VmRSS of a process in MiB, or null when it is gone. */
export function rssMiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** User + system CPU seconds a process has used so far, or null when it is gone. */
export function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return null;
  }
}

/**
 * CPU seconds of a server that forks a process per connection (PostgreSQL): the process itself,
 * the children it has reaped (cutime + cstime) and the children alive now. A child that exits
 * between two readings moves from the last sum into the second, so the total only grows.
 */
export function treeCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime are fields 14-17.
    let ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    let seconds = ticks / clockTicks;
    for (const child of childrenOf(pid)) seconds += cpuSeconds(child.pid) ?? 0;
    return seconds;
  } catch {
    return null;
  }
}

function parentOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

function cmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

export const isAlive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Direct children of a process with their command lines. */
export function childrenOf(ppid) {
  const out = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (parentOf(pid) === ppid) out.push({ pid, argv: cmdline(pid) });
  }
  return out;
}

/**
 * Pids of the broker, registry and database that scripts/infra started (pid files of the set in
 * `LOAN_INFRA_RUN`, by default the usual one). PostgreSQL, when FerretDB runs on it, is counted
 * with its connection processes (`tree`).
 */
export function infraProcesses() {
  const home = process.env.LOAN_INFRA_HOME ?? path.join(os.homedir(), '.cache', 'loan-infra');
  const run = process.env.LOAN_INFRA_RUN ?? path.join(home, 'run');
  const out = [];
  for (const name of ['kafka', 'registry', 'ferretdb', 'postgresql']) {
    try {
      const pid = Number(readFileSync(path.join(run, `${name}.pid`), 'utf8').trim());
      if (pid && isAlive(pid)) out.push({ name, pid, tree: name === 'postgresql' });
    } catch {
      // not running under scripts/infra
    }
  }
  return out;
}

/**
 * Samples VmRSS of a set of processes every `intervalMs` (peak kept) and CPU time between
 * start() and stop(). The bench process itself is accounted with process.cpuUsage().
 */
export function createSampler(processes, intervalMs = 200) {
  const tracked = new Map();
  let timer = null;
  let startedAt = 0;
  let benchCpu0 = null;
  const cpuOf = (t) => (t.tree ? treeCpuSeconds(t.pid) : cpuSeconds(t.pid));
  const add = ({ name, pid, tree = false }) => {
    if (tracked.has(pid)) return;
    const t = { name, pid, tree, cpu0: null, cpu1: null, peakRss: rssMiB(pid) ?? 0, lastRss: null };
    t.cpu0 = cpuOf(t);
    tracked.set(pid, t);
  };
  const sample = () => {
    for (const t of tracked.values()) {
      const rss = rssMiB(t.pid);
      if (rss !== null) {
        t.lastRss = rss;
        if (rss > t.peakRss) t.peakRss = rss;
      }
      const cpu = cpuOf(t);
      if (cpu !== null) t.cpu1 = cpu;
    }
  };
  return {
    add,
    start() {
      for (const p of processes) add(p);
      for (const t of tracked.values()) t.cpu0 = cpuOf(t);
      startedAt = performance.now();
      benchCpu0 = process.cpuUsage();
      timer = setInterval(sample, intervalMs);
      timer.unref();
      sample();
    },
    /** Per process: peak and last RSS (MiB), CPU seconds used and the share of one core. */
    stop() {
      sample();
      clearInterval(timer);
      const wall = (performance.now() - startedAt) / 1000;
      const result = {};
      for (const t of tracked.values()) {
        const cpu = t.cpu0 !== null && t.cpu1 !== null ? t.cpu1 - t.cpu0 : null;
        const key = result[t.name] ? `${t.name}#${t.pid}` : t.name;
        result[key] = {
          pid: t.pid,
          peakRssMiB: Math.round(t.peakRss),
          lastRssMiB: t.lastRss === null ? null : Math.round(t.lastRss),
          cpuSeconds: cpu === null ? null : Number(cpu.toFixed(2)),
          cpuPercentOfOneCore: cpu === null || wall === 0 ? null : Math.round((100 * cpu) / wall),
        };
      }
      const bench = process.cpuUsage(benchCpu0);
      const benchCpu = (bench.user + bench.system) / 1e6;
      result['bench (load generator)'] = {
        pid: process.pid,
        peakRssMiB: Math.round(process.memoryUsage().rss / 1048576),
        lastRssMiB: null,
        cpuSeconds: Number(benchCpu.toFixed(2)),
        cpuPercentOfOneCore: wall === 0 ? null : Math.round((100 * benchCpu) / wall),
      };
      return { wallSeconds: Number(wall.toFixed(1)), processes: result };
    },
  };
}
