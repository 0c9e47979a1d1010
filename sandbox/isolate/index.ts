/**
 * The isolate engine: the model's code in V8 isolates through isolated-vm, each with the guest prelude,
 * handed out as sandboxes. Two drivers run it: the in-process environment (`environments/in-process`),
 * in the agent's own process, and the sandbox-host program (`sandbox/program`), in a supervised
 * process of its own. It has its own heap per isolate, no Node APIs, and memory and CPU limits, but V8
 * can abort the whole process on some allocations or ignore termination in native code: which process
 * hosts it is the driver's choice.
 *
 * What a session keeps between executions (one sandbox, several `execute` calls): the global object. Top-level
 * declarations of a run (`var`, `let`, `const`, `function`, `class`) are copied onto `globalThis` when the
 * run ends, and top-level `var`s start from the value an earlier run left; assignments to `globalThis`
 * (and to undeclared names) stay as they are. Built-in globals, `tools` and `console` are never
 * overwritten by a declaration. Pending promises and tool calls of an earlier run never resume it: their
 * calls are refused and their outcomes dropped.
 */

import type { Environment, OpenOptions, Sandbox, SandboxLimits } from "../contract/index.js";
import type { SpinMode } from "./answer-slot.js";
import { IsolatePool } from "./isolates.js";
import { type IsolatedVm, loadIsolatedVm } from "./load.js";
import type { RunMemoryWatch } from "./memory-watch.js";
import { IsolateSandbox } from "./sandbox.js";
import { SpareSandboxes } from "./spares.js";
import type { StretchWatch } from "./stretch-watch.js";

export type { SpinMode } from "./answer-slot.js";
export { userCodePosition } from "./errors.js";
export type { RunMemoryWatch, RunMemoryWatching } from "./memory-watch.js";
export type { StretchWatch } from "./stretch-watch.js";

/**
 * The isolated-vm module as users pass it (`isolateEnvironment({ ivm })`), typed by its shape so that
 * cordon's published types do not depend on isolated-vm's: any major version with `Isolate` and
 * `Callback` classes fits.
 */
export interface IsolatedVmModule {
  readonly Isolate: abstract new (...args: never[]) => object;
  readonly Callback: abstract new (...args: never[]) => object;
}

/** Options of {@link isolateEngine}. */
export interface IsolateEngineOptions {
  /**
   * The isolated-vm module to use (for example a newer major version). Default: the installed
   * `isolated-vm`, loaded when the engine starts.
   */
  ivm?: IsolatedVmModule;
  /**
   * How many sandboxes to keep opened ahead of time for each set of limits `open()` is called with
   * (warm spares). Default 1; 0 turns them off. `open()` hands out a ready spare (a new isolate with the
   * prelude, never used before, made with exactly those limits) instead of creating one while the caller
   * waits, and a replacement is created right after, on a later turn of the event loop, so that its
   * creation overlaps the run. A spare is handed out once and then belongs to the caller like any other
   * sandbox. Spares never keep the process alive, and `close()` disposes them. Each spare holds an idle
   * isolate (about 1-2 MB); spares are kept for the {@link MAX_SPARE_LIMITS} most recent sets of limits.
   */
  warm?: number;
  /**
   * Watches memory the heap limit cannot see over each run (the sandbox-host program watches its
   * process's peak): a run it says passed its memory ends with `MemoryLimit` instead of its own outcome.
   * Default: none (the in-process environment shares the agent's process, whose peak is not the run's).
   */
  memory?: RunMemoryWatch;
  /**
   * Whether a call the code awaits with nothing else in flight is offered to the host synchronously, so
   * that a tool that returns its value at once answers within that one crossing (a later outcome is
   * settled like any call). Default true. The sandbox-host program turns it off: its answers always come
   * from another process, and the offer would only add a crossing to every call.
   */
  syncCalls?: boolean;
  /**
   * How the code's thread waits for the answer to a call offered synchronously. `"auto"` (the default):
   * it spins on memory it shares with the host for a few tens of µs while the machine has a core to
   * spare (at least half a core idle on average since the last look, looked at every 100 ms), which
   * spares it a wake-up that on an idle machine costs more than a synchronous tool's whole call, and
   * sleeps otherwise. `"always"` spins whatever the machine's load; `"never"` always sleeps (in a
   * container whose CPU quota is smaller than the machine's cores, which the judgement cannot see, it
   * keeps the quota the spin would use). A spin's time counts as the run's CPU time.
   */
  spin?: SpinMode;
  /** Watches the stretches of code of sandboxes opened with `lane`, from another thread. Default: none. */
  stretches?: StretchWatch;
}

/**
 * Isolates handed out as sandboxes. A sandbox says `tainted` once its isolate was killed while running
 * code or out of memory: work V8 could not stop may go on in this process (the sandbox-host program then
 * replaces its process).
 */
