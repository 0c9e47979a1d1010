/**
 * One execution of the model's code in an isolate: compiles it, starts it through the prelude, carries
 * tool calls and console lines between the guest and the bridge, enforces the wall-clock, CPU and
 * memory limits and cancellation, and decides how the run ended.
 *
 * The run ends when the guest has reported `done` AND no call into the isolate is still running (so
 * work the code left behind cannot keep the isolate busy after `execute` resolved), or when the host
 * stops it (timeout, CPU, memory, cancellation), in which case the isolate is killed.
 */

import type ivm from "isolated-vm";
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
  runEnding,
  type SandboxBridge,
  type SandboxError,
} from "../contract/index.js";
import {
  type GuestDoneReport,
  type GuestEntry,
  type GuestRunConfig,
  USER_CODE_FILENAME,
} from "../guest/interface.js";
import type { AnswerSlot } from "./answer-slot.js";
import { stayAwake } from "./awake-loop.js";
import { boundError, compileError, explainDynamicImport, limitMessages, userCodePosition } from "./errors.js";
import { answerText, guestReplay, parseReport, recordedValues } from "./guest-data.js";
import type { RunMemoryWatching } from "./memory-watch.js";
import type { StretchWatch } from "./stretch-watch.js";
import { type WrappedCode, wrapCode } from "./wrap.js";

/** What an execution needs from the sandbox that owns the isolate. */
export interface ExecutionDeps {
  isolate: ivm.Isolate;
  context: ivm.Context;
  entry: ivm.Reference<GuestEntry>;
  memoryMb: number;
  runId: number;
  /**
   * Kills the isolate (the sandbox is dead afterwards). Called at most once, before the run resolves.
   * `busy`: the isolate was running code or ran out of memory, so the kill may not have stopped it all.
   */
  kill(busy: boolean): void;
  /** Watches the run's memory from outside the heap, asked before an outcome of the code stands. */
  memory?: RunMemoryWatching | undefined;
  /**
   * The isolate runs on this thread (a lane, see `sandbox/program/lane.ts`): every entry into it is
   * a synchronous call that returns once the code waits for something, bounded by what is left of the
   * run's wall-clock and CPU time, since no timer of this thread fires while the code holds it.
   */
  lane?: boolean | undefined;
  /** Told when each stretch on a lane starts and returns. */
  stretches?: StretchWatch | undefined;
  /** Where the guest waits for the answers of its `now` calls (see answer-slot.ts). */
  answers?: AnswerSlot | undefined;
}

const LOG_LEVELS: ReadonlySet<string> = new Set(["log", "info", "warn", "error", "debug"]);

/** One run of code in an isolate. Create it, call {@link Execution.start} once. */
export class Execution {
  readonly #deps: ExecutionDeps;
  readonly #request: ExecutionRequest;
  readonly #bridge: SandboxBridge;
  /** Where a call offered synchronously goes: the bridge's `callToolNow` when it has one. */
  readonly #nowBridge: Pick<SandboxBridge, "callTool">;
  readonly #signal: AbortSignal;
  /** The real names of the run's tools, made at its first call: a run that calls none never pays for it. */
  #allowedTools: ReadonlySet<string> | undefined;
  readonly #maxToolCalls: number;
  /** The code may call `tools.$search` / `tools.$describe`, which are not tool calls. */
  readonly #discovery: boolean;
  #ended = false;
  #report: GuestDoneReport | undefined;
  #inFlight = 0;
  /** Calls offered synchronously that the host is answering: meanwhile the isolate runs no code. */
  #waitingGuest = 0;
  #toolCalls = 0;
  #messages = 0;
  readonly #maxMessages: number;
  #startCpu = 0n;
  /** The CPU time of this whole process when the run began (see {@link chargedCpu}). */
  #startProcessCpu = 0n;
  /** The isolate's CPU time at the last poll, and when that poll was, to tell a busy isolate from an idle one. */
  #lastCpu = 0n;
  #lastPoll = 0;
  #wallClock: PausableDeadline | undefined;
  #cpuTimer: NodeJS.Timeout | undefined;
  #resolve: (outcome: ExecutionOutcome) => void = () => {};
  /** A lane's stretch of the code is running on this thread (see {@link ExecutionDeps.lane}). */
  #inSlice = false;
  /** Outcomes that came while a stretch ran, delivered once it returned (the isolate is not re-entered). */
  readonly #afterSlice: (() => void)[] = [];
  readonly #onAbort = () => this.#stop(runEnding("Cancelled", limitMessages.cancelled()));
  /** What this run's tool calls share: the wall clock they stop while a person decides. */
  readonly #calling: CallingRun;

