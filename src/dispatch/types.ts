import type { BudgetExceeded, RunCancelled } from "../../common/errors.js";
import type { FailureKind } from "../../common/failures.js";
import type { Budget } from "../tools/budget.js";
import type { AnyTool, RunContext, Session, ToolPolicy, ToolRenderer } from "../tools/types.js";
import type { FlowApproval } from "./flow-approval.js";
import type { PausedWork } from "./paused-work.js";
import type { TracingOptions } from "./tracing/options.js";

export type { FlowApproval } from "./flow-approval.js";

/** One tool call as a provider sends it; `arguments` is a JSON string or an already parsed object. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string | Record<string, unknown> | undefined;
}

export type { FailureKind } from "../../common/failures.js";

/**
 * Told of each successful call's raw value (see `Dispatcher.observeResults`): the tool that returned it,
 * the value, and the call's context (whose `deps` say whom the call was made for). It must not change
 * the value; what it throws is ignored.
 */
export type ResultObserver = (tool: AnyTool, value: unknown, ctx: RunContext) => void;

/** The failure part of a result. */
export interface CallFailure {
  kind: FailureKind;
  /** The message without the "Tool error:" prefix. */
  message: string;
  /** A hint for the model, from {@link ToolError}. */
  hint?: string;
  /**
   * For a call whose work paused for a person (kind `paused`, thrown as `ToolPaused`: code mode's
   * run_code with `approval: "pause"`): how to resume it.
   */
  paused?: PausedWork;
}

/** The outcome of one call. Results come in completion order: pair them with calls by `callId`. */
export interface ToolResult {
  callId: string;
  /** The tool's registered name (after name repair), or the name as sent when it was unknown. */
  name: string;
  ok: boolean;
  /** The string the model reads: rendered and truncated, or the error text. */
  output: string;
  /** The raw value `run` returned, when the call succeeded and its output was not truncated. */
  value?: unknown;
  /** Set when `ok` is false. */
  error?: CallFailure;
  /** How many attempts ran (0 when the call never ran). */
  attempts: number;
  /** Whether the output was cut to the output cap. */
  truncated: boolean;
  durationMs: number;
  /** The call that made this one, for calls made from code. */
  parentCallId?: string;
}

/**
 * The answer of an approval handler. `"ask"` defers to the stream consumer or the approvals channel, for
 * as long as someone reads the dispatch's events; with nobody reading, the call is denied.
 */
export type ApprovalAnswer = boolean | "allow" | "deny" | "ask";

/** Decides gated calls when the stream consumer did not. */
export type ApprovalHandler = (request: {
  call: ToolCall;
  toolName: string;
  /** The arguments the tool will receive if the call is allowed (validated and coerced). */
  args: unknown;
  /** The arguments to show first, by the tool's `approvalKeys` (see `approvalLines`). */
  approvalKeys?: readonly string[];
  /** Set when a flow policy sends the call to approval (see {@link FlowApproval}). */
  flow?: FlowApproval;
  ctx: RunContext;
}) => ApprovalAnswer | Promise<ApprovalAnswer>;

interface EventBase {
  callId: string;
  /** The tool's registered name (the name as sent while it is unknown). */
  name: string;
  /** The run_code call that made this call, for calls made from code. */
  parentCallId?: string;
}

/** Everything a dispatch reports, in the order it happens; events of concurrent calls interleave. */
export type DispatchEvent =
  | (EventBase & { type: "requested"; arguments: unknown })
  | (EventBase & {
      type: "approval_required";
      /** The arguments the tool will receive if the call is allowed (validated and coerced). */
      args: unknown;
      /** The arguments to show first, by the tool's `approvalKeys` (see `approvalLines`). */
      approvalKeys?: readonly string[];
      /** Set when a flow policy sends the call to approval (see {@link FlowApproval}). */
      flow?: FlowApproval;
      /** Allow the call. */
      approve(): void;
      /** Deny the call, with a reason the model will read. */
      reject(reason?: string): void;
    })
  | (EventBase & {
      type: "approval_decided";
      approved: boolean;
      by: "consumer" | "handler" | "default";
      reason?: string;
    })
  | (EventBase & { type: "started"; attempt: number })
  | (EventBase & { type: "retrying"; attempt: number; delayMs: number; error: CallFailure })
  | (EventBase & {
      type: "completed";
      value: unknown;
      output: string;
      attempts: number;
      durationMs: number;
      truncated: boolean;
    })
  | (EventBase & {
      type: "failed";
      error: CallFailure;
      output: string;
      attempts: number;
      durationMs: number;
    });

