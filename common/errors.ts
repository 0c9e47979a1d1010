/**
 * The errors cordon raises or understands. Each one has a stable `name` so that it can be recognised
 * after crossing a boundary where `instanceof` no longer works (a sandbox, a worker, a wire).
 */

/** A message written for the model on purpose: thrown from a tool's `run`, it reaches the model as is. */
export class ToolError extends Error {
  override name = "ToolError";
  /** An extra sentence telling the model what to do differently. */
  readonly hint: string | undefined;

  constructor(message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.hint = options.hint;
  }
}

/** One failing path in a tool's arguments. */
export interface ArgumentIssue {
  /** Where the problem is, like `items[2].qty`; empty for the arguments object itself. */
  path: string;
  /** What was expected there, written for the model. */
  message: string;
}

/**
 * The model sent arguments that do not fit the tool's schema (or are not JSON at all). Deterministic:
 * it is never retried, and the message names every failing path so the model can fix the call at once.
 */
export class InvalidToolArguments extends Error {
  override name = "InvalidToolArguments";
  readonly toolName: string;
  readonly issues: readonly ArgumentIssue[];

  constructor(toolName: string, issues: readonly ArgumentIssue[], options: { cause?: unknown } = {}) {
    super(formatArgumentIssues(toolName, issues), { cause: options.cause });
    this.toolName = toolName;
    this.issues = issues;
  }
}

/** How many failing paths an {@link InvalidToolArguments} message lists before it summarises the rest. */
const MAX_LISTED_ARGUMENT_ISSUES = 12;

function formatArgumentIssues(toolName: string, issues: readonly ArgumentIssue[]): string {
  const listed = issues.slice(0, MAX_LISTED_ARGUMENT_ISSUES).map((issue) => {
    const where = issue.path === "" ? "(arguments)" : issue.path;
    return `- ${where}: ${issue.message}`;
  });
  if (issues.length > MAX_LISTED_ARGUMENT_ISSUES) {
    listed.push(`- and ${issues.length - MAX_LISTED_ARGUMENT_ISSUES} more`);
  }
  return `Invalid arguments for ${toolName}:\n${listed.join("\n")}`;
}

/**
 * The run was cancelled. Thrown by a tool (or raised when the turn's signal aborts), it ends the whole
 * turn: calls not yet started never start and calls in flight see their AbortSignal fire.
 */
export class RunCancelled extends Error {
  override name = "RunCancelled";

  constructor(message = "The run was cancelled.", options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
  }
}

/**
 * A budget ran out. Raised by the run's own budget it ends the run at the next safe point; raised by
 * any other budget (a nested or delegated run's) it is an ordinary error result.
 */
export class BudgetExceeded extends Error {
  override name = "BudgetExceeded";
  /** The budget that ran out; compared by identity with the run's own budget. */
  readonly budget: object | undefined;
  /** Which resource ran out, like `toolCalls`. */
  readonly resource: string;

  constructor(message: string, options: { budget?: object; resource?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.budget = options.budget;
    this.resource = options.resource ?? "unknown";
  }
}

/**
 * A misconfiguration in the host's code, found when a tool is defined or registered, or when a code mode
 * or dispatcher is made or used wrongly: the message says how to fix it.
 */
export class UserError extends Error {
  override name = "UserError";
}

/**
 * A command a person typed that does not fit: a direct command (`,get_order A123`, see
 * `Toolset.parseCommand`) that does not fit its tool, or the `cordon` command used wrongly (a bad flag, a
 * missing file, a tools module that does not load; the command then exits 2). It is for the person who
 * typed it, not for a model: the message says what was wrong and how it is used. A misconfiguration in
 * code (a tool defined wrongly, bad options) is a {@link UserError} instead.
 */
export class UsageError extends Error {
  override name = "UsageError";
  /** The tool the command named, when it named a known one. */
  readonly toolName: string | undefined;

  constructor(message: string, options: { toolName?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.toolName = options.toolName;
  }
}

/** The message of any thrown value, without a stack trace. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === "string") return error;
  try {
    return String(error);
  } catch {
    return "unknown error";
  }
}
