/**
 * One isolated-vm isolate with the prelude installed: a {@link Sandbox} that runs executions one at a
 * time and dies (is disposed) when a run is stopped by a limit or a cancellation.
 */

import type ivm from "isolated-vm";
import {
  type ExecutionOutcome,
  type ExecutionRequest,
  runEnding,
  type Sandbox,
  type SandboxBridge,
  type SandboxLimits,
} from "../contract/index.js";
import type { GuestAnswerSlot, GuestEntry } from "../guest/interface.js";
import { preludeSource } from "../guest/prelude.js";
import { AnswerSlot, alwaysSpin, type SpinMode, spinsWhileSpare } from "./answer-slot.js";
import { Execution } from "./execution.js";
import { type IsolatePool, type IsolateSlot, kill, newSlot } from "./isolates.js";
import type { IsolatedVm } from "./load.js";
import type { RunMemoryWatch } from "./memory-watch.js";
import type { StretchWatch } from "./stretch-watch.js";
import { disposeRunningLater } from "./teardown.js";

/** The smallest heap isolated-vm accepts, in MB. */
const MIN_MEMORY_MB = 8;

/**
 * The prelude as a script whose completion value is the install function (strict mode; it defines no
 * global, so the only way to it is the Reference the host keeps).
 */
let preludeScript: string | undefined;

/**
 * V8's code cache of the prelude script, per isolated-vm module: produced by the first isolate that
 * compiles it and consumed by the later ones, which then skip parsing and compiling the prelude. It holds
 * compiled code only (no heap objects), and V8 checks it against the source and its own version and
 * flags, rejecting it (and compiling afresh) on any mismatch.
 */
const preludeCache = new WeakMap<IsolatedVm, ivm.ExternalCopy<ArrayBuffer>>();

/** Callbacks an owner (the environment) can pass to {@link IsolateSandbox.open}. */
export interface IsolateSandboxHooks {
  /** Called once when the sandbox dies: disposed, or killed by a limit, a cancellation or a crash. */
  onDead?(sandbox: IsolateSandbox): void;
  /** Watches each run's memory from outside the heap (see IsolateEngineOptions.memory). */
  memory?: RunMemoryWatch | undefined;
  /** False: calls the code awaits alone are not offered synchronously (see IsolateEngineOptions.syncCalls). */
  syncCalls?: boolean | undefined;
  /** How the code's thread waits for a call's answer (see IsolateEngineOptions.spin); lanes ignore it. */
  spin?: SpinMode | undefined;
  /**
   * The isolate runs on the thread that opened it, in synchronous stretches (see ExecutionDeps.lane):
   * the guest's messages reach the host within the stretch that sent them, in order with its calls, and
   * calls are always offered synchronously.
   */
  lane?: boolean | undefined;
  /** Watches a lane's stretches of code from another thread. */
  stretches?: StretchWatch | undefined;
}

/** A sandbox backed by one V8 isolate in this process. Create it with {@link IsolateSandbox.open}. */
export class IsolateSandbox implements Sandbox {
  readonly #slot: IsolateSlot;
  readonly #isolate: ivm.Isolate;
  readonly #memoryMb: number;
  readonly #hooks: IsolateSandboxHooks;
  readonly #pool: IsolatePool | undefined;
  #context: ivm.Context | undefined;
  #entry: ivm.Reference<GuestEntry> | undefined;
  #current: { runId: number; execution: Execution } | undefined;
  #runIds = 0;
  #finalRan = false;
  #dead = false;
  #tainted = false;
  /** Where calls the code waits for alone are answered (in-process sandboxes, see answer-slot.ts). */
  #answers: AnswerSlot | undefined;
  /** Calls offered synchronously whose answer isolated-vm has not taken yet (see #answerSync). */
  #delivering = 0;
  #disposeWhenDelivered = false;

  private constructor(slot: IsolateSlot, hooks: IsolateSandboxHooks, pool: IsolatePool | undefined) {
    this.#slot = slot;
    this.#isolate = slot.isolate;
    this.#memoryMb = slot.memoryMb;
    this.#hooks = hooks;
    this.#pool = pool;
  }

