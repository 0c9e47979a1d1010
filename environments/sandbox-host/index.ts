/**
 * The default environment: the model's code runs in isolated-vm isolates hosted by supervised child
 * processes (the sandbox-host program), never in the agent's own process. V8 can abort a whole process
 * (a huge `split`), ignore termination inside native code (a sparse `sort`) or keep memory outside its
 * heap limit; here the worst that can do is end a sandbox-host process, which the supervisor notices,
 * reports to the runs it hosted, and replaces.
 *
 * Neighbours are kept apart (see `pool.ts`): sandboxes of different tenants do not share a process
 * unless `shareProcesses` allows it, the heap limits placed on a process stay within its memory
 * budget, and a run that lost its process to a neighbour before it made any tool call runs again, alone.
 */

import { UserError } from "../../common/errors.js";
import { currentRuntime } from "../../common/runtime.js";
import type {
  Environment,
  ExecutionOutcome,
  ExecutionRequest,
  OpenOptions,
  Sandbox,
  SandboxBridge,
  SandboxLimits,
} from "../../sandbox/contract/index.js";
import type { WireSandbox } from "../wire/wire-sandbox.js";
import type { HostProcessSettings } from "./host-process.js";
import { HOW_TO_GET_ISOLATED_VM, isolatedVmProblem } from "./isolated-vm-check.js";
import { type Placement, ProcessPool } from "./pool.js";
import { sandboxHostCommand } from "./program.js";

/** Options of {@link sandboxHostEnvironment}. */
export interface SandboxHostEnvironmentOptions {
  /** Sandbox-host processes kept running; runs go to the least busy one. Default 2. */
  processes?: number;
  /**
   * Resident memory one process may use, in MB, counting what the isolates' heap limits do not see
   * (buffers, engine memory). Over it the process is killed and its runs end with a memory error;
   * checked every 100 ms and, on the process's peak, at the end of each run. Default 2,048.
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
  /**
   * Processes at most, counting those started because a tenant could not share one. Default 8 (and at
   * least `processes`).
   */
  maxProcesses?: number;
  /**
   * Let sandboxes of different tenants (sessions) share a process. Default false: a run that crashes its
   * process can end only runs of its own tenant.
   */
  shareProcesses?: boolean;
  /** How long opening a sandbox may wait for a process to have room, in ms. Default 30,000. */
  placementTimeoutMs?: number;
  /**
   * A sandbox placed on an empty process has that process to itself and runs its code on the process's
   * main thread, which answers each tool call over a pipe of its own (the lane, see
   * `sandbox/program/lane.ts`): half the wake-ups per call. At most `maxProcesses - 1` processes
   * have lanes at once, so that sandboxes that share always find room. Default true; false places every
   * sandbox as processes are shared.
   */
  lanes?: boolean;
}

/** Defaults of {@link SandboxHostEnvironmentOptions}. */
export const SANDBOX_HOST_DEFAULTS = Object.freeze({
  processes: 2,
  maxRssMb: 2_048,
  maxThreads: 64,
  heartbeatMs: 1_000,
  hangTimeoutMs: 5_000,
  startTimeoutMs: 15_000,
  maxProcesses: 8,
  shareProcesses: false as boolean,
  placementTimeoutMs: 30_000,
  lanes: true as boolean,
});

/**
 * What a sandbox-host process uses besides its sandboxes' heaps (Node, isolated-vm, the prelude's code),
 * in MB: the heap limits placed on a process add up to at most `maxRssMb` minus this.
 */
export const PROCESS_BASE_MB = 256;

/** How long a process beyond `processes` may host nothing before it is retired, in ms. */
export const EXTRA_PROCESS_IDLE_MS = 30_000;

/** The sentence the model's instructions use to describe this environment's isolation. */
export const SANDBOX_HOST_ISOLATION =
  "Your code runs in a V8 isolate inside a separate sandbox process, not in the agent's process: it has " +
  "its own heap, no Node.js APIs (no require, process, file system, network or timers), memory and CPU " +
  "limits, and can reach the outside world only through `tools`. If the code crashes or exhausts the " +
  "sandbox process, only the sandbox is affected and the run ends with an error that says so.";

/**
 * Creates the default environment: sandboxes in supervised sandbox-host processes. Throws a `UserError`
 * at once when isolated-vm is not installed or its addon not built, rather than on the first run.
 */
