import type { BridgeCallOutcome, LogEntry, SandboxBridge } from "../../sandbox/contract/index.js";
import type { Dispatcher } from "../dispatch/dispatcher.js";
import { renderJson } from "../dispatch/render.js";
import { Semaphore } from "../dispatch/semaphore.js";
import type { DispatchEvent, FailureKind, RunCallOutcome } from "../dispatch/types.js";
import type { RunContext } from "../tools/types.js";
import type { CodeModeLimits } from "./limits.js";
import type { CallRecord } from "./result.js";

/**
 * How long a finished run waits for the tools it started to really finish (a tool that ignores its
 * signal keeps running after its call was aborted) before it returns; calls still running then are
 * recorded as `abandoned`.
 */
export const SETTLE_WAIT_MS = 1_000;

/**
 * Characters of tool arguments one run may have in calls that have not finished (waiting for a slot or
 * running). A call beyond it is refused: a run cannot pile up memory in the host by queueing calls.
 */
export const MAX_PENDING_ARGS_CHARS = 16_000_000;

/** The longest name the code may have called a tool by that a call record keeps. */
export const MAX_REQUESTED_NAME_CHARS = 256;

/** What a run's bridge needs from the run. */
export interface RunBridgeInit {
  dispatcher: Dispatcher;
  limits: CodeModeLimits;
  /**
   * The run's context (`Dispatcher.openRun`): every call is a nested dispatch under it, sharing one
   * turn (run id, budget, session, approvals) and aborted when the run ends.
   */
  context: RunContext;
  /** Aborts when the run ends: later calls are refused. */
  signal: AbortSignal;
  /** The prefix of the ids of the calls the code makes. */
  callIdPrefix: string;
}

/** A call's id, the tool it goes to, and the name the code used when that was another one. */
interface CallName {
  callId: string;
  name: string;
  requested: string | undefined;
}

/**
 * The host side of one run: every `tools.*` call becomes a full dispatcher call (validation, approval,
 * policies, retries, timeouts, events), bounded in number and concurrency, and refused once the run
 * has ended. Console lines are collected.
 */
export class RunBridge implements SandboxBridge {
  readonly calls: CallRecord[] = [];
  readonly logs: LogEntry[] = [];
  readonly #init: RunBridgeInit;
  readonly #slots: Semaphore;
  #count = 0;
  #pendingArgsChars = 0;
  #logChars = 0;
  /** Ids of the calls whose tool invocations have not all finished. */
  readonly #unsettled = new Set<string>();
  /** What {@link settled} waits on: called once no call is unsettled. */
  readonly #drained: (() => void)[] = [];

  constructor(init: RunBridgeInit) {
    this.#init = init;
    this.#slots = new Semaphore(init.limits.maxConcurrentCalls);
  }

