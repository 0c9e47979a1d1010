/**
 * The names a run's error carries when the sandbox or its environment ended the run, rather than the
 * model's code throwing: one closed set for every environment, like undici's error codes, so that a
 * caller can switch on `result.error.name` and the same failure has the same name everywhere.
 */

import type { SandboxError } from "./environment.js";

/** Why the sandbox or its environment ended a run. */
export type RunFailureName =
  /** The run went past its wall-clock limit (`timeoutMs`); cordon's backstop says so too. */
  | "Timeout"
  /** The code used more CPU time than `cpuTimeMs`. */
  | "CpuTimeLimit"
  /** The heap limit (`memoryMb`), a sandbox process's memory budget, or a container's memory ran out. */
  | "MemoryLimit"
  /** The code sent more messages (console lines and tool calls) than its limits allow. */
  | "LimitExceeded"
  /** The code's result is too large to send back. */
  | "ResultTooLarge"
  /** The caller cancelled the run. */
  | "Cancelled"
  /** The sandbox was closed (disposed, its environment closed, its process replaced) during the run. */
  | "Disposed"
  /**
   * An earlier run of the same sandbox changed a built-in the sandbox relies on; the run was refused
   * before it ran (code mode starts the session afresh and runs the code again).
   */
  | "SandboxTampered"
  /** The sandbox, or the process hosting it, stopped unexpectedly or broke the protocol. */
  | "SandboxCrashed"
  /**
   * The process hosting the sandbox stopped while it ran other runs too: which run caused it is not
   * known, so this one is not blamed (a run that had made no tool call is tried again alone first).
   */
  | "SandboxLost"
  /** The process hosting the sandbox stopped answering, or did not stop a run it was told to stop. */
  | "SandboxUnresponsive"
  /** The process hosting the sandbox ran more threads than its budget. */
  | "SandboxOverloaded"
  /** The machine hosting the sandbox (a Docker engine, a `cordon serve` host) could not be reached. */
  | "SandboxUnavailable"
  /** The sandbox server is at its capacity. */
  | "SandboxBusy"
  /** The run could not be started or its code not be sent to the sandbox. */
  | "SandboxError";

const NAMES: ReadonlySet<string> = new Set<RunFailureName>([
  "Timeout",
  "CpuTimeLimit",
  "MemoryLimit",
  "LimitExceeded",
  "ResultTooLarge",
  "Cancelled",
  "Disposed",
  "SandboxTampered",
  "SandboxCrashed",
  "SandboxLost",
  "SandboxUnresponsive",
  "SandboxOverloaded",
  "SandboxUnavailable",
  "SandboxBusy",
  "SandboxError",
]);

/** Whether `name` is one of the {@link RunFailureName}s. */
export function isRunFailureName(name: unknown): name is RunFailureName {
  return typeof name === "string" && NAMES.has(name);
}

/** The error of a run the sandbox or its environment ended: its name and a message for the model. */
export function runFailure(name: RunFailureName, message: string): SandboxError {
  return { name, message };
}