  constructor(deps: ExecutionDeps, request: ExecutionRequest, bridge: SandboxBridge, signal: AbortSignal) {
    this.#deps = deps;
    this.#request = request;
    this.#bridge = bridge;
    const now = bridge.callToolNow;
    this.#nowBridge = now ? { callTool: (...args) => now.apply(bridge, args) } : bridge;
    this.#signal = signal;
    this.#discovery = request.discovery === true;
    this.#maxToolCalls = request.limits.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
    this.#maxMessages = maxRequestMessages(request);
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
    const crashed = (error: unknown) => {
      const detail = error instanceof Error ? error.message : String(error);
      this.#stop(runEnding("SandboxCrashed", limitMessages.crashed(detail)));
    };
    // The clock starts once the code is ready to enter the isolate: parsing it to wrap it is the host's
    // work, and on a fresh process's first run the parser is cold (tens of ms, most of a short limit).
    let launch: PreparedLaunch;
    try {
      launch = this.#prepare();
    } catch (error) {
      crashed(error);
      return outcome;
    }
    this.#armLimits();
    if (this.#deps.lane) {
      const { cpuTimeMs, timeoutMs } = this.#request.limits;
      this.#deps.stretches?.run({ cpuTimeMs, timeoutMs, memoryMb: this.#deps.memoryMb });
      try {
        this.#launchInLane(launch);
      } catch (error) {
        crashed(error);
      }
    } else this.#launch(launch).catch(crashed);
    return outcome;
  }

  /** Stops the run from outside (the sandbox is being disposed); the isolate is killed. */
  abandon(): void {
    this.#stop(runEnding("Disposed", limitMessages.disposed()));
  }

  /** A message from the guest (already checked to belong to this run's id). Never throws. */
  receive(type: unknown, id: unknown, a: unknown, b: unknown, c?: unknown, d?: unknown): void {
    if (this.#ended || this.#report) return;
    // The prelude keeps its own caps; this one holds even if a message ever escaped them, because a flood
    // of messages keeps the host's event loop too busy for the timers that enforce the other limits.
    if (++this.#messages > this.#maxMessages) {
      this.#stop(runEnding("LimitExceeded", limitMessages.messages(this.#maxMessages)));
      return;
    }
    try {
      if (type === "call" && typeof id === "number" && typeof a === "string" && typeof b === "string") {
        void this.#call(id, a, b, typeof c === "string" && c !== "" ? c : undefined, (outcome) =>
          this.#settle(id, outcome),
        );
      } else if (
        type === "now" &&
        typeof id === "number" &&
        typeof a === "string" &&
        typeof b === "string" &&
        typeof d === "number"
      ) {
        this.#callNow(id, a, b, typeof c === "string" && c !== "" ? c : undefined, d);
      } else if (type === "log" && typeof a === "string" && LOG_LEVELS.has(a) && typeof b === "string") {
        this.#log({ level: a as LogEntry["level"], text: b });
      } else if (type === "done" && typeof b === "string") {
        this.#done(b);
      } else if (type === "values" && typeof b === "string" && this.#recordsOrReplays()) {
        this.#record(b);
      } else if (type === "replayed" && typeof id === "number" && this.#request.replayCalls !== undefined) {
        this.#replayed(id);
      }
    } catch {
      // A malformed message is ignored; the limits still end the run.
    }
  }

