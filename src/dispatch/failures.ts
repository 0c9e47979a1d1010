import {
  BudgetExceeded,
  InvalidToolArguments,
  messageOf,
  RunCancelled,
  ToolError,
} from "../../common/errors.js";
import { ToolPaused } from "./paused-work.js";
import type { CallFailure } from "./types.js";

/** Raised inside the dispatcher when an attempt outlives its per-attempt timeout. */
export class AttemptTimedOut extends Error {
  override name = "AttemptTimedOut";
  /**
   * True when the deadline passed while synchronous work blocked the event loop, so the tool ran to its
   * end (or through its blocking part) anyway: its effect may have happened, and it is not retried.
   */
  readonly ranOn: boolean;

  constructor(message: string, options: { ranOn?: boolean } = {}) {
    super(message);
    this.ranOn = options.ranOn === true;
  }
}

/** Classifies what an attempt threw into the failure the model and the caller see. */
export function failureFrom(error: unknown, toolName: string): CallFailure {
  if (error instanceof InvalidToolArguments) return { kind: "invalid_arguments", message: error.message };
  if (error instanceof AttemptTimedOut) return { kind: "timeout", message: error.message };
  if (error instanceof RunCancelled) return { kind: "cancelled", message: error.message };
  if (error instanceof BudgetExceeded) return { kind: "budget", message: error.message };
  if (error instanceof ToolPaused) return { kind: "paused", message: error.message, paused: error.paused };
  if (error instanceof ToolError) {
    return error.hint === undefined
      ? { kind: "error", message: error.message }
      : { kind: "error", message: error.message, hint: error.hint };
  }
  // Any other exception: its message only, never the host's stack trace.
  return { kind: "error", message: `${toolName} failed: ${messageOf(error)}` };
}

/** Whether another attempt could change the outcome. */
export function isRetryable(failure: CallFailure): boolean {
  return failure.kind === "error" || failure.kind === "timeout";
}

/** The text the model reads for a failed call. Renderers never see it. */
export function failureOutput(failure: CallFailure): string {
  const hint = failure.hint === undefined ? "" : `\nHint: ${failure.hint}`;
  return `Tool error: ${failure.message}${hint}`;
}

/** Formats milliseconds for a message: `250 ms`, `2 s`, `1.5 s`, `10 min`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms >= 120_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