export function sandboxHostEnvironment(options: SandboxHostEnvironmentOptions = {}): Environment {
  const settings: { -readonly [K in keyof typeof SANDBOX_HOST_DEFAULTS]: (typeof SANDBOX_HOST_DEFAULTS)[K] } =
    {
      ...SANDBOX_HOST_DEFAULTS,
    };
  for (const [key, value] of Object.entries(options)) {
    if (!(key in SANDBOX_HOST_DEFAULTS)) {
      throw new UserError(
        `sandboxHostEnvironment: unknown option "${key}". Known options: ${Object.keys(SANDBOX_HOST_DEFAULTS).join(", ")}.`,
      );
    }
    if (value === undefined) continue;
    if (key === "shareProcesses" || key === "lanes") {
      if (typeof value !== "boolean") {
        throw new UserError(`sandboxHostEnvironment: ${key} must be true or false, got ${String(value)}.`);
      }
      settings[key] = value;
      continue;
    }
    if (!Number.isInteger(value) || (value as number) <= 0) {
      throw new UserError(`sandboxHostEnvironment: ${key} must be a whole number > 0, got ${String(value)}.`);
    }
    (settings as Record<string, unknown>)[key] = value;
  }
  checkRuntimeIsNode();
  checkIsolatedVmInstalled();
  const settingsOfProcesses: HostProcessSettings = {
    program: sandboxHostCommand(),
    maxRssMb: settings.maxRssMb,
    maxThreads: settings.maxThreads,
    heartbeatMs: settings.heartbeatMs,
    hangTimeoutMs: settings.hangTimeoutMs,
    startTimeoutMs: settings.startTimeoutMs,
    lane: settings.lanes,
  };
  const maxProcesses = Math.max(settings.processes, settings.maxProcesses);
  const pool = new ProcessPool(settingsOfProcesses, {
    size: settings.processes,
    max: maxProcesses,
    share: settings.shareProcesses,
    budgetMb: Math.max(1, settings.maxRssMb - PROCESS_BASE_MB),
    waitMs: settings.placementTimeoutMs,
    idleMs: EXTRA_PROCESS_IDLE_MS,
  });
  const placeSandbox = async (limits: SandboxLimits, placement: Placement) => {
    const seat = await pool.place(placement);
    try {
      return { sandbox: seat.process.open(limits, seat.lane), release: seat.release };
    } catch (error) {
      seat.release();
      throw error;
    }
  };
  return {
    name: "sandbox-host",
    isolation: SANDBOX_HOST_ISOLATION,
    // An empty process takes any sandbox: one per process always fits, whatever the tenants.
    capacity: maxProcesses,
    async open(limits: SandboxLimits, openOptions?: OpenOptions): Promise<Sandbox> {
      // Processes started from now on prepare an isolate for these limits before they are ready.
      settingsOfProcesses.warmLimits = { ...limits };
      const placement: Placement = {
        tenant: openOptions?.tenant,
        memoryMb: limits.memoryMb,
        lane: settings.lanes,
      };
      const first = await placeSandbox(limits, placement);
      return new PlacedSandbox(first, () => placeSandbox(limits, { ...placement, alone: true }));
    },
    prepare(limits: SandboxLimits): void {
      if (settingsOfProcesses.warmLimits === undefined) settingsOfProcesses.warmLimits = { ...limits };
      pool.warm();
    },
    close: () => pool.close(),
  };
}

/** A sandbox in a process of the pool, and its seat there. */
interface Placed {
  sandbox: WireSandbox;
  release(): void;
}

/**
 * A sandbox of this environment: a sandbox in one of the pool's processes, whose seat it gives back
 * when it is disposed or dies. A final run (one that no later run of the sandbox follows) that lost its
 * process to a neighbour before it made any tool call is run once more, alone in a process: nothing it
 * did could be repeated, and a run that crashes its process again alone is told so about itself.
 */
class PlacedSandbox implements Sandbox {
  #placed: Placed;
  readonly #again: () => Promise<Placed>;
  #triedAgain = false;

  constructor(placed: Placed, again: () => Promise<Placed>) {
    this.#placed = placed;
    this.#again = again;
  }

  get alive(): boolean {
    return this.#placed.sandbox.alive;
  }

  async execute(
    request: ExecutionRequest,
    bridge: SandboxBridge,
    signal: AbortSignal,
  ): Promise<ExecutionOutcome> {
    const outcome = await this.#placed.sandbox.execute(request, bridge, signal);
    if (!this.alive) this.#placed.release();
    const lost = outcome.error?.name === "SandboxLost";
    if (!lost || request.final !== true || this.#triedAgain || signal.aborted) return outcome;
    if (this.#placed.sandbox.lastRunMadeCalls) return outcome;
    this.#triedAgain = true;
    const lostOne = this.#placed;
    try {
      this.#placed = await this.#again();
    } catch {
      return outcome;
    }
    await lostOne.sandbox.dispose();
    try {
      bridge.log({
        level: "warn",
        text: "The sandbox process stopped while it ran this code beside other runs; this code had made no tool call yet, so it ran again from the start, alone in a fresh process.",
      });
    } catch {
      // A failing log sink must not end the run.
    }
    const again = await this.#placed.sandbox.execute(request, bridge, signal);
    if (!this.alive) this.#placed.release();
    return again;
  }

  async dispose(): Promise<void> {
    this.#placed.release();
    await this.#placed.sandbox.dispose();
  }
}

/**
 * The sandbox-host program is started with this process's own executable and loads isolated-vm, a
 * native addon built for Node: on another runtime it could only fail later, as a sandbox that never starts.
 */
function checkRuntimeIsNode(): void {
  const runtime = currentRuntime();
  if (runtime.loadsNodeAddons) return;
  throw new UserError(
    `sandboxHostEnvironment() runs isolated-vm, which cannot load on ${runtime.name}: use quickjsEnvironment() from cordon/quickjs (codeMode() without an environment does).`,
  );
}

function checkIsolatedVmInstalled(): void {
  const problem = isolatedVmProblem();
  if (problem === undefined) return;
  throw new UserError(
    `sandboxHostEnvironment() runs isolates in sandbox processes and needs the isolated-vm package, but ${problem}. To get it, ${HOW_TO_GET_ISOLATED_VM}. Or run code in QuickJS: quickjsEnvironment() from cordon/quickjs (codeMode() without an environment does).`,
  );
}

export { HOW_TO_GET_ISOLATED_VM, isolatedVmProblem } from "./isolated-vm-check.js";
