/**
 * The words cordon's results use for what went wrong, in one place (docs/failures.md is its table).
 *
 * Three layers, one inside the next:
 * - a tool call's failure has a **kind** ({@link FailureKind}: `ToolResult.error.kind`);
 * - a call made from code is seen by that code as a `ToolCallError` whose `kind` is one of
 *   {@link ToolCallErrorKind} ({@link KIND_IN_CODE} narrows a call's kind to it), and the run records it
 *   with a {@link CallRecordStatus};
 * - a run ends with a **status** ({@link RunStatus}: `CodeRunResult.status`) and, unless `ok`, an error
 *   whose **name** is the model code's own (`TypeError`), code mode's ({@link CodeModeErrorName}), or,
 *   when the sandbox or its environment ended the run, a {@link RunFailureName}, which decides the
 *   status ({@link RUN_FAILURE_STATUS}).
 *
 * The run_code call is a tool call again: `ok` for a run that ended `ok`, kind `paused` for a paused
 * one, kind `error` (with the whole report) for any other.
 *
 * The spelling follows one rule: a value that classifies (a kind, a status) is lowercase snake_case, as
 * JSON enumerations are; an error's name is PascalCase, as JavaScript's own error names are. The model
 * reads these strings and code branches on them, so they do not change; a new one is added here.
 */

/** Why a tool call failed, in a form code can branch on (`ToolResult.error.kind`). */
export type FailureKind =
  /** No tool has the name the call gave, even after name repair. */
  | "unknown_tool"
  /** The arguments do not fit the tool's schema (or are not JSON). Never retried. */
  | "invalid_arguments"
  /** The call needed an approval and was refused (or nobody could decide). */
  | "denied"
  /** An attempt outlived the tool's timeout. */
  | "timeout"
  /** The tool failed: a `ToolError`, or any other exception (its message only). */
  | "error"
  /** The turn or the run was cancelled. */
  | "cancelled"
  /** A budget (`BudgetExceeded`) ran out. */
  | "budget"
  /** A limit of the run refused the call (too many calls, a run that has ended). */
  | "limit"
  /** The call needs a person, and its run pauses instead of waiting (`ToolPaused`). */
  | "paused";

/** Every {@link FailureKind}. */
export const FAILURE_KINDS: readonly FailureKind[] = [
  "unknown_tool",
  "invalid_arguments",
  "denied",
  "timeout",
  "error",
  "cancelled",
  "budget",
  "limit",
  "paused",
];

/**
 * The `kind` of the `ToolCallError` a failed `tools.*` call rejects with in the model's code: a call's
 * {@link FailureKind} as {@link KIND_IN_CODE} narrows it, or one the sandbox gives a call that never
 * reached the host (`cancelled` or `refused` once the run is ending, `limit` past `maxToolCalls`,
 * `unknown_tool` for a name the run does not offer, `bad_result` for an answer that is not JSON).
 */
export type ToolCallErrorKind =
  | "invalid_arguments"
  | "denied"
  | "timeout"
  | "error"
  | "limit"
  | "cancelled"
  | "refused"
  | "unknown_tool"
  | "bad_result";

/** Every {@link ToolCallErrorKind}. */
export const TOOL_CALL_ERROR_KINDS: readonly ToolCallErrorKind[] = [
  "invalid_arguments",
  "denied",
  "timeout",
  "error",
  "limit",
  "cancelled",
  "refused",
  "unknown_tool",
  "bad_result",
];

/**
 * How a call's failure reads in the model's code and in the run's record: the kinds a model can act on
 * keep their name; a name the dispatcher could not resolve is an `error` (its message lists the names
 * that exist), a budget is a `limit`, and a nested call's pause is an `error` (the code cannot wait for
 * it: only the run's own calls pause it).
 */
export const KIND_IN_CODE: Readonly<Record<FailureKind, ToolCallErrorKind & CallRecordStatus>> = {
  unknown_tool: "error",
  invalid_arguments: "invalid_arguments",
  denied: "denied",
  timeout: "timeout",
  error: "error",
  cancelled: "cancelled",
  budget: "limit",
  limit: "limit",
  paused: "error",
};

/**
 * How a call made from code ended, in the run's `calls`: `ok`, the {@link KIND_IN_CODE} of its failure,
 * `paused` (it waits for a person, and the run paused), `planned` (an effect of a plan: its preview
 * stood in, and the tool did not run), or `abandoned` (the run ended while its tool still ran and
 * ignored its abort signal: it may still take effect).
 */
export type CallRecordStatus =
  | "ok"
  | "error"
  | "denied"
  | "invalid_arguments"
  | "timeout"
  | "limit"
  | "cancelled"
  | "abandoned"
  | "paused"
  | "planned";

/** Every {@link CallRecordStatus}. */
export const CALL_RECORD_STATUSES: readonly CallRecordStatus[] = [
  "ok",
  "error",
  "denied",
  "invalid_arguments",
  "timeout",
  "limit",
  "cancelled",
  "abandoned",
  "paused",
  "planned",
];

/**
 * How a run of the model's code ended (`CodeRunResult.status`). `paused` (a run with `approval:
 * "pause"`) and `planned` (`cm.plan`: the effects wait for approval) are code mode's alone; a sandbox
 * ends a run with one of the others.
 */