  /**
   * Creates a context with the prelude in an isolate with the memory limit (one from `pool` when it has
   * one idle, else a new one): the prelude's `send` function is an isolated-vm Callback handed to it as
   * a closure argument, so no global ever holds it.
   */
  static async open(
    ivmModule: IsolatedVm,
    limits: SandboxLimits,
    hooks: IsolateSandboxHooks = {},
    pool?: IsolatePool,
  ): Promise<IsolateSandbox> {
    const memoryMb = Math.max(MIN_MEMORY_MB, Math.ceil(limits.memoryMb));
    const slot: IsolateSlot = pool ? pool.take(memoryMb) : newSlot(ivmModule, memoryMb);
    const sandbox = new IsolateSandbox(slot, hooks, pool);
    slot.onCatastrophe = () => sandbox.#kill(true);
    const isolate = slot.isolate;
    try {
      const context = await isolate.createContext();
      sandbox.#context = context;
      const opened = sandbox;
      const send = new ivmModule.Callback(
        (type: unknown, runId: unknown, id: unknown, a: unknown, b: unknown, c: unknown, d: unknown) =>
          opened.#receive(type, runId, id, a, b, c, d),
        // On a lane the guest runs on this thread: a synchronous callback is a plain call, in order.
        hooks.lane ? { sync: true } : { ignored: true },
      );
      // A call the code waits for alone is offered synchronously (to the Reference), unless syncCalls is
      // off; in this process the guest may spin on an answer slot instead (see answer-slot.ts).
      const offered = hooks.syncCalls !== false || hooks.lane === true;
      const syncCall = offered
        ? new ivmModule.Reference(
            (runId: unknown, id: unknown, tool: unknown, argsJson: unknown, requested: unknown) =>
              opened.#answerSync(runId, id, tool, argsJson, requested),
          )
        : undefined;
      if (offered && hooks.lane !== true && hooks.spin !== "never") {
        sandbox.#answers = new AnswerSlot(hooks.spin === "always" ? alwaysSpin : spinsWhileSpare);
      }
      const answers = sandbox.#answers?.guestSide();
      sandbox.#entry = await installPrelude(ivmModule, slot, context, send, syncCall, answers);
      return sandbox;
    } catch (error) {
      sandbox.#kill();
      throw new Error(
        `Could not start an isolate sandbox: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }

  /** False once the sandbox was disposed or killed by a limit, a cancellation or a crash. */
  get alive(): boolean {
    return !this.#dead && !this.#isolate.isDisposed;
  }

  /**
   * True once the isolate was killed while it was running code, or after it hit its memory limit. V8
   * can ignore termination inside native code (a huge sort, ICU on a huge string) and isolated-vm can
   * leave a thread in its out-of-memory handler, so such a kill may leave a thread burning CPU or memory
   * in this process after the run has ended: the process is no longer trustworthy for other runs.
   */
  get tainted(): boolean {
    return this.#tainted;
  }

  /**
   * Runs one piece of code. Throws (rejects) when the sandbox is no longer alive or is already running
   * code; every outcome of the code itself, including limits, is an {@link ExecutionOutcome}.
   */
  async execute(
    request: ExecutionRequest,
    bridge: SandboxBridge,
    signal: AbortSignal,
  ): Promise<ExecutionOutcome> {
    if (!this.alive || !this.#context || !this.#entry) {
      throw new Error(
        "This isolate sandbox is no longer alive (it was disposed, or a timeout, a limit or a cancellation " +
          "ended it); open a new sandbox.",
      );
    }
    if (this.#current) {
      throw new Error(
        "This isolate sandbox is already running code; a sandbox runs one execution at a time.",
      );
    }
    if (this.#finalRan) {
      throw new Error(
        "This isolate sandbox already ran an execution marked final (ExecutionRequest.final); open a new sandbox.",
      );
    }
    if (request.final === true) this.#finalRan = true;
    if (signal.aborted) {
      return {
        ...runEnding("Cancelled", "The run was cancelled before it started."),
      };
    }
    const runId = ++this.#runIds;
    const watching = this.#hooks.memory?.begin(this.#memoryMb);
    const execution = new Execution(
      {
        isolate: this.#isolate,
        context: this.#context,
        entry: this.#entry,
        memoryMb: this.#memoryMb,
        runId,
        kill: (busy) => this.#kill(busy),
        memory: watching,
        lane: this.#hooks.lane,
        stretches: this.#hooks.stretches,
        answers: this.#answers,
      },
      request,
      bridge,
      signal,
    );
    this.#current = { runId, execution };
    try {
      return await execution.start();
    } finally {
      this.#current = undefined;
      watching?.end();
    }
  }

  /**
   * Stops a running execution (as cancelled) and releases the sandbox. Its isolate goes back to the pool
   * when the sandbox ran at most one execution and ended normally; otherwise the isolate is disposed.
   */
  async dispose(): Promise<void> {
    if (this.#current) {
      this.#current.execution.abandon();
      return;
    }
    if (this.#dead) return;
    if (this.#pool && this.#runIds <= 1 && !this.#isolate.isDisposed) {
      this.#dead = true;
      this.#release();
      this.#pool.give(this.#slot);
      this.#hooks.onDead?.(this);
      return;
    }
    this.#kill();
  }

  /**
   * Answers a call the code awaits alone, offered synchronously (isolated-vm's applySync): the outcome's
   * text when the bridge has it at once, else `""` and the execution settles the call when its outcome
   * comes. A call that reaches a sandbox already killed (the guest entered the call as it was being
   * stopped) is answered at once. A kill asked for while the answer was being made (a tool that cancels
   * its own run) disposes the isolate only on a later turn, once isolated-vm has taken the answer: its
   * thread is inside this call meanwhile.
   */
  #answerSync(runId: unknown, id: unknown, tool: unknown, argsJson: unknown, requested: unknown): string {
    const current = this.#current;
    if (this.#dead || this.#isolate.isDisposed || !current || runId !== current.runId) {
      return `f${JSON.stringify({ kind: "cancelled", message: "The run has ended." })}`;
    }
    this.#answers?.judgeSpins();
    this.#delivering++;
    try {
      return current.execution.receiveSync(id, tool, argsJson, requested);
    } finally {
      this.#delivering--;
      if (this.#delivering === 0 && this.#disposeWhenDelivered) {
        this.#disposeWhenDelivered = false;
        // A later turn of the event loop: by then isolated-vm has taken what this call returns.
        disposeRunningLater(this.#slot.isolate, this.#slot.teardowns);
      }
    }
  }

  /** Routes a guest message to the execution it belongs to; messages of finished runs are dropped. */
  #receive(type: unknown, runId: unknown, id: unknown, a: unknown, b: unknown, c: unknown, d: unknown): void {
    const current = this.#current;
    if (!current || runId !== current.runId) return;
    current.execution.receive(type, id, a, b, c, d);
  }

  #kill(busy = false): void {
    if (this.#dead) return;
    this.#dead = true;
    this.#tainted = busy;
    this.#release();
    // On a lane the call being answered runs on this very thread, and isolated-vm ends the code at once
    // when its isolate is disposed under it; elsewhere the guest's thread waits for what the call returns.
    if (this.#delivering > 0 && this.#hooks.lane !== true) this.#disposeWhenDelivered = true;
    else kill(this.#slot);
    this.#hooks.onDead?.(this);
  }

  /** Releases the sandbox's handles into its isolate (the context with the model's globals). */
  #release(): void {
    for (const release of [() => this.#entry?.release(), () => this.#context?.release()]) {
      try {
        release();
      } catch {
        // Already released together with the isolate.
      }
    }
    this.#entry = undefined;
    this.#context = undefined;
  }
}

/**
 * Compiles the prelude (with the code cache when there is one), runs it in the context and calls the
 * install function with `send`; returns the guest's entry point.
 */
async function installPrelude(
  ivmModule: IsolatedVm,
  slot: IsolateSlot,
  context: ivm.Context,
  send: ivm.Callback,
  syncCall: ivm.Reference | undefined,
  answers: GuestAnswerSlot | undefined,
): Promise<ivm.Reference<GuestEntry>> {
  slot.prelude ??= await compilePrelude(ivmModule, slot.isolate);
  const script = slot.prelude;
  let install: ivm.Reference<(...args: unknown[]) => GuestEntry> | undefined;
  try {
    install = (await script.run(context, { timeout: 10_000, reference: true })) as ivm.Reference<
      (...args: unknown[]) => GuestEntry
    >;
    // The slot is copied in: its SharedArrayBuffer is the same memory on both sides.
    const slotCopy = answers && new ivmModule.ExternalCopy(answers).copyInto();
    return (await install.apply(undefined, [send, syncCall, slotCopy], {
      timeout: 10_000,
      result: { reference: true },
    })) as ivm.Reference<GuestEntry>;
  } finally {
    install?.release();
  }
}

/** Compiles the prelude in an isolate, with V8's code cache of it when there is one. */
async function compilePrelude(ivmModule: IsolatedVm, isolate: ivm.Isolate): Promise<ivm.Script> {
  preludeScript ??= `"use strict"; ${preludeSource()}`;
  const cachedData = preludeCache.get(ivmModule);
  // isolated-vm sets the cache fields on the Script, though its typings leave them out.
  const script: ivm.Script & ivm.CachedDataResult & { cachedDataRejected?: boolean } =
    await isolate.compileScript(preludeScript, {
      filename: "cordon-prelude.js",
      ...(cachedData ? { cachedData } : { produceCachedData: true }),
    });
  if (cachedData && script.cachedDataRejected) preludeCache.delete(ivmModule);
  else if (!cachedData && script.cachedData) preludeCache.set(ivmModule, script.cachedData);
  return script;
}