export interface IsolateEngine extends Pick<Environment, "close"> {
  open(limits: SandboxLimits, options?: IsolateOpenOptions): Promise<Sandbox>;
}

/** Options of {@link IsolateEngine.open}. */
interface IsolateOpenOptions extends OpenOptions {
  /**
   * The sandbox runs its code on the calling thread, in synchronous stretches, and offers every call
   * the code waits for alone to the bridge's `callToolNow` (a sandbox-host lane, see
   * `sandbox/program/lane.ts`). Default false.
   */
  lane?: boolean;
}

/** Sets of limits whose spares are kept; opening with another one drops the least recently used. */
export const MAX_SPARE_LIMITS = 4;

/**
 * Starts the isolate engine. Each `open()` hands out a new isolate with the prelude installed (a warm
 * spare when one is ready, see {@link IsolateEngineOptions.warm}). isolated-vm is loaded here: an Error
 * says so now when it is missing or Node lacks `--no-node-snapshot`, not the first run.
 */
export function isolateEngine(options: IsolateEngineOptions = {}): IsolateEngine {
  const warm = options.warm ?? 1;
  const ivmModule: IsolatedVm = loadIsolatedVm(options.ivm);
  const isolates = new IsolatePool(ivmModule);
  const open = new Set<IsolateSandbox>();
  /** Spares by limits, least recently used first. */
  const spares = new Map<string, SpareSandboxes>();
  /** What close() waits for besides the open sandboxes: opens under way, spares dropped and closing. */
  const pending = new Set<Promise<unknown>>();
  const awaited = <T>(promise: Promise<T>): Promise<T> => {
    pending.add(promise);
    const forget = () => pending.delete(promise);
    promise.then(forget, forget);
    return promise;
  };
  let closed = false;
  const closedError = () => new Error("This isolate environment was closed; create a new one.");

  const create = (ivmModule: IsolatedVm, limits: SandboxLimits, lane: boolean) =>
    IsolateSandbox.open(
      ivmModule,
      limits,
      {
        onDead: (dead) => open.delete(dead),
        memory: options.memory,
        syncCalls: options.syncCalls,
        spin: options.spin,
        lane,
        stretches: options.stretches,
      },
      isolates,
    );

  /** The spares for these limits (made with a copy of them), or undefined when spares are off. */
  const sparesFor = (
    ivmModule: IsolatedVm,
    limits: SandboxLimits,
    lane: boolean,
  ): SpareSandboxes | undefined => {
    if (warm === 0) return undefined;
    const key = `${lane ? "lane" : "pool"}|${limitsKey(limits)}`;
    let pool = spares.get(key);
    if (pool) spares.delete(key);
    else {
      const made = { ...limits };
      pool = new SpareSandboxes(() => create(ivmModule, made, lane), warm);
    }
    spares.set(key, pool);
    for (const [oldKey, old] of spares) {
      if (spares.size <= MAX_SPARE_LIMITS) break;
      spares.delete(oldKey);
      void awaited(old.close());
    }
    return pool;
  };

  const openSandbox = async (
    limits: SandboxLimits,
    openOptions?: IsolateOpenOptions,
  ): Promise<IsolateSandbox> => {
    if (closed) throw closedError();
    const lane = openOptions?.lane === true;
    const pool = sparesFor(ivmModule, limits, lane);
    // take() claims its spare at once, so the refill counts it as gone.
    const taking = pool?.take();
    pool?.refill();
    const sandbox = (await taking) ?? (await create(ivmModule, limits, lane));
    if (closed) {
      await sandbox.dispose();
      throw closedError();
    }
    if (sandbox.alive) open.add(sandbox);
    return sandbox;
  };

  return {
    open(limits: SandboxLimits, openOptions?: IsolateOpenOptions): Promise<IsolateSandbox> {
      return awaited(openSandbox(limits, openOptions));
    },
    /**
     * Disposes every sandbox and spare, and resolves once isolated-vm is running nothing of them (see
     * teardown.ts): a process may exit as soon as it has.
     */
    async close(): Promise<void> {
      closed = true;
      const sandboxes = [...open];
      open.clear();
      const pools = [...spares.values()];
      spares.clear();
      await Promise.all([
        ...sandboxes.map((sandbox) => sandbox.dispose()),
        ...pools.map((pool) => pool.close()),
        Promise.allSettled(pending),
      ]);
      await isolates.close();
    },
  };
}

/** Sandboxes made with equal limits are interchangeable; the key says when limits are equal. */
function limitsKey(limits: SandboxLimits): string {
  return [
    limits.timeoutMs,
    limits.cpuTimeMs,
    limits.memoryMb,
    limits.maxLogChars,
    limits.maxResultChars,
    limits.maxToolCalls,
  ]
    .map(String)
    .join("|");
}
