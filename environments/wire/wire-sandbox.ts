/**
 * A sandbox that lives in a sandbox host on the other end of a {@link WireConnection}, and the runs
 * executed in it. The sandbox host enforces the run's limits; this side carries tool calls and console
 * lines to the run's bridge, caps what one run may send, and keeps its own deadlines, so that a sandbox
 * host that stops cooperating can never hold a run open.
 */

import { groupDigits } from "../../common/numbers.js";
import {
  type BridgeCallOutcome,
  type CallingRun,
  type Command,
  callFailure,
  callThroughBridge,
  clampLimits,
  DISCOVERY_CALLS,
  type ExecutionOutcome,
  type ExecutionRequest,
  loweredLimits,
  maxRequestMessages,
  type PausableClock,
  PausableDeadline,
  type Report,
  runEnding,
  type Sandbox,
  type SandboxBridge,
  type SandboxLimits,
} from "../../sandbox/contract/index.js";
import { stayAwake } from "../../sandbox/isolate/awake-loop.js";
import { type Ending, type PeerFailure, passedEnding } from "./endings.js";

/** How long past its own wall-clock limit a run may go before cordon stops the sandbox host, in ms. */
const BACKSTOP_GRACE_MS = 2_000;

/** How long a cancelled run may take to report that it stopped before cordon stops the sandbox host. */
const CANCEL_GRACE_MS = 2_000;

/**
 * How long a call waiting on the lane may take before cordon lets the sandbox host go on without its
 * outcome (a `later`), in ms: the host's main thread is blocked meanwhile, its timers with it.
 */
export const LANE_ANSWER_WINDOW_MS = 20;

/** What a sandbox needs from its connection. */
export interface SandboxLink {
  /** Sends a command; false when it could not be sent (over the size cap, or the connection ended). */
  send(command: Command): boolean;
  /** Sends a command on the peer's lane; false when it could not be sent. */
  sendLane(command: Command): boolean;
  /** The sandbox was opened with the peer's lane: its calls may wait there (see `LANE_FD`). */
  readonly onLane: boolean;
  newRunId(): number;
  track(run: RunLink): void;
  /** The peer misbehaved: its owner stops it. */
  fail(failure: PeerFailure): void;
  /** A run was given up as stuck: the connection forgets it, and drops its late reports. */
  giveUp(run: RunLink): void;
  forget(sandbox: WireSandbox): void;
  /** How the connection ended, once it has. */
  ended(): Ending | undefined;
}

/** What the connection needs from a run. */
export interface RunLink {
  readonly id: number;
  /** True once the peer reported the run done, or the connection ended it. */
  readonly finished: boolean;
  /** The run's sandbox has the peer's lane: while it runs, the peer's main thread may be the code's. */
  readonly onLane: boolean;
  /** A report for this run; returns a description of the problem when it breaks the protocol. */
  receive(report: Extract<Report, { run: number }>): string | undefined;
  /** Ends the run because the connection is gone. */
  end(ending: Ending): void;
}

/** A sandbox in a sandbox host. Made by {@link WireConnection.open}. */
export class WireSandbox implements Sandbox {
  readonly id: number;
  readonly #limits: SandboxLimits;
  readonly #link: SandboxLink;
  #current: WireRun | undefined;
  #dead = false;
  #disposed = false;
  #lastRunCalls = 0;

  constructor(id: number, limits: SandboxLimits, link: SandboxLink) {
    this.id = id;
    this.#limits = limits;
    this.#link = link;
  }

  get alive(): boolean {
    return !this.#dead && this.#link.ended() === undefined;
  }

