/**
 * The default environment: the model's code runs in isolated-vm isolates hosted by supervised child
 * processes (the sandbox-host program), never in the agent's own process. V8 can abort a whole process
 * (a huge `split`), ignore termination inside native code (a sparse `sort`) or keep memory outside its
 * heap limit; here the worst that can do is end a sandbox-host process, which the supervisor notices,
 * reports to the runs it hosted, and replaces.
 */

import { createRequire } from "node:module";
import type { Environment, Sandbox, SandboxLimits } from "../../sandbox/contract/index.js";
import { UserError } from "../../src/errors.js";
import type { HostProcessSettings } from "./host-process.js";
import { ProcessPool } from "./pool.js";
import { sandboxHostCommand } from "./program.js";

/** Options of {@link sandboxHostEnvironment}. */
export interface SandboxHostEnvironmentOptions {
  /** Sandbox-host processes kept running; runs go to the least busy one. Default 2. */
  processes?: number;
  /**
   * Resident memory one process may use, in MB, counting what the isolates' heap limits do not see
   * (buffers, engine memory). Over it the process is killed and its runs end with a memory error.
   * Default 2,048.
   */
  maxRssMb?: number;
  /** Threads one process may have (Linux reports them). Over it the process is killed. Default 64. */
  maxThreads?: number;
  /** How often each process is asked whether it is alive and healthy, in ms. Default 1,000. */
  heartbeatMs?: number;
  /** How long a process may take to answer before it counts as hung and is killed, in ms. Default 5,000. */
  hangTimeoutMs?: number;
  /** How long a process may take to start, in ms. Default 15,000. */
  startTimeoutMs?: number;
}

/** Defaults of {@link SandboxHostEnvironmentOptions}. */
export const SANDBOX_HOST_DEFAULTS = Object.freeze({
  processes: 2,
  maxRssMb: 2_048,
  maxThreads: 64,
  heartbeatMs: 1_000,
  hangTimeoutMs: 5_000,
  startTimeoutMs: 15_000,
});

/** The sentence the model's instructions use to describe this environment's isolation. */
export const SANDBOX_HOST_ISOLATION =
  "Your code runs in a V8 isolate inside a separate sandbox process, not in the agent's process: it has " +
  "its own heap, no Node.js APIs (no require, process, file system, network or timers), memory and CPU " +
  "limits, and can reach the outside world only through `tools`. If the code crashes or exhausts the " +
  "sandbox process, only the sandbox is affected and the run ends with an error that says so.";

/**
 * Creates the default environment: sandboxes in supervised sandbox-host processes. Throws a `UserError`
 * at once when isolated-vm is not installed, rather than on the first run.
 */
export function sandboxHostEnvironment(options: SandboxHostEnvironmentOptions = {}): Environment {
  const settings = { ...SANDBOX_HOST_DEFAULTS };
  for (const [key, value] of Object.entries(options)) {
    if (!(key in SANDBOX_HOST_DEFAULTS)) {
      throw new UserError(
        `sandboxHostEnvironment: unknown option "${key}". Known options: ${Object.keys(SANDBOX_HOST_DEFAULTS).join(", ")}.`,
      );
    }
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value <= 0) {
      throw new UserError(`sandboxHostEnvironment: ${key} must be a whole number > 0, got ${String(value)}.`);
    }
    (settings as Record<string, number>)[key] = value;
  }
  checkIsolatedVmInstalled();
  const settingsOfProcesses: HostProcessSettings = {
    program: sandboxHostCommand(),
    maxRssMb: settings.maxRssMb,
    maxThreads: settings.maxThreads,
    heartbeatMs: settings.heartbeatMs,
    hangTimeoutMs: settings.hangTimeoutMs,
    startTimeoutMs: settings.startTimeoutMs,
  };
  const pool = new ProcessPool(settingsOfProcesses, settings.processes);
  return {
    name: "sandbox-host",
    isolation: SANDBOX_HOST_ISOLATION,
    async open(limits: SandboxLimits): Promise<Sandbox> {
      // Processes started from now on prepare an isolate for these limits before they are ready.
      settingsOfProcesses.warmLimits = { ...limits };
      const process = await pool.acquire();
      return process.open(limits);
    },
    close: () => pool.close(),
  };
}

function checkIsolatedVmInstalled(): void {
  try {
    createRequire(import.meta.url).resolve("isolated-vm");
  } catch {
    throw new UserError(
      "The default code-mode environment runs isolates in sandbox processes and needs the isolated-vm package: install it with `npm install isolated-vm` (it builds a native module; see README's Install section).",
    );
  }
}
