import type { Dispatcher } from "../dispatch/dispatcher.js";
import { renderJson } from "../dispatch/render.js";
import { Semaphore } from "../dispatch/semaphore.js";
import type { DispatchHandle, FailureKind, ToolResult } from "../dispatch/types.js";
import type { RunContext, Session } from "../tools/types.js";
import type { BridgeCallOutcome, LogEntry, SandboxBridge } from "./environment.js";
import type { CodeModeLimits } from "./limits.js";
import type { CallRecord } from "./result.js";

/** What a run's bridge needs from the run. */
export interface RunBridgeInit {
  dispatcher: Dispatcher;
  limits: CodeModeLimits;
  /** The run_code call's context, when the run was dispatched; its calls become children of it. */
  parent: RunContext | undefined;
  session: Session | string | undefined;
  /** Aborts when the run ends: in-flight calls see it, and later calls are refused. */
  signal: AbortSignal;
  /** The prefix of the ids of the calls the code makes. */
  callIdPrefix: string;
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

  constructor(init: RunBridgeInit) {
    this.#init = init;
    this.#slots = new Semaphore(init.limits.maxConcurrentCalls);
  }

  log(entry: LogEntry): void {
    if (!this.#init.signal.aborted) this.logs.push(entry);
  }

  async callTool(name: string, argsJson: string): Promise<BridgeCallOutcome> {
    const { limits, signal } = this.#init;
    if (signal.aborted) return refused(name, "The run has ended; no more tool calls are accepted.");
    this.#count++;
    if (this.#count > limits.maxToolCalls) {
      return refused(
        name,
        `run_code allows at most ${limits.maxToolCalls} tool calls per run; this was call ${this.#count}.`,
      );
    }
    const callId = `${this.#init.callIdPrefix}.${this.#count}`;
    const release = await this.#slots.acquire();
    try {
      if (signal.aborted) return refused(name, "The run has ended; no more tool calls are accepted.");
      return await this.#dispatch(callId, name, argsJson);
    } finally {
      release();
    }
  }

  async #dispatch(callId: string, name: string, argsJson: string): Promise<BridgeCallOutcome> {
    const { dispatcher, parent, session, signal } = this.#init;
    const started = performance.now();
    const handle: DispatchHandle = dispatcher.dispatch([{ id: callId, name, arguments: argsJson }], {
      ...(parent ? { parent } : {}),
      ...(session === undefined ? {} : { session }),
      signal,
    });
    // The raw value comes from the completed event: the result drops it when the rendered output was
    // truncated, but the code needs the data, not the model's text.
    let value: unknown;
    for await (const event of handle) {
      if (event.type === "completed" && event.callId === callId) value = event.value;
    }
    let result: ToolResult;
    try {
      [result] = (await handle.results()) as [ToolResult];
    } catch (error) {
      this.#record(callId, name, "cancelled", started);
      return refused(name, error instanceof Error ? error.message : "The run was cancelled.", "cancelled");
    }
    if (result.ok) {
      this.#record(callId, result.name, "ok", started);
      return { ok: true, valueJson: renderJson(value) };
    }
    const kind = sandboxKind(result.error?.kind ?? "error");
    this.#record(callId, result.name, kind, started);
    const hint = result.error?.hint === undefined ? "" : ` Hint: ${result.error.hint}`;
    return {
      ok: false,
      error: { tool: result.name, kind, message: `${result.error?.message ?? result.output}${hint}` },
    };
  }

  #record(callId: string, tool: string, status: CallRecord["status"], started: number): void {
    this.calls.push({ callId, tool, status, durationMs: Math.round(performance.now() - started) });
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
