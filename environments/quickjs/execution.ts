/**
 * One execution of the model's code in a QuickJS sandbox. QuickJS runs on the thread that calls it, so
 * every entry into the guest (starting the code, settling a tool call) is a synchronous stretch that
 * also runs the promise jobs it queued, and returns once the code waits for something. A stretch is
 * bounded by what is left of the run's wall-clock and CPU time: QuickJS's interrupt handler ends it
 * (an interruption the code cannot catch). Between stretches the wall clock is a timer.
 *
 * Tool calls, console lines and the end of the run reach the host through the prelude's `send`; a call
 * the code waits for alone is offered synchronously, so a tool that answers at once answers within
 * the call. Outcomes that come during a stretch are handed to the guest once it returned.
 */

import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, VmCallResult } from "quickjs-emscripten-core";
import {
  type BridgeCallOutcome,
  type CallingRun,
  callFailure,
  callThroughBridge,
  DEFAULT_MAX_ARGS_CHARS,
  DEFAULT_MAX_TOOL_CALLS,
  DEFAULT_SEARCH_LIMIT,
  type ExecutionOutcome,
  type ExecutionRequest,
  isDiscoveryCall,
  type LogEntry,
  MAX_DISCOVERY_CALLS,
  MAX_DISCOVERY_QUERY_CHARS,
  MAX_SEARCH_LIMIT,
  maxRequestMessages,
  PausableDeadline,
  type RecordedZone,
  runEnding,
  type SandboxBridge,
  type SandboxError,
} from "../../sandbox/contract/index.js";
import type { GuestDoneReport, GuestRunConfig } from "../../sandbox/guest/interface.js";
import { boundError, limitMessages, userCodePosition } from "../../sandbox/isolate/errors.js";
import { answerText, guestReplay, parseReport, recordedValues } from "../../sandbox/isolate/guest-data.js";
import { wrapCode } from "../../sandbox/isolate/wrap.js";
import { compileFailure, hostZone, isOutOfMemory, quickjsLimitMessages, shiftLines } from "./errors.js";
import type { MemoryWatch } from "./memory.js";

/** What an execution needs from the sandbox that owns the QuickJS runtime. */
export interface QuickJSExecutionDeps {
  context: QuickJSContext;
  runtime: QuickJSRuntime;
  /** The prelude's entry (a GuestEntry in the guest). */
  entry: QuickJSHandle;
  memoryMb: number;
  /** This run's watch on the instance's capped memory, which the memory limit is. */
  memory: MemoryWatch;
  runId: number;
  /** Sets what the runtime's interrupt handler asks while a stretch runs (undefined: nothing runs). */
  interrupt(check: (() => boolean) | undefined): void;
  /** Kills the sandbox (its WebAssembly instance is dropped). Called at most once, never during a stretch. */
  kill(): void;
}

const LOG_LEVELS: ReadonlySet<string> = new Set(["log", "info", "warn", "error", "debug"]);

/** Why a stretch was interrupted. */
type Interruption = "cpu" | "wall" | "stop" | "memory";

/** How a stretch ended: the handle it returned, or an error the guest threw out of it. */
type StretchResult = { ok: true; value: QuickJSHandle } | { ok: false; error: SandboxError } | undefined;

/** One run of code in a QuickJS sandbox. Create it, call {@link QuickJSExecution.start} once. */
export class QuickJSExecution {
  readonly #deps: QuickJSExecutionDeps;
  readonly #request: ExecutionRequest;
  readonly #bridge: SandboxBridge;
  readonly #nowBridge: Pick<SandboxBridge, "callTool">;
  readonly #signal: AbortSignal;
  readonly #allowedTools: ReadonlySet<string>;
  readonly #maxToolCalls: number;
  readonly #maxMessages: number;
  readonly #discovery: boolean;
  readonly #calling: CallingRun;
  #ended = false;
  #report: GuestDoneReport | undefined;
  #toolCalls = 0;
  #messages = 0;
  #wallClock: PausableDeadline | undefined;
  /** CPU time the code used in earlier stretches, in ms. */
  #cpuUsedMs = 0;
  #inStretch = false;
  /** Outcomes that came while a stretch ran, handed to the guest once it returned. */
  readonly #afterStretch: (() => void)[] = [];
  /** A stop asked for during a stretch: the stretch is interrupted and the sandbox killed once it returned. */
  #stopAfterStretch: { status: ExecutionOutcome["status"]; error: SandboxError } | undefined;
  /** The zone this run reports before its first message (a run that records or replays). */
  #zone: RecordedZone | undefined;
  #resolve: (outcome: ExecutionOutcome) => void = () => {};
  readonly #onAbort = () => this.#stop(runEnding("Cancelled", limitMessages.cancelled()));