  /**
   * Compiles the wrapped code and starts it through the prelude in one crossing: a closure whose body is
   * `return $0("start", $1, <the code as an async function>, $2)`, with the prelude's entry, the run id
   * and the run's config as its arguments (the wrapper shadows them, so the code cannot call the entry
   * or read the config). Its positions are the code's own (the closure has no text of its own before the
   * body, and the wrapper's line is taken back by the line offset). Code that does not parse could close
   * the wrapper early and reach the closure's arguments, so it is compiled alone first, with none.
   */
  async #launch({ wrapped, config, compile }: PreparedLaunch): Promise<void> {
    const { context, entry, runId } = this.#deps;
    try {
      if (wrapped.parsed) {
        await this.#track(
          context.evalClosure(
            `return $0("start", $1, ${wrapped.source}, $2);`,
            [entry.derefInto(), runId, config],
            compile,
          ),
        );
      } else {
        // Code that escapes the wrapper runs as it compiles, before `start`: the record that guards a
        // later run is taken first.
        if (this.#request.final !== true) {
          await this.#track(entry.apply(undefined, ["guard", 0, 0, ""]));
        }
        const main = await this.#track(
          context.evalClosure(`return ${wrapped.source};`, [], { ...compile, result: { reference: true } }),
        );
        await this.#track(entry.apply(undefined, ["start", runId, main.derefInto(), config]));
      }
    } catch (error) {
      this.#launchFailed(error);
    }
  }

  /** {@link #launch} on a lane: the same steps, each a synchronous stretch of the code on this thread. */
  #launchInLane({ wrapped, config, compile }: PreparedLaunch): void {
    const { context, entry, runId } = this.#deps;
    const failed = (error: unknown) => this.#launchFailed(error);
    if (wrapped.parsed) {
      this.#slice(
        (timeout) =>
          context.evalClosureSync(
            `return $0("start", $1, ${wrapped.source}, $2);`,
            [entry.derefInto(), runId, config],
            { ...compile, timeout },
          ),
        failed,
      );
      return;
    }
    if (this.#request.final !== true) {
      this.#slice((timeout) => entry.applySync(undefined, ["guard", 0, 0, ""], { timeout }), failed);
      if (this.#ended) return;
    }
    const main = this.#slice(
      (timeout) =>
        context.evalClosureSync(`return ${wrapped.source};`, [], {
          ...compile,
          timeout,
          result: { reference: true },
        }) as ivm.Reference<unknown>,
      failed,
    );
    if (main === undefined || this.#ended) return;
    this.#slice(
      (timeout) => entry.applySync(undefined, ["start", runId, main.derefInto(), config], { timeout }),
      failed,
    );
  }

  /** The code wrapped for the isolate, and the guest's config as JSON: what both launches start from. */
  #prepare(): PreparedLaunch {
    const wrapped = wrapCode(this.#request.code);
    const config = JSON.stringify(this.#config(wrapped.names));
    return { wrapped, config, compile: { filename: USER_CODE_FILENAME, lineOffset: wrapped.lineOffset } };
  }

  #launchFailed(error: unknown): void {
    if (this.#noticeDeath(error)) return;
    // A syntax error is the code's own; anything else is an unhandled rejection in the code (which the
    // isolate raises from the call that caused it), and the guest reports the run's outcome itself.
    if (isCompileError(error) && !this.#report) this.#finish({ status: "error", error: compileError(error) });
  }

  /**
   * Runs one stretch of the code on this thread (a lane). isolated-vm stops it when it passes what is
   * left of the run's wall-clock or CPU time, and the run then ends by that limit; a stretch that failed
   * otherwise goes to `failed` unless the isolate died. Returns what `enter` returned, or undefined.
   */
  #slice<T>(enter: (timeoutMs: number) => T, failed?: (error: unknown) => void): T | undefined {
    const wallMs = this.#wallClock?.remainingMs ?? Number.POSITIVE_INFINITY;
    const cpuMs = this.#cpuLeftMs();
    const timeoutMs = Math.max(1, Math.ceil(Math.min(wallMs, cpuMs, MAX_SLICE_MS)));
    const byCpu = cpuMs < wallMs;
    let value: T | undefined;
    let error: unknown;
    let threw = false;
    this.#inFlight++;
    this.#inSlice = true;
    this.#deps.stretches?.begin(byCpu ? "cpu" : "wall", timeoutMs);
    try {
      value = enter(timeoutMs);
    } catch (caught) {
      threw = true;
      error = caught;
    } finally {
      this.#deps.stretches?.end();
      this.#inSlice = false;
      this.#inFlight--;
    }
    if (threw && !this.#noticeDeath(error)) {
      if (!isTimedOut(error)) failed?.(error);
      else if (byCpu)
        this.#stop(runEnding("CpuTimeLimit", limitMessages.cpu(this.#request.limits.cpuTimeMs)));
      else this.#stopByWallClock();
    }
    while (this.#afterSlice.length > 0 && !this.#ended) this.#afterSlice.shift()?.();
    this.#settleIfIdle();
    return value;
  }

  /** The CPU time the run has left, in ms, by the isolate's own clock. */
  #cpuLeftMs(): number {
    try {
      const usedMs = Number(this.#deps.isolate.cpuTime - this.#startCpu) / 1e6;
      return Math.max(0, this.#request.limits.cpuTimeMs - usedMs);
    } catch {
      return 0;
    }
  }

  /** What the guest is told about this run (see GuestRunConfig). */
  #config(names: GuestRunConfig["names"]): GuestRunConfig {
    const config: GuestRunConfig = {
      // Not copied: the config is only ever turned into JSON, and a catalog's names are every run's cost.
      toolNames: this.#request.toolNames,
      names,
      maxLogChars: this.#request.limits.maxLogChars,
      maxResultChars: this.#request.limits.maxResultChars,
      maxToolCalls: this.#maxToolCalls,
      maxArgsChars: this.#request.limits.maxArgsChars ?? DEFAULT_MAX_ARGS_CHARS,
      // ICU keeps about two bytes per character outside the heap: at most half the heap's size in all.
      maxIcuChars: Math.floor((this.#deps.memoryMb * 2 ** 20) / 4),
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

  /**
   * A call the code awaits with nothing else in flight, offered synchronously (see GuestSyncCall): the
   * outcome as text when the bridge has it at once (a synchronous tool), `"o"` and the value's JSON or
   * `"f"` and the failure's JSON; else `""`, and the outcome is settled through the entry when it comes,
   * as for a `call` message. Never throws.
   */
  receiveSync(id: unknown, name: unknown, argsJson: unknown, requested: unknown): string {
    if (this.#ended || this.#report) {
      return answerText(callFailure(String(name), "cancelled", "The run has ended."));
    }
    if (++this.#messages > this.#maxMessages) {
      this.#stop(runEnding("LimitExceeded", limitMessages.messages(this.#maxMessages)));
      return answerText(callFailure(String(name), "limit", "The run was stopped."));
    }
    if (typeof id !== "number" || typeof name !== "string" || typeof argsJson !== "string") {
      return answerText(callFailure(String(name), "error", "The sandbox sent a malformed call."));
    }
    this.#waitingGuest++;
    try {
      const outcome = this.#call(
        id,
        name,
        argsJson,
        typeof requested === "string" && requested !== "" ? requested : undefined,
        (outcome) => outcome,
        this.#nowBridge,
      );
      if (outcome instanceof Promise) {
        void outcome.then((later) => this.#settle(id, later));
        return "";
      }
      const answer = answerText(outcome);
      this.#deps.memory?.crossed(answer.length);
      return answer;
    } finally {
      this.#waitingGuest--;
    }
  }

  /**
   * A call the guest waits for alone in its answer slot (a `now` message): answered there when the
   * outcome comes at once and the guest still waits, else settled through the entry like any call.
   */
  #callNow(id: number, name: string, argsJson: string, requested: string | undefined, ticket: number): void {
    const answers = this.#deps.answers;
    const outcome = this.#call(id, name, argsJson, requested, (outcome) => outcome, this.#nowBridge);
    if (outcome instanceof Promise) {
      answers?.later(ticket);
      void outcome.then((later) => this.#settle(id, later));
      return;
    }
    if (this.#ended || this.#report) return;
    const text = answerText(outcome);
    if (answers?.answer(ticket, text)) {
      this.#deps.memory?.crossed(text.length);
      stayAwake();
    } else this.#settle(id, outcome);
  }

  /**
   * Checks a call and runs it through the bridge; `deliver` turns its outcome into what the caller
   * passes on, at once when the bridge's outcome comes at once, else in one reaction (a call from code is
   * on the path of every sequential step). Never throws or rejects.
   */
  #call<T>(
    id: number,
    name: string,
    argsJson: string,
    requested: string | undefined,
    deliver: (outcome: BridgeCallOutcome) => T,
    bridge: Pick<SandboxBridge, "callTool"> = this.#bridge,
  ): T | Promise<T> {
    // A discovery call is answered by the host's index: no tool runs, and it counts against no tool limit.
    if (this.#discovery && isDiscoveryCall(name)) {
      return callThroughBridge(bridge, this.#calling, { id, name, argsJson, requested }, deliver);
    }
    this.#toolCalls++;
    this.#deps.memory?.crossed(argsJson.length);
    this.#allowedTools ??= new Set(Object.values(this.#request.toolNames));
    if (!this.#allowedTools.has(name)) {
      return deliver(callFailure(name, "unknown_tool", `There is no tool named ${name} in this run.`));
    }
    if (this.#toolCalls > this.#maxToolCalls) {
      return deliver(callFailure(name, "limit", `Too many tool calls in one run (${this.#maxToolCalls}).`));
    }
    return callThroughBridge(bridge, this.#calling, { id, name, argsJson, requested }, deliver);
  }

  #settle(callId: number, outcome: BridgeCallOutcome): void {
    // Late outcomes (after the run ended or the guest finished) are dropped: nothing reaches the isolate.
    if (this.#ended || this.#report) return;
    const { entry, runId } = this.#deps;
    // A value travels as its own JSON text (no second encoding); a failure as { tool, kind, message }.
    const args: ["settle" | "fail", number, number, string] = outcome.ok
      ? ["settle", runId, callId, typeof outcome.valueJson === "string" ? outcome.valueJson : ""]
      : ["fail", runId, callId, JSON.stringify(outcome.error)];
    this.#deps.memory?.crossed(args[3].length);
    if (this.#deps.lane) {
      // Delivered once the running stretch returned; the outcome's reactions run in the next one.
      if (this.#inSlice) this.#afterSlice.push(() => this.#enterWith(args));
      else this.#enterWith(args);
      return;
    }
    // Fire and forget: waiting for the apply to return costs a crossing and host time per call. The
    // code it resumes is watched by the CPU limit, the wall clock and #busy(), and after `done` by the
    // call #done makes.
    try {
      entry.applyIgnored(undefined, args);
    } catch (error) {
      this.#noticeDeath(error);
    }
  }

  /** Hands an outcome to the guest on a lane: the code it resumes runs as a stretch on this thread. */
  #enterWith(args: ["settle" | "fail", number, number, string]): void {
    if (this.#ended || this.#report) return;
    const { entry } = this.#deps;
    this.#slice((timeoutMs) => entry.applySync(undefined, args, { timeout: timeoutMs }));
  }

  /** Whether the guest reports values: a run that records them, or that replays them (its zone only). */
  #recordsOrReplays(): boolean {
    return this.#request.record === true || this.#request.replay !== undefined;
  }

  /** Values the guest recorded, handed to the bridge as plain, checked data. */
  #record(json: string): void {
    this.#deps.memory?.crossed(json.length);
    let raw: unknown;
    try {
      raw = JSON.parse(json);
    } catch {
      return;
    }
    try {
      this.#bridge.record?.(recordedValues(raw));
    } catch {
      // A failing record sink must not end the run; the host that needs the values notices their lack.
    }
  }

  /** The guest answered the code's next `count` calls from the journal: the bridge numbers them. */
  #replayed(count: number): void {
    if (!Number.isSafeInteger(count) || count <= 0) return;
    this.#toolCalls += count;
    try {
      this.#bridge.replayed?.(count);
    } catch {
      // The bridge judges the count; a failing sink must not end the run from here.
    }
  }

  #log(entry: LogEntry): void {
    this.#deps.memory?.crossed(entry.text.length);
    try {
      this.#bridge.log(entry);
    } catch {
      // A failing log sink must not end the run.
    }
  }

  #done(reportJson: string): void {
    this.#deps.memory?.crossed(reportJson.length);
    const report = parseReport(reportJson);
    this.#report = report ?? {
      status: "error",
      error: { name: "Error", message: "The sandbox reported an unreadable result." },
    };
    // Outcomes reach the isolate without a call the host waits for, so the code may still be running
    // what it left behind (a promise chain that loops). This call returns only once the isolate is idle;
    // until then the run is in flight, and its limits end it. A run that ended in the task of its start
    // needs none: that task's call (counted in #inFlight) returns only once the isolate is idle.
    // On a lane the stretch that reported `done` returns only once the isolate is idle: the same holds.
    if (this.#report.inStart || this.#deps.lane) {
      this.#settleIfIdle();
      return;
    }
    try {
      void this.#track(this.#deps.entry.apply(undefined, ["idle", this.#deps.runId, 0, ""])).catch((error) =>
        this.#noticeDeath(error),
      );
    } catch (error) {
      this.#noticeDeath(error);
    }
    this.#settleIfIdle();
  }

  /** Counts a call into the isolate while it runs, so the run only ends once the isolate is idle. */
  #track<T>(promise: Promise<T>): Promise<T> {
    this.#inFlight++;
    const done = () => {
      this.#inFlight--;
      this.#settleIfIdle();
    };
    promise.then(done, done);
    return promise;
  }

  #settleIfIdle(): void {
    if (this.#ended || !this.#report || this.#inFlight > 0) return;
    // One allocation past the heap limit that was garbage before isolated-vm checked again leaves the
    // code's outcome standing; the watch outside the heap still saw it.
    const overrun = this.#deps.memory?.passed();
    if (overrun) {
      const { roseMb, allowedMb } = overrun;
      this.#stop(runEnding("MemoryLimit", limitMessages.spike(this.#deps.memoryMb, roseMb, allowedMb)));
      return;
    }
    const { status, valueJson, error } = this.#report;
    const outcome: ExecutionOutcome = { status };
    if (valueJson !== undefined) outcome.valueJson = valueJson;
    if (error) outcome.error = explainDynamicImport(error, this.#request.code);
    this.#finish(outcome);
  }

  #armLimits(): void {
    const { timeoutMs, cpuTimeMs } = this.#request.limits;
    const { isolate } = this.#deps;
    this.#wallClock = new PausableDeadline(Math.max(1, timeoutMs), () => this.#stopByWallClock());
    try {
      this.#startCpu = isolate.cpuTime;
    } catch {
      this.#startCpu = 0n;
    }
    this.#startProcessCpu = processCpuNs();
    this.#lastCpu = this.#startCpu;
    this.#lastPoll = performance.now();
    const cpuLimitNs =
      BigInt(Math.max(1, Math.round(Math.min(cpuTimeMs, Number.MAX_SAFE_INTEGER)))) * 1_000_000n;
    const pollMs = Math.min(50, Math.max(5, Math.floor(cpuTimeMs / 10)));
    this.#cpuTimer = setInterval(() => {
      if (isolate.isDisposed) {
        this.#noticeDeath(undefined);
        return;
      }
      let now: bigint;
      try {
        now = isolate.cpuTime;
      } catch {
        return;
      }
      this.#lastCpu = now;
      this.#lastPoll = performance.now();
      if (chargedCpu(now - this.#startCpu, processCpuNs() - this.#startProcessCpu) > cpuLimitNs) {
        this.#stop(runEnding("CpuTimeLimit", limitMessages.cpu(cpuTimeMs)));
      }
    }, pollMs);
    if (this.#signal.aborted) this.#onAbort();
    else this.#signal.addEventListener("abort", this.#onAbort, { once: true });
  }

  #stopByWallClock(): void {
    const { timeoutMs } = this.#request.limits;
    const message = this.#report ? limitMessages.lingering(timeoutMs) : limitMessages.timeout(timeoutMs);
    this.#stop(runEnding("Timeout", message));
  }

  /**
   * When the isolate died without the host stopping it, ends the run with the reason (isolated-vm
   * disposes an isolate that exceeds its memory limit). Returns whether the run is over.
   */
  #noticeDeath(error: unknown): boolean {
    if (this.#ended) return true;
    if (!this.#deps.isolate.isDisposed) return false;
    const message = error instanceof Error ? error.message : "";
    if (/memory limit/i.test(message) || error === undefined) {
      this.#stop(runEnding("MemoryLimit", limitMessages.memory(this.#deps.memoryMb)));
    } else {
      this.#stop(runEnding("SandboxCrashed", limitMessages.crashed(message || "isolate disposed")));
    }
    return true;
  }

  /** Ends the run from the host's side and kills the isolate. */
  #stop({ status, error }: { status: ExecutionOutcome["status"]; error: SandboxError }): void {
    if (this.#ended) return;
    this.#deps.kill(this.#busy() || error.name === "MemoryLimit" || error.name === "CpuTimeLimit");
    this.#finish({ status, error });
  }

  /**
   * Whether the isolate is running code now: not while it waits inside a call the host is answering;
   * otherwise, a call into it has not returned, or it used more than half of the time since the last
   * poll (a settled tool call resumes the code without a call the host waits for).
   */
  #busy(): boolean {
    if (this.#waitingGuest > 0) return false;
    if (this.#inFlight > 0) return true;
    try {
      const usedMs = Number(this.#deps.isolate.cpuTime - this.#lastCpu) / 1e6;
      return usedMs > Math.max(2, (performance.now() - this.#lastPoll) / 2);
    } catch {
      return true;
    }
  }

  #finish(outcome: ExecutionOutcome): void {
    if (this.#ended) return;
    this.#ended = true;
    if (outcome.error) outcome.error = boundError(outcome.error);
    const position = outcome.error ? userCodePosition(outcome.error) : undefined;
    if (outcome.error && position) outcome.error = { ...outcome.error, ...position };
    this.#wallClock?.clear();
    clearInterval(this.#cpuTimer);
    this.#signal.removeEventListener("abort", this.#onAbort);
    this.#resolve(outcome);
  }
}

/** What {@link Execution} launches: the wrapped code, the guest's config as JSON, how to compile it. */
interface PreparedLaunch {
  wrapped: WrappedCode;
  config: string;
  compile: { filename: string; lineOffset: number };
}

/** The longest stretch of code on a lane, in ms: isolated-vm's timeout is a 32-bit count of ms. */
const MAX_SLICE_MS = 2 ** 31 - 1;

/** isolated-vm stopped a synchronous call at its timeout. */
function isTimedOut(error: unknown): boolean {
  const message = (error as { message?: unknown })?.message;
  return typeof message === "string" && message.startsWith("Script execution timed out");
}

/** A syntax error from compiling the code: isolated-vm ends its message with `[run_code.js:L:C]`. */
function isCompileError(error: unknown): boolean {
  const message = (error as { message?: unknown })?.message;
  return (
    (error as { name?: unknown })?.name === "SyntaxError" &&
    typeof message === "string" &&
    message.endsWith("]") &&
    message.includes(` [${USER_CODE_FILENAME}:`)
  );
}

/**
 * The CPU time a run is charged, in ns: the smaller of two upper bounds of what its isolate used. The
 * first is isolated-vm's `cpuTime`, which counts a stretch of code still running by the wall clock (its
 * thread's CPU clock is read only when the stretch ends), so it also counts time the thread waited for a
 * core; the second is the CPU time of every thread of this process since the run began. When other
 * processes keep the cores busy, the second is close to the truth; when this process's own threads do,
 * the first one is no worse than before. Neither is ever less than what the isolate used.
 */
function chargedCpu(isolateNs: bigint, processNs: bigint): bigint {
  return isolateNs < processNs ? isolateNs : processNs;
}

/** The CPU time this process has used, all threads, in ns. */
function processCpuNs(): bigint {
  const { user, system } = process.cpuUsage();
  return BigInt(user + system) * 1000n;
}
