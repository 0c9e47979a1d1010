import type { Budget } from "./budget.js";

/** A JSON Schema object, as sent to a model provider. */
export type JsonSchema = { [key: string]: unknown };

/** The session a call belongs to: an id and a state map that lives as long as the caller keeps it. */
export interface Session {
  id: string;
  state: Map<string, unknown>;
}

/**
 * The live context of one tool call, passed as `run`'s second argument. It never appears in the schema
 * the model sees.
 */
export interface RunContext<Deps = unknown> {
  /** The id of the dispatch (one model turn, or one code run) this call belongs to. */
  readonly runId: string;
  /** The provider's id for this call. */
  readonly callId: string;
  /** The name of the tool being called. */
  readonly toolName: string;
  /** Fires when the call is cancelled, times out, or its run ends. Pass it on to fetch, timers, etc. */
  readonly signal: AbortSignal;
  /** The user's dependencies, given to the dispatcher or to `dispatch`. */
  readonly deps: Deps;
  /** The session the call belongs to, when the caller named one. */
  readonly session: Session | undefined;
  /** The run's budget and what has been spent of it. */
  readonly budget: Budget;
  /** The id of the call that made this one (a `run_code` call, for calls made from code). */
  readonly parentCallId: string | undefined;
  /** 1 for the first attempt, 2 for the first retry, and so on. */
  readonly attempt: number;
  /**
   * The same for every attempt of this call and for the call's replay after a crash: a tool with an
   * effect passes it to the service it changes (an `Idempotency-Key` header, a unique column) so that a
   * call made twice acts once. For a call made from code, `<runId>:<index of the call in the run>` (the
   * same in the first run and in its recovery); for a direct call, the call's id.
   */
  readonly idempotencyKey: string;
}

/** The next step of a policy chain: call it to go on with (possibly changed) arguments. */
export type ToolInvoke = (args: unknown, ctx: RunContext) => Promise<unknown>;

/**
 * Behaviour around one attempt of a call: caching, redaction, rate limiting, custom checks. It receives
 * the next step, the RAW arguments (not validated yet) and the context; it may change the arguments,
 * short-circuit, loop or transform the result. The first policy of a list is the outermost.
 */
export type ToolPolicy = (invoke: ToolInvoke, args: unknown, ctx: RunContext) => unknown | Promise<unknown>;

/** Turns a tool's successful value into the string the model reads. */
export type ToolRenderer = (value: unknown, ctx: RunContext) => string;

/** Whether a call needs a human decision: a fixed answer or a predicate over the validated arguments. */
export type NeedsApproval<Args = unknown> =
  | boolean
  | ((args: Args, ctx: RunContext) => boolean | Promise<boolean>);

