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

/** Pids of the broker, registry and database that scripts/infra started (pid files). */
export function infraProcesses() {
  const home = process.env.LOAN_INFRA_HOME ?? path.join(os.homedir(), '.cache', 'loan-infra');
  const out = [];
  for (const name of ['kafka', 'registry', 'ferretdb']) {
    try {
      const pid = Number(readFileSync(path.join(home, 'run', `${name}.pid`), 'utf8').trim());
      if (pid && isAlive(pid)) out.push({ name, pid });
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
  const add = ({ name, pid }) => {
    if (tracked.has(pid)) return;
    tracked.set(pid, { name, pid, cpu0: cpuSeconds(pid), cpu1: null, peakRss: rssMiB(pid) ?? 0, lastRss: null });
  };
  const sample = () => {
    for (const t of tracked.values()) {
      const rss = rssMiB(t.pid);
      if (rss !== null) {
        t.lastRss = rss;
        if (rss > t.peakRss) t.peakRss = rss;
      }
      const cpu = cpuSeconds(t.pid);
      if (cpu !== null) t.cpu1 = cpu;
    }
  };
  return {
    add,
    start() {
      for (const p of processes) add(p);
      for (const t of tracked.values()) t.cpu0 = cpuSeconds(t.pid);
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