/** The out-of-band approval channel of a dispatch, for decisions from a web endpoint or a bot. */
export interface Approvals {
  /** Allow a call that is waiting for a decision. Returns false when no such call is waiting. */
  approve(callId: string): boolean;
  /** Deny a call that is waiting for a decision. Returns false when no such call is waiting. */
  reject(callId: string, reason?: string): boolean;
  /** Decide every call still waiting, now and later in this dispatch (`false` denies them all). */
  release(decision: boolean): void;
  /** The ids of the calls waiting for a decision now. */
  pending(): string[];
}

/** Every call's result, also when the turn was stopped early, and why it stopped. */
export interface DispatchOutcome {
  /** Exactly one result per call, in completion order; calls a stop kept from running are `cancelled` or `budget` failures. */
  results: ToolResult[];
  /** Set when the turn was cancelled or its budget ran out. */
  stopped?: RunCancelled | BudgetExceeded;
}

/** A running dispatch: iterate it for events, await `results()` for the outcomes. */
export interface DispatchHandle extends AsyncIterable<DispatchEvent> {
  /** Every call's result, in completion order. Rejects with RunCancelled or BudgetExceeded when the turn ended early. */
  results(): Promise<ToolResult[]>;
  /**
   * Resolves once the dispatch is over and every tool invocation it started has really finished. A call
   * ended by its timeout or by cancellation has its result at once, but a tool that ignores its
   * `ctx.signal` may still be running (and may still have effects): this waits for it too. Never rejects;
   * race it with a timer of your own if a tool may never finish.
   */
  settled(): Promise<void>;
  /**
   * Every call's result whatever the outcome: resolves (never rejects for a stopped turn) with one result
   * per call and the reason the turn stopped, if it did. Use it to answer every call of a provider's turn.
   */
  outcome(): Promise<DispatchOutcome>;
  readonly approvals: Approvals;
  /** The id given to the dispatch (`RunContext.runId`). */
  readonly runId: string;
}

/** Options of `Dispatcher.openRun()`. */
export interface OpenRunOptions<Deps = unknown> {
  /** The call the run belongs to (a run_code call): its calls become that call's children. */
  parent?: RunContext;
  /** Aborts the run's calls. */
  signal?: AbortSignal;
  /** Without a parent: the call id of the run's own context (its calls name it as their parent). */
  callId: string;
  /** Without a parent: the tool name the run's context reports (default `run`). */
  toolName?: string;
  /** Without a parent: the run id (default a new UUID), budget, session and deps of the run's turn. */
  runId?: string;
  budget?: Budget;
  session?: Session | string;
  deps?: Deps;
  /**
   * The code the run executes, when it is a code run: the run is then traced as a `cordon.code_run` span
   * (under its parent call's span, else at the root), whose end {@link DispatchRun.end} records.
   */
  code?: string;
}

/** A run opened with `Dispatcher.openRun()`. */
export interface DispatchRun {
  /** Pass as `parent` to dispatch a call of the run. */
  readonly context: RunContext;
  /** Ends the run: its calls still running see their signal abort; later dispatches run nothing. */
  close(): void;
  /**
   * Records how a code run ended on its span and ends the span; call it once, after `close()` and once
   * the run's calls have settled. Does nothing for a run that is not traced.
   */
  end(summary: RunSummary): void;
}

/** How a run ended, as its trace records it (a code mode's `CodeRunResult` is one). */
export interface RunSummary {
  status: string;
  calls: readonly unknown[];
  logs: readonly unknown[];
  error?: { name: string; message: string };
}

/** Options of `Dispatcher.runCall()`. */
export interface RunCallOptions {
  /**
   * The context of the run or call that makes this call (a `DispatchRun`'s context): the call becomes its
   * child, sharing its turn's events, approvals, budget and cancellation.
   */
  parent: RunContext;
  /** Sees every event of this call as it happens; an exception it throws is ignored. */
  onEvent?: (event: DispatchEvent) => void;
  /**
   * For a run that pauses instead of waiting for a person (code mode's `approval: "pause"`), and for the
   * run that resumes it. See {@link PersonPolicy}.
   */
  person?: PersonPolicy;
  /** The call's `ctx.idempotencyKey` (code mode gives `<runId>:<index>`); default: the call's id. */
  idempotencyKey?: string;
  /**
   * The tool the call runs, in place of the toolset's tool of the call's name: for a call of a tool that
   * is not in the toolset (code mode's revert of an effect), which goes through the whole pipeline all
   * the same.
   */
  tool?: AnyTool;
  /**
   * A flow policy sends the call to approval (code mode's `flows`): it is gated as if its tool had
   * `needsApproval: true`, and whoever decides is shown why and which arguments hold labelled data.
   */
  flow?: FlowApproval;
}

/**
 * How a call that needs a person is met without waiting for one. With `pause`, a call whose approval no
 * handler or policy decides at once (the handler answers "ask", or there is none), or whose tool waits
 * for a person (`waitsForHuman`), is neither asked about nor run: its result is a failure of kind
 * `paused`, and `RunCallOutcome.paused` says why, with the validated arguments. A `decision` a person
 * made earlier is applied without asking; an `answer` a person gave earlier is the call's value, and the
 * tool is not run.
 */