  constructor(
    deps: QuickJSExecutionDeps,
    request: ExecutionRequest,
    bridge: SandboxBridge,
    signal: AbortSignal,
  ) {
    this.#deps = deps;
    this.#request = request;
    this.#bridge = bridge;
    const now = bridge.callToolNow;
    this.#nowBridge = now ? { callTool: (...args) => now.apply(bridge, args) } : bridge;
    this.#signal = signal;
    this.#allowedTools = new Set(Object.values(request.toolNames));
    this.#discovery = request.discovery === true;
    this.#maxToolCalls = request.limits.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
    this.#maxMessages = maxRequestMessages(request);
    if (request.record === true || request.replay !== undefined) this.#zone = hostZone();
    const execution = this;
    this.#calling = {
      get clock() {
        return execution.#wallClock;
      },
      get over() {
        return execution.#ended;
      },
    };
  }

  /** Runs the code; resolves with how it ended. Never rejects. */
  start(): Promise<ExecutionOutcome> {
    const outcome = new Promise<ExecutionOutcome>((resolve) => {
      this.#resolve = resolve;
    });
    let wrapped: ReturnType<typeof wrapCode>;
    let config: string;
    try {
      wrapped = wrapCode(this.#request.code);
      config = JSON.stringify(this.#config(wrapped.names));
    } catch (error) {
      this.#crashed(error);
      return outcome;
    }
    this.#armLimits();
    if (this.#ended) return outcome;
    this.#launch(wrapped, config);
    this.#settleIfIdle();
    return outcome;
  }

  /** Stops the run from outside (the sandbox is being disposed); the sandbox is killed. */
  abandon(): void {
    this.#stop(runEnding("Disposed", limitMessages.disposed()));
  }

  /**
   * Starts the code: a launcher whose body is `return $0("start", $1, <the code as an async function>,
   * $2)`, called with the prelude's entry, the run id and the config (the wrapper shadows them). Its
   * first line holds the wrapper's header, so the code's line N is line N + 1 (see `shiftLines`). Code
   * that does not parse could close the wrapper early and reach the launcher's parameters, so it is
   * compiled alone first, with none.
   */
  #launch(wrapped: ReturnType<typeof wrapCode>, config: string): void {
    const { context, entry, runId } = this.#deps;
    const source = wrapped.parsed
      ? `(function ($0, $1, $2) { return $0("start", $1, ${wrapped.source}, $2); })`
      : wrapped.source;
    if (!wrapped.parsed && this.#request.final !== true) {
      this.#release(this.#stretch(() => this.#callEntry(["guard", 0, 0, ""])));
      if (this.#ended) return;
    }
    const compiled = this.#stretch(() => context.evalCode(source, "run_code.js", { type: "global" }), true);
    if (compiled === undefined || this.#ended) return;
    if (!compiled.ok) {
      this.#finish({ status: "error", error: compileFailure(compiled.error) });
      return;
    }
    const fn = compiled.value;
    try {
      const result = wrapped.parsed
        ? this.#stretch(() => {
            const id = context.newNumber(runId);
            const settings = context.newString(config);
            try {
              return context.callFunction(fn, context.undefined, entry, id, settings);
            } finally {
              id.dispose();
              settings.dispose();
            }
          })
        : this.#stretch(() => this.#callEntry(["start", runId, fn, config]));
      this.#release(result);
    } finally {
      free(fn);
    }
  }

  /** Calls the prelude's entry with plain arguments (and at most one handle, `start`'s function). */
  #callEntry(args: [string, number, number | QuickJSHandle, string]): VmCallResult<QuickJSHandle> {
    const { context, entry } = this.#deps;
    const handles = [
      context.newString(args[0]),
      context.newNumber(args[1]),
      typeof args[2] === "number" ? context.newNumber(args[2]) : args[2],
      context.newString(args[3]),
    ];
    try {
      return context.callFunction(entry, context.undefined, ...handles);
    } finally {
      for (const handle of handles) if (handle !== args[2]) handle.dispose();
    }
  }

  /** Frees what a stretch returned. */
  #release(result: StretchResult): void {
    if (result?.ok) free(result.value);
  }

  /**
   * Runs one stretch of the guest: `enter`, then every promise job it queued, with the interrupt
   * handler watching the run's wall-clock and CPU time. Returns how `enter` ended, or undefined when the
   * stretch ended the run (a limit, a trap of the WebAssembly instance, a stop asked for meanwhile).
   * `compiling`: an error `enter` threw is handed back (a syntax error), not taken as the code's end.
   */
  #stretch(enter: () => VmCallResult<QuickJSHandle>, compiling = false): StretchResult {
    if (this.#ended) return undefined;
    const { context, runtime } = this.#deps;
    const began = performance.now();
    let hostMs = 0;
    let interruption: Interruption | undefined;
    const cpuLimitMs = this.#request.limits.cpuTimeMs;
    const check = () => {
      if (this.#stopAfterStretch) interruption = "stop";
      else if ((this.#wallClock?.remainingMs ?? 1) <= 0) interruption = "wall";
      else if (this.#cpuUsedMs + performance.now() - began - hostMs > cpuLimitMs) interruption = "cpu";
      else if (this.#deps.memory.over) interruption = "memory";
      return interruption !== undefined;
    };
    this.#inStretch = true;
    this.#hostTime = (ms) => {
      hostMs += ms;
    };
    this.#deps.interrupt(check);
    let result: StretchResult;
    try {
      const entered = enter();
      if (entered.error) {
        result = { ok: false, error: readError(context, entered.error) };
        entered.error.dispose();
      } else result = { ok: true, value: entered.value };
      // The jobs run inside the stretch, so the guest is idle once it returns.
      while (interruption === undefined && result.ok) {
        const jobs = runtime.executePendingJobs();
        if (jobs.error) {
          result = { ok: false, error: readError(context, jobs.error) };
          jobs.error.dispose();
        } else if (jobs.value === 0) break;
      }
    } catch (error) {
      // The WebAssembly instance trapped (a stack overflow of the host's thread inside QuickJS, say):
      // its state is undefined now, and the whole instance is dropped.
      this.#deps.interrupt(undefined);
      this.#inStretch = false;
      if (this.#deps.memory.over || this.#deps.memory.full) this.#stopOutOfMemory();
      else this.#crashed(error);
      return undefined;
    }
    this.#deps.interrupt(undefined);
    this.#inStretch = false;
    this.#hostTime = undefined;
    this.#cpuUsedMs += Math.max(0, performance.now() - began - hostMs);
    if (interruption !== undefined) this.#interrupted(interruption);
    else if (this.#outOfMemory(result.ok ? undefined : result.error)) this.#stopOutOfMemory();
    else if (!result.ok && !compiling && !this.#report) {
      this.#finish({ status: "error", error: shiftLines(result.error) });
    }
    if (this.#stopAfterStretch) {
      const stop = this.#stopAfterStretch;
      this.#stopAfterStretch = undefined;
      this.#stop(stop);
    }
    while (this.#afterStretch.length > 0 && !this.#ended) this.#afterStretch.shift()?.();
    if (this.#ended) return undefined;
    return result;
  }

  /** Adds host time (a tool answering a synchronous call) to the running stretch's, which the CPU limit leaves out. */
  #hostTime: ((ms: number) => void) | undefined;

  #interrupted(interruption: Interruption): void {
    if (interruption === "cpu") {
      this.#stop(runEnding("CpuTimeLimit", limitMessages.cpu(this.#request.limits.cpuTimeMs)));
    } else if (interruption === "wall") this.#stopByWallClock();
    else if (interruption === "memory") this.#stopOutOfMemory();
  }

  /**
   * Whether the run is out of memory: the instance's memory is past its cap, or `error` (how the code
   * or a stretch ended) is QuickJS's out-of-memory error or came while the heap is full to its cap.
   */
  #outOfMemory(error?: SandboxError): boolean {
    const { memory } = this.#deps;
    return memory.over || (error !== undefined && (memory.full || isOutOfMemory(error)));
  }

  #stopOutOfMemory(): void {
    this.#stop(quickjsLimitMessages.memory(this.#deps.memoryMb));
  }

  /** What the guest is told about this run (see GuestRunConfig). */
  #config(names: GuestRunConfig["names"]): GuestRunConfig {
    const config: GuestRunConfig = {
      toolNames: { ...this.#request.toolNames },
      names,
      maxLogChars: this.#request.limits.maxLogChars,
      maxResultChars: this.#request.limits.maxResultChars,
      maxToolCalls: this.#maxToolCalls,
      maxArgsChars: this.#request.limits.maxArgsChars ?? DEFAULT_MAX_ARGS_CHARS,
      // QuickJS has no Intl: nothing is kept outside its heap.
      maxIcuChars: 0,
      final: this.#request.final === true,
    };
    if (this.#request.waitingTools !== undefined) config.waitingTools = [...this.#request.waitingTools];
    if (this.#request.record === true) config.record = true;
    if (this.#request.replay !== undefined) config.replay = recordedValues(this.#request.replay);
    if (this.#request.replayCalls !== undefined) config.replayCalls = guestReplay(this.#request.replayCalls);
    if (this.#discovery) {
      config.discovery = {
        maxLimit: MAX_SEARCH_LIMIT,
        defaultLimit: DEFAULT_SEARCH_LIMIT,
        maxCalls: MAX_DISCOVERY_CALLS,
        maxQueryChars: MAX_DISCOVERY_QUERY_CHARS,
      };
    }
    return config;
  }

  /** A message from the guest's `send` (already checked to belong to this run's id). Never throws. */
  receive(type: unknown, id: unknown, a: unknown, b: unknown, c?: unknown): void {
    if (this.#over()) return;
    if (this.#outOfMemory()) {
      this.#stopOutOfMemory();
      return;
    }
    if (++this.#messages > this.#maxMessages) {
      this.#stop(runEnding("LimitExceeded", limitMessages.messages(this.#maxMessages)));
      return;
    }
    const began = performance.now();
    try {
      this.#sendZone();
      if (type === "call" && typeof id === "number" && typeof a === "string" && typeof b === "string") {
        const requested = typeof c === "string" && c !== "" ? c : undefined;
        void this.#call(id, a, b, requested, (outcome) => this.#settleLater(id, outcome));
      } else if (type === "log" && typeof a === "string" && LOG_LEVELS.has(a) && typeof b === "string") {
        this.#log({ level: a as LogEntry["level"], text: b });
      } else if (type === "done" && typeof b === "string") {
        this.#report = parseReport(b) ?? {
          status: "error",
          error: { name: "Error", message: "The sandbox reported an unreadable result." },
        };
      } else if (type === "values" && typeof b === "string" && this.#recordsOrReplays()) {
        this.#record(b);
      } else if (type === "replayed" && typeof id === "number" && this.#request.replayCalls !== undefined) {
        this.#replayed(id);
      }
    } catch {
      // A malformed message is ignored; the limits still end the run.
    } finally {
      this.#hostTime?.(performance.now() - began);
    }
  }

  /**
   * A call the code waits for alone, offered synchronously: the outcome as text when the bridge has it
   * at once, else `""`, and the outcome is settled through the entry when it comes. Never throws.
   */
  receiveSync(id: unknown, name: unknown, argsJson: unknown, requested: unknown): string {
    if (this.#over()) {
      return answerText(callFailure(String(name), "cancelled", "The run has ended."));
    }
    if (this.#outOfMemory()) {
      this.#stopOutOfMemory();
      return answerText(callFailure(String(name), "limit", "The run was stopped."));
    }
    if (++this.#messages > this.#maxMessages) {
      this.#stop(runEnding("LimitExceeded", limitMessages.messages(this.#maxMessages)));
      return answerText(callFailure(String(name), "limit", "The run was stopped."));
    }
    if (typeof id !== "number" || typeof name !== "string" || typeof argsJson !== "string") {
      return answerText(callFailure(String(name), "error", "The sandbox sent a malformed call."));
    }
    const began = performance.now();
    try {
      this.#sendZone();
      const asked = typeof requested === "string" && requested !== "" ? requested : undefined;
      const outcome = this.#call(id, name, argsJson, asked, (outcome) => outcome, this.#nowBridge);
      if (outcome instanceof Promise) {
        void outcome.then((later) => this.#settleLater(id, later));
        return "";
      }
      return answerText(outcome);
    } finally {
      this.#hostTime?.(performance.now() - began);
    }
  }

  /**
   * Whether the guest's messages are no longer heard: the run ended, the guest reported its end, or a
   * stop came during this stretch (a tool that cancels its run as it answers), which ends the stretch
   * only at the interrupt handler's next check: the code must not reach the host meanwhile.
   */
  #over(): boolean {
    return this.#ended || this.#report !== undefined || this.#stopAfterStretch !== undefined;
  }

  /** Checks a call and runs it through the bridge (as the isolate engine does). Never throws or rejects. */
  #call<T>(
    id: number,
    name: string,
    argsJson: string,
    requested: string | undefined,
    deliver: (outcome: BridgeCallOutcome) => T,
    bridge: Pick<SandboxBridge, "callTool"> = this.#bridge,
  ): T | Promise<T> {
    if (this.#discovery && isDiscoveryCall(name)) {
      return callThroughBridge(bridge, this.#calling, { id, name, argsJson, requested }, deliver);
    }
    this.#toolCalls++;
    if (!this.#allowedTools.has(name)) {
      return deliver(callFailure(name, "unknown_tool", `There is no tool named ${name} in this run.`));
    }
    if (this.#toolCalls > this.#maxToolCalls) {
      return deliver(callFailure(name, "limit", `Too many tool calls in one run (${this.#maxToolCalls}).`));
    }
    return callThroughBridge(bridge, this.#calling, { id, name, argsJson, requested }, deliver);
  }

  /** Hands an outcome to the guest: now when no stretch runs, else once the running one returned. */
  #settleLater(callId: number, outcome: BridgeCallOutcome): void {
    if (this.#inStretch) this.#afterStretch.push(() => this.#settle(callId, outcome));
    else this.#settle(callId, outcome);
  }

  #settle(callId: number, outcome: BridgeCallOutcome): void {
    // Late outcomes (after the run ended or the guest finished) are dropped: nothing reaches the guest.
    if (this.#ended || this.#report) return;
    const args: [string, number, number, string] = outcome.ok
      ? ["settle", this.#deps.runId, callId, typeof outcome.valueJson === "string" ? outcome.valueJson : ""]
      : ["fail", this.#deps.runId, callId, JSON.stringify(outcome.error)];
    this.#release(this.#stretch(() => this.#callEntry(args)));
    this.#settleIfIdle();
  }

  /**
   * A run that records or replays reports the zone its code sees before its first message: QuickJS has
   * no Intl, and its local time is the host process's (the WebAssembly build asks the host's clock).
   */
  #sendZone(): void {
    const zone = this.#zone;
    if (zone === undefined) return;
    this.#zone = undefined;
    try {
      this.#bridge.record?.({ zone });
    } catch {
      // The host that needs the zone notices its lack.
    }
  }

  #recordsOrReplays(): boolean {
    return this.#request.record === true || this.#request.replay !== undefined;
  }

  #record(json: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(json);
    } catch {
      return;
    }
    try {
      this.#bridge.record?.(recordedValues(raw));
    } catch {
      // A failing record sink must not end the run.
    }
  }

  #replayed(count: number): void {
    if (!Number.isSafeInteger(count) || count <= 0) return;
    this.#toolCalls += count;
    try {
      this.#bridge.replayed?.(count);
    } catch {
      // The bridge judges the count.
    }
  }

  #log(entry: LogEntry): void {
    try {
      this.#bridge.log(entry);
    } catch {
      // A failing log sink must not end the run.
    }
  }

  /** Ends the run once the guest reported `done` and no stretch runs (the guest is then idle). */
  #settleIfIdle(): void {
    if (this.#ended || !this.#report || this.#inStretch) return;
    const { status, valueJson, error } = this.#report;
    if (this.#outOfMemory(error)) {
      this.#stopOutOfMemory();
      return;
    }
    const outcome: ExecutionOutcome = { status };
    if (valueJson !== undefined) outcome.valueJson = valueJson;
    if (error) outcome.error = shiftLines(error);
    this.#finish(outcome);
  }

  #armLimits(): void {
    this.#wallClock = new PausableDeadline(Math.max(1, this.#request.limits.timeoutMs), () =>
      this.#stopByWallClock(),
    );
    if (this.#signal.aborted) this.#onAbort();
    else this.#signal.addEventListener("abort", this.#onAbort, { once: true });
  }

  #stopByWallClock(): void {
    const { timeoutMs } = this.#request.limits;
    const message = this.#report ? limitMessages.lingering(timeoutMs) : limitMessages.timeout(timeoutMs);
    this.#stop(runEnding("Timeout", message));
  }

  #crashed(error: unknown): void {
    const detail = error instanceof Error ? error.message : String(error);
    this.#stop(quickjsLimitMessages.crashed(detail));
  }

  /** Ends the run from the host's side and kills the sandbox (once the running stretch, if any, returned). */
  #stop(ending: { status: ExecutionOutcome["status"]; error: SandboxError }): void {
    if (this.#ended) return;
    if (this.#inStretch) {
      // The interrupt handler ends the stretch at its next check; the stretch then stops the run.
      this.#stopAfterStretch ??= ending;
      return;
    }
    this.#deps.kill();
    this.#finish(ending);
  }

  #finish(outcome: ExecutionOutcome): void {
    if (this.#ended) return;
    this.#ended = true;
    if (outcome.error) outcome.error = boundError(outcome.error);
    const position = outcome.error ? userCodePosition(outcome.error) : undefined;
    if (outcome.error && position) outcome.error = { ...outcome.error, ...position };
    this.#wallClock?.clear();
    this.#signal.removeEventListener("abort", this.#onAbort);
    this.#resolve(outcome);
  }
}

/** Frees a handle; one of an instance that trapped or was dropped is left as it is. */
function free(handle: QuickJSHandle): void {
  try {
    if (handle.alive) handle.dispose();
  } catch {
    // Its instance is gone.
  }
}

/**
 * An error thrown out of the guest as plain data: its name, message and stack read while the stretch's
 * interrupt handler still watches (a getter the code left on a prototype cannot hold the thread).
 */
function readError(context: QuickJSContext, handle: QuickJSHandle): SandboxError {
  if (context.typeof(handle) !== "object") {
    return { name: "Error", message: context.typeof(handle) === "string" ? context.getString(handle) : "" };
  }
  const text = (key: string): string | undefined => {
    let value: QuickJSHandle | undefined;
    try {
      value = context.getProp(handle, key);
      return context.typeof(value) === "string" ? context.getString(value) : undefined;
    } catch {
      // A getter that threw: the field is unreadable.
      return undefined;
    } finally {
      value?.dispose();
    }
  };
  const error: SandboxError = { name: text("name") ?? "Error", message: text("message") ?? "" };
  const stack = text("stack");
  if (stack !== undefined) error.stack = `${error.name}: ${error.message}\n${stack}`;
  return error;
}
