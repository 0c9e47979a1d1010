/**
 * Why the owner of a connection stops its sandbox host ({@link PeerFailure}), and how the runs still open
 * there then end, in words the model reads: what happened, that only the sandbox was affected, and what
 * to do next.
 */

import { constants } from "node:os";
import { type ExecutionOutcome, runEnding, type SandboxError } from "../../sandbox/contract/index.js";
import { limitMessages } from "../../sandbox/isolate/errors.js";

/** The outcome every run still open on a sandbox host gets when that host goes away. */
export interface Ending {
  status: ExecutionOutcome["status"];
  error: SandboxError;
  /** The run passed this limit: a run that knows its limits tells it with them (see {@link passedEnding}). */
  passed?: PassedLimit;
}

/** A limit a lane's watchdog ends its process for (`sandbox/program/watchdog.ts`). */
export type PassedLimit = "cpu" | "timeout" | "heap";

/** How a run that passed `limit` ends, told with the figures of `limits`. */
export function passedEnding(
  limit: PassedLimit,
  limits: { cpuTimeMs: number; timeoutMs: number; memoryMb: number },
): Ending {
  if (limit === "cpu") {
    return {
      ...runEnding("CpuTimeLimit", limitMessages.cpu(limits.cpuTimeMs)),
      passed: limit,
    };
  }
  if (limit === "timeout") {
    return {
      ...runEnding("Timeout", limitMessages.timeout(limits.timeoutMs)),
      passed: limit,
    };
  }
  return {
    ...runEnding("MemoryLimit", limitMessages.memory(limits.memoryMb)),
    passed: limit,
  };
}

/**
 * Why the owner should stop the peer. `stuck`: one run went on past its limit or a cancel, and its
 * sandbox was given up (the run has ended, and the peer was told to dispose the sandbox); an owner whose
 * peer is one process stops it, one whose peer supervises its own sandbox processes (a sandbox server)
 * may keep the connection, whose other runs are fine.
 */
export type PeerFailure =
  | { kind: "violation"; detail: string }
  | { kind: "unresponsive"; detail: string }
  | { kind: "stuck"; detail: string }
  | { kind: "fatal"; reason: string };

const CONTAINED =
  "Only the sandbox was affected: the agent's process is fine, and the next run gets a fresh sandbox.";

/** Messages V8 prints when it aborts on memory: an allocation too large, or the heap exhausted. */
const MEMORY_ABORT = /out of memory|invalid size|invalid array length|allocation failed|heap limit/i;