  log(entry: LogEntry): void {
    if (this.#init.signal.aborted) return;
    // The sandbox caps its console output; the host holds to the same cap whatever the sandbox does.
    this.#logChars += entry.text.length + 1;
    if (this.#logChars <= this.#init.limits.maxLogChars + 1_000) this.logs.push(entry);
  }

  callTool(
    name: string,
    argsJson: string,
    waiting?: (waiting: boolean) => void,
    requested?: string,
  ): BridgeCallOutcome | Promise<BridgeCallOutcome> {
    const { limits, signal } = this.#init;
    if (signal.aborted) return refused(name, "The run has ended; no more tool calls are accepted.");
    this.#count++;
    if (this.#count > limits.maxToolCalls) {
      return refused(
        name,
        `run_code allows at most ${limits.maxToolCalls} tool calls per run; this was call ${this.#count}.`,
      );
    }
    if (this.#pendingArgsChars + argsJson.length > MAX_PENDING_ARGS_CHARS) {
      return refused(
        name,
        `This run already has ${this.#pendingArgsChars} characters of arguments in tool calls that have not finished; at most ${MAX_PENDING_ARGS_CHARS} are allowed. Wait for some calls to finish (await them) before starting more.`,
      );
    }
    const callId = `${this.#init.callIdPrefix}.${this.#count}`;
    // The sandbox repairs only names this short; anything longer is not recorded as the name used.
    if (requested !== undefined && requested.length > MAX_REQUESTED_NAME_CHARS) requested = undefined;
    this.#pendingArgsChars += argsJson.length;
    const call: CallName = { callId, name, requested };
    const free = this.#slots.tryAcquire();
    if (free) return this.#dispatch(call, argsJson, waiting, free);
    return this.#slots.acquire().then((release) => this.#dispatch(call, argsJson, waiting, release));
  }

  /**
   * Resolves once every tool the run started has really finished, after the run ended and aborted them.
   * A tool that ignores its signal is not waited for longer than {@link SETTLE_WAIT_MS}; its call is then
   * recorded as `abandoned` (it may still have an effect).
   */
  async settled(): Promise<void> {
    if (this.#unsettled.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.#drained.push(resolve);
        timer = setTimeout(resolve, SETTLE_WAIT_MS);
      });
      clearTimeout(timer);
    }
    for (const record of this.calls) {
      if (this.#unsettled.has(record.callId)) record.status = "abandoned";
    }
  }

  /**
   * Runs a call that holds a slot through the dispatcher; the slot and the call's share of pending
   * arguments are given back when its result is in. The outcome comes at once when the dispatcher's
   * does (a synchronous tool), else as one reaction to its promise: a call from code is on the path of
   * every sequential step. Never throws or rejects.
   */
  #dispatch(
    call: CallName,
    argsJson: string,
    waiting: ((waiting: boolean) => void) | undefined,
    release: () => void,
  ): BridgeCallOutcome | Promise<BridgeCallOutcome> {
    const { callId, name } = call;
    const { dispatcher, context, signal } = this.#init;
    const started = performance.now();
    const finish = () => {
      release();
      this.#pendingArgsChars -= argsJson.length;
    };
    if (signal.aborted) {
      finish();
      this.#record(call, name, "cancelled", started);
      return refused(name, "The run has ended; no more tool calls are accepted.", "cancelled");
    }
    // Time waiting for a person (an approval, or a tool that asks one) does not count against the run's
    // clock. Made on the first event that concerns it; only the events of a tool that may wait for a
    // person are watched (most calls never wait for anyone, and then no event is even made).
    let human: HumanWait | undefined;
    const onEvent =
      waiting && HumanWait.mayWait(dispatcher, name)
        ? (event: DispatchEvent) => {
            if (human || HumanWait.concerns(dispatcher, event)) {
              human ??= new HumanWait(dispatcher, waiting);
              human.observe(event);
            }
          }
        : undefined;
    const done = ({ result, value, valueJson, runningOn }: RunCallOutcome): BridgeCallOutcome => {
      finish();
      if (runningOn) {
        const settle = () => this.#settle(callId);
        runningOn.then(settle, settle);
      } else this.#settle(callId);
      human?.end();
      if (result.ok) {
        this.#record(call, result.name, "ok", started);
        return { ok: true, valueJson: valueJson ?? renderJson(value) };
      }
      const kind = sandboxKind(result.error?.kind ?? "error");
      this.#record(call, result.name, kind, started);
      const hint = result.error?.hint === undefined ? "" : ` Hint: ${result.error.hint}`;
      return {
        ok: false,
        error: { tool: result.name, kind, message: `${result.error?.message ?? result.output}${hint}` },
      };
    };
    const failed = (error: unknown): BridgeCallOutcome => {
      finish();
      this.#settle(callId);
      human?.end();
      this.#record(call, name, "cancelled", started);
      return refused(name, error instanceof Error ? error.message : "The run was cancelled.", "cancelled");
    };
    // Until the tool's own work has settled (it may run on past a timeout or the run's end).
    this.#unsettled.add(callId);
    let outcome: RunCallOutcome | Promise<RunCallOutcome>;
    try {
      outcome = dispatcher.runCallNow(
        { id: callId, name, arguments: argsJson },
        onEvent ? { parent: context, onEvent } : { parent: context },
      );
    } catch (error) {
      return failed(error);
    }
    return outcome instanceof Promise ? outcome.then(done, failed) : done(outcome);
  }

