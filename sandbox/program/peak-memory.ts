/**
 * The sandbox-host process's peak memory over each run: what catches one allocation larger than a
 * sandbox's heap limit that is garbage before isolated-vm checks the heap again.
 *
 * isolated-vm lets an allocation past the limit through (it grants the heap about 1 GB more and asks for
 * a collection at the next interrupt check) and ends the isolate only if the memory is still live then;
 * `"x".repeat(2 ** 26).split("").length` builds a 512 MB array against a 128 MB limit and ends `ok`, and
 * afterwards no heap statistic remembers it. The process's peak resident memory does: on Linux the kernel
 * keeps it (VmHWM) and resets it on request (writing 5 to /proc/self/clear_refs), so each window of runs
 * is measured from its own start. Elsewhere the process's lifetime peak (getrusage) is used, which sees a
 * spike only when it is higher than any before.
 *
 * A window opens when a run starts in an idle process and closes when the last run in it ends; the runs
 * in it may together raise the peak by their allowances summed, and by what the messages they exchanged
 * with the host cost this process. A window of one run that passed it is
 * that run's fault; a window of several cannot say whose, so the process ends (as when it passes its RSS
 * budget) and its supervisor reports that to each run.
 *
 * The same peak tells whether the process passed its RSS budget during a run: the budget is also checked
 * every 100 ms, but a run can pass it and give the memory back between two checks.
 */

import { readFileSync, writeFileSync } from "node:fs";
import type { RunMemoryWatch, RunMemoryWatching } from "../isolate/index.js";

/**
 * How much a run within its heap limit may raise its process's peak, as a multiple of that limit: the
 * heap itself, plus the text `Intl.Segmenter` keeps outside it (at most half the limit, see the
 * prelude's maxIcuChars).
 */
export const PEAK_ALLOWANCE_FACTOR = 1.5;

/**
 * And in MB on top: the young generation and code of the isolate, and the run's messages in this
 * process (measured: a run holding 95% of a 32 MB heap raised the peak by 43 MB, of a 128 MB one by 132).
 */
export const PEAK_ALLOWANCE_EXTRA_MB = 32;

/**
 * And per character of the messages the runs exchanged with the host, in bytes: this process parses,
 * copies and keeps them until its own collector runs (measured: 100 tool calls carrying 1M characters
 * each way raised the peak by 143 MB in a run limited to 16 MB).
 */
export const PEAK_ALLOWANCE_BYTES_PER_CHAR = 1.5;

/** How much a run with this heap limit may raise its process's peak memory, in MB. */
export function peakAllowanceMb(memoryMb: number): number {
  return Math.ceil(memoryMb * PEAK_ALLOWANCE_FACTOR + PEAK_ALLOWANCE_EXTRA_MB);
}

/** Where the process's memory is read; the defaults read this process's own. */
export interface MemoryGauge {
  /** Resident memory now, in MB. */
  residentMb(): number;
  /** The peak resident memory since the last reset (or the process's start), in MB. */
  peakMb(): number;
  /** Resets the peak to the memory resident now; false where that is not possible. */
  resetPeak(): boolean;
}

/** This process's memory, from /proc on Linux and from Node elsewhere. */
export const processGauge: MemoryGauge = {
  residentMb: () => process.memoryUsage.rss() / 2 ** 20,
  peakMb() {
    try {
      const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"));
      if (match) return Number(match[1]) / 1024;
    } catch {
      // Not Linux: the lifetime peak below.
    }
    return process.resourceUsage().maxRSS / 1024;
  },
  resetPeak() {
    try {
      writeFileSync("/proc/self/clear_refs", "5");
      return true;
    } catch {
      return false;
    }
  },
};

/** Why a process that used `usedMb` of memory, over its RSS budget of `budgetMb`, ends. */
export function overBudgetReason(usedMb: number, budgetMb: number): string {
  return `memory: the process used ${Math.round(usedMb)} MB, over its budget of ${budgetMb} MB`;
}

/** Options of {@link processPeakWatch}. */
export interface PeakWatchOptions {
  /** The process's RSS budget in MB: a run's window whose peak passed it ends the process. */
  budgetMb?: number;
  /** Where memory is read; this process's own by default. */
  gauge?: MemoryGauge;
}

/**
 * A {@link RunMemoryWatch} over this process's peak memory. `endProcess` is called (instead of blaming a
 * run) when a window of several runs passed their allowances together, or when the window's peak passed
 * the process's budget, with what to say: the caller ends the process.
 */
export function processPeakWatch(
  endProcess: (reason: string) => void,
  { budgetMb, gauge = processGauge }: PeakWatchOptions = {},
): RunMemoryWatch {
  let active = 0;
  let runs = 0;
  let baseMb = 0;
  let startPeakMb = 0;
  let allowedMb = 0;
  let crossedChars = 0;

  return {
    begin(memoryMb: number): RunMemoryWatching {
      if (active === 0) {
        gauge.resetPeak();
        baseMb = gauge.residentMb();
        // Without a reset this is the process's earlier peak: only a peak above it is this window's.
        startPeakMb = gauge.peakMb();
        allowedMb = 0;
        crossedChars = 0;
        runs = 0;
      }
      active++;
      runs++;
      allowedMb += peakAllowanceMb(memoryMb);
      let ended = false;
      return {
        passed() {
          const peakMb = gauge.peakMb();
          if (budgetMb !== undefined && peakMb > budgetMb) {
            endProcess(overBudgetReason(peakMb, budgetMb));
            return undefined;
          }
          const roseMb = Math.round(peakMb - baseMb);
          const windowAllowedMb =
            allowedMb + Math.ceil((crossedChars * PEAK_ALLOWANCE_BYTES_PER_CHAR) / 2 ** 20);
          if (peakMb <= startPeakMb || roseMb <= windowAllowedMb) return undefined;
          if (runs === 1) return { roseMb, allowedMb: windowAllowedMb };
          endProcess(
            `memory: this process's peak rose ${roseMb} MB while ${runs} sandboxes ran in it, more than the ${windowAllowedMb} MB their memory limits and messages allow together: one of them built a value larger than its limit`,
          );
          return undefined;
        },
        crossed(chars: number) {
          if (!ended) crossedChars += chars;
        },
        end() {
          if (ended) return;
          ended = true;
          active--;
        },
      };
    },
  };
}