/** The sandbox host's process ended without being asked to (a crash, V8 aborting, a kill from outside). */
export function crashEnding(exit: { code: number | null; signal: string | null; stderr: string }): Ending {
  const lines = exit.stderr.split("\n").map((line) => line.replace(/^[#\s]+/, "").trim());
  // V8 prints a banner ("Fatal error in , line 0") before the line that says what went wrong.
  const fatalLine =
    lines.find((line) => MEMORY_ABORT.test(line)) ??
    lines.find((line) => /fatal/i.test(line) && !/^Fatal error in\b/.test(line)) ??
    lines.find((line) => /fatal|error/i.test(line));
  // An init process (a container's) reports a child killed by signal N as exit code 128 + N.
  const signal = exit.signal ?? (exit.code !== null && exit.code > 128 ? signalName(exit.code - 128) : null);
  const how = signal ? `it was ended by ${signal}` : `it exited with code ${exit.code}`;
  const detail = fatalLine ? `${how}: ${fatalLine.slice(0, 200)}` : how;
  if (fatalLine && MEMORY_ABORT.test(fatalLine)) {
    return {
      ...runEnding(
        "MemoryLimit",
        `The sandbox process ran out of memory and stopped (${detail}): the code built something too large, such as a huge string or array. ${CONTAINED} Work on smaller pieces of data.`,
      ),
    };
  }
  return {
    ...runEnding(
      "SandboxCrashed",
      `The sandbox process stopped unexpectedly (${detail}) while running the code. ${CONTAINED}`,
    ),
  };
}

function signalName(number: number): string | null {
  const entry = Object.entries(constants.signals).find(([, value]) => value === number);
  return entry ? entry[0] : null;
}

/** The process used more memory than its budget (it counts memory outside the JavaScript heap too). */
export function memoryEnding(usedMb: number, limitMb: number): Ending {
  return {
    ...runEnding(
      "MemoryLimit",
      `The sandbox process used ${usedMb} MB of memory, over its budget of ${limitMb} MB (memory outside the JavaScript heap counts too), and was stopped. ${CONTAINED} Work on smaller pieces of data.`,
    ),
  };
}

/** The kernel's out-of-memory killer ended the sandbox's container at its memory limit. */
export function containerMemoryEnding(limitMb: number): Ending {
  return {
    ...runEnding(
      "MemoryLimit",
      `The sandbox container ran out of memory (its limit is ${limitMb} MB) and was stopped. ${CONTAINED} Work on smaller pieces of data.`,
    ),
  };
}

/** The Docker engine running the sandbox stopped answering. */
export function engineGoneEnding(engine: string, detail: string): Ending {
  return {
    ...runEnding(
      "SandboxUnavailable",
      `The Docker engine running this sandbox (${engine}) stopped answering (${detail.slice(0, 200)}), so the run was stopped. ${CONTAINED}`,
    ),
  };
}

/** The process had more threads than its budget: work the engine could not stop kept running. */
export function threadsEnding(threads: number, limit: number): Ending {
  return {
    ...runEnding(
      "SandboxOverloaded",
      `The sandbox process had ${threads} threads, over its budget of ${limit} (work the engine could not stop kept running), and was stopped. ${CONTAINED}`,
    ),
  };
}

/** The process stopped answering, or did not stop a run it was told to stop. */
export function unresponsiveEnding(detail: string): Ending {
  return {
    ...runEnding(
      "SandboxUnresponsive",
      `The sandbox process stopped responding (${detail}) and was stopped. ${CONTAINED}`,
    ),
  };
}

/** The process sent something the protocol does not allow. */
export function violationEnding(detail: string): Ending {
  return {
    ...runEnding(
      "SandboxCrashed",
      `The sandbox process sent a message cordon cannot accept (${detail.slice(0, 300)}) and was stopped. ${CONTAINED}`,
    ),
  };
}

/** The process said it cannot go on. */
export function fatalEnding(reason: string): Ending {
  // A lane's watchdog ends its process when the code passed a limit V8 would not stop it at (`watchdog.ts`),
  // and says which, with the limit's number: the message is cordon's own, never the peer's text, and a run
  // tells it with its own limits (WireRun.end), the peer's number standing only for a run that has none.
  const passed = /^(cpu|timeout|heap): (\d{1,9})$/.exec(reason);
  if (passed) {
    const limit = Number(passed[2]);
    return passedEnding(passed[1] as PassedLimit, { cpuTimeMs: limit, timeoutMs: limit, memoryMb: limit });
  }
  if (reason.startsWith("memory:")) {
    return {
      ...runEnding(
        "MemoryLimit",
        `The sandbox process ran out of memory (${reason.slice(0, 300)}) and was stopped. ${CONTAINED} Work on smaller pieces of data.`,
      ),
    };
  }
  return {
    ...runEnding("SandboxCrashed", `The sandbox process stopped (${reason.slice(0, 300)}). ${CONTAINED}`),
  };
}

/**
 * How each of `runs` runs ends when the process they shared stopped for `ending`'s reason: no run is
 * blamed, since which one caused it is not known.
 */
export function sharedEnding(ending: Ending, runs: number): Ending {
  const what = SHARED_REASONS[ending.error.name] ?? "it stopped";
  const others = `${runs - 1} other run${runs === 2 ? "" : "s"}`;
  return {
    ...runEnding(
      "SandboxLost",
      `The sandbox process stopped while it ran this code and ${others} (${what}), so this run was stopped with them; which run caused it is not known, and it need not be this code. ${CONTAINED}`,
    ),
  };
}

/** What happened to a process, in words that blame none of the runs it hosted. */
const SHARED_REASONS: Record<string, string> = {
  MemoryLimit: "it ran out of memory",
  SandboxOverloaded: "it ran more threads than its budget",
  SandboxUnresponsive: "it stopped responding",
  SandboxCrashed: "it stopped unexpectedly",
};

/** The environment was closed while the run was going on. */
export function closedEnding(): Ending {
  return {
    ...runEnding("Disposed", "The sandbox was closed while the code was running."),
  };
}