/** The knobs of a tool that the dispatcher reads; unset ones fall back to the dispatcher's defaults. */
export interface ToolOptions<Args = unknown> {
  /** The schema the model sees is made OpenAI-strict (see {@link tool}). */
  strict?: boolean;
  /** `false` makes the tool a barrier: it runs alone, after every call already running has finished. */
  parallel?: boolean;
  /** Attempts after the first one when a call fails (not for invalid arguments, cancellation, budget). */
  retries?: number;
  /**
   * Milliseconds one attempt may take, counted from before `run` is called; on expiry the attempt's
   * signal aborts. Synchronous work cannot be interrupted: a `run` that blocks the event loop past the
   * deadline fails as a timeout once it returns (its message says so), and meanwhile no other call runs,
   * so keep `run` async and move heavy work off the main thread. `Infinity`: no timeout, even when the
   * dispatcher has a default (for a tool that keeps its own deadline, like run_code).
   */
  timeout?: number;
  /** Cap on the rendered output, in characters. */
  maxOutputChars?: number;
  /** A human must allow the call first. */
  needsApproval?: NeedsApproval<Args>;
  /**
   * The arguments that decide whether a person should allow a call (an amount, an account), shown
   * first when one is asked. Every other argument is shown too, after them.
   */
  approvalKeys?: readonly string[];
  /**
   * The tool waits for a person while it runs (as `ask_human` does). Called from run_code, that time
   * does not count against the run's wall clock, like time waiting for an approval: the clock stops from
   * the start of each attempt to its end, for at most the tool's `timeout`, or the dispatcher's
   * `approvalTimeoutMs` when the tool has none.
   */
  waitsForHuman?: boolean;
  /** Behaviour wrapped around each attempt; the first is the outermost. */
  policies?: readonly ToolPolicy[];
  /** Turns a successful value into the model's string. */
  render?: ToolRenderer;
  /**
   * The tool changes nothing outside the session: it writes no files, runs no commands and changes no
   * state beyond the conversation. `Toolset.readOnly()` (a plan mode's toolset) keeps only such tools,
   * and code mode's declarations mark them.
   */
  readOnly?: boolean;
  /**
   * Calling the tool twice with the same `ctx.idempotencyKey` acts once (the tool or its service
   * dedupes by the key). A durable run's recovery calls such a tool again when a crash left its outcome
   * unknown; any other call with an unknown outcome waits for a person (see docs/durability.md).
   */
  idempotent?: boolean;
  /** The tool changes something outside the run: it has effects. */
  effect?: boolean;
  /**
   * Undoes one successful call of the tool, given the call's arguments (as validated), its result (as
   * the code received it: the value's JSON form) and the revert call's own context (its
   * `idempotencyKey` is the call's key with `.revert` after it). Its return value is only reported;
   * throwing means the revert failed. A tool with a revert has effects even without `effect: true`.
   * Code mode reverts a failed run's effects with it (`onFailure: "revert"`, `cm.revert(result)`), each
   * revert a dispatcher call of its own; see docs/effects.md.
   */
  revert?: (args: Args, result: unknown, ctx: RunContext) => unknown;
  /**
   * For an `effect` tool: what a call would return, made without the effect (`cm.plan` gives it to the
   * code in place of running the tool, and lists the call for a person to approve). Its result must
   * match the tool's output schema when it has one.
   */
  preview?: (args: Args, ctx: RunContext) => unknown;
  /**
   * The tool may be handed to a sub-agent (`Toolset.forSubagent()`), as a shallow copy. Default: true
   * for read-only tools, false otherwise. Declaring it promises that the copy, and every dependency it
   * still shares with the original (clients, pools, closures), can be used by both at once.
   */
  copiesToSubagents?: boolean;
  /**
   * Whether code mode learns the shape of this tool's successful results (a hint shown as
   * `Returns (observed): ...`, never a validation). Default true; only tools without an output schema are
   * observed. `false` for a tool whose results vary too much to describe, or whose shape must not be shown.
   */
  observeResults?: boolean;
  /**
   * What the tool's results carry: `"untrusted"` for text someone else wrote (a web page, an e-mail),
   * your own such as `"private"`. A code mode's `flows` say which labels may not reach which tools: once
   * a run has received an outcome of this tool (a value or an error), its later calls to those tools are
   * denied or sent to approval, and what the run returns reaches the model fenced (docs/effects.md).
   */
  labels?: readonly string[];
}

/** The outcome of checking arguments against a tool's input schema. */
export type ValidationResult<Args> =
  | { ok: true; value: Args }
  | { ok: false; issues: { path: string; message: string }[] };

/**
 * A tool: a plain object. {@link tool} builds one from a schema and a function; factories may build
 * one directly.
 */
export interface Tool<Args = unknown, Result = unknown> {
  readonly name: string;
  /** What the model reads to decide when and how to call the tool. */
  readonly description: string;
  /** JSON Schema of the arguments as the model should send them (an object schema). */
  readonly parameters: JsonSchema;
  /**
   * For a strict tool: the JSON Schema of the arguments before strict mode rewrote it (optional fields
   * stay optional instead of required and nullable). Code mode declares `tools.<name>(args)` from it,
   * since code may leave optional fields out. Unset when it would equal `parameters`.
   */
  readonly looseParameters?: JsonSchema;
  /** JSON Schema of the value `run` returns, when known. */
  readonly outputSchema: JsonSchema | undefined;
  /**
   * Checks and coerces raw arguments (an object already parsed from JSON): numeric and boolean strings
   * are converted where the schema wants numbers or booleans, and (in strict mode) nulls sent for
   * optional fields are removed. Must not throw.
   */
  validate(args: unknown): ValidationResult<Args> | Promise<ValidationResult<Args>>;
  /** Runs the tool on arguments that `validate` accepted. */
  run(args: Args, ctx: RunContext): Result | Promise<Result>;
  readonly options: ToolOptions<Args>;
}

/** A tool of any argument and result type, as collections hold them. */
// biome-ignore lint/suspicious/noExplicitAny: a collection must accept tools of every argument type.
export type AnyTool = Tool<any, unknown>;