export type RunStatus = "ok" | "error" | "timeout" | "cancelled" | "limit" | "paused" | "planned";

/** Every {@link RunStatus}. */
export const RUN_STATUSES: readonly RunStatus[] = [
  "ok",
  "error",
  "timeout",
  "cancelled",
  "limit",
  "paused",
  "planned",
];

/**
 * Why the sandbox or its environment ended a run (`result.error.name`): one closed set for every
 * environment, like undici's error codes, so that a caller can switch on it and the same failure has the
 * same name everywhere.
 */
export type RunFailureName =
  /** The run went past its wall-clock limit (`timeoutMs`); cordon's backstop says so too. */
  | "Timeout"
  /** The code used more CPU time than `cpuTimeMs`. */
  | "CpuTimeLimit"
  /** The heap limit (`memoryMb`), a sandbox process's memory budget, or a container's memory ran out. */
  | "MemoryLimit"
  /** The code sent more messages (console lines and tool calls) than its limits allow. */
  | "LimitExceeded"
  /** The code's result is too large to send back. */
  | "ResultTooLarge"
  /** The caller cancelled the run. */
  | "Cancelled"
  /** The sandbox was closed (disposed, its environment closed, its process replaced) during the run. */
  | "Disposed"
  /**
   * An earlier run of the same sandbox changed a built-in the sandbox relies on; the run was refused
   * before it ran (code mode starts the session afresh and runs the code again).
   */
  | "SandboxTampered"
  /** The sandbox, or the process hosting it, stopped unexpectedly or broke the protocol. */
  | "SandboxCrashed"
  /**
   * The process hosting the sandbox stopped while it ran other runs too: which run caused it is not
   * known, so this one is not blamed (a run that had made no tool call is tried again alone first).
   */
  | "SandboxLost"
  /** The process hosting the sandbox stopped answering, or did not stop a run it was told to stop. */
  | "SandboxUnresponsive"
  /** The process hosting the sandbox ran more threads than its budget. */
  | "SandboxOverloaded"
  /** The machine hosting the sandbox (a Docker engine, a `cordon serve` host) could not be reached. */
  | "SandboxUnavailable"
  /** The sandbox server is at its capacity. */
  | "SandboxBusy"
  /** The run could not be started or its code not be sent to the sandbox. */
  | "SandboxError";

/**
 * The status a run ends with for each {@link RunFailureName}: its wall clock is `timeout`, a limit of
 * the code's (CPU, memory, messages, result) is `limit`, a cancelled or closed sandbox `cancelled`, and
 * anything that happened to the sandbox rather than because of the code is `error`.
 */
export const RUN_FAILURE_STATUS: Readonly<Record<RunFailureName, Exclude<RunStatus, "ok" | "paused">>> = {
  Timeout: "timeout",
  CpuTimeLimit: "limit",
  MemoryLimit: "limit",
  LimitExceeded: "limit",
  ResultTooLarge: "limit",
  Cancelled: "cancelled",
  Disposed: "cancelled",
  SandboxTampered: "error",
  SandboxCrashed: "error",
  SandboxLost: "error",
  SandboxUnresponsive: "error",
  SandboxOverloaded: "error",
  SandboxUnavailable: "error",
  SandboxBusy: "error",
  SandboxError: "error",
};

/** Every {@link RunFailureName}. */
export const RUN_FAILURE_NAMES = Object.keys(RUN_FAILURE_STATUS) as readonly RunFailureName[];

/**
 * The names code mode gives a run's error itself, before or after the sandbox ran the code. (A run's
 * error may also carry the model code's own name, such as `TypeError`, with `tool` and `kind` when a
 * failed call it did not catch ended it: its status is then `error`.)
 */
export type CodeModeErrorName =
  /** The code is longer than `MAX_CODE_CHARS`: nothing ran. */
  | "CodeTooLong"
  /** With `typecheck: "block"`: the type check found errors (in `diagnostics`), or ran out of its budget. */
  | "TypeCheckError"
  /** A resumed run asked for something other than what its checkpoint recorded: nothing went live. */
  | "ReplayDiverged"
  /** The run would have paused, but its checkpoint could not be made (too large, a store that failed). */
  | "CheckpointFailed"
  /** The run would have paused, but read the clock or `Math.random` more often than a checkpoint records. */
  | "NotPausable"
  /**
   * A durable run's lease is another process's (it was claimed by `cm.recover` after the lease ran out):
   * this process stopped it, and no call started after.
   */
  | "LeaseLost"
  /** A durable run's journal store failed: the run stopped, and `cm.recover` continues it later. */
  | "JournalFailed";

/** The status a run ends with for each {@link CodeModeErrorName}: code over its length is a `limit`. */
export const CODE_MODE_ERROR_STATUS = {
  CodeTooLong: "limit",
  TypeCheckError: "error",
  ReplayDiverged: "error",
  CheckpointFailed: "error",
  NotPausable: "error",
  LeaseLost: "error",
  JournalFailed: "error",
} as const satisfies Readonly<Record<CodeModeErrorName, Exclude<RunStatus, "ok" | "paused">>>;

/** Whether `name` is one of the {@link RunFailureName}s. */
export function isRunFailureName(name: unknown): name is RunFailureName {
  return typeof name === "string" && Object.hasOwn(RUN_FAILURE_STATUS, name);
}
