/**
 * Whether this machine has a core to spare for a guest thread that spins while it waits for the host's
 * answer (see answer-slot.ts). Spinning pays on a machine with idle cores, where a sleeping thread is
 * slow to wake; on one whose cores are all busy it takes a core from the thread that must answer, and a
 * call then takes several times longer than sleeping would. Judged from the share of time the machine's
 * cores were idle since the last look, looked at no more often than every {@link SPARE_CORE_LOOK_MS}.
 */

import { cpus } from "node:os";

/** How often the machine's idle time is looked at, at most, in ms (a look reads every core's times). */
const SPARE_CORE_LOOK_MS = 100;

/** Idle cores, on average since the last look, from which a machine starts to count as having one to spare. */
export const SPARE_FROM_IDLE_CORES = 0.5;

/**
 * Idle cores below which a machine stops counting as having one to spare. Lower than
 * {@link SPARE_FROM_IDLE_CORES}: a spinning guest's own thread makes the machine look busier.
 */
export const NO_SPARE_BELOW_IDLE_CORES = 0.25;

/** The machine's cores' times added up, in ms. */
export interface CoreTimes {
  idle: number;
  total: number;
  cores: number;
}

/** How many cores were idle on average between two looks. */
export function idleCoresBetween(before: CoreTimes, after: CoreTimes): number {
  const total = after.total - before.total;
  if (total <= 0 || after.cores <= 0) return 0;
  return ((after.idle - before.idle) / total) * after.cores;
}

/** Whether the machine has a core to spare, given what was judged last and the idle cores seen since. */
export function judgeSpareCore(hadSpare: boolean, idleCores: number): boolean {
  return idleCores >= (hadSpare ? NO_SPARE_BELOW_IDLE_CORES : SPARE_FROM_IDLE_CORES);
}

/** Reads the machine's core times. */
function readCoreTimes(): CoreTimes {
  const all = cpus();
  let idle = 0;
  let total = 0;
  for (const { times } of all) {
    idle += times.idle;
    total += times.user + times.nice + times.sys + times.idle + times.irq;
  }
  return { idle, total, cores: all.length };
}

let lastLook: { at: number; times: CoreTimes } | undefined;
/** Until a second look has measured something, no: spinning is the choice that can cost. */
let spare = false;

/** Whether this machine has a core to spare now (see the module's comment). */
export function hasSpareCore(): boolean {
  const at = performance.now();
  if (lastLook !== undefined && at - lastLook.at < SPARE_CORE_LOOK_MS) return spare;
  let times: CoreTimes;
  try {
    times = readCoreTimes();
  } catch {
    return spare;
  }
  if (lastLook !== undefined) spare = judgeSpareCore(spare, idleCoresBetween(lastLook.times, times));
  lastLook = { at, times };
  return spare;
}
