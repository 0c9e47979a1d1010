// What limits a curve where it bends, named from what was measured at that size (never written in
// advance): the CPU the agent and its sandbox-host processes used against the cores there are, the
// time their threads waited for a core, the sandbox-host processes against the environment's limit, the
// share of time spent collecting garbage, and the machine's load from other work.

import type { Bend } from "./bend.js";

/** What was measured while one size of a curve ran. */
export interface Signals {
  /** CPU time of the agent's process and its sandbox-host processes over wall time: cores in use. */
  cpuCores: number;
  /**
   * Time the threads of this process and its sandbox-host processes were ready to run but waited for a
   * core, over wall time (from the scheduler's run queue): CPU wanted and not given.
   */
  waitingForCpu: number;
  /** Cores the machine has. */
  cores: number;
  /** The machine's 1-minute load average when the size ended. */
  loadAverage: number;
  /** Sandbox-host processes alive at the end, and the environment's limit on them (when it has one). */
  processes?: number;
  processLimit?: number;
  /** Time the agent's process spent in garbage collection over wall time. */
  gcShare: number;
  /** Resident memory of the agent's process and its sandbox-host processes, MB. */
  rssMb: number;
}

const CPU_SATURATED = 0.85;
const GC_HEAVY = 0.2;
/** Cores' worth of waiting for a core that counts as CPU denied. */
const WAITED = 0.5;
/** CPU used plus waited under which the runs were mostly asleep. */
const IDLE = 0.5;

const cores = (n: number) => n.toFixed(2);
const percent = (n: number) => `${Math.round(n * 100)}%`;

/**
 * The measured limit at a bend, as a sentence: CPU, a process limit, more processes started than the
 * size before, garbage collection, or other work's load.
 */
export function causeOf(at: Signals, before?: Signals, kind: CostKind = "time"): string {
  if (kind === "memory") return memoryCause(at, before);
  if (kind === "size") return "what is recorded per unit itself: a size depends on no limit of the machine";
  const waited = `threads waited ${cores(at.waitingForCpu)} cores' worth for a core`;
  if (at.cpuCores >= CPU_SATURATED * at.cores) {
    return `CPU: the agent and its sandbox-host processes used ${cores(at.cpuCores)} of the ${at.cores} cores`;
  }
  if (at.waitingForCpu >= WAITED && at.loadAverage >= at.cores) {
    return `CPU taken by other work: load average ${at.loadAverage.toFixed(1)} on ${at.cores} cores; this used ${cores(at.cpuCores)} and its ${waited}`;
  }
  if (at.processLimit !== undefined && at.processes !== undefined && at.processes >= at.processLimit) {
    return `a process limit: ${at.processes} sandbox-host processes, the environment's maxProcesses, each busy (CPU ${cores(at.cpuCores)} of ${at.cores} cores)`;
  }
  if (before?.processes !== undefined && at.processes !== undefined && at.processes > before.processes) {
    return `more sandbox-host processes: ${before.processes} -> ${at.processes} (RSS ${Math.round(before.rssMb)} -> ${Math.round(at.rssMb)} MB; CPU ${cores(at.cpuCores)} of ${at.cores} cores)`;
  }
  if (at.gcShare >= GC_HEAVY && at.gcShare > (before?.gcShare ?? 0)) {
    return `garbage collection: ${percent(at.gcShare)} of the time (from ${percent(before?.gcShare ?? 0)} the size before)`;
  }
  if (at.cpuCores + at.waitingForCpu < IDLE) {
    return `waiting, not computing: CPU ${cores(at.cpuCores)} of ${at.cores} cores and ${waited}: the runs queue on something that is neither (a lock, a timer, a limit)`;
  }
  return `none of the limits measured: CPU ${cores(at.cpuCores)} of ${at.cores} cores, ${waited}, garbage collection ${percent(at.gcShare)}, RSS ${Math.round(at.rssMb)} MB; the work per unit itself grows`;
}

/** What a curve's cost is: time (CPU, waits), memory (processes, heaps) or the size of data. */
export type CostKind = "time" | "memory" | "size";

/** Memory grows by processes started, or else by what each unit keeps in the processes there are. */
function memoryCause(at: Signals, before?: Signals): string {
  if (before?.processes !== undefined && at.processes !== undefined && at.processes > before.processes) {
    return `more sandbox-host processes: ${before.processes} -> ${at.processes} (RSS ${Math.round(before.rssMb)} -> ${Math.round(at.rssMb)} MB)`;
  }
  return `what each unit keeps in the ${at.processes ?? 0} sandbox-host processes there were already (RSS ${Math.round(before?.rssMb ?? at.rssMb)} -> ${Math.round(at.rssMb)} MB), not processes started`;
}

/** One line on a curve's bend (with its measured cause), or on its absence, with the unit's name. */
export function describeBend(
  bend: Bend | undefined,
  unit: { per: string; cost: (value: number) => string },
  signals: (x: number) => Signals | undefined,
  range: { from: number; to: number },
  kind: CostKind = "time",
): string {
  if (bend === undefined) {
    return `no bend from ${range.from.toLocaleString("en-US")} to ${range.to.toLocaleString("en-US")} ${unit.per}: the marginal cost stays within 2x of the largest before it`;
  }
  const at = signals(bend.x);
  const previous = signals(bend.previousX);
  const growth = Number.isFinite(bend.growth) ? `${bend.growth.toFixed(1)}x` : "from flat";
  const cause = at ? causeOf(at, previous, kind) : "nothing measured at that size";
  return `bends at ${bend.x.toLocaleString("en-US")} ${unit.per}: the marginal cost grows ${growth} (${unit.cost(bend.before)} -> ${unit.cost(bend.at)} per one more); measured there: ${cause}`;
}