export interface PersonPolicy {
  pause?: boolean;
  /**
   * With `pause`, for a run that is pausing: a call that would run (no person needed, or approved on the
   * spot) is not run either; its failure is of kind `paused`, with `paused.kind` `"held"`.
   */
  hold?: boolean;
  decision?: { approved: boolean; reason?: string };
  answer?: string;
  /**
   * How calls of `effect: true` tools are met. `"preview"` (a plan, `cm.plan`): the tool is not run and
   * not asked about; its `preview` gives the call's value (`RunCallOutcome.previewed` says so), and a
   * tool without one pauses for approval. `"gate"` (a plan being carried out): every such call needs a
   * person's `decision`; without one it pauses (with `pause`), whatever the tool's `needsApproval` says.
   */
  effects?: "preview" | "gate";
}

/** What `Dispatcher.runCall()` resolves with. */
export interface RunCallOutcome {
  /** The call's result, as `dispatch()` would give it. */
  result: ToolResult;
  /**
   * The tool's raw value when the call succeeded, also when the rendered output was truncated and
   * `result.value` was dropped: code that called the tool needs the data, not the model's text.
   */
  value?: unknown;
  /**
   * `value` as JSON text (what `renderJson` gives), set when rendering the result already made exactly
   * that (the default rendering of a value that is not a string), so that code mode need not make it
   * again; also when the output was truncated.
   */
  valueJson?: string;
  /**
   * Set when the tool's own work has not settled yet (it ignored a timeout or a cancellation and runs
   * on): resolves once it has.
   */
  runningOn?: Promise<void>;
  /**
   * Set when the call paused (see {@link PersonPolicy}): whether it waits for an approval or for the
   * answer to a question, and its arguments as validated, as the person should see them.
   */
  paused?: { kind: "approval" | "question" | "held"; args: unknown; flow?: FlowApproval };
  /** Set when the call was not run and its value is the tool's preview (see `PersonPolicy.effects`). */
  previewed?: { args: unknown };
}

/** Options of {@link Dispatcher}; per-tool options override the matching defaults. */
export interface DispatcherOptions<Deps = unknown> {
  /** Output cap in characters when a tool sets none. Default {@link DEFAULT_MAX_OUTPUT_CHARS}. */
  maxOutputChars?: number;
  /** How many calls of one dispatch run at once. Default: no limit. */
  maxConcurrency?: number;
  /** Default retries for tools that set none. Default 0. */
  retries?: number;
  /** Default per-attempt timeout in ms for tools that set none. Default: none. */
  timeout?: number;
  /** First backoff delay between attempts, doubled each retry and capped at {@link MAX_RETRY_DELAY_MS}. */
  retryDelay?: number;
  /** Decides gated calls the stream consumer did not decide. */
  approvalHandler?: ApprovalHandler;
  /**
   * How long a gated call may wait for a decision (from the stream consumer, the handler, or a human the
   * handler asks), in ms; then it is denied, saying nobody answered in time. Default
   * {@link DEFAULT_APPROVAL_TIMEOUT_MS} (5 minutes).
   */
  approvalTimeoutMs?: number;
  /** Renders successful values for tools without their own renderer. */
  render?: ToolRenderer;
  /** Policies wrapped around every tool's own policies (outermost first). */
  policies?: readonly ToolPolicy[];
  /** The user's dependencies, as `ctx.deps`. */
  deps?: Deps;
  /**
   * OpenTelemetry spans for dispatches, calls, attempts and code runs (see {@link TracingOptions}); on by
   * default whenever `@opentelemetry/api` is installed and a tracer provider records. `false` turns them off.
   */
  tracing?: TracingOptions | false;
}

/** Options of one dispatch. */
export interface DispatchOptions<Deps = unknown> {
  /** Aborting it cancels the dispatch. */
  signal?: AbortSignal;
  /** The session the calls belong to: a session id, or a session object to share state. */
  session?: string | Session;
  /** Overrides the dispatcher's deps for this dispatch. */
  deps?: Deps;
  /** The run's budget; the dispatcher charges `toolCalls` for each call it executes. */
  budget?: Budget;
  /**
   * Sees every event of this dispatch's own calls as it happens. An observer, not the stream consumer:
   * it cannot answer approvals, and an exception it throws is ignored.
   */
  onEvent?: (event: DispatchEvent) => void;
  /** An id for the dispatch; generated when absent. */
  runId?: string;
  /**
   * The context of the call that makes these calls (a run_code call): the calls become its children,
   * share its turn's events, approvals, budget and cancellation, and carry its id as `parentCallId`.
   */
  parent?: RunContext;
}
