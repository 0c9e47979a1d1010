/**
 * One QuickJS sandbox: a WebAssembly instance of QuickJS of its own, its memory capped (memory.ts),
 * with one runtime (its stack limit and interrupt handler) and one context holding the guest prelude.
 * It runs executions one at a time and dies when a run is stopped by a limit, a cancellation or a trap.
 *
 * The prelude gets two host functions, captured in its own scope and never handed to the model's code:
 * `send(type, runId, id, a, b, c)` for its messages, and `applyHost(runId, id, tool, argsJson,
 * requested)`, which answers a call the code waits for alone (through the prelude's `syncCall`, made in
 * the guest). Both read only strings and numbers from their arguments; nothing of the host's (no handle,
 * no function other than these two) is ever put into the guest.
 */

import type {
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from "quickjs-emscripten-core";
import {
  type ExecutionOutcome,
  type ExecutionRequest,
  runEnding,
  type Sandbox,
  type SandboxBridge,
  type SandboxLimits,
} from "../../sandbox/contract/index.js";
import { preludeSource } from "../../sandbox/guest/prelude.js";
import { ARRAY_GUARD_SOURCE } from "./array-guard.js";
import { QuickJSExecution } from "./execution.js";
import { GUARDED_JSON_SOURCE } from "./json-guard.js";
import { capMemory, type MemoryCap } from "./memory.js";

/** The smallest memory limit a QuickJS sandbox is given, in MB. */
const MIN_MEMORY_MB = 8;

/**
 * QuickJS's own stack limit, in bytes: deep recursion ends as a catchable error in the code well before
 * the host thread's stack (which QuickJS's frames also use) runs out.
 */
const MAX_STACK_BYTES = 256 * 1024;

/**
 * The prelude as a script whose value is an install function `(send, applyHost)`. QuickJS has no
 * `Atomics`, which the prelude captures (it uses it only with an answer slot, which this environment
 * does not give): an empty frozen stand-in is passed under that name. Its `JSON` is one whose
 * `stringify` an index setter on Array.prototype cannot reach (see json-guard.ts). The prelude's
 * `syncCall` is made here, in the script's own scope: its `applySync` hands the host the call's five
 * fields as separate arguments, already a number, a number and three strings (the prelude makes them
 * so), and the host reads them without a handle or a type check each.
 */
let preludeScript: string | undefined;

/** A sandbox backed by its own QuickJS WebAssembly instance. Create it with {@link QuickJSSandbox.open}. */
export class QuickJSSandbox implements Sandbox {
  readonly #runtime: QuickJSRuntime;
  readonly #context: QuickJSContext;
  readonly #memoryMb: number;
  /** The cap on the instance's memory: set once the prelude is in, whose memory is the baseline. */
  #memory: MemoryCap | undefined;
  #entry: QuickJSHandle | undefined;
  #current: { runId: number; execution: QuickJSExecution } | undefined;
  #check: (() => boolean) | undefined;
  #runIds = 0;
  #finalRan = false;
  #dead = false;

  readonly #onDead: (() => void) | undefined;

  private constructor(
    runtime: QuickJSRuntime,
    context: QuickJSContext,
    memoryMb: number,
    onDead: (() => void) | undefined,
  ) {
    this.#onDead = onDead;
    this.#runtime = runtime;
    this.#context = context;
    this.#memoryMb = memoryMb;
  }

  /**
   * A new sandbox in `instance` (a fresh QuickJS WebAssembly instance, which it owns from now on);
   * `onDead` is called once when it dies.
   */
  static open(instance: QuickJSWASMModule, limits: SandboxLimits, onDead?: () => void): QuickJSSandbox {
    const memoryMb = Math.max(MIN_MEMORY_MB, Math.ceil(limits.memoryMb));
    const runtime = instance.newRuntime();
    const context = runtime.newContext();
    const sandbox = new QuickJSSandbox(runtime, context, memoryMb, onDead);
    try {
      // No runtime.setMemoryLimit: QuickJS's count in this build is not bytes (see memory.ts).
      runtime.setMaxStackSize(MAX_STACK_BYTES);
      runtime.setInterruptHandler(() => sandbox.#check?.() ?? false);
      sandbox.#entry = sandbox.#installPrelude();
      sandbox.#memory = capMemory(instance, memoryMb * 2 ** 20);
      return sandbox;
    } catch (error) {
      sandbox.#kill();
      throw new Error(
        `Could not start a QuickJS sandbox: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }

  /** False once the sandbox was disposed or killed by a limit, a cancellation or a trap. */
  get alive(): boolean {
    return !this.#dead;
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
    if (this.#dead || this.#entry === undefined || this.#memory === undefined) {
      throw new Error(
        "This QuickJS sandbox is no longer alive (it was disposed, or a timeout, a limit or a cancellation " +
          "ended it); open a new sandbox.",
      );
    }
    if (this.#current) {
      throw new Error(
        "This QuickJS sandbox is already running code; a sandbox runs one execution at a time.",
      );
    }
    if (this.#finalRan) {
      throw new Error(
        "This QuickJS sandbox already ran an execution marked final (ExecutionRequest.final); open a new sandbox.",
      );
    }
    if (request.final === true) this.#finalRan = true;
    if (signal.aborted) return runEnding("Cancelled", "The run was cancelled before it started.");
    const runId = ++this.#runIds;
    const execution = new QuickJSExecution(
      {
        context: this.#context,
        runtime: this.#runtime,
        entry: this.#entry,
        memoryMb: this.#memoryMb,
        memory: this.#memory.watchRun(),
        runId,
        interrupt: (check) => {
          this.#check = check;
        },
        kill: () => this.#kill(),
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
    }
  }

  /** Stops a running execution (as disposed) and frees the sandbox. Safe to call twice. */
  async dispose(): Promise<void> {
    if (this.#current) {
      this.#current.execution.abandon();
      return;
    }
    this.#kill();
  }

  /**
   * Wraps Array.prototype's looping methods (see array-guard.ts), evaluates the prelude and calls its
   * install function with the two host functions; returns the guest's entry. The host functions are
   * freed here: the guest keeps them alive in the prelude's scope.
   */
  #installPrelude(): QuickJSHandle {
    const context = this.#context;
    context
      .unwrapResult(context.evalCode(ARRAY_GUARD_SOURCE, "cordon-array-guard.js", { type: "global" }))
      .dispose();
    preludeScript ??=
      `(function (Atomics, JSON) { "use strict"; const install = ${preludeSource()};\n` +
      "return function (send, applyHost) { return install(send, { applySync: function (receiver, call) { " +
      'return applyHost(+call[0], +call[1], "" + call[2], "" + call[3], "" + call[4]); } }); }; })' +
      `(typeof Atomics === "undefined" ? Object.freeze({}) : Atomics, ${GUARDED_JSON_SOURCE})`;
    const install = context.unwrapResult(
      context.evalCode(preludeScript, "cordon-prelude.js", { type: "global" }),
    );
    const send = context.newFunction("send", (...args) => {
      const [type, runId, id, a, b, c] = args.map((arg) => this.#plain(arg));
      const current = this.#current;
      if (current && runId === current.runId) current.execution.receive(type, id, a, b, c);
    });
    const applyHost = context.newFunction("applyHost", (runId, id, tool, argsJson, requested) => {
      const current = this.#current;
      const answer =
        current && runId !== undefined && context.getNumber(runId) === current.runId
          ? current.execution.receiveSync(
              id && context.getNumber(id),
              tool && context.getString(tool),
              argsJson && context.getString(argsJson),
              requested && context.getString(requested),
            )
          : `f${JSON.stringify({ kind: "cancelled", message: "The run has ended." })}`;
      return context.newString(answer);
    });
    try {
      return context.unwrapResult(context.callFunction(install, context.undefined, send, applyHost));
    } finally {
      for (const handle of [applyHost, send, install]) handle.dispose();
    }
  }

  /** A string or a number the guest passed; anything else is undefined (and never looked into). */
  #plain(handle: QuickJSHandle | undefined): string | number | undefined {
    if (handle === undefined) return undefined;
    const type = this.#context.typeof(handle);
    if (type === "string") return this.#context.getString(handle);
    if (type === "number") return this.#context.getNumber(handle);
    return undefined;
  }

  /**
   * Drops the sandbox's QuickJS instance whole: its memory goes with it once nothing refers to it. The
   * runtime is not freed in order, which QuickJS refuses (it aborts) while objects still live in it, as
   * they do after a run was stopped, and which an instance that trapped cannot do at all.
   */
  #kill(): void {
    if (this.#dead) return;
    this.#dead = true;
    this.#check = undefined;
    this.#entry = undefined;
    this.#onDead?.();
  }
}