  /** A call's tool has really finished: it no longer holds up {@link settled}. */
  #settle(callId: string): void {
    this.#unsettled.delete(callId);
    if (this.#unsettled.size > 0) return;
    for (const resolve of this.#drained.splice(0)) resolve();
  }

  #record(call: CallName, tool: string, status: CallRecord["status"], started: number): void {
    const record: CallRecord = {
      callId: call.callId,
      tool,
      status,
      durationMs: Math.round(performance.now() - started),
    };
    if (call.requested !== undefined && call.requested !== tool) record.requested = call.requested;
    this.calls.push(record);
  }
}

/**
 * Whether one call from code is waiting for a person, told to the sandbox through `waiting`: while its
 * approval is asked, and while an attempt of a `waitsForHuman` tool runs (for at most the tool's
 * timeout, or the dispatcher's approvalTimeoutMs when the tool has none; after that the clock runs).
 */
class HumanWait {
  readonly #dispatcher: Dispatcher;
  readonly #waiting: (waiting: boolean) => void;
  #approval = false;
  #asking = false;
  #bound: NodeJS.Timeout | undefined;

  /**
   * Whether a call of the tool named `name` may wait for a person: it is gated by `needsApproval` or
   * marked `waitsForHuman`. A name that is not a tool's (the dispatcher repairs it or refuses it) may.
   */
  static mayWait(dispatcher: Dispatcher, name: string): boolean {
    const options = dispatcher.toolset.get(name)?.options;
    if (!options) return true;
    return options.waitsForHuman === true || (options.needsApproval ?? false) !== false;
  }

  /** Whether `event` starts a wait for a person: an approval request, or a `waitsForHuman` tool starting. */
  static concerns(dispatcher: Dispatcher, event: DispatchEvent): boolean {
    if (event.type === "approval_required") return true;
    return event.type === "started" && dispatcher.toolset.get(event.name)?.options.waitsForHuman === true;
  }

  constructor(dispatcher: Dispatcher, waiting: (waiting: boolean) => void) {
    this.#dispatcher = dispatcher;
    this.#waiting = waiting;
  }

  observe(event: DispatchEvent): void {
    switch (event.type) {
      case "approval_required":
        this.#approval = true;
        break;
      case "approval_decided":
        this.#approval = false;
        break;
      case "started": {
        const options = this.#dispatcher.toolset.get(event.name)?.options;
        if (options?.waitsForHuman !== true) return;
        this.#asking = true;
        const timeout = options.timeout;
        // A finite timeout ends the attempt, and with it the pause; without one the pause is bounded here.
        if (timeout === undefined || !Number.isFinite(timeout)) {
          clearTimeout(this.#bound);
          this.#bound = setTimeout(() => {
            this.#asking = false;
            this.#tell();
          }, this.#dispatcher.approvalTimeoutMs);
        }
        break;
      }
      case "retrying":
      case "completed":
      case "failed":
        clearTimeout(this.#bound);
        this.#asking = false;
        break;
      default:
        return;
    }
    this.#tell();
  }

  /** The call is over: the clock runs again. */
  end(): void {
    clearTimeout(this.#bound);
    this.#approval = false;
    this.#asking = false;
    this.#tell();
  }

  #tell(): void {
    this.#waiting(this.#approval || this.#asking);
  }
}

function refused(tool: string, message: string, kind: "limit" | "cancelled" = "limit"): BridgeCallOutcome {
  return { ok: false, error: { tool, kind, message } };
}

/** The kinds code can branch on: invalid_arguments, denied, timeout, error, limit (and cancelled). */
function sandboxKind(kind: FailureKind): CallRecord["status"] {
  switch (kind) {
    case "invalid_arguments":
    case "denied":
    case "timeout":
    case "cancelled":
      return kind;
    case "budget":
    case "limit":
      return "limit";
    default:
      return "error";
  }
}