  async execute(
    request: ExecutionRequest,
    bridge: SandboxBridge,
    signal: AbortSignal,
  ): Promise<ExecutionOutcome> {
    if (!this.alive) {
      throw new Error(
        "This sandbox is no longer alive (it was disposed, a limit or a cancellation ended it, or its sandbox process stopped); open a new sandbox.",
      );
    }
    if (this.#current)
      throw new Error("This sandbox is already running code; it runs one execution at a time.");
    if (signal.aborted) {
      return {
        ...runEnding("Cancelled", "The run was cancelled before it started."),
      };
    }
    // A run is held to the limits its sandbox was opened with (a server's ceilings among them), and
    // the code is told when those are lower than it asked for.
    const limits = clampLimits(request.limits, this.#limits);
    const lowered = loweredLimits(request.limits, limits);
    if (lowered.length > 0) {
      request = { ...request, limits };
      callSafely(() =>
        bridge.log({
          level: "warn",
          text: `The sandbox server holds this run to lower limits than it asked for: ${lowered.join(", ")}.`,
        }),
      );
    }
    const link = this.#link;
    const run = new WireRun(link.newRunId(), request, bridge, link, this.#limits.memoryMb);
    this.#current = run;
    link.track(run);
    let cancelTimer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      run.cancel();
      link.send({ type: "cancel", run: run.id });
      cancelTimer = setTimeout(() => {
        run.resolve({ ...runEnding("Cancelled", "The run was cancelled.") });
        this.#giveUp(run, `it did not stop a cancelled run within ${CANCEL_GRACE_MS} ms`);
      }, CANCEL_GRACE_MS);
    };
    const { timeoutMs } = request.limits;
    // Like the run's own clock in the sandbox, this one stops while a call waits for a human's approval.
    const backstop = new PausableDeadline(timeoutMs + BACKSTOP_GRACE_MS, () => {
      run.resolve({
        ...runEnding(
          "Timeout",
          `The code did not finish within ${timeoutMs} ms (timeoutMs), and its sandbox did not stop it, so cordon stopped the sandbox; the next run gets a new one.`,
        ),
      });
      this.#giveUp(run, `it did not end a run at its ${timeoutMs} ms limit`);
    });
    run.clock = backstop;
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      if (!link.send({ type: "exec", sandbox: this.id, run: run.id, request })) {
        run.resolve({
          ...runEnding("SandboxError", "The code could not be sent to the sandbox: it is too large."),
        });
      }
      const outcome = await run.outcome;
      if (!run.sandboxAlive) this.#dead = true;
      this.#lastRunCalls = run.calls;
      return outcome;
    } finally {
      backstop.clear();
      clearTimeout(cancelTimer);
      signal.removeEventListener("abort", onAbort);
      this.#current = undefined;
    }
  }

  /** Stops a run in progress (as cancelled) and frees the sandbox on the peer. Safe to call twice. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#dead = true;
    const current = this.#current;
    if (current) {
      current.cancel();
      this.#link.send({ type: "cancel", run: current.id });
      current.resolve({
        ...runEnding("Disposed", "The sandbox was closed while the code was running."),
      });
    }
    this.#link.send({ type: "dispose", sandbox: this.id });
    this.#link.forget(this);
  }

  /**
   * A run went on past its limit or a cancel: the sandbox is dead from now on, the peer is told to
   * dispose it, and the owner hears of it (see `stuck` in {@link PeerFailure}).
   */
  #giveUp(run: RunLink, detail: string): void {
    this.#dead = true;
    this.#link.giveUp(run);
    this.#link.send({ type: "dispose", sandbox: this.id });
    this.#link.forget(this);
    this.#link.fail({ kind: "stuck", detail });
  }

  /** The connection is gone: the sandbox went with it. */
  markDead(): void {
    this.#dead = true;
  }

  /** Whether the last run asked for any tool call: one that did not may be run again without repeating an effect. */
  get lastRunMadeCalls(): boolean {
    return this.#lastRunCalls > 0;
  }

  /** The limits the sandbox was opened with. */
  get limits(): SandboxLimits {
    return this.#limits;
  }
}

/** One run: forwards its tool calls and console lines, and resolves with its outcome. */
class WireRun implements RunLink, CallingRun {
  readonly id: number;
  readonly outcome: Promise<ExecutionOutcome>;
  readonly onLane: boolean;
  finished = false;
  /** Tool calls the sandbox host reported for this run, whatever became of them. */
  calls = 0;
  /** False when the peer reported the run's sandbox killed (or the connection ended). */
  sandboxAlive = true;
  /** The host's deadline for the run, paused while a call waits for approval. */
  clock: PausableClock | undefined;
  readonly #bridge: SandboxBridge;
  readonly #link: SandboxLink;
  /** The names a call of the run may name, made at its first call (a catalog's names cost every run). */
  #tools: ReadonlySet<string> | undefined;
  readonly #request: ExecutionRequest;
  readonly #maxMessages: number;
  /** The run was sent a journal to replay: only then may its sandbox say it answered calls itself. */
  readonly #replays: boolean;
  #messages = 0;
  #resolved = false;
  /** Cancelled from this side: the calls that still come are refused, even before the peer stops. */
  #cancelled = false;
  readonly #limits: { cpuTimeMs: number; timeoutMs: number; memoryMb: number };
  /** The call the peer waits for on its lane, blocked: it must get one line there, and soon. */
  #laneCall: { call: number; release(line: Command): void } | undefined;
  #resolve: (outcome: ExecutionOutcome) => void = () => {};

