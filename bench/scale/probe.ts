// What a size of a curve used while it ran, read from the system: CPU time and resident memory of this
// process and every process below it (the sandbox-host processes), read from /proc, with the time their
// threads were ready to run but waited for a core (the scheduler's run queue); the time spent
// collecting garbage, from V8's performance entries; and the machine's load average.

import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { PerformanceObserver } from "node:perf_hooks";
import type { Signals } from "./cause.js";

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

function readOr(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** The processes below `pid` (children, their children, ...), from /proc's children lists. */
export function descendants(pid: number): number[] {
  const found: number[] = [];
  const visit = (parent: number) => {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${parent}/task`);
    } catch {
      return;
    }
    for (const task of tasks) {
      const children = readOr(`/proc/${parent}/task/${task}/children`)?.trim();
      for (const child of children ? children.split(/\s+/).map(Number) : []) {
        found.push(child);
        visit(child);
      }
    }
  };
  visit(pid);
  return found;
}

/** CPU seconds (user + system) of a process, from /proc/<pid>/stat; 0 when it has gone. */
function cpuSecondsOf(pid: number): number {
  const stat = readOr(`/proc/${pid}/stat`);
  if (!stat) return 0;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * Nanoseconds each thread of a process spent waiting for a core (ready to run, not running), by thread
 * id: /proc/<pid>/task/<tid>/schedstat's second field.
 */
function runQueueWaits(pid: number): Map<string, number> {
  const waits = new Map<string, number>();
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return waits;
  }
  for (const tid of tasks) {
    const fields = readOr(`/proc/${pid}/task/${tid}/schedstat`)?.split(" ");
    if (fields) waits.set(`${pid}/${tid}`, Number(fields[1]));
  }
  return waits;
}

/** Run-queue waits of this process's threads and those of the processes below it. */
function treeRunQueueWaits(): Map<string, number> {
  return new Map([process.pid, ...descendants(process.pid)].flatMap((pid) => [...runQueueWaits(pid)]));
}

/** Resident memory of a process in MB, from /proc/<pid>/status; 0 when it has gone. */
export function rssMbOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readOr(`/proc/${pid}/status`) ?? "")?.[1];
  return kb ? Number(kb) / 1024 : 0;
}

/** Resident memory of this process and the processes below it, MB. */
export function treeRssMb(): number {
  return [process.pid, ...descendants(process.pid)].reduce((sum, pid) => sum + rssMbOf(pid), 0);
}

/** The sandbox-host processes: the Node processes below this one. */
export function sandboxProcesses(): number {
  return descendants(process.pid).filter((pid) => /node/.test(readOr(`/proc/${pid}/comm`) ?? "")).length;
}

/** Starts measuring; `stop()` returns what was used since, as {@link Signals}. */
export function startProbe(): { stop(limits?: { processLimit?: number }): Signals } {
  const started = performance.now();
  const selfBefore = process.cpuUsage();
  const childBefore = new Map(descendants(process.pid).map((pid) => [pid, cpuSecondsOf(pid)]));
  const waitsBefore = treeRunQueueWaits();
  let gcMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration;
  });
  observer.observe({ entryTypes: ["gc"] });
  return {
    stop(limits = {}) {
      observer.disconnect();
      const wallSeconds = (performance.now() - started) / 1000;
      const self = process.cpuUsage(selfBefore);
      const children = descendants(process.pid).reduce(
        (sum, pid) => sum + cpuSecondsOf(pid) - (childBefore.get(pid) ?? 0),
        0,
      );
      const cpuSeconds = (self.user + self.system) / 1e6 + children;
      let waitedNs = 0;
      for (const [thread, ns] of treeRunQueueWaits()) waitedNs += ns - (waitsBefore.get(thread) ?? 0);
      return {
        cpuCores: cpuSeconds / wallSeconds,
        waitingForCpu: waitedNs / 1e9 / wallSeconds,
        cores: availableParallelism(),
        loadAverage: loadavg()[0]!,
        processes: sandboxProcesses(),
        ...(limits.processLimit !== undefined ? { processLimit: limits.processLimit } : {}),
        gcShare: gcMs / 1000 / wallSeconds,
        rssMb: treeRssMb(),
      };
    },
  };
}
