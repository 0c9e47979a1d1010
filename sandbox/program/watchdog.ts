/**
 * The sandbox-host process's watchdog: a thread that makes the checks the main thread cannot make while
 * a lane's code holds it (see `lane.ts`). Every {@link WATCH_MS} it checks the process's memory against
 * its budget, and whether a stretch of code on the lane has run past the time it was given by more than
 * {@link STRETCH_GRACE_MS}: isolated-vm stops a stretch at its time, so one still running means V8 is
 * ignoring the stop inside native code (a huge sort, ICU on a huge string). And whether the main thread
 * sleeps in the middle of a stretch while it waits for nothing (the lane, stdout): isolated-vm parks a
 * thread whose isolate ran out of memory in V8's last-resort handler for good. Either way the watchdog says
 * why on stdout (a `fatal` report: `cpu: <cpuTimeMs>`, `timeout: <timeoutMs>` or `heap: <memoryMb>`, numbers
 * only, from which cordon writes the run's message itself, see `fatalEnding`; or `memory:` for the
 * budget) and ends the process; a process with a lane hosts only that sandbox, so no other run goes with
 * it.
 *
 * The main thread tells it each run's limits and each stretch through shared memory (plain writes, no
 * wake-up); both threads take a shared lock around writes to stdout, so that a line is never cut by
 * another. The thread's code is plain JavaScript evaluated from a string, so that it loads nothing and
 * runs the same from the sources and from the built package.
 */

import { workerThreads } from "../../common/node-builtins.js";
import type { StretchWatch } from "../isolate/index.js";

/** How often the watchdog looks, in ms. */
const WATCH_MS = 100;

/** How long past its time a stretch may run before the watchdog takes V8 to be ignoring the stop, in ms. */
const STRETCH_GRACE_MS = 500;

/** Looks in a row at a main thread asleep in a stretch, without running, before it counts as parked. */
const PARKED_LOOKS = 10;

/** How long the watchdog waits for the main thread to finish a write before it ends the process anyway. */
const STDOUT_WAIT_MS = 200;

// The shared memory: two 32-bit words (the stdout lock; whether the main thread waits on purpose, on
// the lane or on stdout), then five numbers (the running stretch's deadline in ms since the epoch, 0
// when none; the limit that bounds it, 1 CPU or 2 wall clock; the run's cpuTimeMs, timeoutMs, memoryMb).
const WORDS_AT = 0;
const NUMBERS_AT = 8;
const BOARD_BYTES = NUMBERS_AT + 5 * 8;

/** What the main thread and the watchdog share; the main thread's side. */
export class WatchBoard implements StretchWatch {
  readonly buffer = new SharedArrayBuffer(BOARD_BYTES);
  readonly #lock = new Int32Array(this.buffer, WORDS_AT, 2);
  readonly #numbers = new Float64Array(this.buffer, NUMBERS_AT, 5);

  run(limits: { cpuTimeMs: number; timeoutMs: number; memoryMb: number }): void {
    this.#numbers[2] = limits.cpuTimeMs;
    this.#numbers[3] = limits.timeoutMs;
    this.#numbers[4] = limits.memoryMb;
  }

  begin(limit: "cpu" | "wall", budgetMs: number): void {
    this.#numbers[1] = limit === "cpu" ? 1 : 2;
    this.#numbers[0] = Date.now() + budgetMs;
  }

  end(): void {
    this.#numbers[0] = 0;
  }

  /** Runs `write` holding the stdout lock (the watchdog holds it only for its last report). */
  withStdout(write: () => void): void {
    while (Atomics.compareExchange(this.#lock, 0, 0, 1) !== 0) Atomics.wait(this.#lock, 0, 1, 10);
    try {
      this.waiting(write);
    } finally {
      Atomics.store(this.#lock, 0, 0);
      Atomics.notify(this.#lock, 0);
    }
  }

  /** Runs `wait`, which may block the thread on purpose (reading the lane, writing to a full pipe). */
  waiting<T>(wait: () => T): T {
    this.#lock[1] = 1;
    try {
      return wait();
    } finally {
      this.#lock[1] = 0;
    }
  }
}

/**
 * Starts the watchdog thread over `board`; it never keeps the process alive. `die` ends the process when
 * the thread fails: a lane without its watchdog has no memory or stuck-code check while code runs.
 */
export function startWatchdog(
  board: WatchBoard,
  rssLimitMb: number | undefined,
  die: (reason: string) => never,
): void {
  const { Worker } = workerThreads();
  const worker = new Worker(WATCHDOG_SOURCE, {
    eval: true,
    workerData: { buffer: board.buffer, rssLimitMb },
  });
  worker.on("error", (error) => die(`the watchdog thread failed: ${error.message}`));
  worker.unref();
}

const WATCHDOG_SOURCE = `"use strict";
const { workerData } = require("node:worker_threads");
const { readFileSync, writeSync } = require("node:fs");
const { buffer, rssLimitMb } = workerData;
const lock = new Int32Array(buffer, ${WORDS_AT}, 2);
const numbers = new Float64Array(buffer, ${NUMBERS_AT}, 5);
// The main thread's state and CPU time (fields 3, 14 and 15 of its stat line): asleep, and how long it ran.
const mainThread = () => {
  try {
    const stat = readFileSync("/proc/self/task/" + process.pid + "/stat", "latin1");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { asleep: fields[0] === "S", ran: fields[11] + "/" + fields[12] };
  } catch {
    return { asleep: false, ran: "" };
  }
};
let parked = 0;
let lastRan = "";
const writeAll = (bytes) => {
  for (let written = 0; written < bytes.length; ) {
    try {
      written += writeSync(1, bytes, written, bytes.length - written);
    } catch (error) {
      if (error.code !== "EAGAIN") return;
      Atomics.wait(lock, 1, 0, 1);
    }
  }
};
const fatal = (reason) => Buffer.from(JSON.stringify({ type: "fatal", reason }) + "\\n");
const end = (bytes) => {
  const until = Date.now() + ${STDOUT_WAIT_MS};
  let free = true;
  while (Atomics.compareExchange(lock, 0, 0, 1) !== 0) {
    if (Date.now() > until) { free = false; break; }
    Atomics.wait(lock, 0, 1, 10);
  }
  if (free) writeAll(bytes);
  process.kill(process.pid, "SIGKILL");
};
setInterval(() => {
  const deadline = numbers[0];
  if (deadline !== 0 && Date.now() >= deadline + ${STRETCH_GRACE_MS}) {
    end(fatal(numbers[1] === 1 ? "cpu: " + numbers[2] : "timeout: " + numbers[3]));
    return;
  }
  // Asleep in a stretch, waiting for nothing, without running at all for ${PARKED_LOOKS} looks in a row:
  // parked for good after running out of memory (a collection that waits for its helpers still runs).
  const main = deadline !== 0 && lock[1] === 0 ? mainThread() : undefined;
  parked = main !== undefined && main.asleep && main.ran === lastRan ? parked + 1 : 0;
  lastRan = main === undefined ? "" : main.ran;
  if (parked >= ${PARKED_LOOKS}) {
    end(fatal("heap: " + numbers[4]));
    return;
  }
  if (rssLimitMb === undefined) return;
  const rssMb = process.memoryUsage.rss() / 2 ** 20;
  if (rssMb > rssLimitMb) {
    end(fatal("memory: the process used " + Math.round(rssMb) + " MB, over its budget of " + rssLimitMb + " MB"));
  }
}, ${WATCH_MS});
`;
