/* global process */
// CPU time of the processes taking part in a figure (Linux /proc), so the report can say what was
// busy: the service, PostgreSQL (postmaster and every backend), the receiver, a baseline, and the
// bench itself (the load generator). Elsewhere every reading is simply absent.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_S = 100; // getconf CLK_TCK on Linux

function readStat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(rest[1]), ticks: Number(rest[11]) + Number(rest[12]) };
  } catch {
    return undefined;
  }
}

/** CPU seconds of a process and each of its descendants, by pid (e.g. a PostgreSQL server). */
function treeSeconds(rootPid) {
  const byParent = new Map();
  let pids;
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  const stats = new Map();
  for (const name of pids) {
    const stat = readStat(name);
    if (!stat) continue;
    stats.set(Number(name), stat);
    if (!byParent.has(stat.ppid)) byParent.set(stat.ppid, []);
    byParent.get(stat.ppid).push(Number(name));
  }
  if (!stats.has(rootPid)) return undefined;
  const seconds = new Map();
  const todo = [rootPid];
  while (todo.length > 0) {
    const pid = todo.pop();
    seconds.set(pid, (stats.get(pid)?.ticks ?? 0) / TICKS_PER_S);
    todo.push(...(byParent.get(pid) ?? []));
  }
  return seconds;
}

/** Busy CPU seconds of the whole machine (all cores), from the first line of /proc/stat. */
function machineBusySeconds() {
  try {
    const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
    return (user + nice + system + irq + softirq + (steal || 0)) / TICKS_PER_S;
  } catch {
    return undefined;
  }
}

/**
 * The main thread's time on a CPU and time spent runnable but waiting for one (seconds), from
 * /proc/<pid>/task/<pid>/schedstat. For a node process the main thread runs the event loop, so
 * waiting time is throughput lost to the other processes (and its own GC threads) on the cores.
 */
function mainThreadSchedule(pid) {
  try {
    const [onCpu, waiting] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    return { onCpu: onCpu / 1e9, waiting: waiting / 1e9 };
  } catch {
    return undefined;
  }
}

/** Each thread's time on a CPU (seconds) by thread id, from /proc/<pid>/task/<tid>/schedstat. */
function threadSeconds(pid) {
  const seconds = new Map();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const onCpu = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
        seconds.set(Number(tid), onCpu / 1e9);
      } catch {
        // the thread ended between the listing and the read
      }
    }
  } catch {
    return undefined;
  }
  return seconds;
}

/**
 * A process's CPU over an interval by thread (seconds): its main thread, its busiest other thread
 * (in the service, the delivery thread when there is one; in a one-threaded baseline, whichever of
 * V8's helpers worked most) and the rest together (V8's collector and compiler helpers, libuv's
 * pool). Threads that ended in between are left out; those that started count from zero.
 */
function threadSplit(pid, before, after) {
  let main = 0;
  const others = [];
  for (const [tid, seconds] of after) {
    const used = seconds - (before.get(tid) ?? 0);
    if (tid === pid) main = used;
    else others.push(used);
  }
  others.sort((a, b) => b - a);
  const [busiest = 0, ...rest] = others;
  return { main, busiest, rest: rest.reduce((a, b) => a + b, 0) };
}

function processSeconds(pid) {
  const stat = readStat(pid);
  return stat ? stat.ticks / TICKS_PER_S : undefined;
}

/**
 * `parts`: name → () => pid (or undefined). `trees`: names whose children count too (PostgreSQL).
 * start() then stop() gives each part's CPU seconds and share of one core over that interval (percent).
 */
export class CpuMeter {
  constructor(parts, trees = new Set()) {
    this.parts = parts;
    this.trees = trees;
  }

  snapshot() {
    const values = {};
    const threads = {};
    for (const [name, pidOf] of Object.entries(this.parts)) {
      const pid = pidOf();
      if (!pid) continue;
      const seconds = this.trees.has(name) ? treeSeconds(pid) : new Map([[pid, processSeconds(pid)]]);
      if (seconds !== undefined) values[name] = seconds;
      if (!this.trees.has(name)) threads[name] = { pid, ...mainThreadSchedule(pid), all: threadSeconds(pid) };
    }
    const own = process.cpuUsage();
    values.bench = new Map([[process.pid, (own.user + own.system) / 1e6]]);
    return { at: process.hrtime.bigint(), values, threads, machine: machineBusySeconds() };
  }

  start() {
    const first = this.snapshot();
    return {
      stop: () => {
        const last = this.snapshot();
        const wallS = Number(last.at - first.at) / 1e9;
        const percent = {};
        const seconds = {};
        for (const [name, pids] of Object.entries(last.values)) {
          const before = first.values[name];
          if (before === undefined) continue;
          // Per pid: a process that exited in between is left out rather than counted negative;
          // one that started in between counts from zero.
          let used = 0;
          for (const [pid, seconds] of pids)
            if (seconds !== undefined) used += seconds - (before.get(pid) ?? 0);
          percent[name] = Math.round((used / wallS) * 100);
          seconds[name] = used;
        }
        // Whatever else kept the machine busy (other users' processes): the noise in the figures.
        if (first.machine !== undefined && last.machine !== undefined) {
          const ours = Object.values(percent).reduce((a, b) => a + b, 0);
          percent.other = Math.max(0, Math.round(((last.machine - first.machine) / wallS) * 100) - ours);
        }
        // Each process's main thread: % of the interval on a CPU, and % runnable but waiting for one.
        const mainThread = {};
        const threads = {};
        for (const [name, t] of Object.entries(last.threads)) {
          const before = first.threads[name];
          if (before?.pid !== t.pid) continue;
          if (t.all !== undefined && before.all !== undefined)
            threads[name] = threadSplit(t.pid, before.all, t.all);
          if (t.onCpu === undefined || before.onCpu === undefined) continue;
          mainThread[name] = {
            onCpu: Math.round(((t.onCpu - before.onCpu) / wallS) * 100),
            waiting: Math.round(((t.waiting - before.waiting) / wallS) * 100),
          };
        }
        return { percent, seconds, wallS, mainThread, threads };
      },
    };
  }
}

/** Peak resident memory of a process: VmHWM (and VmRSS) from /proc/<pid>/status, in MiB. */
export function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
    return { hwmMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 };
  } catch {
    return undefined;
  }
}

/** The PostgreSQL server's main pid, from one backend's parent (works for any local server). */
export function postmasterOf(backendPid) {
  return readStat(backendPid)?.ppid;
}
