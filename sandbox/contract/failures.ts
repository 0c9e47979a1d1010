/**
 * A run the sandbox or its environment ended, rather than the model's code throwing: its error is named
 * by one of the {@link RunFailureName}s (common/failures.ts, where every failure word of cordon is), and
 * that name decides the run's status.
 */

import { isRunFailureName, RUN_FAILURE_STATUS, type RunFailureName } from "../../common/failures.js";
import type { ExecutionOutcome, SandboxError } from "./environment.js";

export { isRunFailureName, type RunFailureName };

/** A run the sandbox or its environment ended: the status its failure's name gives, and the error. */
export function runEnding(
  name: RunFailureName,
  message: string,
): { status: ExecutionOutcome["status"]; error: SandboxError } {
  return { status: RUN_FAILURE_STATUS[name], error: { name, message } };
}