  /**
   * `memoryMb`: the heap of the run's sandbox. The run's limits tell the model which limit ended it, not
   * the peer's figures.
   */
  constructor(
    id: number,
    request: ExecutionRequest,
    bridge: SandboxBridge,
    link: SandboxLink,
    memoryMb: number,
  ) {
    this.id = id;
    this.#limits = { ...request.limits, memoryMb };
    this.#bridge = bridge;
    this.#link = link;
    this.onLane = link.onLane;
    this.#request = request;
    this.#maxMessages = maxRequestMessages(request);
    this.#replays = request.replayCalls !== undefined;
    this.outcome = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** Gives the run its outcome (the first one wins); later reports of the run are still accepted. */
  resolve(outcome: ExecutionOutcome): void {
    if (this.#resolved) return;
    this.#resolved = true;
    this.#laneCall?.release({ type: "cancel", run: this.id });
    this.#resolve(outcome);
  }

  /** The run is being cancelled: no call of it runs from now on, and a call waiting on the lane is let go. */
  cancel(): void {
    this.#cancelled = true;
    this.#laneCall?.release({ type: "cancel", run: this.id });
  }

  receive(report: Extract<Report, { run: number }>): string | undefined {
    if (report.type === "done") {
      this.finished = true;
      this.sandboxAlive = report.alive;
      this.resolve(report.outcome);
      return undefined;
    }
    if (++this.#messages > this.#maxMessages) {
      return `run ${this.id} sent more than ${this.#maxMessages} messages, more than its limits allow`;
    }
    if (report.type === "log") {
      if (!this.#resolved) callSafely(() => this.#bridge.log(report.entry));
      return undefined;
    }
    if (report.type === "values") {
      if (!this.#resolved) callSafely(() => this.#bridge.record?.(report.values));
      return undefined;
    }
    if (report.type === "replayed") {
      if (!this.#resolved && this.#replays) callSafely(() => this.#bridge.replayed?.(report.count));
      return undefined;
    }
    if (report.type === "call") {
      if (report.lane === true && !this.onLane) return `a call of run ${this.id} on a lane it does not have`;
      this.#call(report.call, report.tool, report.args, report.requested, report.lane === true);
    }
    return undefined;
  }

  end(ending: Ending): void {
    this.finished = true;
    this.sandboxAlive = false;
    const told = ending.passed ? passedEnding(ending.passed, this.#limits) : ending;
    this.resolve({ status: told.status, error: told.error });
  }

  #call(call: number, tool: string, args: string, requested: string | undefined, lane: boolean): void {
    this.calls++;
    // A call on the lane holds the peer until one line comes there: its outcome now, or a `later`.
    let window: NodeJS.Timeout | undefined;
    if (lane) {
      this.#laneCall = {
        call,
        release: (line) => {
          if (this.#laneCall?.call !== call) return;
          this.#laneCall = undefined;
          clearTimeout(window);
          this.#link.sendLane(line);
        },
      };
    }
    const answer = (outcome: BridgeCallOutcome) => {
      if (this.finished) return;
      const waitsOnLane = this.#laneCall?.call === call;
      const send = (result: Command) => {
        if (!waitsOnLane) return this.#link.send(result);
        if (!this.#link.sendLane(result)) return false;
        this.#laneCall = undefined;
        clearTimeout(window);
        return true;
      };
      // The code's next call is likely soon: it finds this thread awake (awake-loop.ts).
      stayAwake();
      if (send({ type: "result", run: this.id, call, outcome })) return;
      const size = outcome.ok ? outcome.valueJson.length : 0;
      send({
        type: "result",
        run: this.id,
        call,
        outcome: callFailure(
          tool,
          "error",
          `The result of ${tool} is ${groupDigits(size)} characters of JSON, too large to pass into the sandbox. Ask the tool for less (a page, a filter, fewer fields).`,
        ),
      });
    };
    if (this.#resolved || this.#cancelled) {
      // A peer that waits on the lane hears of the cancel there, before the command on stdin.
      if (this.#laneCall?.call === call) this.#laneCall.release({ type: "cancel", run: this.id });
      else answer(callFailure(tool, "cancelled", "The run has ended; no more tool calls are accepted."));
      return;
    }
    // Discovery calls (`tools.$search`, `tools.$describe`) come as calls too, when the run has them.
    this.#tools ??= new Set([
      ...Object.values(this.#request.toolNames),
      ...(this.#request.discovery === true ? DISCOVERY_CALLS : []),
    ]);
    if (!this.#tools.has(tool)) {
      answer(callFailure(tool, "unknown_tool", `There is no tool named ${tool} in this run.`));
      return;
    }
    void callThroughBridge(this.#bridge, this, { id: call, name: tool, argsJson: args, requested }, answer);
    if (this.#laneCall?.call === call) {
      window = setTimeout(
        () => this.#laneCall?.release({ type: "later", run: this.id, call }),
        LANE_ANSWER_WINDOW_MS,
      );
    }
  }

  /** Whether the run is over for its calls: a late change of waiting moves no clock. */
  get over(): boolean {
    return this.finished;
  }

  /** A call of the run started or stopped waiting for a person: the sandbox host pauses its clock too. */
  onWaiting(call: number, waiting: boolean): void {
    // A person answers much later than the lane's window: the peer goes on first, then hears of the wait.
    if (waiting && this.#laneCall?.call === call)
      this.#laneCall.release({ type: "later", run: this.id, call });
    this.#link.send({ type: "waiting", run: this.id, call, waiting });
  }
}

function callSafely(action: () => void): void {
  try {
    action();
  } catch {
    // A failing log sink must not end the run.
  }
}
